"""Giving freed memory back to the system while ``errkb serve`` runs.

glibc serves a large block (over 128 KiB) with its own mmap, returned when freed, until one such
block is freed: then it raises that threshold to the block's size (up to 32 MiB), and from then on
large transient buffers come from the heap, whose freed pages it keeps. At 30 events/s that kept
part grew by 1–3 MiB a minute while the memory in use stayed flat (``bench/soak_long.py --trace``);
with the threshold fixed at 128 KiB (:func:`configure`) it stays at a few MiB. ``malloc_trim(0)``
(:func:`trim`, once a minute) returns whatever whole free pages remain. Elsewhere than glibc (musl,
macOS) there is nothing to call and both are no-ops.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
import os
from collections.abc import Callable
from functools import cache

log = logging.getLogger(__name__)

TRIM_EVERY = 60.0  # seconds between trims
MMAP_THRESHOLD = 128 << 10  # glibc's default, kept fixed (its dynamic raise is what fragments the heap)
_M_MMAP_THRESHOLD = -3  # mallopt's parameter number (malloc.h)


@cache
def _libc_function(name: str) -> Callable[..., int] | None:
    library = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(library), name) if library else None
    except (OSError, AttributeError):  # not glibc
        return None


def configure() -> bool:
    """Fix glibc's mmap threshold at ``MMAP_THRESHOLD`` (unless ``MALLOC_MMAP_THRESHOLD_`` sets it);
    False where there is no ``mallopt``."""
    mallopt = _libc_function("mallopt")
    if mallopt is None or os.environ.get("MALLOC_MMAP_THRESHOLD_"):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def trim() -> bool:
    """Return glibc's free pages to the system; False where there is no ``malloc_trim``."""
    malloc_trim = _libc_function("malloc_trim")
    if malloc_trim is None:
        return False
    malloc_trim(0)
    return True


async def trim_forever(every: float = TRIM_EVERY) -> None:
    """:func:`trim` every ``every`` seconds, until cancelled (stops at once where it is a no-op)."""
    while trim():
        await asyncio.sleep(every)
    log.debug("no malloc_trim here; freed memory stays with the allocator")
