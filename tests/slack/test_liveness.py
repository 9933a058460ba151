"""``/livez`` never waits for the database (issue 24, point 9): while another connection holds SQLite's
write lock for seconds, ``/livez`` answers within a second, and ``/readyz`` says, promptly, why errkb is
not ready; once the lock is let go, it is ready again."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

from tests.slack.conftest import Harness

HOLD = 4.0  # seconds the other connection keeps the write lock


def hold_write_lock(path: Path, locked: threading.Event, seconds: float) -> None:
    conn = sqlite3.connect(path, isolation_level=None, timeout=1)
    try:
        conn.execute("BEGIN EXCLUSIVE")
        locked.set()
        time.sleep(seconds)
        conn.execute("ROLLBACK")
    finally:
        conn.close()


async def test_livez_answers_and_readyz_says_why_while_the_store_is_locked(harness: Harness, tmp_path: Path) -> None:
    locked = threading.Event()
    holder = threading.Thread(target=hold_write_lock, args=(tmp_path / "errkb.db", locked, HOLD), daemon=True)
    holder.start()
    assert await asyncio.to_thread(locked.wait, 5)
    began = time.monotonic()
    ready = asyncio.ensure_future(harness.send.get("/readyz"))
    slowest = 0.0
    while time.monotonic() - began < HOLD - 0.5:
        started = time.monotonic()
        live = await harness.send.get("/livez")
        slowest = max(slowest, time.monotonic() - started)
        assert live.status == 200
        await asyncio.sleep(0.1)
    assert slowest < 1.0, slowest
    answered = await ready
    assert answered.status == 503, answered.body
    reason = answered.json()["reason"]  # the lock itself, or this process's writes queued behind it
    assert "database is locked" in reason or "store busy" in reason, answered.body
    assert time.monotonic() - began < HOLD, "readyz waited for the lock instead of saying why"
    await asyncio.to_thread(holder.join, 10)
    again = await harness.send.get("/readyz")
    assert again.status == 200, again.body
