"""``errkb ci``: the distinct failures of a whole CI log, as GitHub annotations and step summary, a GitLab
section, Markdown or JSON. Exit codes as grep's: 0 recognised, 1 nothing recognised, 2 bad usage.

Also the whole-file reading of ``errkb diagnose`` for a paste longer than the matcher's window
(``MAX_PASTE_CHARS``): the windows around its error lines are matched, not only its tail.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import IO, BinaryIO, cast

from bot import i18n
from bot.cards import Diagnosis
from bot.ci.cards import explained
from bot.ci.failures import failures
from bot.ci.tail import Tail
from bot.cli_knowledge import store_wanted, with_knowledge
from bot.config import Settings
from bot.errors import UsageError
from bot.render import ci as ci_render
from bot.render.family import FamilyCard, family_github, family_json, family_markdown, family_text
from bot.service.families import family_card
from bot.service.knowledge import MAX_PASTE_CHARS, Knowledge

FORMATS = ("github", "gitlab", "markdown", "json")


def default_format(environ: dict[str, str] | None = None) -> str:
    """github inside GitHub Actions, gitlab inside GitLab CI, else markdown."""
    env = os.environ if environ is None else environ
    if env.get("GITHUB_ACTIONS") == "true":
        return "github"
    if env.get("GITLAB_CI") == "true":
        return "gitlab"
    return "markdown"


@contextmanager
def open_log(source: str | None) -> Iterator[BinaryIO]:
    """The log as bytes: a file, or standard input for ``-`` (or nothing, when piped)."""
    if source in (None, "-"):
        if source is None and sys.stdin.isatty():
            raise UsageError("no input: give a FILE, or pipe the log into standard input (errkb ci -)")
        yield sys.stdin.buffer
        return
    try:
        stream = Path(source).open("rb")  # noqa: SIM115 (closed below, once the log has been read)
    except OSError as exc:
        raise UsageError(f"cannot read {source}: {exc.strerror or exc}") from exc
    with stream:
        yield stream


def read_failures(source: str | None, settings: Settings) -> tuple[list[ci_render.CiFailure], FamilyCard | None]:
    """The log's recognised failures; when there are none, the family answer for its final error (a documented
    code no entry knows: the official page for that code, no fix), or None."""
    with open_log(source) as stream:
        async def work(service: Knowledge) -> tuple[list[ci_render.CiFailure], FamilyCard | None]:
            tail = Tail(stream, MAX_PASTE_CHARS)
            try:
                found = failures(cast(BinaryIO, tail), service)
            except OSError as exc:
                raise UsageError(f"cannot read {source or 'standard input'}: {exc.strerror or exc}") from exc
            return await explained(service, found), None if found else family_card(service.kb.families, tail.text())

        return asyncio.run(with_knowledge(settings, store_wanted(settings), work))


def emit(found: list[ci_render.CiFailure], fmt: str, out: IO[str], environ: dict[str, str] | None = None,
         family: FamilyCard | None = None) -> None:
    """Print ``found`` in ``fmt``; the github format also appends the summary to ``$GITHUB_STEP_SUMMARY``.
    ``family``: the family answer for a log with no recognised failure, labelled "No fix known yet"."""
    env = os.environ if environ is None else environ
    if fmt == "json":
        report = ci_render.json_report(found, i18n.reading_locale())
        if family is not None:
            report["family"] = family_json(family)
        out.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
    elif fmt == "gitlab":
        out.write(ci_render.gitlab(found) + (family_text(family) + "\n" if family is not None else ""))
    elif fmt == "github":
        out.write(ci_render.github(found) + (family_github(family) if family is not None else ""))
        if (path := env.get("GITHUB_STEP_SUMMARY")) and (found or family is not None):
            try:
                with open(path, "a", encoding="utf-8") as summary_file:
                    summary_file.write(_markdown(found, family) + "\n")
            except OSError as exc:
                raise UsageError(f"GITHUB_STEP_SUMMARY: cannot append to {path}: {exc.strerror or exc}") from exc
    else:
        out.write(_markdown(found, family))


def _markdown(found: list[ci_render.CiFailure], family: FamilyCard | None) -> str:
    return ci_render.markdown(found) + ("\n" + family_markdown(family) if family is not None else "")


def cmd_ci(args: argparse.Namespace, settings: Settings) -> int:
    fmt = args.format or default_format()
    if not args.from_github_run:
        if args.pr_comment or args.run_id:
            raise UsageError("--pr-comment and --run-id go with --from-github-run")
        found, family = read_failures(args.file, settings)
        emit(found, fmt, sys.stdout, family=family)
        if args.slack_channel:
            from bot.cli_ci_run import slack_post

            slack_post(args.slack_channel, found, settings, None)
        return 0 if found else 1
    from bot import cli_ci_run

    if args.file:
        raise UsageError("--from-github-run reads the run's failed jobs through the API: give no FILE")
    run = cli_ci_run.GitHubRun.from_env(os.environ, args.run_id)
    jobs, found = cli_ci_run.read_run(run, settings)
    if not jobs:
        print(f"errkb: run {run.run_id} has no failed job", file=sys.stderr)
        return 1
    emit(found, fmt, sys.stdout)
    if args.pr_comment:
        cli_ci_run.pr_comment(run, found)
    if args.slack_channel:
        cli_ci_run.slack_post(args.slack_channel, found, settings, run.url)
    return 0 if found else 1


async def whole_diagnosis(paste: str, service: Knowledge, limit: int) -> Diagnosis:
    """``errkb diagnose`` on a paste too long for one match: the best matches of its windows, each entry once,
    their spans the whole line of the paste they are on."""
    found = failures(io.BytesIO(paste.encode("utf-8", "surrogatepass")), service)[:limit]
    return await service.explain([replace(f.match, span=_line_span(paste, f.line)) for f in found], record=False)


def _line_span(text: str, number: int) -> tuple[int, int]:
    """The offsets of line ``number`` (1-based) of ``text``."""
    start = 0
    for _ in range(number - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return len(text), len(text)
    stop = text.find("\n", start)
    return start, len(text) if stop < 0 else stop


def add_ci_commands(add: Callable[..., argparse.ArgumentParser]) -> None:
    p = add("ci", cmd_ci, "Report each distinct failure errkb recognises in a whole CI log (GitHub Actions, "
            "GitLab CI, any other).")
    p.add_argument("file", nargs="?", help="the CI log, or - for standard input")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="github (annotations, and the step summary when GITHUB_STEP_SUMMARY is set), gitlab "
                   "(a collapsible section), markdown or json; default: github when GITHUB_ACTIONS=true, gitlab "
                   "when GITLAB_CI=true, else markdown")
    p.add_argument("--from-github-run", action="store_true",
                   help="read the logs of the failed jobs of this GitHub Actions run through the REST API "
                   "(GITHUB_REPOSITORY, GITHUB_RUN_ID, GITHUB_TOKEN, GITHUB_API_URL), instead of a FILE")
    p.add_argument("--run-id", help="--from-github-run: another run of the repository than GITHUB_RUN_ID")
    p.add_argument("--pr-comment", action="store_true",
                   help="--from-github-run: keep one comment on the event's pull request (GITHUB_EVENT_PATH) "
                   "up to date, edited in place on later runs")
    p.add_argument("--slack-channel", metavar="CHANNEL",
                   help="also post the answers to this Slack channel with SLACK_BOT_TOKEN (vote buttons when "
                   "errkb serve answers at ERRKB_SERVE_URL)")
