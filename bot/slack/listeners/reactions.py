"""👍 / 👎 reactions (any skin tone) on the bot's answers → votes, stored before the ack.

Over HTTP they skip Bolt's dispatch (``direct``): votes come in storms, and Bolt's per-request context (a
new Web API client per request) was most of a vote's cost. The payload's ``authorizations`` name the
installation and its bot user; a payload without them goes through Bolt like any other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.request.internals import extract_enterprise_id, extract_team_id

from bot.service import ChatService, Via
from bot.slack.listeners import parse
from bot.slack.tasks import Inflight
from bot.slack.vocabulary import vote_token

PRESENT = {"reaction_added": True, "reaction_removed": False}


async def vote(chat: ChatService, event: Any, workspace: str, bot_user: str | None, via: Via, present: bool) -> None:
    item, user = parse.field(event, "item"), parse.slack_id(parse.field(event, "user"), "user")
    if not user or user == bot_user or parse.field(item, "type") != "message":
        return  # the bot's own reactions, and reactions on files, never count
    if event.get("item_user") and bot_user and event["item_user"] != bot_user:
        return  # someone else's message
    channel = parse.slack_id(item.get("channel"), "channel")
    ts = parse.slack_id(item.get("ts"), "ts", parse.MAX_TS)
    token = vote_token(parse.text(event.get("reaction")), channel, ts)
    if token is None or not channel or not ts:
        return
    await chat.reaction(workspace, user, channel, ts, token, present, parse.instant(event.get("event_ts")), via)


def direct(payload: dict[str, Any], chat: ChatService) -> Callable[[], Awaitable[None]] | None:
    """The vote a reaction event casts, to run without Bolt; None for any other payload (Bolt's)."""
    event = parse.field(payload, "event")
    present = PRESENT.get(parse.field(event, "type"))
    authorizations = payload.get("authorizations")
    if payload.get("type") != "event_callback" or present is None or not isinstance(authorizations, list) \
            or not authorizations or not isinstance(authorizations[0], dict):
        return None
    bot_user = parse.slack_id(authorizations[0].get("user_id"), "user")
    workspace = parse.slack_id(extract_team_id(payload) or extract_enterprise_id(payload), "team_id")
    if not bot_user or not workspace:
        return None
    return lambda: vote(chat, event, workspace, bot_user, chat.outlet.via_for(workspace), present)


def register(app: AsyncApp, chat: ChatService, _background: Inflight) -> None:
    async def on_reaction(event: dict[str, Any], context: AsyncBoltContext, present: bool) -> None:
        await vote(chat, event, parse.workspace_of(context), context.bot_user_id, parse.via_of(context), present)

    @app.event("reaction_added")
    async def on_reaction_added(event: dict[str, Any], context: AsyncBoltContext) -> None:
        await on_reaction(event, context, present=True)

    @app.event("reaction_removed")
    async def on_reaction_removed(event: dict[str, Any], context: AsyncBoltContext) -> None:
        await on_reaction(event, context, present=False)
