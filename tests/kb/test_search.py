"""Search in English and Chinese, with typo tolerance and reasons."""

from __future__ import annotations

import copy
import pickle

import pytest

from bot.kb.entry import Entry
from bot.kb.search import SearchIndex, tokenize
from tests.conftest import NCCL_ID


@pytest.fixture
def index(nccl_raw) -> SearchIndex:
    oom = copy.deepcopy(nccl_raw)
    oom.update(
        id="pytorch/cuda-out-of-memory", signature="torch.OutOfMemoryError: CUDA out of memory.",
        signature_zh="CUDA 显存不足", root_cause="The GPU has no free memory for the allocation.",
        root_cause_zh="GPU 上没有足够的空闲显存来完成这次分配。", tags=["oom", "gpu", "memory"], aliases=[],
    )
    pip = copy.deepcopy(nccl_raw)
    pip.update(
        id="pip/externally-managed-environment", signature="error: externally-managed-environment",
        signature_zh="错误：外部管理的环境", root_cause="The system Python is managed by the OS package manager (PEP 668).",
        root_cause_zh="系统自带的 Python 由操作系统的包管理器管理（PEP 668）。", tags=["pep668"],
        workarounds=[], workarounds_zh=[], dead_ends=[],
    )
    return SearchIndex({e["id"]: Entry(e) for e in (nccl_raw, oom, pip)})


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("nccl", NCCL_ID),
        ("allreduce timeout", NCCL_ID),
        ("超时", NCCL_ID),
        ("显存不足", "pytorch/cuda-out-of-memory"),
        ("oom", "pytorch/cuda-out-of-memory"),
        ("externally managed", "pip/externally-managed-environment"),
        ("pep668", "pip/externally-managed-environment"),
        ("ncll", NCCL_ID),  # a typo
        ("allreduse", NCCL_ID),  # another
    ],
)
def test_queries_in_both_languages_find_the_right_entry_first(index, query, expected):
    assert index.search(query)[0].entry_id == expected


def test_each_hit_says_why_it_matched(index):
    hit = index.search("超时")[0]
    assert "超时" in hit.reasons["signature"]


def test_a_single_shared_chinese_character_is_no_match(index):
    assert index.search("不要") == []


def test_nonsense_finds_nothing(index):
    assert index.search("zzzqqq") == []


def test_tokenize_splits_identifiers_and_chinese_pairs():
    assert {"torch.distributed", "torch", "distributed"} <= set(tokenize("torch.distributed"))
    assert {"显存", "存不", "不足"} <= set(tokenize("显存不足"))


def test_the_real_kb_answers_the_readme_queries(kb):
    from bot.kb.search import SearchIndex as Index

    real = Index(kb.entries)
    nccl = [h.entry_id for h in real.search("nccl", limit=5)]
    assert len(nccl) == 5 and all("nccl" in kb.entries[i].raw["regex"].lower() + i for i in nccl), nccl
    assert NCCL_ID in [h.entry_id for h in real.search("超时", limit=5)]
    assert NCCL_ID in [h.entry_id for h in real.search("allreduce timed out", limit=3)]


def _ids(index, query, limit=3, hits=None):
    return [h.entry_id for h in index.search(query, limit=limit, hits=hits)]


def test_nccl_lists_the_users_entry_near_the_top(kb):
    assert NCCL_ID in _ids(kb.index, "nccl")


def test_a_typo_of_nccl_finds_nccl_entries_not_null_pointers(kb):
    found = _ids(kb.index, "ncll", limit=10)
    assert all("nccl" in i for i in found[:5]), found
    assert not any(i.startswith("java/") for i in found), found


def test_oom_means_out_of_memory_and_finds_the_cuda_entry(kb):
    found = _ids(kb.index, "oom", limit=5)  # every ecosystem runs out of memory: all five say so
    assert "pytorch/cuda-out-of-memory" in found[:3]
    assert all("memory" in kb.entries[i].signature.lower() or "oom" in i for i in found), found
    assert _ids(kb.index, "npe", limit=1) == ["java/nullpointerexception"]


def test_entries_the_team_hits_often_rank_first(kb):
    before = _ids(kb.index, "oom", limit=10)
    often = before[-1]
    assert _ids(kb.index, "oom", limit=1, hits={often: 40}) == [often]


def test_an_empty_query_finds_nothing(kb):
    assert kb.index.search("   ") == []


def test_the_index_kept_in_a_snapshot_answers_exactly_as_the_one_built(kb):
    kept = pickle.loads(pickle.dumps(kb.index, protocol=pickle.HIGHEST_PROTOCOL))
    queries = ["nccl", "ncll", "allreduse", "超时", "显存不足", "oom", "npe", "segfault sigsegv", "k8s pod pending",
               "cuda out of memory", "pip externally managed", "git push rejected non-fast-forward", "zzzqqq", ""]
    for query in queries:
        for hits in (None, {"pytorch/cuda-out-of-memory": 7, NCCL_ID: 1}):
            assert kept.search(query, limit=10, hits=hits) == kb.index.search(query, limit=10, hits=hits), query
