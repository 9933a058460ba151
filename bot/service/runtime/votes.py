"""Votes at volume: events that arrive together are applied in one transaction (group commit).

``submit`` returns once the event's transaction committed, so an acknowledged vote is stored; while
one transaction runs, the next batch gathers.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot.store import Store
from bot.store.records import VoteEvent, VoteOutcome

log = logging.getLogger(__name__)

MAX_BATCH = 500


class VoteQueue:
    def __init__(self, store: Store, before: Callable[[], Awaitable[None]] | None = None) -> None:
        self.store = store
        self.before = before  # awaited before each batch (the posted-message rows a vote needs)
        self._waiting: list[tuple[VoteEvent, asyncio.Future[VoteOutcome]]] = []
        self._running = False
        self._task: asyncio.Task[None] | None = None

    async def submit(self, event: VoteEvent) -> VoteOutcome:
        future: asyncio.Future[VoteOutcome] = asyncio.get_running_loop().create_future()
        self._waiting.append((event, future))
        if not self._running:
            self._running = True
            self._task = asyncio.ensure_future(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                if self.before is not None:
                    await self.before()
                batch, self._waiting = self._waiting[:MAX_BATCH], self._waiting[MAX_BATCH:]
                try:
                    outcomes = await self.store.record_votes([event for event, _f in batch])
                except Exception as exc:  # the whole batch rolled back: each caller learns it
                    log.exception("a batch of %d votes failed", len(batch))
                    for _event, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for (_event, future), outcome in zip(batch, outcomes, strict=True):
                    if not future.done():
                        future.set_result(outcome)
        finally:
            self._running = False
