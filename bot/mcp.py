"""The MCP adapter: errkb's read side as a Model Context Protocol server, for coding agents.

Built on the official ``mcp`` SDK (``MCPServer``). Three tools, ``diagnose``, ``search`` and ``show``,
answer with the same JSON as ``errkb diagnose|search|show --format json`` (``bot.render.json``), and
every entry is a resource, ``errkb://entry/{id}`` (English JSON). Served over stdio (``errkb mcp``) or
streamable HTTP (``errkb mcp --http``), where every request must carry ``Authorization: Bearer
$ERRKB_MCP_TOKEN``.

Without ``--workspace`` it reads the KB alone. With ``--workspace T…`` it opens the store
(``DATABASE_URL``) and answers as that workspace sees errkb: its live rates and votes, its members'
suggested fixes and its team-written entries, never another workspace's. It only reads: no hit is
counted, no vote or entry is written.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import ToolAnnotations
from starlette.types import ASGIApp, Receive, Scope, Send

from bot import i18n
from bot.config import Settings
from bot.kb.knowledge import KnowledgeBase
from bot.kb.matcher import Match
from bot.render import json as json_render
from bot.render.family import family_json
from bot.service.families import family_card
from bot.service.knowledge import Knowledge

NAME = "errkb"
MAX_MATCHES = 50
MAX_RESULTS = 50
MAX_TEXT_CHARS = 1_000_000  # what one call may send; Knowledge cuts a paste to its last 200,000 characters
ENTRY_URI = "errkb://entry/{+id}"  # {+id}: ids have a slash (domain/slug)

INSTRUCTIONS = (
    "errkb recognises pasted errors (tracebacks, build and CI logs, compiler output) and answers from a "
    "curated bilingual knowledge base: the root cause, what not to try, and fixes ranked by how often they "
    "worked. Call `diagnose` with the error text before guessing at a fix; `search` finds entries by words; "
    "`show` gives one entry in full. Locales: en, zh (zh-TW, zh-HK for Traditional)."
)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


class TeamFinder(Protocol):
    """Team-written entries that match a paste (``bot.service.team.TeamKnowledge``)."""

    async def find(self, workspace: str, paste: str) -> list[Match]: ...


@dataclass
class Reader:
    """What the tools call: ``Knowledge`` over the KB (and the store), scoped to one workspace when given."""

    knowledge: Knowledge
    workspace: str | None = None
    team: TeamFinder | None = None  # when a workspace's store is open

    async def diagnose(self, text: str, locale: str = "en", limit: int = 1) -> dict[str, Any]:
        _check_text(text, "text")
        limit = max(1, min(limit, MAX_MATCHES))
        with i18n.use_locale(locale):
            matches: list[Match] = []
            if self.team is not None and self.workspace is not None:
                matches = list(await self.team.find(self.workspace, text))
            taken = {m.entry_id for m in matches}
            matches += [m for m in self.knowledge.find(text, limit=limit) if m.entry_id not in taken]
            diagnosis = await self.knowledge.explain(matches[:limit], record=False, workspace=self.workspace)
            found = json_render.diagnosis_json(diagnosis)
            if not matches and (family := family_card(self.knowledge.kb.families, text)) is not None:
                found["matches"] = [family_json(family)]  # no entry: the official page for its code, no fix
            return found

    async def search(self, query: str, limit: int = 5, locale: str = "en") -> dict[str, Any]:
        _check_text(query, "query")
        if not query.strip():
            raise ToolError("nothing to search for: give words, e.g. `nccl timeout`")
        with i18n.use_locale(locale):
            results = await self.knowledge.search(query, limit=max(1, min(limit, MAX_RESULTS)),
                                                  workspace=self.workspace)
            return json_render.search_json(results)

    async def show(self, entry_id: str, locale: str = "en") -> dict[str, Any] | None:
        with i18n.use_locale(locale):
            card = await self.knowledge.show(entry_id.strip(), self.workspace)
            return None if card is None else json_render.entry_json(card, i18n.current_locale())


def _check_text(text: str, name: str) -> None:
    if len(text) > MAX_TEXT_CHARS:
        raise ToolError(f"{name} is too long ({len(text):,} characters; at most {MAX_TEXT_CHARS:,})")


def build_server(reader: Reader) -> MCPServer[Any]:
    """The MCP server over ``reader``: the tools and the entry resources."""
    server: MCPServer[Any] = MCPServer(NAME, title="errkb", instructions=INSTRUCTIONS,
                                       version=_version(), log_level="WARNING")

    @server.tool(annotations=READ_ONLY)
    async def diagnose(text: str, locale: str = "en", limit: int = 1) -> dict[str, Any]:
        """Find the known error in pasted text (a traceback, a build or CI log) and explain it: root cause,
        what not to try, and the fixes ranked by success rate, best match first (`limit` matches, 1–50).
        `locale`: en or zh. No match: `matches` is empty, or holds one `"how": "family"` answer when the error carries
        a documented code (rustc E0308, NETSDK1045, SQLSTATE 23505 …): the official page for that code, no fix."""
        return await reader.diagnose(text, locale, limit)

    @server.tool(annotations=READ_ONLY)
    async def search(query: str, limit: int = 5, locale: str = "en") -> dict[str, Any]:
        """Search the knowledge base by words, in English or Chinese (typos tolerated); returns entry ids,
        signatures and scores. Use `show` for one entry in full."""
        return await reader.search(query, limit, locale)

    @server.tool(annotations=READ_ONLY)
    async def show(id: str, locale: str = "en") -> dict[str, Any]:
        """One entry by id (e.g. pytorch/nccl-timeout-during-allreduce) in full: root cause, what not to try,
        every fix with its live success rate and votes, versions, docs and related entries."""
        found = await reader.show(id, locale)
        if found is None:
            raise ToolError(f"no entry with id {id!r} (try `search`)")
        return found

    @server.resource(ENTRY_URI, name="entry", title="errkb entry", mime_type="application/json",
                     description="One errkb entry as JSON, in English (as `show` returns it)")
    async def entry(id: str) -> str:
        found = await reader.show(id)
        if found is None:
            raise ResourceNotFoundError(f"no entry with id {id!r}")
        return json.dumps(found, ensure_ascii=False, indent=2)

    return server


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("errkb")
    except PackageNotFoundError:
        return ""


@asynccontextmanager
async def open_reader(settings: Settings, workspace: str | None) -> AsyncIterator[Reader]:
    """A reader over the KB; with ``workspace``, over the store too, scoped to it."""
    kb = KnowledgeBase.load(settings.seeds_dir)
    if workspace is None:
        yield Reader(Knowledge(kb))
        return
    from bot.service.team import TeamKnowledge
    from bot.store import Store

    async with await Store.open(settings.database_url) as store:
        team = TeamKnowledge(store)
        yield Reader(Knowledge(kb, store, team), workspace, team)


class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>`` (401 otherwise)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            body = b'{"error": "unauthorized: send Authorization: Bearer <ERRKB_MCP_TOKEN>"}'
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"application/json"),
                                    (b"content-length", str(len(body)).encode()),
                                    (b"www-authenticate", b'Bearer realm="errkb"')]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope: Scope) -> bool:
        given = [value for name, value in scope.get("headers", ()) if name.lower() == b"authorization"]
        return len(given) == 1 and hmac.compare_digest(given[0], self.expected)


def http_app(server: MCPServer[Any], token: str, host: str) -> ASGIApp:
    """The streamable HTTP app at ``/mcp``, stateless (each request stands alone; any replica answers),
    behind the bearer token. The SDK's DNS-rebinding check (Host must be localhost when bound there) is off:
    it guards servers that trust any local caller, and here no request without the token gets in, while a
    reverse proxy in front of 127.0.0.1 passes its own public Host."""
    unchecked = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return BearerAuth(server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True,
                                                 json_response=True, transport_security=unchecked, host=host),
                      token)


async def serve_stdio(settings: Settings, workspace: str | None) -> None:
    async with open_reader(settings, workspace) as reader:
        await build_server(reader).run_stdio_async()


async def serve_http(settings: Settings, workspace: str | None, host: str, port: int, token: str) -> None:
    import uvicorn

    async with open_reader(settings, workspace) as reader:
        app = http_app(build_server(reader), token, host)
        config = uvicorn.Config(app, host=host, port=port, log_level=settings.log_level.lower(),
                                access_log=False, lifespan="on")
        await uvicorn.Server(config).serve()
