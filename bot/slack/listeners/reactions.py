"""👍 / 👎 reactions (any skin tone) on the bot's answers → votes."""

from __future__ import annotations

import time
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.kb.feedback import reaction_polarity
from bot.slack.replies import Replies, workspace_of


def register(app: AsyncApp, replies: Replies) -> None:
    async def vote(event: dict[str, Any], context: AsyncBoltContext, present: bool) -> None:
        item, user, reaction = event.get("item") or {}, event.get("user"), str(event.get("reaction") or "")
        if not user or user == context.bot_user_id or item.get("type") != "message":
            return  # the bot's own reactions, and reactions on files, never count
        if event.get("item_user") and context.bot_user_id and event["item_user"] != context.bot_user_id:
            return  # someone else's message
        if reaction_polarity(reaction) == 0 or not item.get("channel") or not item.get("ts"):
            return
        at = float(event.get("event_ts") or time.time())
        await replies.vote_reaction(workspace_of(context), user, item["channel"], item["ts"], reaction, present, at)

    @app.event("reaction_added")
    @replies.listener
    async def on_reaction_added(event: dict[str, Any], context: AsyncBoltContext) -> None:
        await vote(event, context, present=True)

    @app.event("reaction_removed")
    @replies.listener
    async def on_reaction_removed(event: dict[str, Any], context: AsyncBoltContext) -> None:
        await vote(event, context, present=False)
