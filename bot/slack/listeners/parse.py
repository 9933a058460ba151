"""Payload → service input: the only place that knows where Slack puts things.

Whatever a (signed) payload holds, what leaves here is the service's types: strings that encode as
UTF-8 (JSON may escape a lone surrogate, ``"\\ud800"``; it becomes U+FFFD) and ids that fit the
store. An id no Slack id could be (over ``MAX_ID`` characters) is refused with ``Malformed``: the
error handler answers 400 with one log line, and nothing is half-stored."""

from __future__ import annotations

import math
import re
import time
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext

from bot.render.kit import from_errkb
from bot.service import Author, Click, Command, Incoming, Via
from bot.service.keys import replay
from bot.slack.alerts import alert_text
from bot.slack.files import text_file_ids

MAX_ID = 64  # the store's Slack id columns; real ids (U…, C…, T…) are about 11 characters
MAX_TS = 32  # "1690000000.000001"
_SURROGATE = re.compile("[\ud800-\udfff]")


class Malformed(ValueError):
    """A field no Slack payload holds (an id longer than any Slack id)."""


def text(value: Any) -> str:
    """Message text as a string that encodes as UTF-8 (lone surrogates → U+FFFD); "" for a non-string."""
    return _SURROGATE.sub("\ufffd", value) if isinstance(value, str) else ""


def slack_id(value: Any, field: str, limit: int = MAX_ID) -> str:
    """An id or ts as a string ("" when absent or not a scalar); ``Malformed`` when longer than ``limit``."""
    found = text(value) if isinstance(value, str) else str(value) if isinstance(value, int | float) else ""
    if len(found) > limit:
        raise Malformed(f"{field} is {len(found)} characters, more than {limit}")
    return found


def field(payload: Any, key: str) -> Any:
    """``payload[key]`` when ``payload`` is an object, else None (Slack nests objects; a fuzzer need not)."""
    return payload.get(key) if isinstance(payload, dict) else None


def instant(value: Any) -> float:
    """A Slack ts as seconds since the epoch; now when it is absent or not a finite number."""
    try:
        at = float(value)
    except (TypeError, ValueError):
        return time.time()
    return at if math.isfinite(at) else time.time()


def workspace_of(context: AsyncBoltContext) -> str:
    return slack_id(context.team_id or context.enterprise_id, "team_id") or "-"


def via_of(context: AsyncBoltContext, respond: Any = None) -> Via:
    """The request's own client (its workspace's token) and reply channel."""
    return Via(context.client, respond, me_of(context))


def me_of(context: AsyncBoltContext) -> frozenset[str]:
    """The ids the bot's own messages carry in this request's workspace (its user and bot ids)."""
    return frozenset(i for i in (context.bot_user_id, context.bot_id) if i)


def author_of(message: dict[str, Any], me: frozenset[str]) -> Author:
    """Who wrote ``message``: errkb (this install, by its ids, or any errkb, by its metadata), another bot, a person."""
    bot_id, user = slack_id(message.get("bot_id"), "bot_id"), slack_id(message.get("user"), "user") or None
    own = bool((bot_id and bot_id in me) or (user and user in me)) or from_errkb(message)
    return Author(user, own=own, bot=bool(bot_id) or message.get("subtype") == "bot_message")


def incoming(message: dict[str, Any], channel: Any, workspace: str, me: frozenset[str]) -> Incoming | None:
    ts = slack_id(message.get("ts"), "ts", MAX_TS)
    channel = slack_id(channel, "channel")
    if not ts or not channel:
        return None
    author = author_of(message, me)
    said = alert_text(message) if author.bot else message.get("text")  # an alert's error may be anywhere in it
    return Incoming(workspace, channel, ts, slack_id(message.get("thread_ts"), "thread_ts", MAX_TS) or ts,
                    author, text(said), text_file_ids(message))


def installation(payload: dict[str, Any]) -> tuple[str, str] | None:
    """(workspace, bot user) of an event payload that names its installation (``authorizations``), else None."""
    authorizations = payload.get("authorizations")
    first = authorizations[0] if isinstance(authorizations, list) and authorizations else None
    if not isinstance(first, dict):
        return None
    bot_user = slack_id(first.get("user_id"), "user")
    workspace = slack_id(payload.get("team_id") or first.get("team_id") or payload.get("enterprise_id")
                         or first.get("enterprise_id"), "team_id")
    return (workspace, bot_user) if workspace and bot_user else None


def click(body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext) -> Click:
    container, message = field(body, "container"), field(body, "message")
    ts = slack_id(field(container, "message_ts") or field(message, "ts"), "message_ts", MAX_TS) or None
    ephemeral = bool(field(container, "is_ephemeral"))
    user = slack_id(field(field(body, "user"), "id"), "user")
    action_ts = slack_id(field(action, "action_ts"), "action_ts", MAX_TS)
    return Click(
        workspace=workspace_of(context),
        user=user,
        value=text(field(action, "value") or field(field(action, "selected_option"), "value")),
        channel=slack_id(field(container, "channel_id") or field(field(body, "channel"), "id"), "channel"),
        ts=None if ephemeral else ts,
        thread_ts=slack_id(field(message, "thread_ts") or field(container, "thread_ts"), "thread_ts", MAX_TS) or ts,
        at=instant(action_ts),
        replay_key=replay(workspace_of(context), user, text(field(action, "action_id")), action_ts,
                          text(field(body, "trigger_id"))),
        trigger_id=slack_id(field(body, "trigger_id"), "trigger_id", 256),
    )


def command(payload: dict[str, Any], context: AsyncBoltContext) -> Command:
    return Command(workspace_of(context), slack_id(payload.get("user_id"), "user_id"),
                   slack_id(payload.get("channel_id"), "channel_id"), text(payload.get("text")).strip(),
                   replay(workspace_of(context), "command", text(payload.get("trigger_id"))))
