"""``errkb ci`` on real-shaped CI logs: a multi-MB GitHub Actions job log and a GitLab job trace (ANSI, section
markers), in process: the failures found with their steps and lines, each once; the runner's wrapper lines
alone are no failure; the formats, Chinese, exit codes. Also ``errkb diagnose`` on a log too long for one match."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bot.ci.failures import failures
from bot.ci.reader import clean, windows
from bot.cli import main
from bot.kb.knowledge import KnowledgeBase
from bot.service.knowledge import Knowledge
from tests.conftest import REPO
from tests.support import ci_logs

OOM = "pytorch/cuda-out-of-memory"
NO_MODULE = "python/modulenotfounderror-no-module-named"


@pytest.fixture(autouse=True)
def no_store(tmp_path, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/none.db")
    monkeypatch.setenv("ERRKB_SEEDS", str(REPO / "seeds"))
    for name in ("GITHUB_ACTIONS", "GITLAB_CI", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def big_log(tmp_path_factory) -> Path:
    """About 5 MB of GitHub Actions log: the CUDA OOM half-way in the training step, a missing module in
    a later step, each error printed twice, the runner's exit code and post-job cleanup after."""
    path = tmp_path_factory.mktemp("ci") / "job.log"
    return ci_logs.write(path, ci_logs.github_lines(40_000, [
        (0.5, "", ci_logs.CUDA_OOM), (0.55, "", ci_logs.CUDA_OOM), (0.8, "pytest tests", ci_logs.NO_MODULE),
        (0.9, "", ci_logs.NO_MODULE)]))


@pytest.fixture(scope="module")
def gitlab_log(tmp_path_factory) -> Path:
    return ci_logs.write(tmp_path_factory.mktemp("ci") / "trace.log", ci_logs.gitlab_lines(ci_logs.NO_MODULE))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def line_of(path: Path, text: str) -> int:
    with path.open(encoding="utf-8", newline="\n") as f:  # a GitLab marker's \r ends no line
        return next(n for n, line in enumerate(f, 1) if text in line)


def test_the_oom_in_the_middle_of_a_multi_mb_log_is_found_with_its_step(capsys, big_log):
    assert big_log.stat().st_size > 4_000_000
    code, out, _ = run(capsys, "ci", str(big_log), "--format", "json")
    assert code == 0
    report = json.loads(out)["failures"]
    oom = next(f for f in report if f["id"] == OOM)
    assert oom["step"] == "Run python train.py --epochs 40"
    assert oom["line"] == line_of(big_log, "torch.OutOfMemoryError")


def test_two_distinct_failures_in_one_log_are_each_reported_once(capsys, big_log):
    _code, out, _ = run(capsys, "ci", str(big_log), "--format", "json")
    report = json.loads(out)["failures"]
    assert [f["id"] for f in report] == [OOM, NO_MODULE]
    assert report[1]["step"] == "Run pytest tests"


def test_small_chunks_find_the_same_failures_across_chunk_edges(kb: KnowledgeBase, big_log):
    whole = [(f.match.entry_id, f.step, f.line) for f in failures(big_log.open("rb"), Knowledge(kb))]
    for size in (4096, 65_537):
        with big_log.open("rb") as stream:
            assert [(f.match.entry_id, f.step, f.line) for f in failures(stream, Knowledge(kb), size)] == whole


def test_only_the_runners_exit_code_is_no_failure(capsys, tmp_path):
    log = ci_logs.write(tmp_path / "job.log", ci_logs.github_lines(2000))
    assert ci_logs.WRAPPER in log.read_text()
    assert list(windows(log.open("rb"))) == []
    code, out, _ = run(capsys, "ci", str(log), "--format", "github")
    assert (code, out) == (1, "")
    code, out, _ = run(capsys, "ci", str(log), "--format", "json")
    assert (code, json.loads(out)["failures"]) == (1, [])


def test_gitlab_trace_with_ansi_and_sections(capsys, gitlab_log):
    assert "\x1b[" in gitlab_log.read_text()
    code, out, _ = run(capsys, "ci", str(gitlab_log), "--format", "json")
    (failure,) = json.loads(out)["failures"]
    assert (code, failure["id"], failure["step"]) == (0, NO_MODULE, "step_script")
    assert failure["line"] == line_of(gitlab_log, "ModuleNotFoundError")


def test_gitlab_format_is_a_collapsed_section(capsys, gitlab_log, monkeypatch):
    monkeypatch.setenv("GITLAB_CI", "true")
    code, out, _ = run(capsys, "ci", str(gitlab_log))
    assert code == 0
    assert out.startswith("\x1b[0Ksection_start:") and ":errkb[collapsed=true]\r\x1b[0K" in out
    assert "section_end:" in out.split("\n")[-2] and "No module named" in out


def test_github_format_writes_annotations_and_appends_the_step_summary(capsys, big_log, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("# Earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, _ = run(capsys, "ci", str(big_log))
    assert code == 0
    annotations = out.splitlines()
    assert len(annotations) == 2 and all(a.startswith("::error title=") for a in annotations)
    assert annotations[0].startswith(f"::error title=CUDA out of memory,line={line_of(big_log, 'torch.OutOfMemoryError')}::")
    assert "Run python train.py --epochs 40" in annotations[0] and "Try first" in annotations[0]
    written = summary.read_text(encoding="utf-8")
    assert written.startswith("# Earlier step\n") and "## errkb recognised 2 failures in this log" in written
    assert "### CUDA out of memory" in written and f"`{NO_MODULE}`" in written


def test_json_shape(capsys, gitlab_log):
    _code, out, _ = run(capsys, "ci", str(gitlab_log), "--format", "json")
    report = json.loads(out)
    assert set(report) >= {"failures"}
    (failure,) = report["failures"]
    assert set(failure) == {"step", "line", "id", "signature", "root_cause", "best_fix", "success_rate", "docs"}
    assert isinstance(failure["line"], int) and 0 < failure["success_rate"] <= 1


def test_chinese_output(capsys, big_log):
    code, out, _ = run(capsys, "ci", str(big_log), "--locale", "zh-CN")
    assert code == 0
    assert "## errkb 在这份日志里认出 2 个失败" in out and "步骤 Run python train.py --epochs 40，第" in out
    assert "CUDA 显存不足" in out
    code, out, _ = run(capsys, "ci", str(big_log), "--locale", "zh-TW", "--format", "json")
    assert json.loads(out)["locale"] == "zh-TW"


def test_markdown_is_the_default_outside_ci_and_stdin_works(capsys, monkeypatch, gitlab_log):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(gitlab_log.read_bytes())))
    code, out, _ = run(capsys, "ci", "-")
    assert code == 0 and out.startswith("## errkb recognised 1 failure in this log")


@pytest.mark.parametrize("argv", [("ci", "/nonexistent/job.log"), ("ci", "--format", "xml", "x.log")])
def test_usage_error_exits_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and err


def test_clean_strips_timestamps_ansi_and_overwritten_parts():
    assert clean(b"2026-05-01T10:00:00.1234567Z \x1b[31mRuntimeError: boom\x1b[0m") == "RuntimeError: boom"
    assert clean(b"\x1b[0Ksection_start:1:step_script\r\x1b[0K\x1b[36;1mExecuting\x1b[0;m") == "Executing"


def test_diagnose_answers_a_long_log_with_the_error_in_the_middle(capsys, big_log):
    code, out, _ = run(capsys, "diagnose", str(big_log), "--format", "json")
    assert code == 0
    match = json.loads(out)["matches"][0]
    assert match["id"] == OOM
    text = big_log.read_text(encoding="utf-8")
    assert "torch.OutOfMemoryError" in text[match["span"][0]:match["span"][1]]
