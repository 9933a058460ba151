"""Bounded state (issue 10, item 8): handled ids live only through Slack's replay window, and the
background prune, not each claim, deletes them."""

from __future__ import annotations

from bot.config import Retention
from bot.service.replays import WINDOW as REPLAY_WINDOW


async def test_lapsed_claims_are_taken_over_and_pruned_in_the_background(store, clock):
    for n in range(100):
        assert await store.claim_event(f"Ev{n}", ttl_seconds=REPLAY_WINDOW)
    clock.now += REPLAY_WINDOW - 1
    assert not await store.claim_event("Ev7", ttl_seconds=REPLAY_WINDOW)  # a retry within the window
    assert (await store.prune(Retention())).rows.get("slack_events") is None  # nothing lapsed yet
    clock.now += 2
    assert await store.claim_event("Ev7", ttl_seconds=REPLAY_WINDOW)  # lapsed: taken over, not refused
    removed = await store.prune(Retention())
    assert removed.rows["slack_events"] == 99  # every lapsed id but the one claimed again
    assert not await store.claim_event("Ev7", ttl_seconds=REPLAY_WINDOW)
    assert await store.claim_event("Ev8", ttl_seconds=REPLAY_WINDOW)
