"""The Bolt app, counted: every request it dispatches (HTTP or Socket Mode) is one ``bot.metrics.event``."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot import metrics
from bot.slack.errors import failure

_TYPE = re.compile(r"[a-z][a-z0-9_]{0,47}")  # Slack's types are short identifiers


def request_type(body: Any) -> str:
    """``message``, ``reaction_added``… for events; ``command``, ``block_actions``, ``shortcut``… otherwise.
    A type that is no short identifier (a list, a long string: not Slack's) is ``event`` or ``unknown``."""
    if not isinstance(body, dict):
        return "unknown"
    if body.get("type") == "event_callback":
        event = body.get("event")
        kind = event.get("type") if isinstance(event, dict) else None
        return kind if isinstance(kind, str) and _TYPE.fullmatch(kind) else "event"
    if "command" in body:
        return "command"
    kind = body.get("type")
    return kind if isinstance(kind, str) and _TYPE.fullmatch(kind) else "unknown"


async def on_error(error: Exception, body: Any) -> BoltResponse:
    """Bolt's global error handler: one line, 400 for a malformed payload, 500 otherwise."""
    return failure(error, request_type(body))


class ObservedApp(AsyncApp):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.error(on_error)

    async def async_dispatch(self, req: AsyncBoltRequest) -> BoltResponse:
        kind = request_type(req.body)
        with metrics.event(kind) as handled:
            try:
                response = await super().async_dispatch(req)
            except Exception as error:  # Bolt's own handling failed on the payload's shape
                response = failure(error, kind)
            if response.status >= 400:
                handled.outcome = "dropped"  # refused (a bad signature) or failed
            elif handled.outcome == "silent" and kind in ("command", "block_actions", "shortcut", "message_action",
                                                         "view_submission"):
                handled.outcome = "answered"  # asked for directly: acked now, answered after
            return response
