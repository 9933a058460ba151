"""Suggested fixes in the store: one workspace's, voted like any workaround, kept by seeding unless claimed."""

from __future__ import annotations

import copy

from bot.kb.feedback import SUGGESTED_BASE, Tally
from bot.store.team_fixes import key_of

NCCL_ID = "pytorch/nccl-timeout-during-allreduce"
FIX = "Set NCCL_P2P_DISABLE=1 on the nodes without NVLink."


async def test_a_fix_belongs_to_its_workspace_and_takes_votes_like_any_workaround(seeded):
    fix = await seeded.suggest_fix("T1", NCCL_ID, "U1", "en", FIX)
    assert fix.index > SUGGESTED_BASE and (fix.author, fix.locale, fix.text, fix.text_other) == ("U1", "en", FIX, None)
    mine = (await seeded.feedback([NCCL_ID], workspace="T1"))[NCCL_ID]
    assert mine.suggested == (fix,)
    assert (await seeded.feedback([NCCL_ID], workspace="T2"))[NCCL_ID].suggested == ()
    assert (await seeded.feedback([NCCL_ID]))[NCCL_ID].suggested == ()

    assert (await seeded.record_button("T1", "U2", NCCL_ID, fix.index, 1, 10.0)).tally == Tally(1, 0)
    await seeded.record_vote("T1", "U3", NCCL_ID, fix.index, "-1", True, 11.0)
    assert (await seeded.feedback([NCCL_ID], "T1"))[NCCL_ID].workarounds[fix.index] == Tally(1, 1)
    assert (await seeded.feedback([NCCL_ID], "T1"))[NCCL_ID].workarounds[0] == Tally()  # KB fixes untouched
    assert await seeded.check() == []


async def test_fixes_get_indexes_apart_and_an_unknown_entry_takes_none(seeded):
    a = await seeded.suggest_fix("T1", NCCL_ID, "U1", "en", FIX)
    b = await seeded.suggest_fix("T1", "pytorch/other-error", "U1", "zh", "重启训练。", "Restart the job.")
    assert a.index != b.index and min(a.index, b.index) > SUGGESTED_BASE
    assert await seeded.suggest_fix("T1", "nope/none", "U1", "en", FIX) is None
    listed = await seeded.suggested_fixes("T1")
    assert listed == {NCCL_ID: (a,), "pytorch/other-error": (b,)}


async def test_seeding_keeps_a_fix_and_an_exported_one_claimed_by_key_becomes_that_kb_workaround(
        seeded, make_kb, nccl, other):
    fix = await seeded.suggest_fix("T1", NCCL_ID, "U1", "en", FIX)
    await seeded.record_button("T1", "U2", NCCL_ID, fix.index, 1, 10.0)
    edited = copy.deepcopy(nccl)
    edited["workarounds"][0]["action"] += " (edited)"
    report = await seeded.sync_entries(make_kb(edited, other))
    assert report.updated == [NCCL_ID] and not report.retired_workarounds
    assert (await seeded.feedback([NCCL_ID], "T1"))[NCCL_ID].suggested == (fix,)

    upstream = copy.deepcopy(edited)  # what `errkb export` writes for it, sent upstream and seeded back
    upstream["workarounds"].append({"action": FIX, "success_rate": 0.5, "how": "", "condition": "", "sources": [],
                                    "key": key_of(fix.index - SUGGESTED_BASE)})
    upstream["workarounds_zh"].append(FIX)
    await seeded.sync_entries(make_kb(upstream, other))
    live = (await seeded.feedback([NCCL_ID], "T1"))[NCCL_ID]
    assert live.suggested == ()  # not twice: it is the entry's fourth workaround now, with its vote
    assert live.workarounds[3] == Tally(1, 0) and fix.index not in live.workarounds
    assert await seeded.check() == []


async def test_deleting_the_workspace_removes_its_fixes_and_keeps_their_votes_as_counts(seeded):
    fix = await seeded.suggest_fix("T1", NCCL_ID, "U1", "en", FIX)
    await seeded.record_button("T1", "U2", NCCL_ID, fix.index, 1, 10.0)
    removed = await seeded.delete_workspace("T1")
    assert removed.rows.get("team_fixes") == 1
    assert await seeded.suggested_fixes("T1") == {}
    assert fix.index not in (await seeded.feedback([NCCL_ID]))[NCCL_ID].workarounds  # no longer votable
    assert await seeded.check() == []


async def test_a_claimed_fix_dropped_by_later_seeds_is_retired_like_any_kb_workaround(seeded, make_kb, nccl, other):
    fix = await seeded.suggest_fix("T1", NCCL_ID, "U1", "en", FIX)
    upstream = copy.deepcopy(nccl)
    upstream["workarounds"].append({"action": FIX, "success_rate": 0.5, "how": "", "condition": "", "sources": [],
                                    "key": key_of(fix.index - SUGGESTED_BASE)})
    upstream["workarounds_zh"].append("")
    await seeded.sync_entries(make_kb(upstream, other))
    changed = copy.deepcopy(nccl)
    changed["workarounds"].append({"action": "Something else entirely, new in this release.", "success_rate": 0.6,
                                   "how": "", "condition": "", "sources": []})
    changed["workarounds_zh"].append("")
    report = await seeded.sync_entries(make_kb(changed, other))  # index 3 is taken by another fix now
    assert report.retired_workarounds == [f"{NCCL_ID} workarounds[3]"]
    assert await seeded.check() == []


async def test_a_fix_gets_its_translation_once_and_only_in_its_workspace(seeded):
    fix = await seeded.suggest_fix("T1", NCCL_ID, "U1", "en", FIX)
    assert not await seeded.translate_fix("T2", fix.index, "别的工作区。")
    assert await seeded.translate_fix("T1", fix.index, "在没有 NVLink 的节点上设置 NCCL_P2P_DISABLE=1。")
    assert not await seeded.translate_fix("T1", fix.index, "改写。")  # the first translation stays
    (found,) = (await seeded.suggested_fixes("T1"))[NCCL_ID]
    assert found.text_other == "在没有 NVLink 的节点上设置 NCCL_P2P_DISABLE=1。"


async def test_a_reviewer_verifies_a_fix_or_retires_it_keeping_its_votes_as_counts(seeded):
    fix = await seeded.suggest_fix("T1", NCCL_ID, "U1", "en", FIX)
    await seeded.record_button("T1", "U2", NCCL_ID, fix.index, 1, 10.0)
    assert not await seeded.review_fix("T2", fix.index, "verified")  # another workspace's: untouched
    assert await seeded.review_fix("T1", fix.index, "verified")
    assert (await seeded.suggested_fixes("T1"))[NCCL_ID][0].verified
    assert await seeded.review_fix("T1", fix.index, "retired")
    assert not await seeded.review_fix("T1", fix.index, "verified")  # retired stays retired
    live = (await seeded.feedback([NCCL_ID], "T1"))[NCCL_ID]
    assert live.suggested == () and fix.index not in live.workarounds
    assert not await seeded.translate_fix("T1", fix.index, "在没有 NVLink 的节点上设置 NCCL_P2P_DISABLE=1。")
    assert await seeded.check() == []
