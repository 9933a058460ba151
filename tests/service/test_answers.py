"""Answers without HTTP: what errkb decides for messages, mentions and channel settings, and how it posts."""

from __future__ import annotations

import asyncio

from bot.service import Author, Fetched, Via
from bot.store.records import Decision
from tests.service.conftest import NCCL_PASTE, paste

NCCL_ID = "pytorch/nccl-timeout-during-allreduce"


async def settled(errkb) -> None:
    deadline = asyncio.get_running_loop().time() + 5
    while len(errkb.service.answers.outbox) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    await errkb.service.writer.settled()


async def test_a_paste_becomes_one_threaded_answer_remembered_for_votes(errkb):
    await errkb.service.answers.message(paste(), Via(None))
    await settled(errkb)
    (thread,) = errkb.outlet.threads()
    assert (thread.channel, thread.thread_ts) == ("C1", "1700000000.000100")
    assert [p.about.workaround for p in thread.posts] == [0]  # one answer; its reactions vote for the best fix
    stored = await errkb.store.thread_messages("T1", "C1", "1700000000.000100")
    assert [m.workaround for m in stored] == [0]


async def test_the_same_decision_recorded_twice_answers_once(errkb):
    await asyncio.gather(errkb.service.answers.message(paste(), Via(None)), errkb.service.answers.message(paste(), Via(None)))
    await settled(errkb)
    assert len(errkb.outlet.threads()) == 1


async def test_chatter_is_not_even_looked_up(errkb):
    await errkb.service.answers.message(paste("morning! coffee?"), Via(None))
    assert errkb.service.answers.outbox.counters.recorded == 0 and errkb.outlet.plans == []


async def test_a_channel_setting_changed_here_applies_at_once(errkb):
    await errkb.service.answers.message(paste(ts="1.1"), Via(None))  # caches the channel as auto
    await errkb.store.set_channel_mode("T1", "C1", "off")
    await errkb.service.answers.message(paste(ts="1.2"), Via(None))  # elsewhere: this process trusts its cache for seconds
    from bot.service.incoming import Command

    errkb.outlet.creators["C1"] = "U1"  # the channel's creator may change its mode
    await errkb.service.commands.command(Command("T1", "U1", "C1", "channel off", "k1"), Via(None, respond=_ignore))
    await errkb.service.answers.message(paste(ts="1.3"), Via(None))
    await settled(errkb)
    assert sorted(t.thread_ts for t in errkb.outlet.threads()) == ["1.1", "1.2"]


async def test_a_channel_setting_changed_by_another_process_applies_within_seconds(errkb):
    clock = [0.0]
    errkb.service.answers.channels.clock = lambda: clock[0]
    await errkb.service.answers.message(paste(ts="2.1"), Via(None))
    await errkb.store.set_channel_mode("T1", "C1", "off")  # another replica's /errkb channel off
    clock[0] = errkb.service.answers.channels.refresh + 0.1
    await errkb.service.answers.message(paste(ts="2.2"), Via(None))  # still the settings read before; a fresh read begins
    reading = errkb.service.answers.channels._reload
    if reading is not None:  # however busy the machine, the fresh read is done before the next paste
        await asyncio.wait_for(asyncio.shield(reading), 10)
    await errkb.service.answers.message(paste(ts="2.3"), Via(None))
    await settled(errkb)
    assert sorted(t.thread_ts for t in errkb.outlet.threads()) == ["2.1", "2.2"]


async def test_pastes_in_many_channels_read_the_channel_settings_once(errkb, monkeypatch):
    reads = []
    read = errkb.store.all_channel_settings

    async def counted():
        reads.append(1)
        return await read()

    monkeypatch.setattr(errkb.store, "all_channel_settings", counted)
    await asyncio.gather(*(errkb.service.answers.message(paste(channel=f"C{i}", ts=f"3.{i}"), Via(None)) for i in range(30)))
    await settled(errkb)
    assert len(errkb.outlet.threads()) == 30 and len(reads) == 1


async def _ignore(**_kwargs) -> None:
    return None


async def test_a_refused_post_forgets_the_decision_so_the_thread_stays_answerable(errkb):
    errkb.outlet.refuse.add("C1")
    await errkb.service.answers.message(paste(), Via(None))
    await settled(errkb)
    assert errkb.service.answers.outbox.counters.failed == 1
    errkb.outlet.refuse.clear()
    await errkb.service.answers.message(paste(), Via(None))  # the edit, the retry, a mention: answered now
    await settled(errkb)
    assert errkb.service.answers.outbox.counters.done == 1


async def test_a_mention_in_a_thread_reads_its_first_message(errkb):
    errkb.outlet.roots[("C1", "1.0")] = Fetched(NCCL_PASTE, Author("U2", own=False, bot=False))
    await errkb.service.answers.mention(paste("what is this?", ts="1.5", thread="1.0"), Via(None))
    await settled(errkb)
    threads = errkb.outlet.threads()
    assert threads[-1].thread_ts == "1.0" and threads[-1].posts[0].about.entry_id == NCCL_ID


async def test_a_decision_left_by_a_dead_process_is_taken_over(errkb):
    """What another process recorded, then died holding (its lease ran out), is answered here."""
    dead = Decision("answer:dead", "answer", "T1", "C2", "2.0", "2.0", "U1", NCCL_ID, (), errkb.service.answers.clock())
    assert await errkb.store.record_decision(dead, "dead-process", lease_until=errkb.service.answers.clock() - 1)
    deadline = asyncio.get_running_loop().time() + 5
    while not errkb.outlet.threads() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
    await settled(errkb)
    (thread,) = errkb.outlet.threads()
    assert (thread.channel, thread.thread_ts) == ("C2", "2.0") and errkb.service.answers.outbox.counters.recovered == 1
    assert len(thread.posts) == 1  # without the matched line (the paste is gone), the same answer


async def test_an_answer_cut_short_by_a_failing_post_is_finished_later(errkb, monkeypatch):
    """The answer went out but the call reported a failure after it: nothing is posted twice."""
    from bot.service import answers as answers_module
    from bot.service.plans import Failure

    monkeypatch.setattr(answers_module, "RESUME_AFTER", 0.05)
    outlet, real_send, calls = errkb.outlet, errkb.outlet.send, []

    async def flaky(plan, via, on_sent=None):
        calls.append(plan)
        if len(calls) == 1:  # the first attempt posts two messages, then the third fails
            (thread,) = plan.actions
            cut = type(thread)(thread.workspace, thread.channel, thread.thread_ts, thread.posts[:2])
            report = await real_send(type(plan)([cut]), via, on_sent)
            report.failures.append(Failure(thread, "internal_error", False))
            return report
        return await real_send(plan, via, on_sent)

    monkeypatch.setattr(outlet, "send", flaky)
    await errkb.service.answers.message(paste(), Via(None))
    await settled(errkb)
    stored = await errkb.store.thread_messages("T1", "C1", "1700000000.000100")
    assert [m.workaround for m in stored] == [0] and errkb.service.answers.outbox.counters.done == 1


async def test_an_outage_longer_than_the_gateways_retries_ends_in_exactly_one_post(errkb, monkeypatch):
    from bot.service.plans import Failure, Report

    outbox = errkb.service.answers.outbox
    outbox.retry_first, outbox.retry_cap = 0.01, 0.05  # the back-off, fast: minutes of outage in milliseconds
    real, tries = errkb.outlet.send, []

    async def flaky(plan, via, on_sent=None):  # Slack answers 503 past the gateway's retries, 6 times over
        tries.append(plan)
        if len(tries) <= 6:
            return Report(failures=[Failure(plan.actions[0], "503", False)])
        return await real(plan, via, on_sent)

    monkeypatch.setattr(errkb.outlet, "send", flaky)
    await errkb.service.answers.message(paste(), Via(None))
    await settled(errkb)
    assert len(tries) == 7 and outbox.counters.retried == 6 and outbox.waiting == 0
    (thread,) = errkb.outlet.threads()  # posted once, when Slack came back
    assert len(thread.posts) == 1 and outbox.counters.done == 1 and outbox.counters.failed == 0


async def test_a_permanent_error_ends_the_decision_with_one_log_line(errkb, caplog):
    errkb.outlet.refuse.add("C1")  # not_in_channel
    with caplog.at_level("INFO", logger="bot"):
        await errkb.service.answers.message(paste(), Via(None))
        await settled(errkb)
    outbox = errkb.service.answers.outbox
    assert outbox.counters.failed == 1 and outbox.counters.retried == 0 and len(errkb.outlet.plans) == 1
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("bot.service")]
    assert lines == ["gave up answering in C1: not_in_channel"]
    assert "Traceback" not in caplog.text and "NCCL" not in caplog.text  # the reason, never the message text
