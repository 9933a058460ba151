"""``errkb serve`` gives the heap pages it freed back to the system: RSS falls after a trim."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot import memory


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(memory._malloc_trim() is None or not Path("/proc/self/status").exists(),
                    reason="needs glibc's malloc_trim and /proc (Linux)")
def test_freed_heap_pages_go_back_to_the_system():
    blocks = [bytes(4000) for _ in range(25_000)]  # ~100 MB from the heap, in blocks malloc keeps for reuse
    kept = blocks[::32]  # one live block in every 32 pins the heap, as long-lived objects do
    del blocks
    before = rss_mib()
    assert memory.trim()
    after = rss_mib()
    assert after < before - 40, (before, after)
    assert len(kept) == 782


async def test_the_trim_loop_runs_until_cancelled(monkeypatch: pytest.MonkeyPatch):
    calls = []
    monkeypatch.setattr(memory, "trim", lambda: calls.append(1) or len(calls) < 1000)
    task = asyncio.create_task(memory.trim_forever(every=0.001))
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(calls) >= 3
