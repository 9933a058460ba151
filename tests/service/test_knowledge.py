"""The service: a paste and a reader's locale in, a localized diagnosis out, live votes applied."""

from __future__ import annotations

import datetime as dt

import pytest

from bot import i18n
from bot.kb.feedback import Tally
from bot.service.knowledge import Feedback, Knowledge
from tests.conftest import NCCL_ID

PASTE = "[rank0]: RuntimeError: [torch.distributed] AllReduce timed out in rank 0 (timeout: 600)"


class FakeVotes:
    """Stands in for the store's vote counts (the store has its own tests)."""

    def __init__(self, tallies: dict[int, Tally], voters: int = 0) -> None:
        self.tallies, self.voters, self.hits = tallies, voters, []

    async def feedback(self, entry_ids, workspace=None):
        return {i: Feedback(self.tallies, distinct_voters=self.voters, last_confirmed=dt.date(2026, 11, 30))
                for i in entry_ids}

    async def record_hit(self, entry_id, locale, day=None):
        self.hits.append((entry_id, locale))


async def test_english_reader_gets_the_seed_text_ranked_by_prior(kb):
    with i18n.use_locale("en-US"):
        diagnosis = await Knowledge(kb).diagnose(PASTE)
    entry = diagnosis.best.entry
    assert diagnosis.locale == "en" and entry.id == NCCL_ID
    assert [w.index for w in entry.workarounds] == [0, 2, 1]  # 0.85, 0.80, 0.75
    assert entry.dead_ends[0].fail_rate == 0.95 and not entry.dead_ends[0].untranslated


async def test_chinese_reader_gets_chinese_everywhere(kb):
    with i18n.use_locale("zh-CN"):
        entry = (await Knowledge(kb).diagnose(PASTE)).best.entry
    # the exception line as printed, then its gloss (the user's file is corrected in its overlay, not edited)
    assert entry.signature.startswith("RuntimeError: [torch.distributed] AllReduce timed out in rank 0")
    assert "进程号/rank" in entry.signature and "排名" not in entry.signature
    assert entry.root_cause.startswith("NCCL allreduce 操作")
    assert entry.workarounds[0].text.startswith("使用 `nccl-tests`")
    # dead_ends_zh comes from seeds/_translations, the user's file being left as given.
    assert entry.dead_ends[0].text == "多打日志有助于定位原因，但并不能解决超时本身。"
    assert not any(d.untranslated for d in entry.dead_ends)


async def test_a_missing_translation_shows_english_marked_never_blank(bare_kb):
    with i18n.use_locale("zh-CN"):
        entry = (await Knowledge(bare_kb).diagnose(PASTE)).best.entry
    assert all(d.untranslated and d.text for d in entry.dead_ends)
    assert entry.dead_ends[0].text.startswith("While logging helps")


async def test_votes_move_rates_ranking_and_evidence(kb):
    votes = FakeVotes({1: Tally(up=30, down=0), 0: Tally(up=0, down=10)}, voters=40)
    with i18n.use_locale("en"):
        entry = await Knowledge(kb, votes).show(NCCL_ID)
    assert next(w.index for w in entry.workarounds) == 1
    top = entry.workarounds[0]
    assert top.votes_up == 30 and top.success_rate > 0.9
    assert entry.workaround(0).success_rate < 0.5
    assert entry.evidence_count == 1 + 40
    assert entry.last_confirmed == dt.date(2026, 11, 30)


async def test_a_diagnosis_is_counted_without_keeping_the_paste(kb):
    votes = FakeVotes({})
    with i18n.use_locale("zh"):
        await Knowledge(kb, votes).diagnose(PASTE)
    assert votes.hits == [(NCCL_ID, "zh")]


async def test_a_huge_paste_keeps_its_tail_and_true_offsets(kb):
    paste = "x" * 250_000 + "\n" + PASTE
    diagnosis = await Knowledge(kb).diagnose(paste)
    start, end = diagnosis.best.span
    assert paste[start:end] == "AllReduce timed out in rank 0 (timeout: 600)"


async def test_search_shows_signatures_in_the_readers_language(kb):
    with i18n.use_locale("zh"):
        results = await Knowledge(kb).search("allreduce timed out", limit=3)
    assert any(r.id == NCCL_ID and "集合通信超时" in r.signature for r in results)


@pytest.mark.parametrize(("locale", "query", "word"), [("zh-TW", "超時", "超時"), ("zh-TW", "逾時", "超時"),
                                                      ("zh-HK", "網絡 超時", "超時"), ("zh", "超時", "超时")])
async def test_traditional_readers_read_traditional_and_both_scripts_search_alike(kb, locale, query, word):
    with i18n.use_locale(locale):
        results = await Knowledge(kb).search(query, limit=5)
        entry = await Knowledge(kb).show(NCCL_ID)
    assert NCCL_ID in [r.id for r in results]
    assert entry is not None and word in entry.signature
    fixed = next(w for w in entry.workarounds if "NCCL_SOCKET_IFNAME" in w.text)
    assert "`NCCL_SOCKET_IFNAME=eth0`" in fixed.text  # commands stay as written in every script


async def test_a_fix_written_only_in_chinese_shows_its_chinese_to_english_readers_marked(nccl_raw):
    from bot.kb.entry import Entry
    from bot.kb.knowledge import KnowledgeBase

    nccl_raw["workarounds"].append({"action": "", "success_rate": 0.9, "needs_translation": "en"})
    nccl_raw["workarounds_zh"].append("先清空缓存再重试。")
    kb = KnowledgeBase.from_entries({NCCL_ID: Entry(nccl_raw)})
    for locale in ("en", "zh"):
        with i18n.use_locale(locale):
            fix = next(w for w in (await Knowledge(kb).show(NCCL_ID)).workarounds if w.index == 3)
        assert (fix.text, fix.untranslated) == ("先清空缓存再重试。", locale == "en")


async def test_a_first_search_loads_the_index_without_holding_up_other_work(kb, monkeypatch):
    import asyncio
    import time

    from bot.kb.knowledge import KnowledgeBase

    fresh = KnowledgeBase(kb.entries)
    slow_load = fresh._load_index

    def slow() -> object:
        time.sleep(0.4)  # a 50,000-entry index being built after a seeds change
        return slow_load()

    monkeypatch.setattr(fresh, "_load_index", slow)
    ticks = 0

    async def other_events() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.ensure_future(other_events())
    results = await Knowledge(fresh).search("nccl timeout")
    ticker.cancel()
    assert results[0].id == NCCL_ID and ticks >= 20
