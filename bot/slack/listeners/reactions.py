"""👍 / 👎 reactions (any skin tone) on the bot's answers → votes, stored before the ack.

``vote`` is shared by the Bolt listener and the dispatcher's fast path (``bot.slack.dispatch``),
which takes reactions whose payload names its installation without Bolt.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.service.ports import Via
from bot.service.voting import Voting
from bot.slack.listeners import parse, use
from bot.slack.vocabulary import vote_token

PRESENT = {"reaction_added": True, "reaction_removed": False}


async def vote(voting: Voting, event: Any, workspace: str, bot_user: str | None, via: Via, present: bool) -> None:
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
    await voting.reaction(workspace, user, channel, ts, token, present, parse.instant(event.get("event_ts")), via)


async def on_reaction(event: dict[str, Any], context: AsyncBoltContext) -> None:
    present = PRESENT.get(parse.text(event.get("type")))
    if present is not None:
        await vote(use.service(context).voting, event, parse.workspace_of(context), context.bot_user_id,
                   parse.via_of(context), present)


def register(app: AsyncApp) -> None:
    app.event("reaction_added")(on_reaction)
    app.event("reaction_removed")(on_reaction)
