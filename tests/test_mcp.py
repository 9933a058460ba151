"""``errkb mcp``: the MCP server, driven by the official SDK's own client over stdio (a subprocess), streamable
HTTP (a subprocess, behind the bearer token) and in process over a workspace's store."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from bot.cli import main
from bot.config import Settings
from bot.mcp import build_server, open_reader
from bot.store import Store
from tests.conftest import NCCL_ID, REPO

SAMPLE = (REPO / "bot" / "samples" / "nccl_traceback.txt").read_text(encoding="utf-8")
TOKEN = "test-token-0123456789abcdef"
TEAM, OTHER = "T0ACME", "T0OTHER"
BODY = {"title": "AcmeWidgetError: frobnicator rejected shard", "root_cause": "The shard map is stale after a resize.",
        "workarounds": ["Rebuild the shard map with `acme shards rebuild`."], "dead_ends": ["Restarting the widget."]}
REGEX = r"AcmeWidgetError: frobnicator \S+ rejected shard \d+"
ACME_PASTE = "Traceback (most recent call last):\n  File \"run.py\", line 3\nAcmeWidgetError: frobnicator alpha rejected shard 7\n"
FIX = "Set NCCL_P2P_DISABLE=1 on the nodes without NVLink."


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ERRKB_", "DATABASE_URL"))}
    return {**env, "PYTHONPATH": str(REPO), **extra}


def _structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    data = result.structured_content
    assert data == json.loads(result.content[0].text)  # the same JSON as text, for clients without structured output
    return data


async def _exercise(client: Client) -> None:
    """The three tools and a resource, as an agent would use them."""
    tools = await client.list_tools()
    assert {t.name for t in tools.tools} == {"diagnose", "search", "show"}
    assert all(t.annotations and t.annotations.read_only_hint for t in tools.tools)

    diagnosis = _structured(await client.call_tool("diagnose", {"text": SAMPLE}))
    assert diagnosis["locale"] == "en" and diagnosis["matches"][0]["id"] == NCCL_ID
    assert diagnosis["matches"][0]["workarounds"] and "success_rate" in diagnosis["matches"][0]["workarounds"][0]
    chinese = _structured(await client.call_tool("diagnose", {"text": SAMPLE, "locale": "zh-CN"}))
    assert chinese["locale"] == "zh" and chinese["matches"][0]["root_cause"] != diagnosis["matches"][0]["root_cause"]
    nothing = _structured(await client.call_tool("diagnose", {"text": "lunch at noon?"}))
    assert nothing["matches"] == []

    found = _structured(await client.call_tool("search", {"query": "nccl timeout"}))
    assert NCCL_ID in [r["id"] for r in found["results"]] and len(found["results"]) <= 5

    shown = _structured(await client.call_tool("show", {"id": NCCL_ID}))
    assert shown["id"] == NCCL_ID and shown["workarounds"] and "related" in shown
    missing = await client.call_tool("show", {"id": "nope/not-an-entry"})
    assert missing.is_error and "no entry" in missing.content[0].text

    templates = await client.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == ["errkb://entry/{+id}"]
    read = await client.read_resource(f"errkb://entry/{NCCL_ID}")
    entry = json.loads(read.contents[0].text)
    assert entry["id"] == NCCL_ID and entry["locale"] == "en" and read.contents[0].mime_type == "application/json"


async def test_stdio_lists_the_tools_diagnoses_searches_shows_and_reads_an_entry(tmp_path):
    params = StdioServerParameters(command=sys.executable, args=["-m", "bot.cli", "mcp"], cwd=str(tmp_path),
                                   env=_env())
    async with asyncio.timeout(60), Client(params, read_timeout_seconds=45) as client:
        await _exercise(client)
    assert not (tmp_path / "errkb.db").exists()  # KB only: no store opened, nothing written


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server(tmp_path) -> Iterator[str]:
    port = _free_port()
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "mcp", "--http", "--port", str(port)], cwd=tmp_path,
                            env=_env(ERRKB_MCP_TOKEN=TOKEN), stdout=log, stderr=subprocess.STDOUT)
    try:
        for _ in range(600):  # up to 60 s
            if proc.poll() is not None:
                pytest.fail(f"errkb mcp --http exited {proc.returncode}: {(tmp_path / 'server.log').read_text()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("errkb mcp --http did not listen within 60 s")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        log.close()


@asynccontextmanager
async def _http_client(url: str, token: str) -> AsyncIterator[Client]:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=45) as http, \
            Client(streamable_http_client(url, http_client=http), read_timeout_seconds=45) as client:
        yield client


async def test_http_refuses_a_request_without_the_token_and_answers_with_it(http_server):
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "t", "version": "0"}}}
    headers = {"Accept": "application/json, text/event-stream"}
    async with asyncio.timeout(30), httpx2.AsyncClient(timeout=10) as http:
        for auth in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            refused = await http.post(http_server, json=initialize, headers={**headers, **auth})
            assert refused.status_code == 401 and refused.headers["www-authenticate"].startswith("Bearer")
        accepted = await http.post(http_server, json=initialize,
                                   headers={**headers, "Authorization": f"Bearer {TOKEN}"})
        assert accepted.status_code == 200
        proxied = await http.post(http_server, json=initialize,  # behind a reverse proxy: its public Host
                                  headers={**headers, "Authorization": f"Bearer {TOKEN}", "Host": "errkb.example.com"})
        assert proxied.status_code == 200

    async with asyncio.timeout(60), _http_client(http_server, TOKEN) as client:
        await _exercise(client)

    with pytest.raises(Exception):  # noqa: B017 - the SDK's client fails on the 401, however it words it
        async with asyncio.timeout(20), _http_client(http_server, "wrong") as client:
            await client.list_tools()


def test_http_will_not_serve_without_a_token(monkeypatch, capsys):
    monkeypatch.delenv("ERRKB_MCP_TOKEN", raising=False)
    assert main(["mcp", "--http", "--port", "0"]) == 2
    assert "ERRKB_MCP_TOKEN" in capsys.readouterr().err
    assert main(["mcp", "--workspace", "not a team"]) == 2


async def test_a_workspace_sees_its_own_team_entries_fixes_and_votes_and_nothing_is_written(tmp_path, seeded_db,
                                                                                             monkeypatch):
    path = tmp_path / "team.db"
    path.write_bytes(seeded_db.read_bytes())
    url = f"sqlite+aiosqlite:///{path}"
    async with await Store.open(url) as store:
        team = await store.add_team_entry(TEAM, "U1", "en", BODY, REGEX, "AcmeWidgetError: frobnicator <name> "
                                                                         "rejected shard 7")
        fix = await store.suggest_fix(TEAM, NCCL_ID, "U2", "en", FIX)
        assert fix is not None
        await store.record_button(TEAM, "U3", NCCL_ID, fix.index, 1, 10.0)
        hits_before = await store.hit_counts()
    monkeypatch.setenv("DATABASE_URL", url)
    settings = Settings.from_env()

    async def ask(workspace: str | None) -> tuple[dict[str, Any], dict[str, Any], Any]:
        async with open_reader(settings, workspace) as reader, Client(build_server(reader)) as client:
            diagnosed = _structured(await client.call_tool("diagnose", {"text": ACME_PASTE}))
            shown = _structured(await client.call_tool("show", {"id": NCCL_ID}))
            own = await client.call_tool("show", {"id": team.entry_id})
            return diagnosed, shown, own

    async with asyncio.timeout(30):
        diagnosed, shown, own = await ask(TEAM)
        assert [m["id"] for m in diagnosed["matches"]] == [team.entry_id]
        suggested = [w for w in shown["workarounds"] if w["text"] == FIX]
        assert suggested and suggested[0]["votes_up"] == 1
        assert not own.is_error and own.structured_content["id"] == team.entry_id

        diagnosed, shown, own = await ask(OTHER)  # another workspace: none of it
        assert diagnosed["matches"] == []
        assert FIX not in [w["text"] for w in shown["workarounds"]]
        assert own.is_error

        diagnosed, shown, own = await ask(None)  # the KB alone
        assert diagnosed["matches"] == [] and own.is_error

    async with await Store.open(url) as store:
        assert await store.hit_counts() == hits_before  # read-only: no hit counted
