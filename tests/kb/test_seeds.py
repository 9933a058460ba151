"""Loading a seeds directory: the user's entry intact, broken files named, export round trip, the snapshot."""

from __future__ import annotations

import copy
import json
import os

import pytest

from bot.kb.seeds import SeedError, export_seeds, load_seeds, read_cached, read_seeds
from tests.conftest import NCCL_ID, SEEDS, USER_SEED, write_entry


def test_the_users_entry_loads_with_its_content_unchanged():
    original = json.loads(USER_SEED.read_text(encoding="utf-8"))
    entries = load_seeds(SEEDS)
    assert entries[NCCL_ID].raw == original
    assert list(entries[NCCL_ID].raw) == list(original)


def test_the_repo_copy_is_the_users_file_byte_for_byte():
    shared = USER_SEED.parents[3] / "shared" / "seeds" / "000_2f36a61bd99dd588.txt"
    if not shared.exists():
        pytest.skip("the design folder ../shared is not beside this checkout")
    assert json.loads(shared.read_text(encoding="utf-8")) == json.loads(USER_SEED.read_text(encoding="utf-8"))


def test_unknown_keys_survive_load_and_export(tmp_path, nccl_raw):
    nccl_raw["team_notes"] = {"owner": "ml-infra", "ticket": 4411}
    write_entry(tmp_path / "in", nccl_raw)
    entries = load_seeds(tmp_path / "in")
    (path,) = export_seeds([e.raw for e in entries.values()], tmp_path / "out")
    assert path == tmp_path / "out" / "pytorch" / "nccl-timeout-during-allreduce.json"
    assert json.loads(path.read_text(encoding="utf-8")) == nccl_raw


def test_malformed_json_names_the_file_and_place(tmp_path, nccl_raw):
    write_entry(tmp_path, nccl_raw)
    bad = tmp_path / "pytorch" / "broken.json"
    bad.write_text('{"id": "pytorch/broken",\n  "signature": }', encoding="utf-8")
    with pytest.raises(SeedError) as caught:
        load_seeds(tmp_path)
    (problem,) = caught.value.problems
    assert problem.file == str(bad)
    assert "malformed JSON" in problem.message and "line 2" in problem.message


def test_duplicate_ids_are_reported(tmp_path, nccl_raw):
    write_entry(tmp_path, nccl_raw)
    write_entry(tmp_path, nccl_raw, relative="pytorch/copy.json")
    _, problems = read_seeds(tmp_path)
    messages = [str(p) for p in problems]
    assert any("copy.json: id: is 'pytorch/nccl-timeout-during-allreduce'" in m for m in messages), messages


def test_duplicate_ids_in_one_place_are_refused(tmp_path, nccl_raw):
    write_entry(tmp_path, nccl_raw)
    other = dict(nccl_raw, id="pytorch/second")
    write_entry(tmp_path, other)
    second = tmp_path / "pytorch" / "second.json"
    data = json.loads(second.read_text(encoding="utf-8"))
    assert data["id"] == "pytorch/second"
    entries, problems = read_seeds(tmp_path)
    assert problems == [] and len(entries) == 2


def test_a_dangling_transition_link_is_reported(tmp_path, nccl_raw):
    nccl_raw["transition_graph"]["leads_to"] = ["pytorch/no-such-entry"]
    write_entry(tmp_path, nccl_raw)
    _, problems = read_seeds(tmp_path)
    assert [f"{p.path}: {p.message}" for p in problems] == [
        "transition_graph.leads_to[0]: no entry has id 'pytorch/no-such-entry'"
    ]


def test_non_utf8_file_is_reported(tmp_path):
    path = tmp_path / "x" / "y.json"
    path.parent.mkdir()
    path.write_bytes(b'{"id": "x/y", "signature": "\xff\xfe"}')
    _, problems = read_seeds(tmp_path)
    assert problems[0].file == str(path) and "not UTF-8" in problems[0].message


def test_an_empty_directory_is_an_error(tmp_path):
    with pytest.raises(SeedError, match="contains no entries"):
        load_seeds(tmp_path)


def test_a_translations_file_completes_an_entry_without_touching_it(tmp_path, nccl_raw):
    write_entry(tmp_path, nccl_raw)
    write_entry(tmp_path, {"dead_ends_zh": ["一", "二", "三"]}, relative="_translations/pytorch/nccl-timeout-during-allreduce.json")
    entry = load_seeds(tmp_path)[NCCL_ID]
    assert [d.text_zh for d in entry.dead_ends] == ["一", "二", "三"]
    assert "dead_ends_zh" not in entry.raw
    export_seeds([entry.raw], tmp_path / "out", {entry.id: entry.translations})
    assert load_seeds(tmp_path / "out")[NCCL_ID].dead_ends[2].text_zh == "三"


@pytest.mark.parametrize(
    ("overlay", "relative", "expected"),
    [
        ({"dead_ends_zh": ["一"]}, "pytorch/nccl-timeout-during-allreduce", "dead_ends_zh: has 1 items but dead_ends has 3"),
        ({"workarounds_zh": ["x", "y", "z"]}, "pytorch/nccl-timeout-during-allreduce", "workarounds_zh: the entry"),
        ({"notes": "x"}, "pytorch/nccl-timeout-during-allreduce", "notes: not an overlay field"),
        ({"dead_ends_zh": ["一", "二", "三"]}, "pytorch/nope", "translates no entry"),
    ],
)
def test_a_bad_translations_file_is_reported(tmp_path, nccl_raw, overlay, relative, expected):
    write_entry(tmp_path, nccl_raw)
    path = write_entry(tmp_path, overlay, relative=f"_translations/{relative}.json")
    _, problems = read_seeds(tmp_path)
    assert [str(p) for p in problems if expected in str(p)] and all(p.file == str(path) for p in problems)


def test_a_file_nested_100000_levels_deep_is_one_problem(tmp_path):
    path = tmp_path / "python" / "deep.json"
    path.parent.mkdir()
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    _, problems = read_seeds(tmp_path)
    assert [str(p) for p in problems] == [f"{path}: nested too deeply to be an entry (an entry is a flat JSON object)"]


# --- the snapshot ---------------------------------------------------------------------------


def _snapshot_files(cache):
    return sorted(p.name.split("-")[0] for p in cache.glob("*.pickle"))


def test_unchanged_seeds_load_from_the_snapshot_and_an_edit_is_seen(tmp_path, monkeypatch, nccl_raw):
    monkeypatch.setenv("ERRKB_CACHE", str(tmp_path / "cache"))
    path = write_entry(tmp_path / "seeds", nccl_raw)
    first = load_seeds(tmp_path / "seeds")
    assert _snapshot_files(tmp_path / "cache") == ["seeds"]
    again = load_seeds(tmp_path / "seeds")
    assert again == first and again.digest == first.digest
    nccl_raw["signature"] = "an edited signature"
    path.write_text(json.dumps(nccl_raw), encoding="utf-8")
    edited = load_seeds(tmp_path / "seeds")
    assert edited.digest != first.digest
    assert edited[NCCL_ID].signature == "an edited signature"
    assert len(list((tmp_path / "cache").glob("seeds-*.pickle"))) == 1  # the old snapshot is gone


def test_a_touched_but_unchanged_file_reuses_the_snapshot(tmp_path, monkeypatch, nccl_raw):
    monkeypatch.setenv("ERRKB_CACHE", str(tmp_path / "cache"))
    path = write_entry(tmp_path / "seeds", nccl_raw)
    digest = load_seeds(tmp_path / "seeds").digest
    os.utime(path, ns=(1, 1))  # touched, same bytes: the content hash is the same, the snapshot reused
    assert load_seeds(tmp_path / "seeds").digest == digest


@pytest.mark.parametrize("damage", [b"", b"not a pickle at all", b"\x80\x05K\x01."])
def test_a_corrupt_snapshot_is_ignored(tmp_path, monkeypatch, nccl_raw, damage):
    monkeypatch.setenv("ERRKB_CACHE", str(tmp_path / "cache"))
    write_entry(tmp_path / "seeds", nccl_raw)
    load_seeds(tmp_path / "seeds")
    (snapshot,) = (tmp_path / "cache").glob("seeds-*.pickle")
    snapshot.write_bytes(damage)
    assert load_seeds(tmp_path / "seeds")[NCCL_ID].raw == nccl_raw


def test_a_snapshot_others_can_write_is_never_loaded(tmp_path, monkeypatch, nccl_raw):
    monkeypatch.setenv("ERRKB_CACHE", str(tmp_path / "cache"))
    write_entry(tmp_path / "seeds", nccl_raw)
    digest = load_seeds(tmp_path / "seeds").digest
    assert read_cached("seeds", digest) is not None
    (snapshot,) = (tmp_path / "cache").glob("seeds-*.pickle")
    snapshot.chmod(0o666)
    assert read_cached("seeds", digest) is None


def test_an_older_versions_snapshot_is_removed(tmp_path, monkeypatch, nccl_raw):
    monkeypatch.setenv("ERRKB_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "seeds-0123.json").write_text("{}", encoding="utf-8")
    write_entry(tmp_path / "seeds", nccl_raw)
    load_seeds(tmp_path / "seeds")
    assert _snapshot_files(tmp_path / "cache") == ["seeds"]
    assert not (tmp_path / "cache" / "seeds-0123.json").exists()


def test_off_keeps_no_snapshot(tmp_path, monkeypatch, nccl_raw):
    monkeypatch.setenv("ERRKB_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    write_entry(tmp_path / "seeds", nccl_raw)
    assert load_seeds(tmp_path / "seeds").digest is None
    assert not (tmp_path / "xdg").exists()


def test_entries_load_from_their_own_file_and_read_the_same_after_it_is_replaced(tmp_path, monkeypatch, nccl_raw):
    monkeypatch.setenv("ERRKB_CACHE", str(tmp_path / "cache"))
    path = write_entry(tmp_path / "seeds", nccl_raw)
    first = load_seeds(tmp_path / "seeds")
    (stored,) = (tmp_path / "cache").glob("entries-*.bin")
    assert stored.stat().st_mode & 0o077 == 0
    assert copy.deepcopy(first[NCCL_ID]) == first[NCCL_ID]  # a copy carries the bytes, not the open file
    nccl_raw["signature"] = "an edited signature"
    path.write_text(json.dumps(nccl_raw), encoding="utf-8")
    edited = load_seeds(tmp_path / "seeds")
    assert [p.name for p in (tmp_path / "cache").glob("entries-*.bin")] != [stored.name]  # the old file is gone…
    assert first[NCCL_ID].signature != edited[NCCL_ID].signature == "an edited signature"  # …yet still read


@pytest.mark.parametrize("damage", ["truncated", "other", "shared"])
def test_a_damaged_or_foreign_entries_file_is_ignored(tmp_path, monkeypatch, nccl_raw, damage):
    monkeypatch.setenv("ERRKB_CACHE", str(tmp_path / "cache"))
    write_entry(tmp_path / "seeds", nccl_raw)
    load_seeds(tmp_path / "seeds")
    (stored,) = (tmp_path / "cache").glob("entries-*.bin")
    data = stored.read_bytes()
    if damage == "truncated":
        stored.write_bytes(data[:-10])
    elif damage == "other":
        stored.write_bytes(b"errkb entries 0000" + data[18:])
    else:
        stored.chmod(0o666)
    assert load_seeds(tmp_path / "seeds")[NCCL_ID].raw == nccl_raw
