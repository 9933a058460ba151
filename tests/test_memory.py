"""``errkb serve`` gives the memory it freed back to the system: large buffers go back when freed,
whatever came before, and the heap's free pages after a trim."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot import memory


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


GLIBC = pytest.mark.skipif(memory._libc_function("mallopt") is None or not Path("/proc/self/status").exists(),
                           reason="needs glibc's mallopt and malloc_trim, and /proc (Linux)")

AFTER_A_BIG_BLOCK = """
import sys
from bot import memory
from tests.test_memory import rss_mib
if sys.argv[1] == "configured":
    memory.configure()
big = bytearray(16 << 20)  # freed: glibc would now serve blocks up to 16 MiB from its heap
del big
before = rss_mib()
buffers, kept = [], []
for _ in range(64):  # request bodies, result sets… each followed by something long-lived
    buffers.append(bytearray(1 << 20))
    kept.append(bytearray(100_000))
del buffers
print(rss_mib() - before)
"""


def _kept_mib(mode: str) -> float:
    env = os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    env.pop("MALLOC_MMAP_THRESHOLD_", None)
    done = subprocess.run([sys.executable, "-c", AFTER_A_BIG_BLOCK, mode], env=env, capture_output=True, text=True,
                          timeout=60, check=True)
    return float(done.stdout)


@GLIBC
def test_freed_large_buffers_go_back_to_the_system_after_a_big_block_was_freed():
    assert _kept_mib("configured") < 16  # the 6 MiB still in use, not the 64 MiB freed
    assert _kept_mib("default") > 48  # what configure() prevents: glibc keeps the freed 64 MiB


@GLIBC
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
