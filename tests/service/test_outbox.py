"""The outbox's promises under load: oldest first, too-old dropped and counted, waiting holds no slot."""

from __future__ import annotations

import asyncio
import time

from bot.service import slots
from bot.service.outbox import MAX_AGE, Outbox
from bot.service.ports import Via
from bot.service.writer import WriteBehind
from bot.store import Store
from bot.store.views import Decision


def decision(key: str, created_at: float) -> Decision:
    return Decision(key, "answer", "T1", "C1", key, key, "U1", "e/x", (), created_at)


async def outbox_with(tmp_path, carry_out, workers: int = 2) -> tuple[Outbox, Store, WriteBehind]:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'o.db'}")
    writer = WriteBehind(store)
    writer.start()
    box = Outbox(store, writer, carry_out, lambda _w: Via(None), workers=workers)
    return box, store, writer


async def test_a_decision_too_old_to_help_is_dropped_counted_and_forgotten(tmp_path, caplog):
    done = []

    async def carry_out(job):
        done.append(job.decision.key)
        return True

    box, store, writer = await outbox_with(tmp_path, carry_out)
    try:
        assert await box.record(decision("stale", time.time() - MAX_AGE - 5))
        assert await box.record(decision("fresh", time.time()))
        box.start()
        while len(box):
            await asyncio.sleep(0.01)
        await writer.settled()
        assert done == ["fresh"] and box.counters.dropped == 1
        assert "dropped a answer decision" in caplog.text
        assert await box.record(decision("stale", time.time()))  # forgotten: that thread can be answered again
    finally:
        await box.stop(1)
        await writer.stop()
        await store.close()


async def test_oldest_first_when_the_workers_are_busy(tmp_path):
    order = []

    async def carry_out(job):
        order.append(job.decision.key)
        await asyncio.sleep(0.01)
        return True

    box, store, writer = await outbox_with(tmp_path, carry_out, workers=1)
    try:
        now = time.time()
        for key, age in (("b", 2), ("c", 1), ("a", 3)):
            await box.record(decision(key, now - age))
        box.start()
        while len(box):
            await asyncio.sleep(0.01)
        assert order == ["a", "b", "c"]
    finally:
        await box.stop(1)
        await writer.stop()
        await store.close()


async def test_a_decision_waiting_out_a_rate_limit_holds_no_worker(tmp_path):
    finished: dict[str, float] = {}
    start = time.monotonic()

    async def carry_out(job):
        if job.decision.key == "limited":
            await slots.wait(1.0)  # what the gateway does on a 429's Retry-After
        finished[job.decision.key] = time.monotonic() - start
        return True

    box, store, writer = await outbox_with(tmp_path, carry_out, workers=1)
    try:
        now = time.time()
        await box.record(decision("limited", now - 1))
        await box.record(decision("other", now))
        box.start()
        while len(box):
            await asyncio.sleep(0.01)
        assert finished["other"] < 0.5 <= 1.0 <= finished["limited"]
    finally:
        await box.stop(1)
        await writer.stop()
        await store.close()
