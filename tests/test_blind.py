"""The blind samples are as frozen: every paste line still has the hash its manifest recorded before any entry
was written from it, and every label names a paste and entries that exist."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.conftest import REPO

SAMPLES = ("blind", "blind2", "blind3", "blind4", "blind5")


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_paste_line_is_the_one_the_manifest_froze(sample):
    folder = REPO / "bench" / sample
    manifest = json.loads((folder / "MANIFEST.json").read_text(encoding="utf-8"))
    lines = (folder / "pastes.jsonl").read_text(encoding="utf-8").splitlines()
    ids = [json.loads(line)["id"] for line in lines]
    changed = [i for i, line in zip(ids, lines, strict=True)
               if manifest["lines"].get(i) != hashlib.sha256(line.encode("utf-8")).hexdigest()]
    assert changed == [] and len(ids) == manifest["pastes"] == len(set(ids))
    assert len({json.loads(line)["ecosystem"] for line in lines}) == manifest["ecosystems"] >= 30


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_label_names_a_paste_and_entries_that_exist(kb, sample):
    folder = REPO / "bench" / sample
    path = folder / "labels.jsonl"
    if not path.exists():
        pytest.skip(f"bench/{sample} is not labelled yet")
    ids = {json.loads(line)["id"] for line in (folder / "pastes.jsonl").read_text(encoding="utf-8").splitlines()}
    problems = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        row = json.loads(line)
        if row["id"] not in ids or row["kind"] not in ("error", "warning", "none"):
            problems.append(f"labels.jsonl:{number}: unknown paste or kind")
        # only the line number: a held-out paste's label is never shown to anyone writing entries
        problems += [f"labels.jsonl:{number}: a labelled entry does not exist"
                     for entry in row["expected"] if entry not in kb.entries]
    assert problems == []


@pytest.mark.parametrize("sample", ["2", "5"])
def test_eval_blind_refuses_to_list_misses_of_a_held_out_sample(sample):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "bench.eval_blind", "--sample", sample, "--part", "tune", "--failures"],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "nobody tunes on the holdout" in done.stderr
