"""Replays: Slack delivers a click or a command again when it thinks the first was lost; each acts once."""

from __future__ import annotations

from bot.store import Store

WINDOW = 600  # seconds: Slack replays a click or command for up to five minutes


class Replays:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def first(self, key: str) -> bool:
        """True the first time ``key`` is seen (in any process) within Slack's replay window."""
        return await self.store.claim_event(key, ttl_seconds=WINDOW)
