"""A fake Slack Web API on 127.0.0.1: real HTTP, records every call, can answer 429 / 500 / slowly.

Point the bot at it with ``SLACK_API_URL`` (``FakeSlack.api_url``); Sign in with Slack is ``FakeSlack.sign_in``
(``tests.support.slack_sign_in``). It also serves the download
URLs of the files it knows (``add_file``) and the ``response_url``s that payloads carry
(``response_url()``); those calls are recorded as ``files.download`` and ``response_url``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.support.serving import serve
from tests.support.slack_sign_in import FakeSignIn
from tests.support.waits import quiet as quiet_for
from tests.support.waits import until

TEAM = "T0FAKE"
BOT_USER = "UERRKB"
BOT_ID = "BERRKB"
TOKEN = "xoxb-fake-token"
APP_TOKEN = "xapp-fake-token"  # Socket Mode's app-level token
CLIENT_ID = "1111.2222"  # the OAuth app (oauth.v2.access checks both)
CLIENT_SECRET = "fake-client-secret"


@dataclass
class Call:
    method: str  # "chat.postMessage", …, "response_url", "files.download"
    args: dict[str, Any]
    token: str | None
    at: float = field(default_factory=time.monotonic)
    result: dict[str, Any] = field(default_factory=dict)  # what the fake answered

    @property
    def ts(self) -> str:
        """The ts of the message a chat.postMessage call created."""
        return str(self.result["ts"])

    def __getitem__(self, key: str) -> Any:
        return self.args[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.args.get(key, default)

    @property
    def text_of_blocks(self) -> str:
        """Every text in the call's blocks, joined: what a reader sees."""
        return " ".join(_texts(self.args.get("blocks") or (self.args.get("view") or {}).get("blocks") or []))


def _texts(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["text"]] if isinstance(node.get("text"), str) else []
        return found + [t for key, value in node.items() if key != "text" or not isinstance(value, str)
                        for t in _texts(value)]
    if isinstance(node, list):
        return [t for item in node for t in _texts(item)]
    return []


@dataclass
class Fault:
    method: str | None  # None: any method
    count: int
    status: int = 200
    retry_after: int | None = None
    delay: float = 0.0
    error: str | None = None  # answer {"ok": false, "error": …} (HTTP 200), as Slack does
    echo: bool = False  # …with the call's arguments quoted back in response_metadata, as a bad proxy might


class FakeSlack:
    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.locales: dict[str, str] = {}  # user id → Slack locale; users.info answers en-US otherwise
        self.threads: dict[tuple[str, str], list[dict[str, Any]]] = {}  # (channel, thread ts) → messages
        self.files: dict[str, tuple[dict[str, Any], bytes]] = {}
        self.views: dict[str, dict[str, Any]] = {}  # modals opened (views.open) and as last updated
        self.admins: set[str] = set()  # users.info says is_admin for these
        self.groups: dict[str, set[str]] = {}  # user group id → members (usergroups.users.list)
        # (team, channel) → the user who created it (conversations.info); any other channel is not found there
        self.creators: dict[tuple[str, str], str] = {}
        self.faults: list[Fault] = []
        self._ts = itertools.count(1)
        self._runner: web.AppRunner | None = None
        self.base_url = ""
        self.sockets: list[web.WebSocketResponse] = []  # Socket Mode connections
        self._envelopes = itertools.count(1)
        # OAuth: install codes waiting to be exchanged (code → team), tokens issued (token → team),
        # refresh tokens (refresh token → team), and how long an issued bot token lives (None: for ever).
        self.codes: dict[str, str] = {}
        self.tokens: dict[str, str] = {TOKEN: TEAM}
        self.refresh_tokens: dict[str, str] = {}
        self.token_lifetime: int | None = None
        self._issued = itertools.count(1)
        self.sign_in = FakeSignIn(CLIENT_ID, CLIENT_SECRET)  # Sign in with Slack (OpenID Connect)

    # --- lifecycle -----------------------------------------------------------------------

    async def start(self) -> FakeSlack:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_get("/files/{file_id}/{name}", self._download)
        app.router.add_post("/respond/{key}", self._respond)
        app.router.add_get("/socket", self._socket)
        app.router.add_get("/openid/connect/authorize", self.sign_in.authorize)
        app.router.add_get("/openid/connect/keys", self.sign_in.keys)
        self._runner, self.base_url = await serve(app)
        return self

    async def stop(self) -> None:
        for ws in self.sockets:
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/"

    def response_url(self, key: str = "cmd") -> str:
        return f"{self.base_url}/respond/{key}"

    # --- what tests set up -----------------------------------------------------------------

    def fail_next(self, status: int = 429, count: int = 1, method: str | None = None,
                  retry_after: int | None = 1, error: str | None = None, echo: bool = False) -> None:
        """The next ``count`` calls (to ``method``, or any) get ``status`` (429 with Retry-After), or
        with ``error`` an HTTP 200 ``{"ok": false, "error": error}`` (``echo``: quoting the call's arguments)."""
        if error is not None:
            status = 200
        self.faults.append(Fault(method, count, status, retry_after if status == 429 else None, error=error,
                                 echo=echo))

    def slow_next(self, delay: float, count: int = 1, method: str | None = None) -> None:
        self.faults.append(Fault(method, count, delay=delay))

    def add_file(self, file_id: str, content: bytes, name: str = "snippet.txt", **fields: Any) -> dict[str, Any]:
        """A file Slack would hold; returns the file object as a message event carries it."""
        meta = {"id": file_id, "name": name, "title": name, "mimetype": "text/plain", "filetype": "text",
                "mode": "snippet", "size": len(content), **fields}
        full = {**meta, "url_private": f"{self.base_url}/files/{file_id}/{name}",
                "url_private_download": f"{self.base_url}/files/{file_id}/{name}"}
        self.files[file_id] = (full, content)
        return meta

    def add_thread(self, channel: str, thread_ts: str, *messages: dict[str, Any]) -> None:
        self.threads[(channel, thread_ts)] = list(messages)

    async def send_envelope(self, kind: str, payload: dict[str, Any]) -> str:
        """Deliver ``payload`` over Socket Mode (``kind``: events_api, slash_commands, interactive)."""
        await until(lambda: bool(self.sockets), timeout=10)
        envelope_id = f"env-{next(self._envelopes)}"
        await self.sockets[-1].send_json({"envelope_id": envelope_id, "type": kind, "payload": payload,
                                          "accepts_response_payload": kind != "events_api", "retry_attempt": 0})
        return envelope_id

    # --- what tests read -------------------------------------------------------------------

    def calls_to(self, *methods: str) -> list[Call]:
        return [c for c in self.calls if c.method in methods]

    async def wait_for(self, method: str, count: int = 1, timeout: float = 10.0, **match: Any) -> list[Call]:
        """Poll until at least ``count`` calls to ``method`` (whose args include ``match``) were made."""

        def found() -> list[Call]:
            return [c for c in self.calls_to(method) if all(c.args.get(k) == v for k, v in match.items())]

        made = await until(lambda: len(found()) >= count, timeout)
        assert made, f"expected {count} {method} call(s) with {match}, got {len(found())}: " \
                     f"{[c.method for c in self.calls]}"
        return found()

    async def settle(self, quiet: float = 0.3, timeout: float = 10.0) -> None:
        """Wait until no call has arrived for ``quiet`` seconds (for asserting that nothing happens)."""
        await quiet_for(lambda: len(self.calls), quiet, timeout)

    # --- the server ---------------------------------------------------------------------------

    def _next_ts(self) -> str:
        return f"1700000000.{next(self._ts):06d}"

    def _fault_for(self, method: str) -> Fault | None:
        for fault in self.faults:
            if fault.count > 0 and fault.method in (None, method):
                fault.count -= 1
                return fault
        return None

    async def _args(self, request: web.Request) -> dict[str, Any]:
        args: dict[str, Any] = dict(request.query)
        if request.can_read_body:
            if request.content_type == "application/json":
                args.update(await request.json())
            else:
                args.update(dict(await request.post()))
        for key in ("blocks", "view", "attachments"):
            if isinstance(args.get(key), str):
                args[key] = json.loads(args[key])
        return args

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args = await self._args(request)
        auth = request.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ") or args.get("token")
        fault = self._fault_for(method)
        call = Call(method, args, token)
        self.calls.append(call)
        if fault is not None:
            if fault.delay:
                await asyncio.sleep(fault.delay)
            if fault.status == 429:
                return web.json_response({"ok": False, "error": "ratelimited"}, status=429,
                                         headers={"Retry-After": str(fault.retry_after or 1)})
            if fault.status >= 500:
                return web.Response(status=fault.status, text="upstream trouble")
            if fault.error:
                call.result = {"ok": False, "error": fault.error}
                if fault.echo:
                    call.result["response_metadata"] = {"messages": [f"[ERROR] rejected: {json.dumps(args)}"]}
                return web.json_response(call.result)
        if method == "apps.connections.open":
            ok = token == APP_TOKEN
            call.result = {"ok": True, "url": f"ws{self.base_url.removeprefix('http')}/socket"} if ok else \
                {"ok": False, "error": "invalid_auth"}
            return web.json_response(call.result)
        if method == "oauth.v2.access":
            call.result = self._oauth(args, auth)
            return web.json_response(call.result)
        if method in ("openid.connect.token", "openid.connect.userInfo"):
            call.result = (self.sign_in.token(args, auth) if method == "openid.connect.token"
                           else self.sign_in.user_info(token))
            return web.json_response(call.result)
        if token not in self.tokens:
            return web.json_response({"ok": False, "error": "invalid_auth"})
        call.result = self._answer(method, args, self.tokens[token])
        return web.json_response(call.result)

    def install_code(self, team: str) -> str:
        """A code Slack would hand the browser after someone in ``team`` approved the install."""
        code = f"code-{team}-{next(self._issued)}"
        self.codes[code] = team
        return code

    def _oauth(self, args: dict[str, Any], auth: str) -> dict[str, Any]:
        """oauth.v2.access: a code (an install) or a refresh token (rotation) → a bot token for that team."""
        import base64

        basic = base64.b64decode(auth.removeprefix("Basic ")).decode() if auth.startswith("Basic ") else ""
        client = basic.partition(":") if basic else (args.get("client_id"), ":", args.get("client_secret"))
        if (client[0], client[2]) != (CLIENT_ID, CLIENT_SECRET):
            return {"ok": False, "error": "invalid_client_id"}
        if args.get("grant_type") == "refresh_token":
            team = self.refresh_tokens.pop(str(args.get("refresh_token")), None)
            if team is None:
                return {"ok": False, "error": "invalid_refresh_token"}
            for old in [t for t, owner in self.tokens.items() if owner == team and t != TOKEN]:
                del self.tokens[old]  # a rotated token stops working
        else:
            team = self.codes.pop(str(args.get("code")), None)
            if team is None:
                return {"ok": False, "error": "invalid_code"}
        n = next(self._issued)
        token = f"xoxb-{team}-{n}"
        self.tokens[token] = team
        answer: dict[str, Any] = {
            "ok": True, "app_id": "AERRKB", "token_type": "bot", "access_token": token, "bot_user_id": BOT_USER,
            "scope": "chat:write,commands,reactions:read", "team": {"id": team, "name": f"Team {team}"},
            "enterprise": None, "is_enterprise_install": False, "authed_user": {"id": "U_INSTALLER"},
        }
        if self.token_lifetime is not None:
            refresh = f"xoxe-1-{team}-{n}"
            self.refresh_tokens[refresh] = team
            answer |= {"refresh_token": refresh, "expires_in": self.token_lifetime}
        return answer

    def _answer(self, method: str, args: dict[str, Any], team: str = TEAM) -> dict[str, Any]:
        if method == "auth.test":
            return {"ok": True, "url": "https://fake.slack.com/", "team": "Fake", "team_id": team, "user": "errkb",
                    "user_id": BOT_USER, "bot_id": BOT_ID, "is_enterprise_install": False}
        if method == "chat.postMessage":
            ts = self._next_ts()
            message = {"type": "message", "ts": ts, "user": BOT_USER, "bot_id": BOT_ID, "text": args.get("text")}
            if args.get("thread_ts"):
                message["thread_ts"] = args["thread_ts"]
                self.threads.setdefault((args["channel"], args["thread_ts"]), []).append(message)
            return {"ok": True, "channel": args.get("channel"), "ts": ts, "message": message}
        if method == "chat.postEphemeral":
            return {"ok": True, "message_ts": self._next_ts()}
        if method == "chat.update":
            return {"ok": True, "channel": args.get("channel"), "ts": args.get("ts"), "text": args.get("text")}
        if method == "users.info":
            user: dict[str, Any] = {"id": args.get("user"), "name": str(args.get("user")).lower(), "tz": "UTC",
                                    "is_admin": args.get("user") in self.admins, "is_owner": False}
            if str(args.get("include_locale")).lower() in ("true", "1"):
                user["locale"] = self.locales.get(str(args.get("user")), "en-US")
            return {"ok": True, "user": user}
        if method == "conversations.replies":
            messages = self.threads.get((str(args.get("channel")), str(args.get("ts"))))
            if not messages:
                return {"ok": False, "error": "thread_not_found"}
            return {"ok": True, "messages": messages[: int(args.get("limit") or 100)], "has_more": False}
        if method == "views.publish":
            return {"ok": True, "view": {"id": "VHOME", **(args.get("view") or {})}}
        if method == "views.open":
            if not args.get("trigger_id"):
                return {"ok": False, "error": "invalid_trigger_id"}
            view_id = f"V{next(self._ts):06d}"
            self.views[view_id] = args.get("view") or {}
            return {"ok": True, "view": {"id": view_id, "hash": f"h-{view_id}-1", **self.views[view_id]}}
        if method == "views.update":
            view_id = str(args.get("view_id"))
            if view_id not in self.views:
                return {"ok": False, "error": "not_found"}
            self.views[view_id] = args.get("view") or {}
            return {"ok": True, "view": {"id": view_id, **self.views[view_id]}}
        if method == "conversations.info":
            channel = str(args.get("channel"))
            creator = self.creators.get((team, channel))
            if creator is None:
                return {"ok": False, "error": "channel_not_found"}
            return {"ok": True, "channel": {"id": channel, "is_channel": True, "creator": creator}}
        if method == "usergroups.users.list":
            group = self.groups.get(str(args.get("usergroup")))
            return {"ok": True, "users": sorted(group)} if group is not None else {"ok": False, "error": "no_such_subteam"}
        if method == "files.info":
            known = self.files.get(str(args.get("file")))
            return {"ok": True, "file": known[0]} if known else {"ok": False, "error": "file_not_found"}
        return {"ok": False, "error": "unknown_method"}

    async def _download(self, request: web.Request) -> web.Response:
        file_id = request.match_info["file_id"]
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        self.calls.append(Call("files.download", {"file": file_id}, token))
        if token != TOKEN or file_id not in self.files:
            return web.Response(status=403 if token != TOKEN else 404)
        return web.Response(body=self.files[file_id][1], content_type="text/plain")

    async def _respond(self, request: web.Request) -> web.Response:
        args = await self._args(request)
        self.calls.append(Call("response_url", {"key": request.match_info["key"], **args}, None))
        return web.Response(text="ok")

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.sockets.append(ws)
        await ws.send_json({"type": "hello", "num_connections": 1, "debug_info": {"host": "fake"}})
        async for message in ws:
            if message.type.name == "TEXT":
                self.calls.append(Call("socket.ack", json.loads(message.data), None))
        self.sockets.remove(ws)
        return ws
