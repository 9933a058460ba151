"""The real-paste evaluation set is well formed: every line parses and names an entry that exists."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO

PARTS = ("tune", "holdout")


@pytest.mark.parametrize("part", PARTS)
def test_every_paste_line_is_well_formed_and_its_label_exists(kb, part):
    path = REPO / "bench" / "realpastes" / f"{part}.jsonl"
    problems = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        row = json.loads(line)
        if not (row["source"].startswith("https://") and row["domain"] and row["paste"].strip() and row["note"]):
            problems.append(f"{part}.jsonl:{number}: missing source, domain, paste or note")
        if row["expected"] is not None and row["expected"] not in kb.entries:
            # Only the line number for holdout: its content is never shown to anyone tuning the KB.
            problems.append(f"{part}.jsonl:{number}: expected entry does not exist"
                            + (f" ({row['expected']})" if part == "tune" else ""))
    assert problems == []


def test_the_parts_are_split_by_source_and_large_enough():
    sources = {part: {json.loads(line)["source"].split("#")[0]
                      for line in (REPO / "bench" / "realpastes" / f"{part}.jsonl").read_text("utf-8").splitlines()}
               for part in PARTS}
    assert sources["tune"] & sources["holdout"] == set()
    assert min(len(s) for s in sources.values()) >= 30


@pytest.mark.parametrize("part", ("holdout", "both"))
def test_eval_real_refuses_to_list_holdout_misses(part):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "bench.eval_real", "--part", part, "--failures"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "only allowed with --part tune" in done.stderr and done.stdout == ""
