"""The HTTP front door for ``POST /slack/events``: verify first, parse second.

Anyone who can reach the port can send anything. So before Bolt sees a request, its size is bounded,
its timestamp and signature are checked over the raw bytes, and only then is the body decoded and
parsed: a forged or stale request gets 401, an oversized one 413 and a signed but unparseable one
400, each with one bounded log line (method, path, size, reason) and never the body. A JSON body's
object is handed on (``request[PAYLOAD]``), so a chat message that needs nothing is answered
without Bolt parsing it again (``bot.slack.app``).
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from hashlib import sha256
from typing import Any
from urllib.parse import parse_qs

from aiohttp import web

from bot import metrics

log = logging.getLogger(__name__)

# Slack's largest payloads (a 40,000-character message with its blocks, a modal submission) are far
# below this; anything bigger is not from Slack.
MAX_BODY_BYTES = 2 * 1024 * 1024
MAX_SKEW_SECONDS = 5 * 60  # Slack's replay window
MAX_NESTING = 64  # Slack's payloads are a few levels deep; a deeper document is refused unparsed
# where the handler finds a JSON body's object, parsed once (None for a form)
PAYLOAD: web.RequestKey[dict[str, Any] | None] = web.RequestKey("errkb_payload", dict)

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')  # a JSON string, escapes included
_BRACKET = re.compile(r"[\[\]{}]")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _refuse(request: web.Request, status: int, size: int, reason: str) -> web.Response:
    log.warning("refused %s %s: %d bytes, %s", request.method, request.path, size, reason)
    metrics.EVENTS.labels(type="unverified" if status in (401, 413) else "malformed", outcome="dropped").inc()
    return web.json_response({"ok": False, "error": reason}, status=status)


def _too_deep(text: str) -> bool:
    """Whether a JSON text's brackets (strings aside) nest deeper than ``MAX_NESTING``, without parsing it."""
    if text.count("{") + text.count("[") <= MAX_NESTING:
        return False  # too few brackets to nest that deep: the usual case, one pass in C
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_NESTING:
            return True
    return False


def _parse(text: str, content_type: str) -> tuple[str | None, dict[str, Any] | None]:
    """(why a signed body is not a payload Slack would send, or None when it is one; the JSON body's object)."""
    if content_type == "application/json":
        documents = [text]
    elif content_type == "application/x-www-form-urlencoded":
        fields = parse_qs(text, keep_blank_values=True)
        documents = fields.get("payload", [])
    else:
        return f"unsupported content type {content_type or 'none'!r}", None
    value: Any = None
    for document in documents:
        if _too_deep(document):
            return "JSON nested too deeply", None
        try:
            value = json.loads(document)
        except (ValueError, RecursionError):
            return "malformed JSON", None
        if not isinstance(value, dict):
            return "JSON payload is not an object", None
    return None, value if content_type == "application/json" else None


def verified(signing_secret: str, handler: Handler, clock: Callable[[], float] = time.time) -> Handler:
    """``handler`` behind the checks above; it only ever sees signed, parseable Slack requests.

    The signature is Slack's v0 scheme computed over the raw bytes (slack_sdk's verifier decodes the
    body first, so a signed body that is not UTF-8 would crash it)."""
    secret = signing_secret.encode()

    async def front(request: web.Request) -> web.StreamResponse:
        try:  # bounded by the application's client_max_size (see application())
            body = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return _refuse(request, 413, request.content_length or 0, "body too large")
        timestamp = request.headers.get("X-Slack-Request-Timestamp", "")
        signature = request.headers.get("X-Slack-Signature", "")
        if not timestamp.isdigit() or not signature:
            return _refuse(request, 401, len(body), "missing or malformed signature headers")
        if abs(clock() - int(timestamp)) > MAX_SKEW_SECONDS:
            return _refuse(request, 401, len(body), "stale timestamp")
        expected = "v0=" + hmac.new(secret, b"v0:" + timestamp.encode() + b":" + body, sha256).hexdigest()
        if not hmac.compare_digest(expected.encode(), signature.encode("utf-8", "replace")):
            return _refuse(request, 401, len(body), "bad signature")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return _refuse(request, 400, len(body), "body is not UTF-8")
        problem, payload = _parse(text, request.content_type)
        if problem:
            return _refuse(request, 400, len(body), problem)
        request[PAYLOAD] = payload
        return await handler(request)  # request.read() now returns the cached body

    return front
