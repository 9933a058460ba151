"""Match hits and the numbers ``errkb stats`` prints."""

from __future__ import annotations

import datetime as dt

from bot.store import EntryHits, WorkaroundVotes

NCCL = "pytorch/nccl-timeout-during-allreduce"
OTHER = "pytorch/other-error"


async def test_an_empty_store_has_empty_stats(store):
    stats = await store.stats()
    assert stats.top_entries == [] and stats.top_workarounds == [] and stats.hits_by_locale == {}
    assert (stats.votes_up, stats.votes_down, stats.voters) == (0, 0, 0)


async def test_hits_add_up_per_entry_and_per_locale(seeded):
    day1, day2 = dt.date(2024, 6, 1), dt.date(2024, 6, 2)
    for entry_id, locale, day in [(NCCL, "en", day1), (NCCL, "en", day1), (NCCL, "zh", day2),
                                  (OTHER, "zh", day1), ("pytorch/not-seeded-yet", "en", day2)]:
        await seeded.record_hit(entry_id, locale, day)
    stats = await seeded.stats()
    # Ties in id order.
    assert stats.top_entries == [EntryHits(NCCL, 3), EntryHits("pytorch/not-seeded-yet", 1), EntryHits(OTHER, 1)]
    assert stats.hits_by_locale == {"en": 3, "zh": 2}
    assert (await seeded.stats(limit=1)).top_entries == [EntryHits(NCCL, 3)]


async def test_hits_default_to_todays_utc_date(seeded, clock):
    clock.now = 1_717_243_199.0  # 2024-06-01 11:59:59 UTC
    await seeded.record_hit(NCCL, "en")
    await seeded.record_hit(NCCL, "en", dt.date(2024, 6, 1))
    assert (await seeded.stats()).top_entries == [EntryHits(NCCL, 2)]


async def test_most_voted_workarounds_and_vote_totals(seeded):
    for user in ("U1", "U2", "U3"):
        await seeded.record_vote("T1", user, OTHER, 1, "+1", True, 1)
    await seeded.record_vote("T1", "U1", NCCL, 2, "-1", True, 1)
    await seeded.record_vote("T1", "U4", NCCL, None, "+1", True, 1)
    stats = await seeded.stats()
    assert stats.top_workarounds == [WorkaroundVotes(OTHER, 1, 3, 0), WorkaroundVotes(NCCL, 2, 0, 1)]
    assert (stats.votes_up, stats.votes_down) == (3, 1)
    assert (stats.diagnosis_up, stats.diagnosis_down) == (1, 0)
    assert stats.voters == 4


async def test_hit_counts_add_up_per_entry_and_workspace(store):
    import datetime as dt

    day = dt.date(2026, 12, 1)
    for workspace, entry_id in (("T1", "a/x"), ("T1", "a/x"), ("T2", "a/x"), ("T1", "b/y")):
        await store.record_hit(entry_id, "en", day, workspace=workspace)
    assert await store.hit_counts() == {"a/x": 3, "b/y": 1}
    assert await store.hit_counts("T1") == {"a/x": 2, "b/y": 1}
    assert await store.hit_counts("T3") == {}
