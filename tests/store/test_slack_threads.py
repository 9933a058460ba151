"""The Slack adapter's additions: the bot's messages by thread, and channels opting in to bots."""

from __future__ import annotations

from bot.store import PostedMessage

NCCL = "pytorch/nccl-timeout-during-allreduce"
OTHER = "pytorch/other-error"


async def test_a_threads_messages_come_back_oldest_first_with_their_ts(seeded):
    root = "1700000000.000001"
    for ts, entry, workaround in [("1700000000.000300", NCCL, 1), ("1700000000.000200", NCCL, 0),
                                  ("1700000000.000100", NCCL, None), ("1700000000.000400", OTHER, None),
                                  ("999999999.000500", NCCL, 2)]:
        await seeded.remember_message("T1", "C1", ts, entry, workaround, "zh", thread_ts=root)
    await seeded.remember_message("T1", "C1", "1700000000.000900", NCCL, None, "en", thread_ts="1.0")
    await seeded.remember_message("T1", "C2", "1700000000.000901", NCCL, None, "en", thread_ts=root)
    messages = await seeded.thread_messages("T1", "C1", root)
    assert [(m.ts, m.entry_id, m.workaround) for m in messages] == [
        ("999999999.000500", NCCL, 2), ("1700000000.000100", NCCL, None), ("1700000000.000200", NCCL, 0),
        ("1700000000.000300", NCCL, 1), ("1700000000.000400", OTHER, None)]
    assert messages[1] == PostedMessage(NCCL, None, "zh", root)
    assert (await seeded.message_target("T1", "C1", "1700000000.000300")).ts == "1700000000.000300"


async def test_a_retired_workaround_leaves_the_thread_listing(seeded, make_kb, nccl, other):
    await seeded.remember_message("T1", "C1", "1.1", NCCL, None, "en", thread_ts="1.0")
    await seeded.remember_message("T1", "C1", "1.2", NCCL, 0, "en", thread_ts="1.0")
    del nccl["workarounds"][0], nccl["workarounds_zh"][0]
    await seeded.sync_entries(make_kb(nccl, other))
    assert [m.ts for m in await seeded.thread_messages("T1", "C1", "1.0")] == ["1.1"]


async def test_other_bots_are_answered_only_where_a_channel_opts_in(store):
    assert await store.channel_bots("T1", "C1") is False
    await store.set_channel_bots("T1", "C1", True)
    assert await store.channel_bots("T1", "C1") is True
    assert await store.channel_mode("T1", "C1") == "auto"
    await store.set_channel_mode("T1", "C1", "mention")
    assert await store.channel_bots("T1", "C1") is True
    await store.set_channel_bots("T1", "C1", False)
    assert (await store.channel_bots("T1", "C1"), await store.channel_mode("T1", "C1")) == (False, "mention")
    assert await store.channel_bots("T1", "C2") is False
