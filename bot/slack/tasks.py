"""Work that outlives the HTTP ack (a command's answer, a button's effect): tracked so a SIGTERM
lets it finish. ``spawn`` starts it; ``drain`` waits for all of it when the process shuts down."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class Inflight:
    """The set of tasks doing work for Slack right now."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background work failed", exc_info=task.exception())

    def __len__(self) -> int:
        return len(self._tasks)

    async def drain(self, timeout: float = 25.0) -> None:
        """Wait (up to ``timeout`` seconds) until no tracked work is left; new work may start meanwhile."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            pending = {t for t in self._tasks if not t.done() and t is not asyncio.current_task()}
            if not pending:
                return
            remaining = deadline - loop.time()
            if remaining <= 0:
                log.warning("shutting down with %d replies unfinished", len(pending))
                return
            await asyncio.wait(pending, timeout=remaining)
