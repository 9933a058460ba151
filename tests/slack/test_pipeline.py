"""Issue 13 over real HTTP: exactly one answer across failed posts, replays and crashes; chat costs
only the match; in-place updates end showing the latest numbers."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import sys
from pathlib import Path

import aiohttp

from bot.kb.feedback import Tally
from bot.render import blocks
from tests.slack.conftest import NCCL_ID, NCCL_PASTE, SlackSender, paste_and_wait
from tests.support import payloads as p
from tests.support.waits import eventually

REPO = Path(__file__).resolve().parents[2]


class TestFailedPosts:
    async def test_a_post_refused_for_good_leaves_the_thread_answerable(self, harness):
        harness.slack.fail_next(method="chat.postMessage", error="not_in_channel")
        paste = p.message(NCCL_PASTE)
        assert (await harness.send.event(paste)).status == 200
        await harness.slack.wait_for("chat.postMessage", 1)
        await harness.slack.settle()
        assert len(harness.slack.calls_to("chat.postMessage")) == 1  # refused, not retried
        ts = paste["event"]["ts"]
        edit = p.edited(ts, NCCL_PASTE + "\nstill failing", NCCL_PASTE)  # once invited, the user edits
        assert (await harness.send.event(edit)).status == 200
        posts = (await harness.slack.wait_for("chat.postMessage", 2))[1:]
        assert all(c.result.get("ok") and c["thread_ts"] == ts for c in posts)
        assert "*Cause*: " in posts[0].text_of_blocks

    async def test_an_outage_longer_than_the_gateways_retries_ends_in_one_answer(self, harness, monkeypatch):
        from bot.slack import gateway

        monkeypatch.setattr(gateway, "BACKOFF_SECONDS", 0.05)  # the gateway's retry window, short
        outbox = harness.bot.service.answers.outbox
        outbox.retry_first = 0.3  # the outbox's back-off, short: the outage is two whole retry windows
        harness.slack.fail_next(500, count=2 * (gateway.SERVER_RETRIES + 1), method="chat.postMessage")
        paste = p.message(NCCL_PASTE)
        assert (await harness.send.event(paste)).status == 200
        calls = await harness.slack.wait_for("chat.postMessage", 2 * (gateway.SERVER_RETRIES + 1) + 1, timeout=20)
        metrics = (await harness.send.get("/metrics")).body
        await harness.slack.settle(quiet=1.0)
        posted = [c for c in harness.slack.calls_to("chat.postMessage") if c.result.get("ok")]
        assert len(posted) == 1 and posted[0]["thread_ts"] == paste["event"]["ts"]  # answered, exactly once
        assert "*Cause*: " in posted[0].text_of_blocks and calls[-1].result.get("ok")
        assert 'errkb_decision_retries_total{reason="http_500"}' in metrics and outbox.waiting == 0


class TestReplays:
    async def test_a_click_replayed_ten_times_acts_once(self, harness):
        answered = await paste_and_wait(harness)
        form = p.block_action(blocks.ACTION_TRANSLATE, NCCL_ID, harness.slack.response_url("tr"),
                              message_ts=answered.answer.ts, thread_ts=answered.thread_ts, user="U_JA")
        sent = await asyncio.gather(*(harness.send.form(form) for _ in range(10)))
        assert all(s.status == 200 for s in sent)
        await harness.slack.wait_for("chat.postEphemeral", 1)
        await harness.slack.settle()
        assert len(harness.slack.calls_to("chat.postEphemeral")) == 1

    async def test_a_slash_command_replayed_acts_once(self, harness):
        form = p.slash_command("help", harness.slack.response_url("help"))
        for _ in range(3):
            assert (await harness.send.form(form)).status == 200
        await harness.slack.wait_for("response_url", key="help")
        await harness.slack.settle()
        assert len(harness.slack.calls_to("response_url")) == 1


class TestChatCostsOnlyTheMatch:
    async def test_chatter_touches_neither_the_store_nor_slack(self, harness, monkeypatch):
        db = harness.store._db
        used = []
        for name in ("read", "write"):
            real = getattr(db, name)

            async def counted(work, _real=real, _name=name):
                # timers, not chatter: the outbox's heartbeat scan, and the pruner's first round (which a busy
                # machine may run only after this patch)
                if getattr(work, "func", work).__module__ not in ("bot.store.decisions", "bot.store.retention"):
                    used.append((_name, work))
                return await _real(work)

            monkeypatch.setattr(db, name, counted)
        for n in range(20):
            assert (await harness.send.event(p.message(f"lunch at {n}? the build is green again"))).status == 200
        await harness.slack.settle()
        assert used == []
        assert [c.method for c in harness.slack.calls] in ([], ["auth.test"])  # Bolt learns its bot id once


class TestUpdates:
    async def test_an_update_that_runs_out_of_retries_is_sent_again_with_the_latest_numbers(self, harness,
                                                                                          monkeypatch):
        monkeypatch.setattr("bot.service.runtime.updates.RESEND_AFTER", 0.1)
        answered = await paste_and_wait(harness)
        ts = answered.answer.ts
        harness.slack.fail_next(500, count=8, method="chat.update")  # two rounds of retries fail
        for n in range(5):
            assert (await harness.send.event(p.reaction("+1", ts, user=f"U{n}"))).status == 200
        await eventually(lambda: harness.store.feedback([NCCL_ID]),
                         predicate=lambda f: f[NCCL_ID].workarounds[0] == Tally(5, 0))
        updates = await harness.slack.wait_for("chat.update", 9, timeout=15)
        await harness.slack.settle()
        landed = [c for c in harness.slack.calls_to("chat.update") if c.result.get("ok")]
        assert landed and "worked for 5 of 5 people here" in landed[-1].text_of_blocks
        assert updates[-1] is harness.slack.calls_to("chat.update")[-1]

    async def test_a_slow_update_never_lands_after_a_newer_one(self, harness):
        answered = await paste_and_wait(harness)
        ts = answered.answer.ts
        harness.slack.slow_next(1.0, method="chat.update")
        assert (await harness.send.event(p.reaction("+1", ts, user="U1"))).status == 200
        await harness.slack.wait_for("chat.update", 1)  # the slow one is in flight…
        assert (await harness.send.event(p.reaction("+1", ts, user="U2"))).status == 200  # …when votes move on
        await harness.slack.wait_for("chat.update", 2, timeout=10)
        await harness.slack.settle()
        updates = harness.slack.calls_to("chat.update")
        assert "worked for 2 of 2 people here" in updates[-1].text_of_blocks
        assert updates[-1].at >= updates[0].at + 1.0  # sent only once the slow one had landed


async def _serve(env: dict[str, str]) -> tuple[asyncio.subprocess.Process, int]:
    process = await asyncio.create_subprocess_exec(str(Path(sys.executable).with_name("errkb")), "serve", env=env,
                                                   stderr=asyncio.subprocess.PIPE)
    while True:
        line = (await asyncio.wait_for(process.stderr.readline(), 30)).decode()
        assert line, "errkb serve exited early"
        if found := re.search(r"HTTP mode on port (\d+)", line):
            return process, int(found.group(1))


async def test_an_acked_paste_is_answered_after_kill_9_and_a_restart(fake_slack, tmp_path, seeded_db):
    shutil.copy(seeded_db, tmp_path / "errkb.db")
    env = {**os.environ, "SLACK_BOT_TOKEN": "xoxb-fake-token", "SLACK_SIGNING_SECRET": "fake-signing-secret",
           "SLACK_API_URL": fake_slack.api_url, "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'errkb.db'}",
           "PORT": "0", "ERRKB_SEEDS": str(REPO / "seeds")}
    env.pop("SLACK_APP_TOKEN", None)
    first, port = await _serve(env)
    second = None
    try:
        fake_slack.slow_next(4, method="users.info")  # the answer is under way when the process dies
        async with aiohttp.ClientSession() as session:
            paste = p.message(NCCL_PASTE, user="U_CN")
            assert (await SlackSender(f"http://127.0.0.1:{port}", session).event(paste)).status == 200
            await fake_slack.wait_for("users.info", 1)
            first.send_signal(signal.SIGKILL)
            await first.wait()
        fake_slack.faults.clear()
        second, _port = await _serve(env)
        posts = await fake_slack.wait_for("chat.postMessage", 1, timeout=20)
        assert all(c.result.get("ok") and c["thread_ts"] == paste["event"]["ts"] for c in posts)
        assert "*原因*：" in posts[0].text_of_blocks  # still in the poster's language
        await fake_slack.settle()
        assert len(fake_slack.calls_to("chat.postMessage")) == 1
    finally:
        for process in (first, second):
            if process is not None and process.returncode is None:
                process.kill()
                await process.wait()
