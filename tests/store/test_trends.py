"""The dashboard's time series: one workspace's hits per day and entry, never another's."""

from __future__ import annotations

import datetime as dt

from bot.store.records import DayHits

NCCL = "pytorch/nccl-timeout-during-allreduce"
NPM = "npm/eresolve"
JUNE = [dt.date(2026, 6, d) for d in range(1, 5)]


async def test_hits_are_summed_per_day_and_entry_across_locales_from_the_first_day_asked(store):
    for entry_id, locale, day in [(NCCL, "en", JUNE[0]), (NCCL, "en", JUNE[1]), (NCCL, "zh", JUNE[1]),
                                  (NPM, "zh", JUNE[1]), (NPM, "en", JUNE[3])]:
        await store.record_hit(entry_id, locale, day, workspace="T1")
    assert await store.daily_hits("T1", JUNE[1]) == [DayHits(JUNE[1], NPM, 1), DayHits(JUNE[1], NCCL, 2),
                                                     DayHits(JUNE[3], NPM, 1)]
    assert await store.daily_hits("T1", JUNE[0]) == [DayHits(JUNE[0], NCCL, 1), *await store.daily_hits("T1", JUNE[1])]


async def test_another_workspaces_hits_and_the_command_lines_are_not_counted(store):
    await store.record_hit(NCCL, "en", JUNE[0], workspace="T1")
    await store.record_hit(NCCL, "en", JUNE[0], workspace="T2")
    await store.record_hit(NCCL, "en", JUNE[0], workspace="T2")
    await store.record_hit(NCCL, "en", JUNE[0])  # the CLI: workspace ""
    assert await store.daily_hits("T1", JUNE[0]) == [DayHits(JUNE[0], NCCL, 1)]
    assert await store.daily_hits("T2", JUNE[0]) == [DayHits(JUNE[0], NCCL, 2)]
    assert await store.daily_hits("T3", JUNE[0]) == []
