"""A new user's first session against a fake Slack, end to end: an en-US and a zh-CN user paste the NCCL
traceback and get threaded English and Chinese answers, vote with reactions, see `errkb show` move, and
search with `/errkb search nccl` and `/errkb search 超时`."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from tests.slack.conftest import NCCL_ID, command, other_fixes, paste_and_wait
from tests.support import payloads as p
from tests.support.waits import eventually

ERRKB = Path(sys.executable).with_name("errkb")


async def errkb_show(database_url: str) -> dict:
    process = await asyncio.create_subprocess_exec(
        str(ERRKB), "show", NCCL_ID, "--format", "json", stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "DATABASE_URL": database_url})
    out, _err = await process.communicate()
    assert process.returncode == 0
    return json.loads(out)


async def test_answers_come_in_each_readers_language_votes_move_errkb_show_and_search_finds_the_entry(harness,
                                                                                                      tmp_path):
    english = await paste_and_wait(harness, user="U_EN")
    chinese = await paste_and_wait(harness, user="U_CN", channel="C0OTHER")
    assert "*Cause*: " in english.answer.text_of_blocks
    assert "*原因*：" in chinese.answer.text_of_blocks
    assert english.thread_ts != chinese.thread_ts

    database_url = f"sqlite+aiosqlite:///{tmp_path / 'errkb.db'}"
    before = {w["index"]: w for w in (await errkb_show(database_url))["workarounds"]}
    first = english.answer.ts  # the answer shows workaround 0: reactions on it vote for that fix
    for user in ("U_EN", "U_CN", "U_TW"):
        assert (await harness.send.event(p.reaction("+1", first, user=user))).status == 200
    second = (await other_fixes(harness, chinese, user="U_CN", channel="C0OTHER"))[1]  # one click away
    assert (await harness.send.event(p.reaction("-1", second.ts, user="U_CN",
                                                channel="C0OTHER"))).status == 200  # workaround 1
    await eventually(lambda: harness.store.stats(), predicate=lambda s: (s.votes_up, s.votes_down) == (3, 1))
    after = {w["index"]: w for w in (await errkb_show(database_url))["workarounds"]}
    assert (after[0]["votes_up"], after[1]["votes_down"]) == (3, 1)
    assert after[0]["success_rate"] > before[0]["success_rate"]
    assert after[1]["success_rate"] < before[1]["success_rate"]

    nccl = (await command(harness, "search nccl"))[0].text_of_blocks
    chaoshi = (await command(harness, "search 超时", user="U_CN"))[0]
    assert "NCCL" in nccl and NCCL_ID in chaoshi.text_of_blocks
