"""The outbox's promises under load: oldest first, too-old dropped and counted, waiting holds no slot,
a dead process's decisions taken over and counted, one carried out here never carried out again."""

from __future__ import annotations

import asyncio
import time

from prometheus_client import REGISTRY

from bot.service import slots
from bot.service.ports import Via
from bot.service.runtime import outbox as outbox_module
from bot.service.runtime.outbox import MAX_AGE, Outbox
from bot.service.runtime.writer import WriteBehind
from bot.store import Store
from bot.store.records import Decision


def counted(result: str) -> float:
    """``errkb_decisions_total{result=…}`` as ``GET /metrics`` shows it."""
    return REGISTRY.get_sample_value("errkb_decisions_total", {"result": result}) or 0.0


def decision(key: str, created_at: float) -> Decision:
    return Decision(key, "answer", "T1", "C1", key, key, "U1", "e/x", (), created_at)


async def drained(box: Outbox, timeout: float = 10.0) -> None:
    """Wait until the outbox holds nothing (a deadline, not a guess at how long a busy machine takes)."""
    deadline = time.monotonic() + timeout
    while len(box):
        assert time.monotonic() < deadline, f"{len(box)} decision(s) still waiting after {timeout}s"
        await asyncio.sleep(0.01)


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
    dropped, done_before = counted("dropped"), counted("done")
    try:
        assert await box.record(decision("stale", time.time() - MAX_AGE - 5))
        assert await box.record(decision("fresh", time.time()))
        box.start()
        await drained(box)
        await writer.settled()
        assert done == ["fresh"] and box.counters.dropped == 1
        assert (counted("dropped") - dropped, counted("done") - done_before) == (1, 1)
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
        await drained(box)
        assert order == ["a", "b", "c"]
    finally:
        await box.stop(1)
        await writer.stop()
        await store.close()


async def test_a_decision_waiting_out_a_rate_limit_holds_no_worker(tmp_path):
    order: list[str] = []

    async def carry_out(job):
        if job.decision.key == "limited":  # waits out a 429's Retry-After as the gateway does, in short
            deadline = time.monotonic() + 10  # turns, until the other decision is done: with one worker, that
            while "other" not in order and time.monotonic() < deadline:  # only happens if waiting gave it up
                await slots.wait(0.05)
        order.append(job.decision.key)
        return True

    box, store, writer = await outbox_with(tmp_path, carry_out, workers=1)
    try:
        now = time.time()
        await box.record(decision("limited", now - 1))
        await box.record(decision("other", now))
        box.start()
        await drained(box, timeout=15)
        assert order == ["other", "limited"]
    finally:
        await box.stop(1)
        await writer.stop()
        await store.close()


async def test_a_decision_whose_process_died_is_taken_over_and_counted(tmp_path):
    done = []

    async def carry_out(job):
        done.append(job.decision.key)
        return True

    box, store, writer = await outbox_with(tmp_path, carry_out)
    recovered = counted("recovered")
    try:
        assert await store.record_decision(decision("orphan", time.time()), "killed-process", time.time() - 1)
        box.start()
        deadline = time.monotonic() + 5
        while not done and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert done == ["orphan"] and counted("recovered") - recovered == 1
    finally:
        await box.stop(1)
        await writer.stop()
        await store.close()


async def test_a_decision_carried_out_is_not_taken_over_while_its_outcome_is_being_written(tmp_path, monkeypatch):
    """Overloaded, the write that marks an answer done can come after its lease lapsed: it is still
    this process's, and it is not posted a second time."""
    runs = []

    async def carry_out(job):
        runs.append(job.decision.key)
        return True

    box, store, writer = await outbox_with(tmp_path, carry_out)
    monkeypatch.setattr(outbox_module, "LEASE", 0.01)  # every lease lapses at once…
    monkeypatch.setattr(outbox_module, "SCAN_EVERY", 0.02)  # …and the scan for lapsed ones runs often
    written, real_flush = asyncio.Event(), store.flush

    async def slow_flush(batch):
        await written.wait()
        return await real_flush(batch)

    monkeypatch.setattr(store, "flush", slow_flush)
    try:
        assert await box.record(decision("once", time.time()))
        box.start()
        for _ in range(50):  # many scans while the outcome waits to be written
            await asyncio.sleep(0.02)
        assert runs == ["once"]
    finally:
        written.set()
        await writer.settled()
        monkeypatch.undo()  # the usual lease and scan again while the outbox stops
        await box.stop(1)
        await writer.stop()
        await store.close()


async def test_sigterm_with_many_in_flight_finishes_what_it_can_and_another_outbox_takes_the_rest_none_twice(tmp_path):
    from collections import Counter

    posts: Counter[str] = Counter()
    paced = iter(range(1000))

    async def carry_out_here(job):
        if job.decision.key == "stuck":  # its call reached Slack and never came back before the deadline
            posts["stuck"] += 1
            await asyncio.sleep(60)
        await slots.wait(0.05 * next(paced))  # the channel's pace: only waiting, nothing sent
        await asyncio.sleep(0.01)  # the call to Slack
        posts[job.decision.key] += 1
        box.sent()
        return True

    async def carry_out_there(job):
        posts[job.decision.key] += 1
        return True

    box, store, writer = await outbox_with(tmp_path, carry_out_here, workers=4)
    other = Outbox(store, writer, carry_out_there, lambda _w: Via(None), workers=4)
    keys = ["stuck"] + [f"d{n}" for n in range(40)]
    try:
        now = time.time()
        for n, key in enumerate(keys):
            assert await box.record(decision(key, now + n * 0.001))
        box.start()
        await box.stop(0.5, in_flight=0.1)  # SIGTERM: a short grace
        finished_here = sum(posts.values())
        assert 3 < finished_here < len(keys) and box.counters.handed == len(keys) - finished_here
        other.start()  # a replica, or the restarted process: takes the handed-over decisions at once
        deadline = time.monotonic() + 10
        while sum(posts.values()) < len(keys) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        await asyncio.sleep(1.5)  # another scan: nothing more is taken over
        assert set(posts) == set(keys) and max(posts.values()) == 1  # every decision posted, none twice
        assert other.counters.recovered == len(keys) - finished_here
    finally:
        await other.stop(1)
        await writer.stop()
        await store.close()


async def test_an_answer_waits_out_an_outage_past_max_age_and_is_posted_once(tmp_path):
    from bot.service.runtime.outbox import Later

    clock = [time.time()]
    tries = []

    async def carry_out(job):
        tries.append(job.decision.key)
        clock[0] += 60  # each try a minute later: a 10-minute outage
        if len(tries) <= 10:
            return Later(0.0, job.memo, transient="http_503")
        return True

    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'o.db'}")
    writer = WriteBehind(store)
    writer.start()
    box = Outbox(store, writer, carry_out, lambda _w: Via(None), clock=lambda: clock[0], retry_first=0.001,
                 retry_cap=0.01)
    try:
        assert await box.record(decision("k", clock[0]))
        box.start()
        await drained(box)
        assert tries == ["k"] * 11 and box.counters.done == 1 and box.counters.dropped == 0
        assert box.waiting == 0 and box.counters.retried == 10
    finally:
        await box.stop(1)
        await writer.stop()
        await store.close()
