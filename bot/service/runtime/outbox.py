"""Recorded decisions, carried out oldest first by a few workers, taken over when their process dies.

A decision is recorded (durably, with a lease held by this process) before Slack gets its ack,
then queued here. A heartbeat renews this process's leases; a scan takes over decisions whose
lease ran out (a process killed with ``kill -9``), so they are finished within seconds by any
process. A decision older than ``MAX_AGE`` can no longer help its reader: it is dropped, logged
and counted, and its thread stays answerable.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bot import metrics
from bot.service import slots
from bot.service.ports import Via
from bot.service.runtime.writer import WriteBehind
from bot.store import Store
from bot.store.records import Decision

log = logging.getLogger(__name__)

LEASE = 6.0  # seconds a recorded decision stays with its process without a renewal
RENEW_EVERY = 2.0
SCAN_EVERY = 1.0
MAX_AGE = 180.0  # seconds after which an answer is dropped rather than posted late
WORKERS = 8
SETTLE_FOR = 15.0  # seconds a decision carried out here stays ours while the writer records that (ms, usually)


def new_owner() -> str:
    return f"{socket.gethostname()[:30]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclass(order=True)
class Job:
    created_at: float
    seq: int
    decision: Decision = field(compare=False)
    via: Via | None = field(compare=False, default=None)
    memo: Any = field(compare=False, default=None)  # what the deciding process still knows (the match)
    begun: bool = field(compare=False, default=False)  # part of it was posted already


@dataclass
class Counters:
    """This process's tallies; all but ``recorded`` are also ``errkb_decisions_total{result=…}`` in /metrics."""

    recorded: int = 0
    done: int = 0
    failed: int = 0  # could not be carried out: forgotten, the thread stays answerable
    dropped: int = 0  # too old
    recovered: int = 0  # taken over from a process that stopped renewing


@dataclass(frozen=True)
class Later:
    """What ``carry_out`` returns for work half done: try again in ``seconds``, with ``memo``."""

    seconds: float
    memo: Any = None


# ``carry_out`` returns True when the decision is done, False when it failed and is to be forgotten
# (nothing was posted), or ``Later`` to come back to it.
CarryOut = Callable[[Job], Awaitable["bool | Later"]]


class Outbox:
    def __init__(self, store: Store, writer: WriteBehind, carry_out: CarryOut, via_for: Callable[[str], Via],
                 workers: int = WORKERS, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.writer = writer
        self.carry_out = carry_out
        self.via_for = via_for
        self.clock = clock
        self.owner = new_owner()
        self.counters = Counters()
        self._slots = asyncio.Semaphore(workers)
        self._heap: list[Job] = []
        self._seq = itertools.count()
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loops: list[asyncio.Task[None]] = []
        self._stopping = False
        self._known: set[int | None] = set()
        # carried out here, its outcome not yet written (write-behind): still ours, never taken over again
        self._settling: dict[int, float] = {}

    # --- recording ----------------------------------------------------------------------------

    async def record(self, decision: Decision, via: Via | None = None, memo: Any = None) -> bool:
        """Record ``decision`` durably and queue it; False when its key was taken (already decided)."""
        decision_id = await self.store.record_decision(decision, self.owner, self.clock() + LEASE)
        if decision_id is None:
            return False
        self.counters.recorded += 1
        self._push(Job(decision.created_at, next(self._seq), _with_id(decision, decision_id), via, memo))
        return True

    async def record_done(self, decision: Decision) -> bool:
        """Record a decision already carried out (e.g. an answer posted on request); False if taken."""
        return await self.store.record_decision(decision, self.owner, 0.0, done=True) is not None

    def _requeue(self, job: Job) -> None:
        self._known.discard(job.decision.id)
        if not self._stopping:
            self._push(job)

    def _push(self, job: Job) -> None:
        if job.decision.id in self._known:
            return
        self._known.add(job.decision.id)
        heapq.heappush(self._heap, job)
        self._wake.set()

    def _count(self, result: str) -> None:
        setattr(self.counters, result, getattr(self.counters, result) + 1)
        metrics.DECISIONS.labels(result).inc()

    def __len__(self) -> int:
        return len(self._known)

    # --- running ------------------------------------------------------------------------------

    def start(self) -> None:
        self._loops = [asyncio.ensure_future(self._dispatch()), asyncio.ensure_future(self._heartbeat())]

    async def _dispatch(self) -> None:
        while not self._stopping:
            if not self._heap:
                self._wake.clear()
                await self._wake.wait()
                continue
            await self._slots.acquire()  # oldest first: the heap is ordered by when it was decided
            if not self._heap:
                self._slots.release()
                continue
            job = heapq.heappop(self._heap)
            task = asyncio.ensure_future(self._run(job))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            await asyncio.sleep(0)

    async def _run(self, job: Job) -> None:
        decision = job.decision
        assert decision.id is not None
        age = self.clock() - decision.created_at
        if age > MAX_AGE:
            self._slots.release()
            self._known.discard(decision.id)
            self._count("dropped")
            log.warning("dropped a %s decision for %s in %s: %.0f s old (limit %.0f s)", decision.kind,
                        decision.entry_id or "-", decision.channel, age, MAX_AGE)
            self._settle(decision.id, finished=job.begun)  # begun: the thread has (part of) its answer
            return
        try:
            async with slots.holding(self._slots, acquired=True):
                done = await self.carry_out(job)
        except Exception:
            log.exception("a %s decision in %s failed", decision.kind, decision.channel)
            done = False
        finally:
            self._known.discard(decision.id)
        if isinstance(done, Later):  # still ours (the lease is renewed): back in the queue, in its turn
            again = Job(job.created_at, job.seq, decision, job.via, done.memo, begun=True)
            self._known.add(decision.id)
            asyncio.get_running_loop().call_later(done.seconds, self._requeue, again)
            return
        self._count("done" if done else "failed")
        self._settle(decision.id, finished=bool(done))

    def _settle(self, decision_id: int, finished: bool) -> None:
        """Have the writer mark the decision done (or forget it). Until that is written its lease is
        still renewed and a lapsed one is not taken over: carried out once, it is never carried out
        again, here or by another process."""
        self._settling[decision_id] = self.clock()
        if finished:
            self.writer.finished(decision_id)
        else:
            self.writer.forgotten(decision_id)

    async def _heartbeat(self) -> None:
        """Renew this process's leases, and take over decisions whose process stopped renewing."""
        last_renew = 0.0
        while not self._stopping:
            try:
                now = self.clock()
                for decision_id in [i for i, at in self._settling.items() if now - at > SETTLE_FOR]:
                    del self._settling[decision_id]
                held = [i for i in self._known if i is not None] + list(self._settling)
                if held and now - last_renew >= RENEW_EVERY:
                    await self.store.renew_decisions(self.owner, held, now + LEASE)
                    last_renew = now
                for decision in await self.store.take_expired_decisions(self.owner, now + LEASE):
                    if decision.id in self._settling:
                        continue  # carried out here already; the writer is recording that
                    self._count("recovered")
                    log.info("took over a %s decision in %s (%.1f s old)", decision.kind, decision.channel,
                             now - decision.created_at)
                    self._push(Job(decision.created_at, next(self._seq), decision, self.via_for(decision.workspace)))
            except Exception:
                log.exception("renewing or recovering decisions failed")
            await asyncio.sleep(SCAN_EVERY)

    async def stop(self, timeout: float) -> None:
        """Finish queued and running decisions within ``timeout``; hand the rest to other processes."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (self._heap or self._tasks) and loop.time() < deadline:
            await asyncio.sleep(0.05)
        self._stopping = True
        self._wake.set()
        for task in self._loops:
            task.cancel()
        if self._heap or self._tasks:
            log.warning("stopping with %d decisions unfinished; another process will take them",
                        len(self._heap) + len(self._tasks))
            for task in list(self._tasks):
                task.cancel()
        try:
            await self.store.release_decisions(self.owner)
        except Exception:
            log.exception("could not release this process's decisions")


def _with_id(decision: Decision, decision_id: int) -> Decision:
    return replace(decision, id=decision_id)
