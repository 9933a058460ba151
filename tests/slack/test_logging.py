"""`errkb serve` at LOG_LEVEL=DEBUG, with secrets planted in its settings and in a paste: none reach its log."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from pathlib import Path

import aiohttp

from tests import slack_payloads as p
from tests.slack.conftest import SECRET, SlackSender, sign
from tests.slack.fake_slack import TOKEN

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
            assert (await send.event(p.message(PASTE))).status == 200
            await fake_slack.wait_for("chat.postMessage", 1)
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
    for planted in (TOKEN, SECRET, "hunter2planted", "xoxp-9999-planted-token", "zebra-unicorn-7731",
                    "password authentication failed"):
        assert planted not in log, planted
