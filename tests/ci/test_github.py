"""The GitHub Action (``action.yml``) and ``errkb ci --from-github-run``, against a fake GitHub REST API over
real HTTP (``tests/support/fake_github.py``) and a fake Slack: the action's own run step is executed by bash
with the environment a runner sets, its ``${{ }}`` expressions filled in as a runner would. Also the GitLab
CI template's shape."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.ci.github import MARKER, pull_request_number
from tests.conftest import REPO
from tests.support import ci_logs
from tests.support.fake_github import REPOSITORY, RUN_ID, TOKEN, FakeGitHub
from tests.support.fake_slack import TOKEN as SLACK_TOKEN
from tests.support.fake_slack import FakeSlack

ACTION = REPO / "action.yml"
GITLAB_TEMPLATE = REPO / "ci-templates" / "gitlab" / "errkb.gitlab-ci.yml"
PR_NUMBER = 17
STEP = "test (3.11) › Run pytest tests"


@dataclass
class StepResult:
    code: int
    out: str
    err: str
    summary: str
    outputs: str


def _action() -> dict[str, Any]:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def _evaluate(text: str, context: dict[str, Any]) -> str:
    """``${{ a.b || c.d }}`` as a runner evaluates the few expressions action.yml uses: dotted lookups, ``||``."""
    def one(found: re.Match[str]) -> str:
        for operand in found.group(1).split("||"):
            value: Any = context
            for part in operand.strip().split("."):
                value = value.get(part) if isinstance(value, dict) else None
            if value not in (None, "", False):
                return str(value)
        return ""

    return re.sub(r"\$\{\{\s*(.+?)\s*\}\}", one, text)


@pytest.fixture
async def github() -> Any:
    fake = await FakeGitHub().start()
    yield fake
    await fake.stop()


@pytest.fixture
def job_log(tmp_path: Path) -> bytes:
    """A GitHub Actions job log: a missing module in the ``pytest tests`` step, amid 2000 INFO lines."""
    path = ci_logs.write(tmp_path / "job.log", ci_logs.github_lines(2000, [(0.5, "pytest tests", ci_logs.NO_MODULE)]))
    return path.read_bytes()


@pytest.fixture
def runner(tmp_path: Path) -> dict[str, str]:
    """What a runner puts in a step's environment (and no proxy: the fakes are on 127.0.0.1)."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "synchronize", "number": PR_NUMBER,
                                 "pull_request": {"number": PR_NUMBER, "head": {"ref": "fix"}}}), encoding="utf-8")
    home = tmp_path / "runner"
    (home / "temp").mkdir(parents=True)
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home), "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": REPOSITORY,
        "GITHUB_RUN_ID": str(RUN_ID), "GITHUB_SERVER_URL": "https://github.com", "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event), "GITHUB_STEP_SUMMARY": str(home / "summary.md"),
        "GITHUB_OUTPUT": str(home / "output"), "GITHUB_ENV": str(home / "env"), "GITHUB_PATH": str(home / "path"),
        "RUNNER_TEMP": str(home / "temp"), "RUNNER_OS": "Linux",
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/none.db", "ERRKB_SEEDS": str(REPO / "seeds"),
        "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
    }
    for name in ("summary.md", "output", "env", "path"):
        (home / name).write_text("", encoding="utf-8")
    return env


async def run_step(runner: dict[str, str], github: FakeGitHub, cwd: Path, **inputs: str) -> StepResult:
    """Run action.yml's ``Explain the failed jobs`` step as a runner does: its env with the inputs (their
    defaults filled in), then ``bash --noprofile --norc -eo pipefail`` on its script."""
    action = _action()
    values = {name: spec.get("default", "") for name, spec in action["inputs"].items()} | inputs
    context = {"github": {"token": TOKEN, "run_id": str(RUN_ID), "action_path": str(REPO), "event": {}}}
    context["inputs"] = {name: _evaluate(str(value), context) for name, value in values.items()}
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "errkb")
    env = dict(runner, GITHUB_API_URL=github.api_url)
    env |= {name: _evaluate(str(value), context) for name, value in step["env"].items()}
    script = cwd / "step.sh"
    script.write_text(step["run"], encoding="utf-8")
    process = await asyncio.create_subprocess_exec(
        "bash", "--noprofile", "--norc", "-eo", "pipefail", str(script), cwd=cwd, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 120)
    home = Path(runner["HOME"])
    return StepResult(process.returncode or 0, out.decode(), err.decode(),
                      (home / "summary.md").read_text(encoding="utf-8"), (home / "output").read_text(encoding="utf-8"))


def _failed_run(github: FakeGitHub, log: bytes) -> None:
    github.add_job("lint", "success", b"All checks passed!\n")
    github.add_job("test (3.11)", "failure", log)
    github.add_job("test (3.12)", "cancelled", b"")


async def test_the_action_annotates_summarises_and_keeps_one_pr_comment(github, job_log, runner, tmp_path):
    _failed_run(github, job_log)
    first = await run_step(runner, github, tmp_path, **{"pr-comment": "true"})
    assert first.code == 0, first.err
    assert "exit-code=0" in first.outputs
    (annotation,) = first.out.splitlines()
    assert annotation.startswith("::error title=") and "No module named" in annotation
    assert STEP in annotation
    assert "## errkb recognised 1 failure in this log" in first.summary and STEP in first.summary
    # only the failed job's log, through the redirect; the token never goes to the log's host
    assert [c.path for c in github.called("GET", "/actions/jobs/")] == [f"/repos/{REPOSITORY}/actions/jobs/9002/logs"]
    (blob,) = github.called("GET", "/blob/")
    assert blob.token is None
    assert all(c.token == TOKEN for c in github.calls if "/blob/" not in c.path)
    (post,) = github.called("POST", f"/issues/{PR_NUMBER}/comments")
    assert post.body["body"].startswith(MARKER) and "No module named" in post.body["body"]
    assert f"https://github.com/{REPOSITORY}/actions/runs/{RUN_ID}" in post.body["body"]

    second = await run_step(runner, github, tmp_path, **{"pr-comment": "true", "locale": "zh-CN"})
    assert second.code == 0, second.err
    assert len(github.called("POST", "/comments")) == 1  # never a second comment
    (patch,) = github.called("PATCH", "/issues/comments/")
    (comment,) = github.comments[PR_NUMBER]
    assert patch.path.endswith(f"/issues/comments/{comment['id']}")
    assert comment["body"].startswith(MARKER) and "errkb 在这份日志里认出 1 个失败" in comment["body"]


async def test_jobs_are_listed_across_pages(github, job_log, runner, tmp_path):
    for n in range(130):
        github.add_job(f"shard {n}", "success")
    github.add_job("test (3.11)", "failure", job_log)
    result = await run_step(runner, github, tmp_path)
    assert result.code == 0, result.err
    pages = github.called("GET", f"/runs/{RUN_ID}/jobs")
    assert [c.query.get("page", "1") for c in pages] == ["1", "2"]
    assert len(github.called("GET", "/actions/jobs/")) == 1
    assert not github.called("POST") and not github.called("PATCH")  # no comment unless asked


async def test_no_failed_job_exits_1_and_comments_nothing(github, runner, tmp_path):
    github.add_job("lint", "success")
    github.add_job("test", "success")
    result = await run_step(runner, github, tmp_path, **{"pr-comment": "true"})
    assert result.code == 0  # the action itself does not fail: nothing to explain is not its failure
    assert "exit-code=1" in result.outputs
    assert "has no failed job" in result.err and result.out == "" and result.summary == ""
    assert not github.called("GET", "/actions/jobs/") and not github.called("GET", "/comments")
    assert not github.called("POST") and not github.called("PATCH")


async def test_a_token_without_permission_fails_the_step_naming_the_permission(github, job_log, runner, tmp_path):
    _failed_run(github, job_log)
    result = await run_step(runner, github, tmp_path, **{"github-token": "ghs_wrong"})
    assert result.code != 0 and "exit-code=2" in result.outputs
    assert "401" in result.err and "actions: read" in result.err


@pytest.fixture
async def slack() -> Any:
    fake = await FakeSlack().start()
    yield fake
    await fake.stop()


async def test_slack_channel_gets_one_card_plain_without_errkb_serve(github, slack, job_log, runner, tmp_path):
    _failed_run(github, job_log)
    runner["SLACK_API_URL"] = slack.api_url
    result = await run_step(runner, github, tmp_path, **{"slack-channel": "C0CIFAIL", "slack-token": SLACK_TOKEN})
    assert result.code == 0, result.err
    (post,) = [c for c in slack.calls if c.method == "chat.postMessage"]
    assert post["channel"] == "C0CIFAIL" and post.token == SLACK_TOKEN
    assert "No module named" in post.text_of_blocks and STEP in post.text_of_blocks
    assert f"actions/runs/{RUN_ID}" in post.text_of_blocks
    assert not [b for b in post["blocks"] if b["type"] == "actions"]


async def test_slack_card_has_vote_buttons_when_errkb_serve_is_ready(github, slack, job_log, runner, tmp_path):
    _failed_run(github, job_log)
    github.ready = True  # the fake stands in for errkb serve's /readyz
    runner["SLACK_API_URL"] = slack.api_url
    result = await run_step(runner, github, tmp_path, **{"slack-channel": "C0CIFAIL", "slack-token": SLACK_TOKEN,
                                                         "serve-url": github.base_url, "locale": "zh-CN"})
    assert result.code == 0, result.err
    (post,) = [c for c in slack.calls if c.method == "chat.postMessage"]
    (buttons,) = [b for b in post["blocks"] if b["type"] == "actions"]
    action_ids = [e["action_id"] for e in buttons["elements"]]
    assert "errkb_vote_up" in action_ids and "errkb_vote_down" in action_ids
    assert "errkb 在这份日志里认出 1 个失败" in post.text_of_blocks


def test_action_yml_installs_errkb_from_its_own_path_and_runs_the_command():
    action = _action()
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) >= {"github-token", "locale", "pr-comment", "slack-channel", "slack-token",
                                     "errkb-version"}
    assert action["inputs"]["github-token"]["default"] == "${{ github.token }}"
    steps = action["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    install = next(s for s in steps if s.get("name") == "Install errkb")
    assert "${{ github.action_path }}" in json.dumps(install["env"]) and "pip install" in install["run"]
    run = next(s for s in steps if s.get("id") == "errkb")
    assert "errkb \"${args[@]}\"" in run["run"] and "ci --from-github-run" in run["run"]
    assert "${{" not in run["run"]  # inputs reach the script through env, never spliced into it


def test_the_pull_request_of_an_event():
    assert pull_request_number({"pull_request": {"number": 5}}) == 5
    assert pull_request_number({"workflow_run": {"id": 1, "pull_requests": [{"number": 9}]}}) == 9
    assert pull_request_number({"workflow_run": {"id": 1, "pull_requests": []}}) is None
    assert pull_request_number({"ref": "refs/heads/main"}) is None


def test_from_github_run_without_the_runners_variables_is_a_usage_error(capsys, monkeypatch):
    from bot.cli import main

    for name in ("GITHUB_REPOSITORY", "GITHUB_RUN_ID", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    assert main(["ci", "--from-github-run"]) == 2
    assert "GITHUB_REPOSITORY" in capsys.readouterr().err
    assert main(["ci", "x.log", "--pr-comment"]) == 2
    assert "--from-github-run" in capsys.readouterr().err


def test_gitlab_template_runs_on_failure_and_reads_the_failed_jobs_traces():
    template = yaml.safe_load(GITLAB_TEMPLATE.read_text(encoding="utf-8"))
    job = template["errkb"]
    assert job["when"] == "on_failure" and job["stage"] == ".post"
    script = "\n".join(job["script"])
    assert "$CI_API_V4_URL/projects/$CI_PROJECT_ID" in script and "/jobs/$id/trace" in script
    assert "errkb ci errkb-traces.log --format gitlab" in script


async def test_gitlab_template_script_explains_the_failed_jobs_traces(tmp_path, runner):
    """The template's script, run by bash against a fake GitLab API (pip is a no-op: errkb is installed)."""
    import shutil

    from aiohttp import web

    if shutil.which("curl") is None:
        pytest.skip("curl is not installed: the GitLab template's script uses it (python:3.11 images have it)")
    trace = ci_logs.write(tmp_path / "trace.log", ci_logs.gitlab_lines(ci_logs.NO_MODULE)).read_bytes()
    seen: list[str] = []

    async def failed(request: web.Request) -> web.Response:
        seen.append(request.path_qs)
        assert request.headers["PRIVATE-TOKEN"] == "glpat-fake"
        return web.json_response([{"id": 77, "name": "pytest", "status": "failed"}])

    async def job_trace(request: web.Request) -> web.Response:
        seen.append(request.path)
        return web.Response(body=trace, content_type="text/plain")

    app = web.Application()
    app.router.add_get("/api/v4/projects/5/pipelines/9/jobs", failed)
    app.router.add_get("/api/v4/projects/5/jobs/77/trace", job_trace)
    server = web.AppRunner(app, access_log=None)
    await server.setup()
    await web.TCPSite(server, "127.0.0.1", 0).start()
    try:
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        (bin_dir / "pip").write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / "pip").chmod(0o755)
        job = yaml.safe_load(GITLAB_TEMPLATE.read_text(encoding="utf-8"))["errkb"]
        env = {k: v for k, v in runner.items() if not k.startswith("GITHUB_")}
        env |= {"PATH": f"{bin_dir}{os.pathsep}{runner['PATH']}", "GITLAB_CI": "true", "ERRKB_VERSION": "",
                "ERRKB_LOCALE": "en", "ERRKB_GITLAB_TOKEN": "glpat-fake", "CI_PROJECT_ID": "5",
                "CI_PIPELINE_ID": "9", "CI_API_V4_URL": f"http://127.0.0.1:{server.addresses[0][1]}/api/v4"}
        script = tmp_path / "script.sh"
        script.write_text("\n".join(job["script"]), encoding="utf-8")
        process = await asyncio.create_subprocess_exec("bash", str(script), cwd=tmp_path, env=env,
                                                       stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(), 120)
    finally:
        await server.cleanup()
    assert process.returncode == 0, err.decode()
    assert seen[0].startswith("/api/v4/projects/5/pipelines/9/jobs?") and "=failed" in seen[0]
    assert seen[1:] == ["/api/v4/projects/5/jobs/77/trace"]
    assert "section_start:" in out.decode() and "No module named" in out.decode()
    assert "errkb recognised 1 failure" in (tmp_path / "errkb.md").read_text(encoding="utf-8")
