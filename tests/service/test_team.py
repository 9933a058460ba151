"""Team entries answer in their workspace within seconds on every replica, marked with their author."""

from __future__ import annotations

import asyncio
import json
import time

from bot.diagnose import ErrkbService
from bot.kb.shape import shape
from bot.service import ChatService, Via
from bot.store import Store
from tests.service.conftest import RecordingOutlet, paste

PASTE = ("Traceback (most recent call last):\n  File \"/srv/app/jobs.py\", line 12, in run\n"
         "ZorbFluxError: capacitor 7 overheated at 0x1f3a on node-3.acme.internal:8080")
FORM = {"title": "ZorbFluxError: capacitor overheated", "root_cause": "The flux capacitor's fan is unplugged.",
        "workarounds": "Plug the fan back in.\nLower the flux to 1.21 GW.", "dead_ends": "Rebooting the node.",
        "regex": r"ZorbFluxError: capacitor \d+ overheated"}


async def replica(kb, path) -> ChatService:
    store = await Store.open(f"sqlite+aiosqlite:///{path}")
    chat = ChatService(ErrkbService(kb, store), store, RecordingOutlet(), update_delay=0.05)
    chat.start()
    return chat


def answers(chat: ChatService) -> list[dict]:
    return [p.message for t in chat.outlet.threads() for p in t.posts]


async def wait_for_answer(chat: ChatService, n: int, text: str, timeout: float = 8.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await chat.message(paste(text, ts=f"{time.time():.6f}"), Via(None))
        await asyncio.sleep(0.2)
        if len(answers(chat)) >= n:
            return answers(chat)[n - 1]
    raise AssertionError(f"no answer within {timeout}s")


async def test_an_entry_added_on_one_replica_answers_the_next_paste_on_the_other(kb, seeded_copy):
    a, b = await replica(kb, seeded_copy), await replica(kb, seeded_copy)
    try:
        await b.message(paste(PASTE), Via(None))  # b knows the workspace has no team entries
        await asyncio.sleep(0.2)
        assert answers(b) == []
        line = shape(PASTE).line
        started = time.monotonic()
        assert await a.teaching.submit("T1", "U7", FORM, {"line": line, "locale": "en"}, Via(None)) == {}
        answer = await wait_for_answer(b, 1, PASTE)
        took = time.monotonic() - started
        text = json.dumps(answer["blocks"])
        assert "capacitor overheated" in text and "Plug the fan back in." in text and "<@U7>" in text
        assert took < 5  # within seconds, without restarting b
        [row] = await a.store.team_entries("T1")
        assert await b.store.team_entries("T2") == []  # it belongs to its workspace

        await a.store.set_team_status(row.entry_id, "retired", "U9")  # retired on a: b stops answering
        await asyncio.sleep(2.5)
        await b.message(paste(PASTE, thread="1700000000.999999", ts="1700000001.000000"), Via(None))
        await asyncio.sleep(0.3)
        assert len(answers(b)) == 1
    finally:
        for chat in (a, b):
            await chat.stop(2)
            await chat.store.close()
