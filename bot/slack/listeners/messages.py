"""Pastes: new messages, edits, snippets, and @errkb mentions → the service decides before the ack."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.service import ChatService
from bot.slack.listeners import parse
from bot.slack.tasks import Inflight

# Message subtypes that can carry a paste; joins, topic changes, deletions etc. never do.
PASTE_SUBTYPES = frozenset({None, "thread_broadcast", "file_share", "bot_message", "me_message"})


def quiet(payload: dict[str, Any], chat: ChatService) -> bool:
    """True when ``payload`` is a message event errkb has nothing to do for (chat, a join, a deletion):
    the front then acks it without Bolt. An edit, a message with files, or anything else: False."""
    event = parse.field(payload, "event")
    if payload.get("type") != "event_callback" or parse.field(event, "type") != "message":
        return False
    subtype = event.get("subtype")
    if subtype == "message_changed" or event.get("files"):
        return False
    return subtype not in PASTE_SUBTYPES or chat.chatter(parse.text(event.get("text")))


def register(app: AsyncApp, chat: ChatService, _background: Inflight) -> None:
    @app.event("message")
    async def on_message(event: dict[str, Any], context: AsyncBoltContext) -> None:
        if event.get("subtype") == "message_changed":
            message, before = parse.field(event, "message"), parse.field(event, "previous_message")
            if not isinstance(message, dict):
                return  # no edited message to read
            if message.get("text") == parse.field(before, "text") and message.get("files") == parse.field(before,
                                                                                                         "files"):
                return  # an unfurl, a reply count: not an edit of the paste
        else:
            message = event
            if context.bot_user_id and f"<@{context.bot_user_id}>" in parse.text(message.get("text")):
                return  # app_mention answers it
        if message.get("subtype") not in PASTE_SUBTYPES:
            return
        found = parse.incoming(message, event.get("channel"), context)
        if found is not None:
            await chat.message(found, parse.via_of(context))

    @app.event("app_mention")
    async def on_mention(event: dict[str, Any], context: AsyncBoltContext) -> None:
        found = parse.incoming(event, event.get("channel"), context)
        if found is not None:
            await chat.mention(found, parse.via_of(context))
