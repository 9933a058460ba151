"""The loaded KB: the matcher, the fallback's index and the search index come from the snapshot while
the seeds are unchanged; an edit re-analyses only its own regex."""

from __future__ import annotations

import copy
import json

import pytest

from bot.kb import matcher as matcher_module
from bot.kb import search as search_module
from bot.kb.knowledge import KnowledgeBase
from bot.kb.literals import analyze
from tests.conftest import write_entry

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"


@pytest.fixture
def seeds(tmp_path, monkeypatch, nccl_raw):
    monkeypatch.setenv("ERRKB_CACHE", str(tmp_path / "cache"))
    oom = copy.deepcopy(nccl_raw)
    oom.update(id="pytorch/cuda-oom", regex=r"CUDA out of memory\. Tried to allocate \d+(?:\.\d+)? [KMG]iB",
               signature=OOM, aliases=[], transition_graph={})
    nccl_raw["transition_graph"] = {}
    write_entry(tmp_path / "seeds", nccl_raw)
    return tmp_path / "seeds", write_entry(tmp_path / "seeds", oom), oom


def test_unchanged_seeds_match_without_analysing_a_regex(seeds, monkeypatch):
    root, _, _ = seeds
    built = KnowledgeBase.load(root).matcher
    built.fallback  # noqa: B018 - built once, then kept
    monkeypatch.setattr(matcher_module, "analyze", lambda pattern: pytest.fail("analysed again"))
    monkeypatch.setattr(matcher_module, "Fallback", lambda *args: pytest.fail("fallback index built again"))
    loaded = KnowledgeBase.load(root).matcher
    assert [m.entry_id for m in loaded.match(OOM)] == [m.entry_id for m in built.match(OOM)] == ["pytorch/cuda-oom"]
    # the fallback's index is kept too: a wording no regex has still finds the entry
    assert loaded.fallback.guess("torch.OutOfMemoryError: CUDA out of memory")[0].entry_id == "pytorch/cuda-oom"


def test_an_edited_regex_is_matched_at_once_and_only_it_is_analysed_again(seeds, monkeypatch):
    root, path, oom = seeds
    assert KnowledgeBase.load(root).matcher.match(OOM)
    oom["regex"] = r"CUDA ran dry"
    path.write_text(json.dumps(oom), encoding="utf-8")
    analysed = []
    monkeypatch.setattr(matcher_module, "analyze", lambda pattern: analysed.append(pattern) or analyze(pattern))
    matcher = KnowledgeBase.load(root).matcher
    assert analysed == [r"CUDA ran dry"]
    assert [m.entry_id for m in matcher.match("RuntimeError: CUDA ran dry") if m.how == "regex"] == ["pytorch/cuda-oom"]
    assert not [m for m in matcher.match(OOM) if m.how == "regex"]


def test_a_corrupt_matcher_snapshot_is_rebuilt(seeds, tmp_path):
    root, _, _ = seeds
    KnowledgeBase.load(root).matcher  # noqa: B018 - writes the snapshot
    (snapshot,) = (tmp_path / "cache").glob("matcher-*.pickle")
    snapshot.write_bytes(snapshot.read_bytes()[:100])
    assert KnowledgeBase.load(root).matcher.match(OOM)[0].entry_id == "pytorch/cuda-oom"


SEARCHES = ["nccl", "allreduce timeout", "超时", "显存不足", "oom", "ncll", "cuda out of memory", "gpu memory", "zzzqqq"]


def test_unchanged_seeds_search_from_the_snapshot_with_the_same_results(seeds, monkeypatch):
    root, _, _ = seeds
    built = KnowledgeBase.load(root)
    assert built.prepare_index() is not None  # not in the snapshot yet: built in the background
    expected = [built.index.search(q, hits={"pytorch/cuda-oom": 3}) for q in SEARCHES]
    monkeypatch.setattr(search_module.SearchIndex, "__init__", lambda *args: pytest.fail("search index built again"))
    loaded = KnowledgeBase.load(root)
    assert loaded.prepare_index() is None  # the first search loads it
    assert [loaded.index.search(q, hits={"pytorch/cuda-oom": 3}) for q in SEARCHES] == expected
    assert expected[SEARCHES.index("oom")][0].entry_id == "pytorch/cuda-oom"


def test_an_edited_seed_is_searched_as_edited(seeds):
    root, path, oom = seeds
    assert KnowledgeBase.load(root).index.search("dragon") == []
    oom["signature"] = "RuntimeError: here be dragons"
    path.write_text(json.dumps(oom), encoding="utf-8")
    assert [h.entry_id for h in KnowledgeBase.load(root).index.search("dragons")] == ["pytorch/cuda-oom"]
