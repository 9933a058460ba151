"""The write-behind's batch: one transaction of prepared statements on the driver's own connection."""

from __future__ import annotations

import datetime as dt
import logging

from bot.store import Store
from bot.store.records import Decision, PostedRow, WriteBatch

NCCL = "pytorch/nccl-timeout-during-allreduce"


def _decision(key: str) -> Decision:
    return Decision(key, "answer", "T1", "C1", "1.0", "1.0", "U1", NCCL, (), 1.0)


async def test_a_batch_is_written_whole_on_the_driver_connection(seeded: Store, caplog) -> None:
    done = await seeded.record_decision(_decision("k-done"), "me", 10.0)
    dropped = await seeded.record_decision(_decision("k-dropped"), "me", 10.0)
    assert await seeded.pending_decisions() == 2
    day = dt.date(2026, 12, 4)
    batch = WriteBatch(messages=[PostedRow("T1", "C1", "1.1", NCCL, 0, "zh", "1.0"),
                                 PostedRow("T1", "C1", "1.2", NCCL, None, "en", "1.0"),
                                 PostedRow("T1", "C1", "1.3", "pytorch/nope", 0, "en", "1.0")],
                       finished=[done], forgotten=[dropped], hits={("T1", NCCL, "zh", day): 3})
    with caplog.at_level(logging.WARNING, logger="bot.store.store"):
        unknown = await seeded.flush(batch)
    assert not [r for r in caplog.records if r.name == "bot.store.store"]  # no fallback to the SQLAlchemy transaction
    assert [r.ts for r in unknown] == ["1.3"]
    assert (await seeded.message_target("T1", "C1", "1.1")).workaround == 0
    assert (await seeded.message_target("T1", "C1", "1.2")).workaround is None
    assert await seeded.pending_decisions() == 0
    assert await seeded.record_decision(_decision("k-dropped"), "me", 10.0) is not None  # forgotten: free again
    assert await seeded.record_decision(_decision("k-done"), "me", 10.0) is None  # done: still taken
    await seeded.flush(WriteBatch(hits={("T1", NCCL, "zh", day): 2}))
    assert (await seeded.hit_counts("T1"))[NCCL] == 5
