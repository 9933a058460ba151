"""Alerts from other bots, counted per workspace, channel and error within a window (issue 22, point 4)."""

from __future__ import annotations

import asyncio

from bot.config import Retention
from bot.store import Store
from bot.store.records import AlertSeen

OOM = "pytorch/cuda-out-of-memory"
DAY = 86400.0


async def test_the_first_alert_is_one_and_repeats_count_up_until_the_answer_is_noted(store, clock):
    assert await store.alert_seen("TA", "C1", OOM, DAY) == AlertSeen(1, None)
    clock.now += 60
    assert await store.alert_seen("TA", "C1", OOM, DAY) == AlertSeen(2, None)
    assert await store.alert_answered("TA", "C1", OOM, "1.000100") == 2
    assert await store.alert_answered("TA", "C1", OOM, "1.000200") is None  # one answer per window
    clock.now += 60
    assert await store.alert_seen("TA", "C1", OOM, DAY) == AlertSeen(3, "1.000100")
    assert await store.alert_count("TA", "C1", "1.000100") == 3
    assert await store.alert_count("TA", "C1", "1.000999") is None  # a message that answers no alert


async def test_after_the_window_the_same_error_starts_again_unanswered(store, clock):
    await store.alert_seen("TA", "C1", OOM, DAY)
    await store.alert_answered("TA", "C1", OOM, "1.000100")
    clock.now += DAY - 1
    assert await store.alert_seen("TA", "C1", OOM, DAY) == AlertSeen(2, "1.000100")
    clock.now += 2  # the window began at the first alert: it is over now
    assert await store.alert_seen("TA", "C1", OOM, DAY) == AlertSeen(1, None)
    assert await store.alert_answered("TA", "C1", OOM, "2.000100") == 1


async def test_channels_errors_and_workspaces_are_counted_apart(store):
    await store.alert_seen("TA", "C1", OOM, DAY)
    assert await store.alert_seen("TA", "C2", OOM, DAY) == AlertSeen(1, None)
    assert await store.alert_seen("TA", "C1", "kubernetes/crashloopbackoff", DAY) == AlertSeen(1, None)
    assert await store.alert_seen("TB", "C1", OOM, DAY) == AlertSeen(1, None)
    await store.alert_answered("TA", "C1", OOM, "1.000100")
    assert await store.alert_count("TB", "C1", "1.000100") is None  # B never reads A's answer


async def test_alerts_counted_at_once_by_two_processes_have_one_first(db_url, clock):
    first, second = await Store.open(db_url), await Store.open(db_url)
    try:
        first.clock = second.clock = clock
        seen = await asyncio.gather(*(s.alert_seen("TA", "C1", OOM, DAY) for s in (first, second) * 5))
        assert sorted(s.count for s in seen) == list(range(1, 11))  # exactly one alert answers
    finally:
        await first.close()
        await second.close()


async def test_counts_go_with_their_workspace_and_expire_with_the_hit_counts(store, clock):
    await store.alert_seen("TA", "C1", OOM, DAY)
    await store.alert_seen("TB", "C1", OOM, DAY)
    removed = await store.delete_workspace("TA")
    assert removed.rows.get("alerts") == 1
    assert await store.alert_seen("TA", "C1", OOM, DAY) == AlertSeen(1, None)
    clock.now += 366 * DAY
    await store.alert_seen("TA", "C2", OOM, DAY)
    pruned = await store.prune(Retention(hits_days=365))
    assert pruned.rows.get("alerts") == 2  # TA/C1 and TB/C1, a year old; TA/C2 stays
    assert await store.alert_seen("TA", "C2", OOM, DAY) == AlertSeen(2, None)
