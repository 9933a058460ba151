"""Team entries answer in their workspace within seconds on every replica, marked with their author."""

from __future__ import annotations

import asyncio
import json
import time

from bot.kb.shape import shape
from bot.service import Via
from tests.service.conftest import InProcess, in_process, paste

PASTE = ("Traceback (most recent call last):\n  File \"/srv/app/jobs.py\", line 12, in run\n"
         "ZorbFluxError: capacitor 7 overheated at 0x1f3a on node-3.acme.internal:8080")
FORM = {"title": "ZorbFluxError: capacitor overheated", "root_cause": "The flux capacitor's fan is unplugged.",
        "workarounds": "Plug the fan back in.\nLower the flux to 1.21 GW.", "dead_ends": "Rebooting the node.",
        "regex": r"ZorbFluxError: capacitor \d+ overheated"}


def answers(replica: InProcess) -> list[dict]:
    return [p.message for t in replica.outlet.threads() for p in t.posts]


async def wait_for_answer(replica: InProcess, n: int, text: str, timeout: float = 8.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await replica.service.answers.message(paste(text, ts=f"{time.time():.6f}"), Via(None))
        await asyncio.sleep(0.2)
        if len(answers(replica)) >= n:
            return answers(replica)[n - 1]
    raise AssertionError(f"no answer within {timeout}s")


async def test_an_entry_added_on_one_replica_answers_the_next_paste_on_the_other(kb, seeded_copy):
    a, b = await in_process(kb, seeded_copy), await in_process(kb, seeded_copy)
    try:
        await b.service.answers.message(paste(PASTE), Via(None))  # b knows the workspace has no team entries
        await asyncio.sleep(0.2)
        assert answers(b) == []
        line = shape(PASTE).line
        started = time.monotonic()
        assert await a.service.teaching.submit("T1", "U7", FORM, {"line": line, "locale": "en"}, Via(None)) == {}
        answer = await wait_for_answer(b, 1, PASTE)
        took = time.monotonic() - started
        text = json.dumps(answer["blocks"])
        assert "capacitor overheated" in text and "Plug the fan back in." in text and "<@U7>" in text
        assert took < 5  # within seconds, without restarting b
        [row] = await a.store.team_entries("T1")
        assert await b.store.team_entries("T2") == []  # it belongs to its workspace

        await a.store.set_team_status("T1", row.entry_id, "retired", "U9")  # retired on a: b stops answering
        await asyncio.sleep(2.5)
        await b.service.answers.message(paste(PASTE, thread="1700000000.999999", ts="1700000001.000000"), Via(None))
        await asyncio.sleep(0.3)
        assert len(answers(b)) == 1
    finally:
        for replica in (a, b):
            await replica.service.stop(2)
            await replica.store.close()
