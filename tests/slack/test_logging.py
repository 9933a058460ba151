"""`errkb serve` at LOG_LEVEL=DEBUG, with secrets planted in its settings and in a paste: none reach its log,
whichever path a line takes (Bolt's unhandled-request warning, a listener or a decision that fails with the
text in its exception, a Web API error response that echoes the message back)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from bot import logs
from tests.slack.conftest import NCCL_PASTE, Harness, SlackSender
from tests.support import payloads as p
from tests.support.fake_slack import TOKEN
from tests.support.signing import SECRET, sign
from tests.support.waits import eventually

PASTE = ("migrations failed: sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server "
         "at \"db\" failed: FATAL:  password authentication failed for user \"app\" "
         "(url postgresql://app:hunter2planted@db:5432/prod, token xoxp-9999-planted-token, marker zebra-unicorn-7731)")


async def test_a_debug_log_holds_no_secret_and_no_message_text(fake_slack, tmp_path, seeded_db):
    import shutil

    shutil.copy(seeded_db, tmp_path / "errkb.db")
    env = {**os.environ, "SLACK_BOT_TOKEN": TOKEN, "SLACK_SIGNING_SECRET": SECRET, "LOG_LEVEL": "DEBUG",
           "SLACK_API_URL": fake_slack.api_url, "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'errkb.db'}",
           "PORT": "0", "ERRKB_SEEDS": str(Path(__file__).resolve().parents[2] / "seeds")}
    env.pop("SLACK_APP_TOKEN", None)
    errkb = Path(sys.executable).with_name("errkb")
    process = await asyncio.create_subprocess_exec(str(errkb), "serve", env=env, stderr=asyncio.subprocess.PIPE)
    lines: list[str] = []
    try:
        port = None
        while port is None:
            line = (await asyncio.wait_for(process.stderr.readline(), 30)).decode()
            assert line, "errkb serve exited early:\n" + "".join(lines)
            lines.append(line)
            if found := re.search(r"HTTP mode on port (\d+)", line):
                port = int(found.group(1))
        async with aiohttp.ClientSession() as session:
            send = SlackSender(f"http://127.0.0.1:{port}", session)
            # Slack refuses the answer and quotes it back; then refuses one with the text as its "error"
            fake_slack.fail_next(method="chat.postMessage", error="invalid_blocks", echo=True)
            fake_slack.fail_next(method="chat.postMessage", error=f"rejected: {PASTE}")
            for _ in range(3):
                assert (await send.event(p.message(PASTE))).status == 200
            await fake_slack.wait_for("chat.postMessage", 3)
            assert [bool(c.result.get("ok")) for c in fake_slack.calls_to("chat.postMessage")] == [False, False, True]
            for unhandled in UNHANDLED:  # Bolt warns "Unhandled request ({…})" with parts of these
                await send.form({"payload": json.dumps(unhandled)})
            assert (await send.event(p.envelope({"type": "zebra_event", "text": PASTE}))).status == 404
            late = json.dumps(p.message(PASTE))  # a genuine request that arrives too late
            assert (await send.post_raw(late, "application/json", sign(late, timestamp=1))).status == 401
            assert (await send.post_raw(late, "application/json", {})).status == 401
        process.send_signal(signal.SIGTERM)
        rest = await asyncio.wait_for(process.stderr.read(), 30)
        lines.append(rest.decode())
        assert await process.wait() == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    log = "".join(lines)
    assert "refused POST /slack/events:" in log and "stale timestamp" in log  # the late request: one bounded line
    assert "could not post in C0ERRORS: invalid_blocks" in log and "could not post in C0ERRORS: unexpected_error" in log
    assert "Unhandled request [type=dialog_submission callback_id=report]" in log
    assert "Unhandled request [type=event_callback type=zebra_event]" in log
    for planted in (TOKEN, SECRET, "hunter2planted", "xoxp-9999-planted-token", "zebra-unicorn-7731",
                    "password authentication failed"):
        assert planted not in log, planted


UNHANDLED = [
    {"type": "dialog_submission", "callback_id": "report", "team": {"id": p.TEAM}, "user": {"id": "U_EN"},
     "submission": {"details": PASTE}},
    {"type": "interactive_message", "callback_id": "legacy", "team": {"id": p.TEAM}, "user": {"id": "U_EN"},
     "actions": [{"name": "pick", "type": "button", "value": PASTE}]},
    {"type": "block_suggestion", "action_id": "lookup", "block_id": "b1", "team": {"id": p.TEAM},
     "user": {"id": "U_EN"}, "value": PASTE},
]


@pytest.fixture
def serve_log(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """This process's logging as ``errkb serve`` sets it up (at DEBUG, secrets configured), into a buffer."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buffer)
    logs.configure("DEBUG", (TOKEN, SECRET))
    yield buffer
    root.handlers[:], root.level = handlers, level


async def test_a_listener_or_a_decision_failing_with_the_text_in_its_error_logs_where_not_what(
        harness: Harness, serve_log: io.StringIO, monkeypatch: pytest.MonkeyPatch):
    h = harness

    def unreadable(text: str, *_args: object, **_kwargs: object) -> list[object]:  # every path matches here
        raise ValueError(f"cannot match {text!r}")

    with monkeypatch.context() as patch:  # a listener that fails, quoting what it was given
        patch.setattr(h.bot.service.knowledge, "find", unreadable)
        sent = await h.send.event(p.message(PASTE))
    assert sent.status == 400

    async def refused(*_args: object, **_kwargs: object) -> object:
        raise RuntimeError(f"Slack refused: {PASTE}")

    before = len(h.slack.calls_to("chat.postMessage"))
    with monkeypatch.context() as patch:  # a recorded answer whose sending fails, quoting the message
        patch.setattr(h.bot.service.answers.outlet, "send", refused)
        assert (await h.send.event(p.message(NCCL_PASTE + "\n" + PASTE))).status == 200
        await eventually(lambda: asyncio.sleep(0, serve_log.getvalue()), lambda log: "decision in" in log, timeout=10)
    assert len(h.slack.calls_to("chat.postMessage")) == before
    log = serve_log.getvalue()
    assert "errkb: message request failed (ValueError at test_logging.py:" in log
    assert "failed\nTraceback (most recent call last):" in log and "RuntimeError: (text withheld" in log
    for planted in ("hunter2planted", "xoxp-9999-planted-token", "zebra-unicorn-7731", "password authentication"):
        assert planted not in log, planted
