"""``db check`` / ``db repair``, and crashes in the middle of a vote leaving nothing half-done."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap

import pytest
from sqlalchemy import update

from bot.kb.feedback import Tally
from bot.store import Store, votes
from bot.store.models import Target, Vote

NCCL = "pytorch/nccl-timeout-during-allreduce"
REPO_ROOT = __file__.rsplit("/tests/", 1)[0]


async def tally(store: Store, workaround: int = 0) -> Tally:
    return (await store.feedback([NCCL]))[NCCL].workarounds[workaround]


async def corrupt(store: Store, table, where, **values) -> None:
    await store._db.write(lambda conn: conn.execute(update(table).where(*where).values(**values)))


async def test_a_consistent_store_has_nothing_to_report_or_repair(seeded):
    await seeded.record_vote("T1", "U1", NCCL, 0, "+1", True, 1)
    assert await seeded.check() == []
    assert await seeded.repair() == 0


async def test_a_wrong_counter_is_reported_and_repaired(seeded):
    await seeded.record_vote("T1", "U1", NCCL, 0, "+1", True, 1)
    await seeded.record_vote("T1", "U2", NCCL, None, "-1", True, 1)
    await corrupt(seeded, Target, (Target.entry_id == NCCL, Target.position == 0), up=7, down=2)
    await corrupt(seeded, Target, (Target.entry_id == NCCL, Target.kind == "diagnosis"), down=0)
    assert await seeded.check() == [
        f"{NCCL} diagnosis: counters say 0 up / 0 down, the vote rows say 0 up / 1 down",
        f"{NCCL} workarounds[0]: counters say 7 up / 2 down, the vote rows say 1 up / 0 down",
    ]
    assert await seeded.repair() == 2
    assert await seeded.check() == []
    assert await tally(seeded) == Tally(1, 0)


async def test_a_vote_row_that_disagrees_with_its_reactions_is_reported_and_repaired(seeded):
    await seeded.record_vote("T1", "U1", NCCL, 1, "+1", True, 1)
    await corrupt(seeded, Vote, (Vote.user_id == "U1",), vote=-1)
    problems = await seeded.check()
    assert f"{NCCL} workarounds[1]: the vote of T1/U1 is stored as -1 but their reactions say +1" in problems
    assert f"{NCCL} workarounds[1]: counters say 1 up / 0 down, the vote rows say 1 up / 0 down" not in problems
    await seeded.repair()
    assert await seeded.check() == []
    assert await tally(seeded, 1) == Tally(1, 0)
    # And the next event moves the counter from the right starting point.
    assert (await seeded.record_vote("T1", "U1", NCCL, 1, "+1", False, 2)).tally == Tally(0, 0)


async def test_a_failure_after_the_vote_row_is_written_rolls_everything_back(seeded, monkeypatch):
    await seeded.record_vote("T1", "U1", NCCL, 0, "+1", True, 1)

    async def crash(*_args, **_kwargs):
        raise RuntimeError("simulated crash between the vote row and its counter")

    monkeypatch.setattr(votes, "_bump", crash)
    with pytest.raises(RuntimeError, match="simulated crash"):
        await seeded.record_vote("T1", "U2", NCCL, 0, "-1", True, 2)
    monkeypatch.undo()
    assert await seeded.check() == []
    assert await tally(seeded) == Tally(1, 0)
    # The lost event was not half-applied: delivered again (Slack retries), it counts.
    assert (await seeded.record_vote("T1", "U2", NCCL, 0, "-1", True, 2)).tally == Tally(1, 1)


KILLED_MID_WRITE = textwrap.dedent("""
    import asyncio, os, signal, sys
    from bot.store import Store, votes

    async def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)  # after the vote row, before its counter and the commit
        await asyncio.sleep(60)

    async def main():
        store = await Store.open(sys.argv[1])
        votes._bump = die
        await store.record_vote("T1", "U9", sys.argv[2], 0, "+1", True, 5.0)

    asyncio.run(main())
""")


async def test_a_process_killed_mid_write_leaves_counters_equal_to_the_vote_rows(seeded, db_url):
    await seeded.record_vote("T1", "U1", NCCL, 0, "+1", True, 1)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", KILLED_MID_WRITE, db_url, NCCL, cwd=REPO_ROOT, stderr=subprocess.PIPE)
    _, err = await proc.communicate()
    assert proc.returncode == -9, err.decode()
    assert await seeded.check() == []
    assert await tally(seeded) == Tally(1, 0)
    assert (await seeded.record_vote("T1", "U9", NCCL, 0, "+1", True, 5.0)).tally == Tally(2, 0)


async def test_check_is_clean_after_a_storm_of_adds_and_removes(seeded):
    events = [
        seeded.record_vote("T1", f"U{i % 17}", NCCL, i % 3, "+1" if i % 2 else "-1", i % 7 != 0, float(i))
        for i in range(120)
    ]
    await asyncio.gather(*events)
    assert await seeded.check() == []
    assert await seeded.repair() == 0
