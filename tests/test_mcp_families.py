"""MCP ``diagnose`` on a coded error no entry knows: one ``"how": "family"`` answer with the official page for
the code and no fix, as ``errkb diagnose --format json`` gives."""

from __future__ import annotations

from mcp import Client

from bot.kb.entry import Entry
from bot.kb.families import load
from bot.kb.knowledge import KnowledgeBase
from bot.mcp import Reader, build_server
from bot.service.knowledge import Knowledge
from tests.conftest import NCCL_ID, SEEDS

PASTE = ("C:\\src\\App.csproj : error NETSDK1209: The current Visual Studio version does not support targeting "
         ".NET 9.0.  Either target .NET 8.0 or lower, or use Visual Studio version 17.12 or higher\n")


async def test_diagnose_answers_at_the_family_level(nccl_raw):
    kb = KnowledgeBase({NCCL_ID: Entry(nccl_raw)}, load(SEEDS))  # one entry, which knows none of this
    async with Client(build_server(Reader(Knowledge(kb)))) as client:
        result = (await client.call_tool("diagnose", {"text": PASTE, "locale": "zh"})).structured_content
    assert result is not None
    [answer] = result["matches"]
    assert answer["how"] == "family" and answer["id"] is None and answer["workarounds"] == []
    assert answer["code"] == "NETSDK1209" and answer["page"] == "index"
    assert answer["official_doc_url"] == "https://learn.microsoft.com/en-us/dotnet/core/tools/sdk-errors/"
    assert answer["headline"] == "尚无已知修复 · .NET SDK 错误 NETSDK1209"
