"""The real bot on a real port, a fake Slack it talks to, and a signed-request sender.

A test reads: given this payload (``tests.support.payloads``), Slack receives these calls
(``FakeSlack.wait_for``). Listeners run after the ack, so every assertion polls, bounded.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest

from bot.config import Settings
from bot.kb.knowledge import KnowledgeBase
from bot.slack.app import Running, start
from tests.support.fake_slack import TOKEN, FakeSlack
from tests.support.signing import SECRET, sign
from tests.support.waits import eventually

REPO = Path(__file__).resolve().parents[2]
NCCL_ID = "pytorch/nccl-timeout-during-allreduce"
NCCL_PASTE = (REPO / "bot" / "samples" / "nccl_traceback.txt").read_text(encoding="utf-8")
USERS = {"U_EN": "en-US", "U_CN": "zh-CN", "U_TW": "zh-TW", "U_JA": "ja-JP"}


@dataclass
class Sent:
    status: int
    body: str

    def json(self) -> Any:
        return json.loads(self.body)


class SlackSender:
    """Posts to the bot's ``/slack/events`` as Slack does: signed JSON events, signed forms."""

    def __init__(self, base_url: str, session: aiohttp.ClientSession) -> None:
        self.base_url = base_url
        self.session = session

    async def post_raw(self, body: str, content_type: str, headers: dict[str, str] | None = None) -> Sent:
        all_headers = {"Content-Type": content_type, **(headers if headers is not None else sign(body))}
        async with self.session.post(f"{self.base_url}/slack/events", data=body.encode(), headers=all_headers) as r:
            return Sent(r.status, await r.text())

    async def event(self, payload: dict[str, Any], retry: int | None = None) -> Sent:
        body = json.dumps(payload)
        headers = sign(body)
        if retry is not None:
            headers |= {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"}
        return await self.post_raw(body, "application/json", headers)

    async def form(self, fields: dict[str, str]) -> Sent:
        """A slash command, or interactivity (``{"payload": json}``)."""
        return await self.post_raw(urlencode(fields), "application/x-www-form-urlencoded")

    async def get(self, path: str) -> Sent:
        async with self.session.get(f"{self.base_url}{path}") as r:
            return Sent(r.status, await r.text())


@dataclass
class Harness:
    bot: Running
    slack: FakeSlack
    send: SlackSender

    @property
    def store(self):
        return self.bot.store


@pytest.fixture(autouse=True)
def quick_back_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Back-off after a 5xx starts at 50 ms instead of 500 (Retry-After on a 429 is honoured as sent)."""
    monkeypatch.setattr("bot.slack.gateway.BACKOFF_SECONDS", 0.05)


@pytest.fixture
async def fake_slack() -> AsyncIterator[FakeSlack]:
    fake = await FakeSlack().start()
    fake.locales.update(USERS)
    yield fake
    await fake.stop()


def settings_for(fake: FakeSlack, tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "bot_token": TOKEN, "signing_secret": SECRET, "app_token": None, "api_url": fake.api_url,
        "database_url": f"sqlite+aiosqlite:///{tmp_path / 'errkb.db'}", "port": 0, "seeds_dir": REPO / "seeds",
    }
    return Settings(**(values | overrides))


@pytest.fixture
async def harness(fake_slack: FakeSlack, tmp_path: Path, kb: KnowledgeBase, seeded_db: Path) -> AsyncIterator[Harness]:
    shutil.copy(seeded_db, tmp_path / "errkb.db")
    # The copy already holds these seeds (test_socket_mode and test_app's shutdown test start with seeding).
    running = await start(settings_for(fake_slack, tmp_path), host="127.0.0.1", port=0, kb=kb, update_delay=0.2,
                          pace=1000.0, seed=False)
    assert running.app.client.base_url == fake_slack.api_url  # never slack.com from a test
    async with aiohttp.ClientSession() as session:
        yield Harness(running, fake_slack, SlackSender(f"http://127.0.0.1:{running.port}", session))
    await running.stop(grace=5)


@dataclass
class Answered:
    """What the bot posted for one paste: the thread it answered in, and its one compact answer."""

    thread_ts: str
    answer: Any  # fake_slack.Call


async def paste_and_wait(h: Harness, text: str = NCCL_PASTE, user: str = "U_EN", **fields: Any) -> Answered:
    """Post a paste event and wait for its answer (one message in the paste's thread)."""
    from tests.support import payloads as p

    payload = p.message(text, user=user, **fields)
    before = len(h.slack.calls_to("chat.postMessage"))
    assert (await h.send.event(payload)).status == 200
    async def posted() -> list[Any]:  # the answer as Slack accepted it (a 429 or 500 first posts nothing)
        return [c for c in h.slack.calls_to("chat.postMessage")[before:] if c.result.get("ok")]

    (answer, *_rest) = await eventually(posted, predicate=bool, timeout=15)
    thread = payload["event"].get("thread_ts") or payload["event"]["ts"]
    assert answer["thread_ts"] == thread
    return Answered(thread, answer)


async def other_fixes(h: Harness, answered: Answered, user: str = "U_EN", channel: str | None = None) -> dict[int, Any]:
    """Click *Other fixes* on an answer; returns the fix messages it posted in the thread, by workaround index."""
    import json

    from bot.render import blocks
    from tests.support import payloads as p

    entry = json.loads(next(e["value"] for b in answered.answer["blocks"] if b["type"] == "actions"
                            for e in b["elements"] if e.get("action_id") == blocks.ACTION_VOTE_UP))["entry"]
    before = len(h.slack.calls_to("chat.postMessage"))
    await click(h, blocks.ACTION_OTHER_FIXES, entry, message_ts=answered.answer.ts, thread_ts=answered.thread_ts,
                user=user, channel=channel or p.CHANNEL)
    total = len(h.bot.kb.entries[entry].workarounds)
    posts = (await h.slack.wait_for("chat.postMessage", before + total - 1))[before:]
    return {json.loads(next(e["value"] for b in c["blocks"] if b["type"] == "actions" for e in b["elements"]
                            if e.get("action_id") == blocks.ACTION_VOTE_UP))["workaround"]: c for c in posts}


@pytest.fixture(scope="session")
def other_paste(kb: KnowledgeBase) -> tuple[str, str]:
    """A fixture paste about some other entry than the NCCL one: (paste, entry id). The KB grows, so
    which entry it is, is looked up rather than assumed."""
    from bot.kb.normalize import normalize
    from bot.kb.quality import paste_files

    for path in paste_files(REPO / "pastes"):
        text = path.read_text(encoding="utf-8")
        matches = kb.matcher.match(normalize(text), limit=1)
        if matches and matches[0].entry_id != NCCL_ID and matches[0].how == "regex":
            return text, matches[0].entry_id
    raise AssertionError("no fixture paste matches another entry")


async def command(h: Harness, text: str, user: str = "U_EN", channel: str | None = None, count: int = 1) -> list[Any]:
    """Run ``/errkb text``; returns the (first ``count``) answers it sent through the response_url."""
    from tests.support import payloads as p

    key = f"cmd{time.monotonic_ns()}"
    form = p.slash_command(text, h.slack.response_url(key), user=user, channel=channel or p.CHANNEL)
    sent = await h.send.form(form)
    assert sent.status == 200 and sent.body == ""  # acknowledged at once; answers follow
    return await h.slack.wait_for("response_url", count, key=key)


async def click(h: Harness, action_id: str, value: str | None, **fields: Any) -> str:
    """Click a button (a signed block_actions payload); returns its response_url key."""
    from tests.support import payloads as p

    key = f"act{time.monotonic_ns()}"
    sent = await h.send.form(p.block_action(action_id, value, h.slack.response_url(key), **fields))
    assert sent.status == 200
    return key
