"""👍 / 👎 reactions (any skin tone) on the bot's answers → votes, stored before the ack."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.service import ChatService
from bot.slack.listeners import parse
from bot.slack.tasks import Inflight
from bot.slack.vocabulary import vote_token


def register(app: AsyncApp, chat: ChatService, _background: Inflight) -> None:
    async def vote(event: dict[str, Any], context: AsyncBoltContext, present: bool) -> None:
        item, user = parse.field(event, "item"), parse.slack_id(event.get("user"), "user")
        if not user or user == context.bot_user_id or parse.field(item, "type") != "message":
            return  # the bot's own reactions, and reactions on files, never count
        if event.get("item_user") and context.bot_user_id and event["item_user"] != context.bot_user_id:
            return  # someone else's message
        channel = parse.slack_id(item.get("channel"), "channel")
        ts = parse.slack_id(item.get("ts"), "ts", parse.MAX_TS)
        token = vote_token(parse.text(event.get("reaction")), channel, ts)
        if token is None or not channel or not ts:
            return
        at = parse.instant(event.get("event_ts"))
        await chat.reaction(parse.workspace_of(context), user, channel, ts, token, present, at,
                            parse.via_of(context))

    @app.event("reaction_added")
    async def on_reaction_added(event: dict[str, Any], context: AsyncBoltContext) -> None:
        await vote(event, context, present=True)

    @app.event("reaction_removed")
    async def on_reaction_removed(event: dict[str, Any], context: AsyncBoltContext) -> None:
        await vote(event, context, present=False)
