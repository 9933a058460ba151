"""``errkb ci`` on a log whose failure no entry knows but whose error carries a documented code: the family
answer (the official page for that code, labelled "No fix known yet", never an ``::error`` annotation), and
nothing of it when a failure is recognised."""

from __future__ import annotations

import io
import json

import pytest

from bot.ci.tail import Tail
from bot.cli import main
from tests.conftest import NCCL_ID, REPO
from tests.support.kbs import families_beside_nccl

LOG = ("2026-12-04T10:00:00.0000000Z ##[group]Run cargo build --release\n"
       "2026-12-04T10:00:01.0000000Z    Compiling demo v0.1.0 (/home/runner/work/demo)\n"
       "2026-12-04T10:00:09.0000000Z error[E0275]: overflow evaluating the requirement `Wrapper<Wrapper<T>>: Sized`\n"
       "2026-12-04T10:00:09.0000000Z error: aborting due to 1 previous error\n"
       "2026-12-04T10:00:09.0000000Z error: could not compile `demo` (lib) due to 1 previous error\n"
       "2026-12-04T10:00:09.5000000Z ##[error]Process completed with exit code 101.\n")


@pytest.fixture(autouse=True)
def small_kb(tmp_path, monkeypatch, nccl_raw):
    """The families beside one entry (NCCL's): the log's rustc error is one no entry knows, whatever the KB grows."""
    families_beside_nccl(tmp_path, monkeypatch, nccl_raw)
    for name in ("GITHUB_ACTIONS", "GITLAB_CI", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)


def run(capsys, tmp_path, log: str, *argv: str) -> tuple[int, str]:
    path = tmp_path / "job.log"
    path.write_text(log, encoding="utf-8")
    code = main(["ci", str(path), *argv])
    return code, capsys.readouterr().out


def test_markdown_gives_the_codes_page_labelled_no_fix(capsys, tmp_path):
    code, out = run(capsys, tmp_path, LOG, "--format", "markdown")
    assert code == 1  # nothing recognised: no known fix
    assert "### No fix known yet · rustc error E0275" in out
    assert "**Official page for E0275:** https://doc.rust-lang.org/error_codes/E0275.html" in out


def test_github_gets_a_notice_not_an_error_annotation(capsys, tmp_path):
    code, out = run(capsys, tmp_path, LOG, "--format", "github")
    assert code == 1 and "::error" not in out
    assert out.startswith("::notice title=No fix known yet · rustc error E0275::")
    assert "https://doc.rust-lang.org/error_codes/E0275.html" in out


def test_json_carries_the_family_beside_no_failures(capsys, tmp_path):
    _code, out = run(capsys, tmp_path, LOG, "--format", "json", "--locale", "zh")
    data = json.loads(out)
    assert data["failures"] == [] and data["family"]["how"] == "family"
    assert data["family"]["headline"] == "尚无已知修复 · rustc 错误 E0275"


def test_a_recognised_failure_gets_its_entry_and_no_family(capsys, tmp_path):
    sample = (REPO / "bot" / "samples" / "nccl_traceback.txt").read_text(encoding="utf-8")
    code, out = run(capsys, tmp_path, LOG + sample, "--format", "json")
    data = json.loads(out)
    assert code == 0 and [f["id"] for f in data["failures"]] == [NCCL_ID] and "family" not in data


def test_the_tail_keeps_the_last_bytes_read():
    tail = Tail(io.BytesIO(b"x" * 50 + b"the end"), keep=10)
    while tail.read(8):
        pass
    assert tail.text() == "xxxthe end"
