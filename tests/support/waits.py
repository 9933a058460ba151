"""Bounded polling: listeners run after the ack, so whatever a test (or a benchmark) waits for, it
polls for, up to a deadline, never sleeps a guessed while."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any


async def eventually(check: Callable[[], Awaitable[Any]], predicate: Callable[[Any], Any] = bool,
                     timeout: float = 5.0) -> Any:
    """Poll ``await check()`` until ``predicate`` holds for its result (listeners finish after the ack)."""
    deadline = time.monotonic() + timeout
    while True:
        result = await check()
        if predicate(result) or time.monotonic() > deadline:
            assert predicate(result), f"still {result!r} after {timeout}s"
            return result
        await asyncio.sleep(0.02)


async def until(condition: Callable[[], Any], timeout: float, interval: float = 0.02) -> bool:
    """Poll ``condition()`` until it holds or ``timeout`` seconds pass; whether it held."""
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() > deadline:
            return bool(condition())
        await asyncio.sleep(interval)


async def quiet(count: Callable[[], int], still: float, timeout: float, nonzero: bool = False) -> bool:
    """Wait until ``count()`` has not changed for ``still`` seconds (and, with ``nonzero``, is not 0), for at
    most ``timeout`` seconds: for asserting that nothing more happens. Whether it went quiet."""
    deadline = time.monotonic() + timeout
    seen = -1
    while time.monotonic() < deadline:
        now = count()
        if now == seen and (now or not nonzero):
            return True
        seen = now
        await asyncio.sleep(still)
    return False
