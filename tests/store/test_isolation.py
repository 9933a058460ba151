"""One workspace never reaches another's rows through the store's API: every read and write that a request
makes names the request's workspace, and another workspace's team entry, suggested fix or vote target is
simply not there for it (issue 24)."""

from __future__ import annotations

import pytest

from bot.kb.feedback import Tally
from bot.store import UnknownTarget

NCCL_ID = "pytorch/nccl-timeout-during-allreduce"
BODY = {"title": "FooError: widget <n> is stuck", "root_cause": "The widget cache is full.",
        "workarounds": ["Clear the cache with `foo gc`."], "dead_ends": []}
REGEX = r"FooError: widget \d+ is stuck"


async def a_with_data(store):
    """Workspace A: a team entry, a suggested fix on a KB entry and one on its own entry, votes on each."""
    entry = await store.add_team_entry("TA", "UA", "en", BODY, REGEX, "FooError: widget <n> is stuck")
    fix = await store.suggest_fix("TA", NCCL_ID, "UA", "en", "A's own fix.")
    own = await store.suggest_fix("TA", entry.entry_id, "UA", "en", "A's fix for its entry.")
    await store.record_button("TA", "UA", entry.entry_id, 0, 1, 1.0)
    await store.record_button("TA", "UA", NCCL_ID, fix.index, 1, 2.0)
    return entry, fix, own


async def test_another_workspaces_team_entry_is_not_found_nor_changed(seeded):
    entry, _fix, _own = await a_with_data(seeded)
    assert await seeded.team_entry("TB", entry.entry_id) is None
    assert await seeded.edit_team_entry("TB", entry.entry_id, {**BODY, "title": "pwned"}, "pwned") is None
    assert await seeded.set_team_status("TB", entry.entry_id, "retired", "UB") is None
    assert await seeded.team_entries("TB") == []
    assert await seeded.team_entry("TA", entry.entry_id) == entry  # untouched, and still A's


async def test_another_workspaces_entry_takes_no_fix_and_its_fixes_are_not_there(seeded):
    entry, fix, own = await a_with_data(seeded)
    assert await seeded.suggest_fix("TB", entry.entry_id, "UB", "en", "B's fix") is None
    assert await seeded.suggested_fixes("TB") == {}
    assert not await seeded.translate_fix("TB", fix.index, "B's translation")
    assert not await seeded.review_fix("TB", fix.index, "retired")
    assert await seeded.suggested_fixes("TA") == {NCCL_ID: (fix,), entry.entry_id: (own,)}


async def test_votes_naming_another_workspaces_entry_or_fix_change_nothing(seeded):
    entry, fix, own = await a_with_data(seeded)
    before = await seeded.feedback([entry.entry_id, NCCL_ID], "TA")
    for entry_id, index in ((entry.entry_id, 0), (entry.entry_id, None), (NCCL_ID, fix.index),
                            (entry.entry_id, own.index)):
        with pytest.raises(UnknownTarget):
            await seeded.record_button("TB", "UB", entry_id, 0 if index is None else index, 1, 3.0)
        with pytest.raises(UnknownTarget):
            await seeded.record_vote("TB", "UB", entry_id, index, "+1", True, 3.0)
    assert await seeded.feedback([entry.entry_id, NCCL_ID], "TA") == before
    assert (await seeded.record_button("TB", "UB", NCCL_ID, 0, 1, 4.0)).tally == Tally(1, 0)  # the KB: everyone's
    assert (await seeded.stats(workspace="TA")).voters == 1 and (await seeded.stats(workspace="TB")).voters == 1
    assert await seeded.check() == []


async def test_feedback_shows_a_workspace_only_what_it_may_see(seeded):
    entry, fix, _own = await a_with_data(seeded)
    theirs = await seeded.feedback([entry.entry_id, NCCL_ID], "TB")
    assert theirs[entry.entry_id].workarounds == {} and theirs[entry.entry_id].suggested == ()
    assert fix.index not in theirs[NCCL_ID].workarounds and theirs[NCCL_ID].suggested == ()
    mine = await seeded.feedback([entry.entry_id, NCCL_ID], "TA")
    assert mine[entry.entry_id].workarounds[0] == Tally(1, 0) and mine[NCCL_ID].workarounds[fix.index] == Tally(1, 0)


async def test_a_message_of_one_workspace_never_shows_another_workspaces_team_entry(seeded):
    entry, _fix, _own = await a_with_data(seeded)
    with pytest.raises(UnknownTarget):
        await seeded.remember_message("TB", "C1", "1.000001", entry.entry_id, 0, "en")
    await seeded.remember_message("TA", "C1", "1.000002", entry.entry_id, 0, "en")
    assert await seeded.message_target("TB", "C1", "1.000002") is None  # A's message: not B's to vote on
    assert await seeded.message_target("TA", "C1", "1.000002") is not None


async def test_settings_unknown_errors_and_stats_are_per_workspace(seeded):
    await seeded.set_channel_mode("TA", "C1", "off")
    await seeded.set_channel_bots("TA", "C1", True)
    await seeded.set_locale_override("TA", "UA", "zh")
    await seeded.seen_unknown("TA", "C1", "d1", "FooError: <n>", "FooError")
    await seeded.record_hit(NCCL_ID, "en", workspace="TA")
    await seeded.set_channel_mode("TB", "C1", "mention")
    await seeded.set_remember_unknown("TB", False)
    assert (await seeded.channel_mode("TA", "C1"), await seeded.channel_bots("TA", "C1")) == ("off", True)
    assert await seeded.channel_mode("TB", "C1") == "mention" and not await seeded.channel_bots("TB", "C1")
    assert (await seeded.user_prefs("TB", "UA")).override is None
    assert [u.shape for u in await seeded.unknown_errors("TA")] == ["FooError: <n>"]
    assert await seeded.unknown_errors("TB") == [] and await seeded.remembers_unknown("TA")
    assert (await seeded.stats(workspace="TB")).hits_by_locale == {}
    assert await seeded.hit_counts("TB") == {}
