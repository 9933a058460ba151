"""Work that outlives the HTTP ack: tracked so a SIGTERM lets it finish, and debounced updates.

Bolt runs each listener in its own task after acknowledging Slack. ``Inflight.tracked`` wraps a
listener so its task is known; ``Inflight.spawn`` starts tracked background work; ``drain`` waits
for all of it (flushing pending debounced updates first) when the process shuts down.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from typing import Any, ParamSpec, TypeVar

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")


class Inflight:
    """The set of tasks doing work for Slack right now."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self._flushers: list[Callable[[], None]] = []

    def tracked(self, listener: Callable[P, Awaitable[T]]) -> Callable[P, Coroutine[Any, Any, T]]:
        """Wrap a Bolt listener (``functools.wraps`` keeps the argument names Bolt injects by)."""

        @functools.wraps(listener)
        async def run(*args: P.args, **kwargs: P.kwargs) -> T:
            task = asyncio.current_task()
            if task is not None:
                self._tasks.add(task)
            try:
                return await listener(*args, **kwargs)
            finally:
                if task is not None:
                    self._tasks.discard(task)

        return run

    def spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background work failed", exc_info=task.exception())

    def on_drain(self, flush: Callable[[], None]) -> None:
        """Call ``flush`` when draining starts (e.g. to fire pending debounced work now)."""
        self._flushers.append(flush)

    def __len__(self) -> int:
        return len(self._tasks)

    async def drain(self, timeout: float = 25.0) -> None:
        """Wait (up to ``timeout`` seconds) until no tracked work is left; new work may start meanwhile."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for flush in self._flushers:
                flush()
            pending = {t for t in self._tasks if not t.done() and t is not asyncio.current_task()}
            if not pending:
                return
            remaining = deadline - loop.time()
            if remaining <= 0:
                log.warning("shutting down with %d replies unfinished", len(pending))
                return
            await asyncio.wait(pending, timeout=remaining)


class Debouncer:
    """Coalesce bursts: ``schedule(key, work)`` runs ``work()`` once, ``delay`` seconds after the first call.

    Calls for a key already waiting are absorbed — the work reads the latest state when it runs.
    A call after the work has started schedules it again, so the last change is never lost.
    """

    def __init__(self, inflight: Inflight, delay: float) -> None:
        self.delay = delay
        self._inflight = inflight
        self._waiting: dict[Hashable, asyncio.Event] = {}
        inflight.on_drain(self.flush)

    def schedule(self, key: Hashable, work: Callable[[], Awaitable[None]]) -> bool:
        """Returns False when ``key`` was already waiting (the call was coalesced)."""
        if key in self._waiting:
            return False
        now = asyncio.Event()
        self._waiting[key] = now
        self._inflight.spawn(self._run(key, now, work))
        return True

    async def _run(self, key: Hashable, now: asyncio.Event, work: Callable[[], Awaitable[None]]) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(now.wait(), self.delay)
        self._waiting.pop(key, None)
        await work()

    def flush(self) -> None:
        """Run every waiting piece of work now (used on shutdown)."""
        for now in self._waiting.values():
            now.set()
