"""Pastes through Bolt: edits, snippets, other bots' messages and @errkb mentions → ``Answers``,
which decides before the ack. (A plain new message skips Bolt: ``bot.slack.dispatch``.)"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.slack.listeners import parse, use

# Message subtypes that can carry a paste; joins, topic changes, deletions etc. never do.
PASTE_SUBTYPES = frozenset({None, "thread_broadcast", "file_share", "bot_message", "me_message"})


async def on_message(event: dict[str, Any], context: AsyncBoltContext) -> None:
    if event.get("subtype") == "message_changed":
        message, before = parse.field(event, "message"), parse.field(event, "previous_message")
        if not isinstance(message, dict):
            return  # no edited message to read
        if message.get("text") == parse.field(before, "text") and message.get("files") == parse.field(before, "files"):
            return  # an unfurl, a reply count: not an edit of the paste
    else:
        message = event
        if context.bot_user_id and f"<@{context.bot_user_id}>" in parse.text(message.get("text")):
            return  # app_mention answers it
    if message.get("subtype") not in PASTE_SUBTYPES:
        return
    found = parse.incoming(message, event.get("channel"), parse.workspace_of(context), parse.me_of(context))
    if found is not None:
        await use.service(context).answers.message(found, parse.via_of(context))


async def on_mention(event: dict[str, Any], context: AsyncBoltContext) -> None:
    found = parse.incoming(event, event.get("channel"), parse.workspace_of(context), parse.me_of(context))
    if found is not None:
        await use.service(context).answers.mention(found, parse.via_of(context))


def register(app: AsyncApp) -> None:
    app.event("message")(on_message)
    app.event("app_mention")(on_mention)
