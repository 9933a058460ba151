"""Writes off the reply path: posted-message rows, finished decisions and hit counts, group-committed.

Whatever arrives while a transaction runs, or within ``GATHER`` of the first row, goes into one
transaction, so a burst costs a few transactions, not one per row. Rows a vote needs (posted
messages, finished decisions) are written within milliseconds; hit counts ride along, or wait for
a short timer (and shutdown).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from collections.abc import Callable

from bot.store import Store
from bot.store.records import PostedRow, WriteBatch

log = logging.getLogger(__name__)

HITS_EVERY = 1.0  # seconds between flushes of the hit counters
GATHER = 0.02  # seconds rows are gathered before their transaction: an answer's posted row and its
# finished decision go in one, and so do many answers' under load (no vote comes that fast)
RETRY_AFTER = 0.5  # a failed write is tried again after this (the rows stay queued)


class WriteBehind:
    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self._batch = WriteBatch()
        self._hits: dict[tuple[str, str, str, dt.date], int] = {}
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    # --- what callers queue ------------------------------------------------------------------

    def posted(self, row: PostedRow) -> None:
        self._batch.messages.append(row)
        self._kick()

    def finished(self, decision_id: int) -> None:
        self._batch.finished.append(decision_id)
        self._kick()

    def forgotten(self, decision_id: int) -> None:
        self._batch.forgotten.append(decision_id)
        self._kick()

    def hit(self, workspace: str, entry_id: str, locale: str) -> None:
        day = dt.datetime.fromtimestamp(self.clock(), dt.UTC).date()
        key = (workspace, entry_id, locale, day)
        self._hits[key] = self._hits.get(key, 0) + 1

    def _kick(self) -> None:
        self._idle.clear()
        self._wake.set()

    # --- the loop ----------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), HITS_EVERY)
            if not self._stopping:
                await asyncio.sleep(GATHER)
            self._wake.clear()
            await self._flush(with_hits=True)
            if self._stopping and not self._batch and not self._hits:
                return

    async def _flush(self, with_hits: bool) -> None:
        batch, self._batch = self._batch, WriteBatch()
        if with_hits:
            batch.hits, self._hits = self._hits, {}
        if not batch:
            self._idle.set()
            return
        try:
            for row in await self.store.flush(batch):
                log.warning("posted %s in %s but %s is no longer in the store", row.ts, row.channel, row.entry_id)
        except Exception:
            log.exception("a write-behind batch failed; retrying")
            self._requeue(batch)
            await asyncio.sleep(RETRY_AFTER)
            self._wake.set()
            return
        if not self._batch:
            self._idle.set()

    def _requeue(self, batch: WriteBatch) -> None:
        self._batch.messages[:0] = batch.messages
        self._batch.finished[:0] = batch.finished
        self._batch.forgotten[:0] = batch.forgotten
        for key, n in batch.hits.items():
            self._hits[key] = self._hits.get(key, 0) + n

    async def settled(self) -> None:
        """Wait until everything queued so far (hits aside) is written."""
        if self._task is None:
            return
        while not self._idle.is_set() or self._batch:
            self._wake.set()
            await self._idle.wait()
            if self._batch:
                await asyncio.sleep(0)

    async def stop(self, timeout: float = 10.0) -> None:
        """Write everything still queued (hit counts included), then stop."""
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, timeout)
            except TimeoutError:
                log.error("stopping with %d rows unwritten", len(self._batch.messages) + len(self._hits))
                self._task.cancel()
