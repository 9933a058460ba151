"""Recorded decisions, carried out oldest first by a few workers, taken over when their process dies.

A decision is recorded (durably, with a lease held by this process) before Slack gets its ack,
then queued here. A heartbeat renews this process's leases; a scan takes over decisions whose
lease ran out (a process killed with ``kill -9``), so they are finished within seconds by any
process. A decision older than ``MAX_AGE`` can no longer help its reader: it is dropped, logged
and counted, and its thread stays answerable.

A decision Slack could not take for a while (5xx past the gateway's retries: an outage) waits in the
queue, tried again with a growing back-off (``RETRY_FIRST`` doubling to ``RETRY_CAP``) for up to
``RETRY_MAX_AGE``, and is counted in ``errkb_answers_waiting``; only a permanent error ends it.

On stop (SIGTERM) what is queued and running is finished within the grace; then what only waits (its
channel's pace, a 429, a back-off) is handed to the store at once (``release``: a restarted process
or a replica takes it over within a second), while a post that may already be on its way to Slack is
given a moment and then counted as posted, never handed over: no answer is posted twice.
"""

from __future__ import annotations

import asyncio
import contextvars
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
RETRY_FIRST = 2.0  # seconds before a decision Slack could not take (5xx, outage) is tried again; doubles…
RETRY_CAP = 60.0  # …up to this
RETRY_MAX_AGE = 1800.0  # seconds a decision that failed only transiently keeps being tried (a Slack outage)
IN_FLIGHT = 1.0  # seconds past the grace a call already on its way to Slack is given to come back


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
    tries: int = field(compare=False, default=0)  # times Slack could not take it (transient failures)


@dataclass
class _Attempt:
    """One run of a decision: whether it only waits now, and whether anything of it reached Slack."""

    waiting: bool = False
    sent: bool = False

    def wait(self, waiting: bool) -> None:
        self.waiting = waiting


_ATTEMPT: contextvars.ContextVar[_Attempt | None] = contextvars.ContextVar("errkb_attempt", default=None)


@dataclass
class Counters:
    """This process's tallies; all but ``recorded`` are also ``errkb_decisions_total{result=…}`` in /metrics."""

    recorded: int = 0
    done: int = 0
    failed: int = 0  # could not be carried out: forgotten, the thread stays answerable
    dropped: int = 0  # too old
    recovered: int = 0  # taken over from a process that stopped renewing
    retried: int = 0  # times a decision Slack could not take went back in the queue
    handed: int = 0  # given back to the store on stop for another process


@dataclass(frozen=True)
class Later:
    """What ``carry_out`` returns for work half done: try again in ``seconds``, with ``memo``."""

    seconds: float
    memo: Any = None
    transient: str | None = None  # nothing was posted, for a reason worth waiting out: back-off from the outbox


# ``carry_out`` returns True when the decision is done, False when it failed and is to be forgotten
# (nothing was posted), or ``Later`` to come back to it.
CarryOut = Callable[[Job], Awaitable["bool | Later"]]


class Outbox:
    def __init__(self, store: Store, writer: WriteBehind, carry_out: CarryOut, via_for: Callable[[str], Via],
                 workers: int = WORKERS, clock: Callable[[], float] = time.time, max_age: float = MAX_AGE,
                 retry_first: float = RETRY_FIRST, retry_cap: float = RETRY_CAP,
                 retry_max_age: float = RETRY_MAX_AGE) -> None:
        self.store = store
        self.writer = writer
        self.carry_out = carry_out
        self.via_for = via_for
        self.clock = clock
        self.owner = new_owner()
        self.counters = Counters()
        self.max_age, self.retry_max_age = max_age, retry_max_age
        self.retry_first, self.retry_cap = retry_first, retry_cap
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
        self._running: dict[asyncio.Task[Any], tuple[Job, _Attempt]] = {}
        self._later: dict[int, tuple[Job, asyncio.TimerHandle]] = {}  # back in the queue after a wait
        self._waiting: set[int] = set()  # Slack could not take them yet (errkb_answers_waiting)

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
        self._later.pop(job.decision.id or 0, None)
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

    @property
    def waiting(self) -> int:
        """Decisions Slack could not take yet, waiting to be tried again."""
        return len(self._waiting)

    def sent(self) -> None:
        """Called (by ``carry_out``) when part of the running decision is in Slack: never handed over."""
        attempt = _ATTEMPT.get()
        if attempt is not None:
            attempt.sent = True

    def _unwait(self, decision_id: int) -> None:
        if decision_id in self._waiting:
            self._waiting.discard(decision_id)
            metrics.ANSWERS_WAITING.dec()

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
            attempt = _Attempt()
            task = asyncio.ensure_future(self._run(job, attempt))
            self._tasks.add(task)
            self._running[task] = (job, attempt)
            task.add_done_callback(self._done)
            await asyncio.sleep(0)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        self._running.pop(task, None)

    async def _run(self, job: Job, attempt: _Attempt) -> None:
        decision = job.decision
        assert decision.id is not None
        slots.WAITING.set(attempt.wait)  # this task's own context
        _ATTEMPT.set(attempt)
        age = self.clock() - decision.created_at
        limit = self.retry_max_age if job.tries else self.max_age  # an outage is waited out longer
        if age > limit:
            self._slots.release()
            self._known.discard(decision.id)
            self._unwait(decision.id)
            self._count("dropped")
            log.warning("dropped a %s decision for %s in %s: %.0f s old (limit %.0f s)", decision.kind,
                        decision.entry_id or "-", decision.channel, age, limit)
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
            seconds = done.seconds
            if done.transient is not None:  # nothing posted: waited out with a growing back-off
                again = Job(job.created_at, job.seq, decision, job.via, done.memo, job.begun, job.tries + 1)
                seconds = max(seconds, min(self.retry_cap, self.retry_first * 2.0 ** job.tries))
                self.counters.retried += 1
                metrics.DECISION_RETRIES.labels(done.transient).inc()
                if decision.id not in self._waiting:
                    self._waiting.add(decision.id)
                    metrics.ANSWERS_WAITING.inc()
                log.warning("Slack could not take a %s decision in %s (%s, try %d); trying again in %.0f s",
                            decision.kind, decision.channel, done.transient, job.tries + 1, seconds)
            else:
                again = Job(job.created_at, job.seq, decision, job.via, done.memo, begun=True, tries=job.tries)
            self._known.add(decision.id)
            if not self._stopping:
                handle = asyncio.get_running_loop().call_later(seconds, self._requeue, again)
                self._later[decision.id] = (again, handle)
            return
        self._unwait(decision.id)
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

    async def stop(self, timeout: float, in_flight: float = IN_FLIGHT) -> None:
        """Finish queued and running decisions within ``timeout``; hand the rest to other processes.

        What only waits (queued, its channel's pace, a 429, a back-off, an outage) is handed over; a
        post that may be on its way to Slack gets ``in_flight`` seconds more, and is then counted as
        posted (marked done, not handed over): a taker-over never posts an answer a second time."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (self._heap or self._tasks) and loop.time() < deadline:
            await asyncio.sleep(0.05)
        self._stopping = True
        self._wake.set()
        for loop_task in self._loops:
            loop_task.cancel()
        handed = len(self._heap)
        self._heap.clear()
        for job, handle in list(self._later.values()):  # waiting to be tried again
            handle.cancel()
            if job.begun:  # part of the answer is in the thread: the rest is not posted (never twice)
                self._settle(job.decision.id or 0, finished=True)
            else:
                handed += 1
        self._later.clear()
        for task, (_job, attempt) in list(self._running.items()):
            if attempt.waiting and not attempt.sent:  # nothing of it is on its way to Slack
                task.cancel()
                handed += 1
        end = loop.time() + in_flight
        while [t for t in self._tasks if not t.done() and not t.cancelled()] and loop.time() < end:
            await asyncio.sleep(0.02)
        for task, (job, attempt) in list(self._running.items()):
            if task.done():
                continue
            task.cancel()
            if attempt.waiting and not attempt.sent:
                handed += 1
            else:  # it may be in Slack already: counted as posted, so nobody posts it again
                log.warning("stopping while a %s decision in %s was being posted; counted as posted",
                            job.decision.kind, job.decision.channel)
                self._settle(job.decision.id or 0, finished=True)
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=in_flight)
        for decision_id in list(self._waiting):
            self._unwait(decision_id)
        if handed:
            self.counters.handed += handed
            log.warning("stopping with %d decisions unfinished; handed over for another process to take at once",
                        handed)
        try:
            # what was posted is marked done before anything is handed over
            await asyncio.wait_for(self.writer.settled(), max(in_flight, 2.0))
            await self.store.release_decisions(self.owner)
        except Exception:
            log.exception("could not release this process's decisions")


def _with_id(decision: Decision, decision_id: int) -> Decision:
    return replace(decision, id=decision_id)
