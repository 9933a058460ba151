"""Payload → service input: the only place that knows where Slack puts things."""

from __future__ import annotations

import time
from typing import Any

from slack_bolt.context.async_context import AsyncBoltContext

from bot.service import Author, Click, Command, Incoming, Via
from bot.service.keys import replay
from bot.slack.files import text_file_ids


def workspace_of(context: AsyncBoltContext) -> str:
    return context.team_id or context.enterprise_id or "-"


def via_of(context: AsyncBoltContext, respond: Any = None) -> Via:
    """The request's own client (its workspace's token) and reply channel."""
    return Via(context.client, respond, frozenset(i for i in (context.bot_user_id, context.bot_id) if i))


def author_of(message: dict[str, Any], context: AsyncBoltContext) -> Author:
    bot_id, user = message.get("bot_id"), message.get("user")
    own = bool((bot_id and bot_id == context.bot_id) or (user and user == context.bot_user_id))
    return Author(user, own=own, bot=bool(bot_id) or message.get("subtype") == "bot_message")


def incoming(message: dict[str, Any], channel: str, context: AsyncBoltContext) -> Incoming | None:
    ts = message.get("ts")
    if not ts:
        return None
    return Incoming(workspace_of(context), channel, str(ts), str(message.get("thread_ts") or ts),
                    author_of(message, context), str(message.get("text") or ""), text_file_ids(message))


def click(body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext) -> Click:
    container = body.get("container") or {}
    message = body.get("message") or {}
    ts = container.get("message_ts") or message.get("ts")
    ephemeral = bool(container.get("is_ephemeral"))
    user = str((body.get("user") or {}).get("id") or "")
    action_ts = str(action.get("action_ts") or "")
    try:
        at = float(action_ts)
    except ValueError:
        at = time.time()
    return Click(
        workspace=workspace_of(context),
        user=user,
        value=str(action.get("value") or (action.get("selected_option") or {}).get("value") or ""),
        channel=container.get("channel_id") or (body.get("channel") or {}).get("id") or "",
        ts=None if ephemeral else ts,
        thread_ts=message.get("thread_ts") or container.get("thread_ts") or ts,
        at=at,
        replay_key=replay(workspace_of(context), user, str(action.get("action_id")), action_ts,
                          str(body.get("trigger_id") or "")),
    )


def command(payload: dict[str, Any], context: AsyncBoltContext) -> Command:
    return Command(workspace_of(context), str(payload.get("user_id") or ""), str(payload.get("channel_id") or ""),
                   str(payload.get("text") or "").strip(),
                   replay(workspace_of(context), "command", str(payload.get("trigger_id") or "")))
