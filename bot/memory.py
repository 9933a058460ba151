"""Giving freed memory back to the system while ``errkb serve`` runs.

glibc keeps the pages it frees for reuse; with errkb's mix of sizes (RE2's DFA states, request
bodies, SQLite pages) what it keeps grows by a MiB or two a minute at 30 events/s while the memory
in use stays flat (measured with ``bench/soak_long.py --trace``). ``malloc_trim(0)`` returns every
whole free page to the system; it takes a few milliseconds, so ``serve`` calls it once a minute.
Elsewhere than glibc (musl, macOS) there is nothing to call and :func:`trim` is a no-op.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
from collections.abc import Callable
from functools import cache

log = logging.getLogger(__name__)

TRIM_EVERY = 60.0  # seconds between trims


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # not glibc
        return None


def trim() -> bool:
    """Return glibc's free pages to the system; False where there is no ``malloc_trim``."""
    malloc_trim = _malloc_trim()
    if malloc_trim is None:
        return False
    malloc_trim(0)
    return True


async def trim_forever(every: float = TRIM_EVERY) -> None:
    """:func:`trim` every ``every`` seconds, until cancelled (stops at once where it is a no-op)."""
    while trim():
        await asyncio.sleep(every)
    log.debug("no malloc_trim here; freed memory stays with the allocator")
