"""Reactions and buttons recorded through the store move the tallies people see."""

from __future__ import annotations

import asyncio
import datetime as dt

import pytest

from bot.kb.feedback import Tally
from bot.store import Store, UnknownTarget

NCCL = "pytorch/nccl-timeout-during-allreduce"
OTHER = "pytorch/other-error"
DAY = 86400.0
T0 = 1_717_200_000.0  # 2024-06-01 00:00 UTC


async def react(store: Store, user: str, token: str, present: bool, at: float, workaround: int | None = 0,
                entry: str = NCCL, workspace: str = "T1"):
    return await store.record_vote(workspace, user, entry, workaround, token, present, at)


async def tally(store: Store, workaround: int = 0) -> Tally:
    return (await store.feedback([NCCL]))[NCCL].workarounds[workaround]


class TestReactions:
    async def test_thumbs_up_counts_and_removing_it_uncounts(self, seeded):
        added = await react(seeded, "U1", "+1", True, 1)
        assert added.changed and added.tally == Tally(1, 0)
        removed = await react(seeded, "U1", "+1", False, 2)
        assert removed.changed and removed.tally == Tally(0, 0)

    async def test_thumbs_down_counts_down(self, seeded):
        assert (await react(seeded, "U1", "-1", True, 1)).tally == Tally(0, 1)

    async def test_both_from_one_user_cancel(self, seeded):
        await react(seeded, "U1", "+1", True, 1)
        assert (await react(seeded, "U1", "-1::skin-tone-2", True, 2)).tally == Tally(0, 0)
        assert (await react(seeded, "U1", "+1", False, 3)).tally == Tally(0, 1)

    async def test_repeated_events_count_once(self, seeded):
        await react(seeded, "U1", "+1", True, 1)
        again = await react(seeded, "U1", "+1", True, 1)
        assert not again.changed and again.tally == Tally(1, 0)

    async def test_out_of_order_remove_then_add_ends_removed(self, seeded):
        await react(seeded, "U1", "+1", False, 2)
        late = await react(seeded, "U1", "+1", True, 1)
        assert not late.changed and late.tally == Tally(0, 0)

    async def test_skin_tones_are_one_vote(self, seeded):
        await react(seeded, "U1", "+1::skin-tone-2", True, 1)
        await react(seeded, "U1", "+1::skin-tone-5", True, 2)
        assert await tally(seeded) == Tally(1, 0)

    async def test_other_reactions_change_nothing(self, seeded):
        result = await react(seeded, "U1", "tada", True, 1)
        assert not result.changed and result.tally == Tally(0, 0)
        assert (await seeded.feedback([NCCL]))[NCCL].distinct_voters == 0

    async def test_one_vote_per_user_many_users_add_up(self, seeded):
        for user, token in [("U1", "+1"), ("U2", "+1"), ("U3", "-1"), ("U1", "+1::skin-tone-3")]:
            await react(seeded, user, token, True, 1)
        assert await tally(seeded) == Tally(2, 1)

    async def test_same_user_id_in_two_workspaces_is_two_voters(self, seeded):
        await react(seeded, "U1", "+1", True, 1, workspace="T1")
        await react(seeded, "U1", "+1", True, 1, workspace="T2")
        assert await tally(seeded) == Tally(2, 0)

    async def test_workarounds_and_entries_are_counted_apart(self, seeded):
        await react(seeded, "U1", "+1", True, 1, workaround=0)
        await react(seeded, "U1", "-1", True, 1, workaround=1)
        await react(seeded, "U1", "+1", True, 1, workaround=0, entry=OTHER)
        live = await seeded.feedback([NCCL, OTHER])
        assert live[NCCL].workarounds == {0: Tally(1, 0), 1: Tally(0, 1), 2: Tally()}
        assert live[OTHER].workarounds == {0: Tally(1, 0), 1: Tally()}

    async def test_unknown_entry_or_workaround_is_refused(self, seeded):
        with pytest.raises(UnknownTarget):
            await react(seeded, "U1", "+1", True, 1, entry="pytorch/nope")
        with pytest.raises(UnknownTarget):
            await react(seeded, "U1", "+1", True, 1, workaround=3)
        with pytest.raises(UnknownTarget):
            await react(seeded, "U1", "tada", True, 1, workaround=3)


class TestButtons:
    async def test_worked_then_didnt_work(self, seeded):
        assert (await seeded.record_button("T1", "U1", NCCL, 1, 1, 1)).tally == Tally(1, 0)
        assert (await seeded.record_button("T1", "U1", NCCL, 1, 1, 2)).changed is False
        assert (await seeded.record_button("T1", "U1", NCCL, 1, -1, 3)).tally == Tally(0, 1)
        assert await tally(seeded, 1) == Tally(0, 1)

    async def test_button_and_reaction_share_one_vote(self, seeded):
        await seeded.record_button("T1", "U1", NCCL, 0, 1, 1)
        await react(seeded, "U1", "+1", True, 2)
        assert await tally(seeded) == Tally(1, 0)

    async def test_a_button_vote_is_plus_or_minus_one(self, seeded):
        with pytest.raises(ValueError, match="button"):
            await seeded.record_button("T1", "U1", NCCL, 0, 0, 1)


class TestDiagnosisFeedback:
    async def test_diagnosis_votes_are_counted_apart_from_workarounds(self, seeded):
        await react(seeded, "U1", "+1", True, 1, workaround=None)
        await react(seeded, "U2", "-1", True, 1, workaround=None)
        live = (await seeded.feedback([NCCL]))[NCCL]
        assert live.diagnosis == Tally(1, 1)
        assert all(t == Tally() for t in live.workarounds.values())

    async def test_wrong_entry_votes_are_not_evidence_for_the_entry(self, seeded):
        await react(seeded, "U1", "+1", True, 1, workaround=None)  # right entry: evidence
        await react(seeded, "U2", "-1", True, 1, workaround=None)  # wrong entry: not evidence
        await react(seeded, "U3", "-1", True, 1, workaround=1)  # tried the fix, it failed: evidence
        await react(seeded, "U1", "+1", True, 1, workaround=0)  # same person again: no extra
        assert (await seeded.feedback([NCCL]))[NCCL].distinct_voters == 2


class TestFeedback:
    async def test_missing_entries_get_empty_feedback(self, seeded):
        live = await seeded.feedback(["pytorch/nope"])
        assert live["pytorch/nope"].workarounds == {} and live["pytorch/nope"].distinct_voters == 0

    async def test_no_ids_no_query(self, seeded):
        assert await seeded.feedback([]) == {}

    async def test_last_confirmed_is_the_day_of_the_latest_thumbs_up_still_standing(self, seeded):
        assert (await seeded.feedback([NCCL]))[NCCL].last_confirmed is None
        await react(seeded, "U1", "+1", True, T0 + 3 * DAY)
        await react(seeded, "U2", "+1", True, T0 + 9 * DAY, workaround=None)
        await react(seeded, "U3", "-1", True, T0 + 20 * DAY)  # a 👎 confirms nothing
        assert (await seeded.feedback([NCCL]))[NCCL].last_confirmed == dt.date(2024, 6, 10)
        await react(seeded, "U2", "+1", False, T0 + 21 * DAY, workaround=None)  # withdrawn
        assert (await seeded.feedback([NCCL]))[NCCL].last_confirmed == dt.date(2024, 6, 4)


class TestConcurrency:
    async def test_fifty_concurrent_voters_lose_nothing(self, seeded):
        results = await asyncio.gather(*(
            react(seeded, f"U{i:02d}", "+1" if i % 5 else "-1::skin-tone-2", True, T0 + i) for i in range(50)
        ))
        assert all(r.changed for r in results)
        assert await tally(seeded) == Tally(40, 10)
        assert sorted(r.tally.up + r.tally.down for r in results) == list(range(1, 51))  # each saw its own step
        assert (await seeded.feedback([NCCL]))[NCCL].distinct_voters == 50
        assert await seeded.check() == []

    async def test_two_processes_voting_at_once_lose_nothing(self, seeded, db_url):
        second = await Store.open(db_url)
        try:
            stores = (seeded, second)
            await asyncio.gather(*(
                react(stores[i % 2], f"U{i}", "+1", True, T0 + i) for i in range(30)
            ), *(
                react(stores[i % 2], f"U{i}", "+1", False, T0 + 100 + i) for i in range(0, 30, 3)
            ))
            # Removals may be delivered before their adds: the later event still wins.
            assert await tally(seeded) == Tally(20, 0)
            assert await second.check() == []
        finally:
            await second.close()

    async def test_one_users_racing_events_settle_on_the_latest(self, seeded):
        events = [("+1", True, 1), ("-1", True, 2), ("+1", False, 3), ("-1", False, 4), ("+1", True, 5)]
        await asyncio.gather(*(react(seeded, "U1", *e) for e in reversed(events)))
        assert await tally(seeded) == Tally(1, 0)
        assert await seeded.check() == []
