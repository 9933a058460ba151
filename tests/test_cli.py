"""The `errkb` command as a user runs it: exit codes, formats, locales, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import NCCL_ID, REPO, write_entry

SAMPLE = REPO / "bot" / "samples" / "nccl_traceback.txt"


@pytest.fixture(autouse=True)
def no_store(tmp_path, monkeypatch):
    """Point the default store at an empty folder so the CLI runs on seed priors."""
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/none.db")
    monkeypatch.setenv("ERRKB_SEEDS", str(REPO / "seeds"))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_diagnose_json_in_chinese(capsys):
    code, out, _ = run(capsys, "diagnose", str(SAMPLE), "--format", "json", "--locale", "zh-TW")
    data = json.loads(out)
    assert code == 0 and data["locale"] == "zh"
    best = data["matches"][0]
    assert best["id"] == NCCL_ID and best["how"] == "regex"
    text = SAMPLE.read_text(encoding="utf-8")
    assert text[best["span"][0] : best["span"][1]] == "AllReduce timed out in rank 3 (timeout: 600)"
    # the exception line as printed, then its gloss, in Taiwan's script for a zh-TW reader
    assert best["signature"].startswith("RuntimeError: [torch.distributed]") and "集合通訊超時" in best["signature"]


def test_diagnose_text_for_a_japanese_locale_is_english(capsys):
    code, out, _ = run(capsys, "diagnose", str(SAMPLE), "--locale", "ja-JP")
    assert code == 0 and "Cause: " in out and "原因" not in out


@pytest.mark.parametrize(("locale", "best", "hint"), [
    ("en", "Try first: ", "2 other fixes, what not to try and docs: add --details"),
    ("zh", "先试这个：", "还有 2 个方案、哪些别试和文档：加 --details 查看"),
])
def test_diagnose_prints_the_compact_answer_and_details_on_request(capsys, locale, best, hint):
    code, out, _ = run(capsys, "diagnose", str(SAMPLE), "--locale", locale)
    assert code == 0 and out.count(best) == 1 and hint in out and "2. " not in out
    code, details, _ = run(capsys, "diagnose", str(SAMPLE), "--locale", locale, "--details")
    assert code == 0 and "1. " in details and "2. " in details and "3. " in details and "✗ " in details


def test_one_match_by_default_more_with_limit_or_all(capsys, tmp_path):
    paste = tmp_path / "two.txt"
    paste.write_text("ModuleNotFoundError: No module named 'torch'\n"
                     "RuntimeError: [torch.distributed] AllReduce timed out in rank 3 (timeout: 600)\n", encoding="utf-8")
    counts = {}
    for extra in ((), ("--limit", "2"), ("--all",)):
        code, out, _ = run(capsys, "diagnose", str(paste), "--format", "json", *extra)
        counts[extra] = len(json.loads(out)["matches"])
        assert code == 0
    assert counts[()] == 1 and counts[("--limit", "2")] == 2 and counts[("--all",)] >= 2


def test_limit_0_is_a_usage_error(capsys):
    code, out, err = run(capsys, "diagnose", str(SAMPLE), "--limit", "0")
    assert code == 2 and out == "" and "--limit must be 1 or more" in err


def test_no_color_is_honoured_on_a_terminal():
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "60"}
    script = ("import pty, sys; sys.exit(pty.spawn([sys.executable, '-m', 'bot.cli', 'diagnose', "
              f"{str(SAMPLE)!r}]) >> 8)")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=REPO, env=env, timeout=120)
    assert b"Try first" in proc.stdout and b"\x1b[" not in proc.stdout
    del env["NO_COLOR"]
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=REPO, env=env, timeout=120)
    assert b"\x1b[1m" in proc.stdout
    assert max(len(line.decode().replace("\x1b[1m", "").replace("\x1b[0m", "").replace("\x1b[2m", "")
                   .replace("\x1b[32m", "").replace("\x1b[36m", "")) for line in proc.stdout.splitlines()) <= 61


def test_nothing_matched_exits_1(capsys, tmp_path):
    chat = tmp_path / "chat.txt"
    chat.write_text("the error budget is fine, and can we raise the allreduce timeout?", encoding="utf-8")
    code, out, _ = run(capsys, "diagnose", str(chat))
    assert code == 1 and "No known error found" in out


def test_unreadable_input_exits_2_with_one_line(capsys, tmp_path):
    code, out, err = run(capsys, "diagnose", str(tmp_path / "missing.txt"))
    assert code == 2 and out == "" and err.startswith("errkb: cannot read") and err.count("\n") == 1


def test_bad_usage_exits_2(capsys):
    code, _, err = run(capsys, "diagnose", "--format", "yaml")
    assert code == 2 and "invalid choice" in err


def test_blocks_format_prints_slack_messages(capsys):
    code, out, _ = run(capsys, "diagnose", str(SAMPLE), "--format", "blocks")
    messages = json.loads(out)["messages"]
    assert code == 0 and len(messages) == 1 and messages[0]["blocks"][0]["type"] == "section"
    assert "errkb_vote_up" in out and "errkb_other_fixes" in out


def test_invalid_utf8_on_stdin_is_replaced_not_fatal():
    paste = b"\xff\xfe garbage \x00\n" + SAMPLE.read_bytes()
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "diagnose", "-", "--format", "json"],
                          input=paste, capture_output=True, cwd=REPO, env=os.environ.copy(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["matches"][0]["id"] == NCCL_ID


def test_search_in_chinese_finds_the_nccl_entry(capsys):
    code, out, _ = run(capsys, "search", "超时", "--format", "json", "--limit", "5")
    results = json.loads(out)["results"]
    assert code == 0 and NCCL_ID in [r["id"] for r in results]
    assert all({"id", "score", "signature"} <= set(r) for r in results)


def test_show_unknown_id_exits_2(capsys):
    code, _, err = run(capsys, "show", "pytorch/nope")
    assert code == 2 and "no entry with id 'pytorch/nope'" in err


def test_show_json_reports_rates_and_evidence(capsys):
    code, out, _ = run(capsys, "show", NCCL_ID, "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["evidence_count"] == 1
    assert [w["success_rate"] for w in data["workarounds"]] == [0.85, 0.8, 0.75]


def test_validate_explains_a_broken_entry_by_file_and_field(capsys, tmp_path, nccl_raw):
    nccl_raw["workarounds"][2]["success_rate"] = 3
    nccl_raw["regex"] = "(?P<x>a)(?P=x)"
    path = write_entry(tmp_path, nccl_raw)
    code, out, _ = run(capsys, "validate", str(tmp_path))
    assert code == 1
    assert f"{path}: workarounds[2].success_rate: must be between 0 and 1, got 3" in out
    assert f"{path}: regex: RE2 cannot compile it" in out


def test_validate_accepts_the_bundled_seeds(capsys):
    code, _, err = run(capsys, "validate")
    assert code == 0 and "are valid" in err


def test_new_scaffolds_an_entry_that_validates(capsys, tmp_path):
    seeds, fixtures = tmp_path / "seeds", tmp_path / "fixtures"
    code, out, _ = run(capsys, "new", "redis/cluster-down", "--seeds", str(seeds), "--fixtures", str(fixtures))
    assert code == 0
    assert Path(out.splitlines()[0]) == seeds / "redis" / "cluster-down.json"
    assert (fixtures / "redis" / "cluster-down" / "2.txt").exists()
    assert run(capsys, "validate", str(seeds))[0] == 0
    code, out, _ = run(capsys, "lint", str(seeds), "--fixtures", str(fixtures))
    assert code == 1 and "TODO placeholder" in out
    code, _, err = run(capsys, "new", "redis/cluster-down", "--seeds", str(seeds), "--fixtures", str(fixtures))
    assert code == 2 and "already exists" in err


def test_seed_vote_show_stats_and_export_round_trip(capsys, tmp_path, monkeypatch):
    import asyncio

    from bot.store import Store

    url = f"sqlite+aiosqlite:///{tmp_path}/errkb.db"
    monkeypatch.setenv("DATABASE_URL", url)
    code, out, _ = run(capsys, "seed")
    assert code == 0 and "added" in out

    async def vote():
        store = await Store.open(url)
        try:
            for n in range(4):
                await store.record_vote("T1", f"U{n}", NCCL_ID, 2, "+1", True, 1000.0 + n)
            await store.record_hit(NCCL_ID, "zh")
        finally:
            await store.close()

    asyncio.run(vote())
    code, out, _ = run(capsys, "show", NCCL_ID, "--format", "json")
    data = json.loads(out)
    gloo = next(w for w in data["workarounds"] if w["index"] == 2)
    assert gloo["votes_up"] == 4 and gloo["success_rate"] > 0.8 and data["evidence_count"] == 1 + 4

    code, out, _ = run(capsys, "stats")
    assert code == 0 and "entries in" in out and f"👍    4 👎    0  {NCCL_ID} #3" in out and "zh     1" in out

    code, out, _ = run(capsys, "export", "--out", str(tmp_path / "out"))
    assert code == 0
    exported = json.loads((tmp_path / "out" / "pytorch" / "nccl-timeout-during-allreduce.json").read_text())
    assert exported["workarounds"][2]["success_rate"] == round(gloo["success_rate"], 3)
    assert run(capsys, "validate", str(tmp_path / "out"))[0] == 0
    code, out, _ = run(capsys, "db", "check")
    assert code == 0 and "every counter agrees" in out


def test_an_empty_search_is_a_usage_error(capsys):
    code, _, err = run(capsys, "search", "  ")
    assert code == 2 and "nothing to search for" in err


def test_serve_with_invalid_seeds_lists_them_and_exits_2(capsys, tmp_path, monkeypatch):
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "x.json").write_text('{"id": "python/x"}', encoding="utf-8")
    monkeypatch.setenv("ERRKB_SEEDS", str(tmp_path))
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("SLACK_SIGNING_SECRET", "test-secret")
    code, _, err = run(capsys, "serve")
    assert code == 2
    assert f"{tmp_path}/python/x.json: signature: missing required field" in err
    assert err.strip().splitlines()[-1].startswith("errkb: ERRKB_SEEDS: 5 problem(s) in the seeds")


def test_workspace_delete_and_db_prune(capsys, tmp_path, monkeypatch):
    import asyncio

    from bot.store import Store

    url = f"sqlite+aiosqlite:///{tmp_path}/errkb.db"
    monkeypatch.setenv("DATABASE_URL", url)
    assert run(capsys, "seed")[0] == 0

    async def use(at: float) -> None:
        store = await Store.open(url)
        store.clock = lambda: at
        try:
            for team in ("T1", "T2"):
                await store.remember_message(team, "C1", "1.1", NCCL_ID, 0, "en", thread_ts="1.0")
                await store.record_vote(team, "U1", NCCL_ID, 0, "+1", True, 1000.0)
        finally:
            await store.close()

    asyncio.run(use(1_000_000.0))  # long ago
    code, out, _ = run(capsys, "workspace", "delete", "T1")
    assert code == 0 and "workspace T1: 2 rows deleted" in out and "votes: 1" in out
    assert run(capsys, "workspace", "delete", "T1")[1] == "nothing stored for workspace T1\n"
    monkeypatch.setenv("ERRKB_RETAIN_POSTED_DAYS", "30")
    code, out, _ = run(capsys, "db", "prune")
    assert code == 0 and "posted_messages: 1" in out
    code, out, _ = run(capsys, "db", "check")
    assert code == 0 and "every counter agrees" in out
    data = json.loads(run(capsys, "show", NCCL_ID, "--format", "json")[1])
    assert data["workarounds"][0]["votes_up"] == 2  # T1's vote stays, as a number


@pytest.mark.parametrize(("variable", "value"), [("DATABASE_URL", "mysql://root@db/errkb"), ("PORT", "abc"),
                                                 ("ERRKB_RETAIN_HITS_DAYS", "a year"), ("SLACK_CLIENT_ID", "1.2")])
def test_a_config_mistake_is_one_line_and_exit_2(capsys, monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    code, out, err = run(capsys, "seed")
    assert code == 2 and out == "" and err.startswith(f"errkb: {variable}: ") and len(err.splitlines()) == 1


def test_version_is_printed_and_exits_0(capsys):
    from importlib.metadata import version

    code, out, _ = run(capsys, "--version")
    assert (code, out) == (0, f"errkb {version('errkb')}\n")
