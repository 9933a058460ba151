"""Alerts from other bots across replicas (issue 22, point 4): two processes sharing one store, each getting
alerts of the same error and Slack's retries of them, post one answer between them and count every alert once."""

from __future__ import annotations

import asyncio
import json
import re

from bot.service import Via
from bot.service.plans import Update
from bot.store import Store
from tests.service.conftest import InProcess, in_process, paste
from tests.support.alerts import alertmanager
from tests.support.waits import eventually, quiet

CRASH = alertmanager()["attachments"][0]["text"]  # as bot.slack.alerts reads it, the error is in here


def updates(*replicas: InProcess) -> list[Update]:
    return [a for r in replicas for plan in r.outlet.plans for a in plan.actions if isinstance(a, Update)]


async def test_two_replicas_answer_an_error_once_and_count_each_alert_once(kb, seeded_copy):
    async with await Store.open(f"sqlite+aiosqlite:///{seeded_copy}") as store:
        await store.set_channel_bots("T1", "C1", True)
    a, b = await in_process(kb, seeded_copy), await in_process(kb, seeded_copy)
    try:
        alerts = [paste(CRASH, ts=f"1700000000.{i:06d}", user="U0ALERTMGR", bot=True) for i in range(1, 6)]
        # every alert reaches both replicas (Slack's retry landing on the other one), all at once
        await asyncio.gather(*(r.service.answers.message(m, Via(None)) for m in alerts for r in (a, b)))
        counts = await eventually(lambda: _counts(a, b), predicate=lambda c: 5 in c, timeout=10)
        assert await quiet(lambda: len(a.outlet.plans) + len(b.outlet.plans), 0.3, 10)
        threads = [t for r in (a, b) for t in r.outlet.threads()]
        assert len(threads) == 1 and threads[0].thread_ts in {m.ts for m in alerts}  # one answer, to one alert
        counts = await _counts(a, b)
        assert max(counts) == 5  # ten deliveries of five alerts: five counted
    finally:
        for replica in (a, b):
            await replica.service.stop(2)
            await replica.store.close()


async def _counts(*replicas: InProcess) -> list[int]:
    """The counts the answer's in-place updates showed."""
    texts = [json.dumps(u.message["blocks"]) for u in updates(*replicas)]
    return [int(n) for t in texts for n in re.findall(r"Seen (\d+) times in this channel today", t)]
