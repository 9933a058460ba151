"""Work slots: at most N pieces of work run at once, and one that only waits gives its slot up.

A piece of work waiting for Slack (a 429's Retry-After, the channel's pace) holds no slot, so a
rate limit in one channel never stalls answers in others.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import AsyncIterator, Callable

_HELD: contextvars.ContextVar[asyncio.Semaphore | None] = contextvars.ContextVar("errkb_slot", default=None)
# set by the outbox for each piece of work: told True while it only waits (nothing of it is on its way to Slack)
WAITING: contextvars.ContextVar[Callable[[bool], None] | None] = contextvars.ContextVar("errkb_waiting", default=None)


@contextlib.asynccontextmanager
async def holding(slots: asyncio.Semaphore, acquired: bool = False) -> AsyncIterator[None]:
    """Run the block in one of ``slots`` (``acquired``: the caller already took it for the block)."""
    if not acquired:
        await slots.acquire()
    token = _HELD.set(slots)
    try:
        yield
    finally:
        _HELD.reset(token)
        slots.release()


async def wait(seconds: float) -> None:
    """Sleep ``seconds`` without holding the caller's slot (if it holds one)."""
    if seconds <= 0:
        return
    waiting = WAITING.get()
    if waiting is not None:
        waiting(True)
    try:
        slots = _HELD.get()
        if slots is None:
            await asyncio.sleep(seconds)
            return
        slots.release()
        try:
            await asyncio.sleep(seconds)
        finally:
            await slots.acquire()
    finally:
        if waiting is not None:
            waiting(False)
