"""Socket Mode (SLACK_APP_TOKEN set): the same bot, fed over a WebSocket instead of HTTP."""

from __future__ import annotations

import shutil
from pathlib import Path

import aiohttp

from bot.slack.app import start
from tests.slack.conftest import NCCL_PASTE, settings_for
from tests.support import payloads as p
from tests.support.fake_slack import APP_TOKEN


async def test_events_and_commands_arrive_over_the_socket_and_are_acknowledged(fake_slack, tmp_path: Path, kb,
                                                                              seeded_db: Path):
    shutil.copy(seeded_db, tmp_path / "errkb.db")
    settings = settings_for(fake_slack, tmp_path, app_token=APP_TOKEN, signing_secret=None)
    running = await start(settings, host="127.0.0.1", port=0, kb=kb)
    try:
        assert fake_slack.calls_to("apps.connections.open")
        event = await fake_slack.send_envelope("events_api", p.message(NCCL_PASTE, user="U_CN"))
        posts = await fake_slack.wait_for("chat.postMessage", 1)
        assert "*原因*：" in posts[0].text_of_blocks
        command = p.slash_command("help", fake_slack.response_url("sock"))
        acked = await fake_slack.send_envelope("slash_commands", command)
        await fake_slack.wait_for("response_url", key="sock")
        assert {c["envelope_id"] for c in fake_slack.calls_to("socket.ack")} >= {event, acked}
        async with aiohttp.ClientSession() as session, session.get(f"http://127.0.0.1:{running.port}/healthz") as r:
            assert r.status == 200
            events = await session.post(f"http://127.0.0.1:{running.port}/slack/events", data="{}")
            assert events.status == 404  # no HTTP endpoint in Socket Mode
    finally:
        await running.stop(grace=5)
