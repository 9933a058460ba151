"""An entry's live numbers held in process: warmed per workspace, forgotten on a vote, never a stale warm."""

from __future__ import annotations

import asyncio

from bot.service.runtime.numbers import Numbers
from bot.store import Store

NCCL_ID = "pytorch/nccl-timeout-during-allreduce"


class CountingStore:
    """The real store, counting the feedback reads made through it."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.reads: list[int] = []
        self.gate: asyncio.Event | None = None

    async def feedback(self, entry_ids, workspace=None):
        ids = list(entry_ids)
        self.reads.append(len(ids))
        found = await self.store.feedback(ids, workspace)
        if self.gate is not None:
            await self.gate.wait()
        return found

    async def hit_counts(self, workspace=None):
        return await self.store.hit_counts(workspace)


async def _open(seeded_copy) -> Store:
    return await Store.open(f"sqlite+aiosqlite:///{seeded_copy}")


async def _warmed(numbers: Numbers) -> None:
    while numbers._tasks:
        await asyncio.sleep(0.01)


async def test_after_a_workspace_is_warmed_its_answers_read_no_numbers(kb, seeded_copy):
    store = await _open(seeded_copy)
    counting = CountingStore(store)
    numbers = Numbers(counting, lambda: kb.entries)  # type: ignore[arg-type]
    numbers.warm("T1")
    await _warmed(numbers)
    warming = len(counting.reads)
    assert sum(counting.reads) == len(kb.entries) and warming == -(-len(kb.entries) // 500)
    for entry_id in list(kb.entries)[:50]:
        await numbers.get("T1", entry_id)
    numbers.warm("T1")  # once per process
    await numbers.get("T2", NCCL_ID)  # another workspace is read on its own
    assert len(counting.reads) == warming + 1
    await store.close()


async def test_a_vote_during_the_warming_read_is_not_overwritten_by_older_numbers(kb, seeded_copy):
    store = await _open(seeded_copy)
    counting = CountingStore(store)
    counting.gate = asyncio.Event()
    numbers = Numbers(counting, lambda: kb.entries)  # type: ignore[arg-type]
    first = next(iter(kb.entries))  # in the first chunk the warming reads
    numbers.warm("T1")
    while not counting.reads:
        await asyncio.sleep(0.01)  # that chunk has been read, not yet kept
    await store.record_vote("T1", "U1", first, 0, "+1", True, 1.0)
    numbers.forget("T1", first)
    counting.gate.set()
    await _warmed(numbers)
    counting.gate = None
    live = await numbers.get("T1", first)
    assert live.workarounds[0].up == 1
    await store.close()
