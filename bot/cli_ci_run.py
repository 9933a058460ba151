"""``errkb ci --from-github-run``: the failed jobs of a GitHub Actions run, read through the REST API with the
workflow's token, explained as ``errkb ci`` explains one log; ``--pr-comment`` keeps one comment on the pull
request up to date, ``--slack-channel`` posts the same answers to Slack. The GitHub Action runs this.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bot.ci import slack as ci_slack
from bot.ci.cards import explained
from bot.ci.failures import Failure, failures
from bot.ci.github import GitHub, GitHubError, Job, pull_request_number
from bot.cli_knowledge import store_wanted, with_knowledge
from bot.config import Settings
from bot.errors import ConfigError, UsageError
from bot.render import ci as ci_render
from bot.service.knowledge import Knowledge

SERVER_URL = "https://github.com"


@dataclass(frozen=True)
class GitHubRun:
    """The run errkb reads, from the variables a runner sets."""

    repository: str
    run_id: str
    token: str
    api_url: str | None
    server_url: str
    event_path: str | None

    @classmethod
    def from_env(cls, environ: Mapping[str, str], run_id: str | None = None) -> GitHubRun:
        def need(name: str, what: str) -> str:
            value = environ.get(name, "").strip()
            if not value:
                raise ConfigError(name, f"not set: {what} (a GitHub Actions runner sets it; "
                                        "the Action passes the workflow's token)")
            return value

        repository = need("GITHUB_REPOSITORY", "the repository, owner/name")
        run = (run_id or "").strip() or need("GITHUB_RUN_ID", "the run whose failed jobs to read, or give --run-id")
        if not run.isdigit():
            raise UsageError(f"--run-id: {run!r} is not a run id (a number)")
        return cls(repository, run, need("GITHUB_TOKEN", "a token that may read the run's logs"),
                   environ.get("GITHUB_API_URL") or None, (environ.get("GITHUB_SERVER_URL") or SERVER_URL).rstrip("/"),
                   environ.get("GITHUB_EVENT_PATH") or None)

    @property
    def url(self) -> str:
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"

    def client(self) -> GitHub:
        return GitHub(self.repository, self.token, self.api_url)

    def pull_request(self) -> int | None:
        """The pull request of the event that started the workflow, when it is about one."""
        if not self.event_path:
            return None
        try:
            event: Any = json.loads(Path(self.event_path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"GITHUB_EVENT_PATH: cannot read {self.event_path}: {exc}") from exc
        return pull_request_number(event) if isinstance(event, dict) else None


def _in_job(job: Job, found: Failure) -> Failure:
    return replace(found, step=f"{job.name} › {found.step}" if found.step else job.name)


def read_run(run: GitHubRun, settings: Settings) -> tuple[list[Job], list[ci_render.CiFailure]]:
    """The run's failed jobs, and the distinct failures errkb recognises in their logs (each entry once, in the
    first job it is found in; the step named after its job). A log that cannot be had is skipped, said so."""
    github = run.client()
    jobs = github.failed_jobs(run.run_id)
    with tempfile.TemporaryDirectory(prefix="errkb-logs-") as tmp:
        logs: list[tuple[Job, Path]] = []
        for job in jobs:
            path = Path(tmp) / f"{job.id}.log"
            try:
                with path.open("wb") as out:
                    github.download_log(job.id, out)
            except GitHubError as exc:
                print(f"errkb: job {job.name!r}: {exc}", file=sys.stderr)
                continue
            logs.append((job, path))

        async def work(service: Knowledge) -> list[ci_render.CiFailure]:
            seen: dict[str, Failure] = {}
            for job, path in logs:
                with path.open("rb") as stream:
                    for found in failures(stream, service):
                        seen.setdefault(found.match.entry_id, _in_job(job, found))
            return await explained(service, list(seen.values()))

        result = asyncio.run(with_knowledge(settings, store_wanted(settings), work)) if logs else []
    return jobs, result


def comment_body(found: list[ci_render.CiFailure], run: GitHubRun) -> str:
    return f"{ci_render.markdown(found).rstrip()}\n\n{run.url}\n"


def pr_comment(run: GitHubRun, found: list[ci_render.CiFailure]) -> None:
    """Keep errkb's one comment on the run's pull request: updated in place, posted only once and only when
    something was recognised (an earlier comment is updated even when nothing was, so it never goes stale)."""
    number = run.pull_request()
    if number is None:
        print("errkb: --pr-comment: the workflow's event is not about a pull request; no comment",
              file=sys.stderr)
        return
    what, comment_id = run.client().upsert_comment(number, comment_body(found, run), create=bool(found))
    if what != "none":
        print(f"errkb: comment {comment_id} {what} on pull request #{number}", file=sys.stderr)


def slack_post(channel: str, found: list[ci_render.CiFailure], settings: Settings, run_url: str | None,
               environ: Mapping[str, str] | None = None) -> None:
    """Post the answers to ``channel`` with SLACK_BOT_TOKEN (nothing when nothing was recognised)."""
    env = os.environ if environ is None else environ
    if not found:
        return
    if not settings.bot_token:
        raise ConfigError("SLACK_BOT_TOKEN", "not set: --slack-channel posts with the errkb app's bot token (xoxb-…)")
    buttons = ci_slack.serve_ready(env.get("ERRKB_SERVE_URL"))
    ci_slack.post(channel, ci_slack.run_message(found, run_url, buttons), settings.bot_token, settings.api_url)
