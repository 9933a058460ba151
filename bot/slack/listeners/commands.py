"""``/errkb``: acknowledged at once; ``Commands`` answers privately, once per command."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.slack.listeners import parse, use


async def on_errkb(ack: Callable[..., Awaitable[Any]], command: dict[str, Any], context: AsyncBoltContext,
                   respond: AsyncRespond) -> None:
    await ack()
    parsed, via, service = parse.command(command, context), parse.via_of(context, respond), use.service(context)

    async def work() -> None:
        if await service.replays.first(parsed.replay_key):
            await service.commands.command(parsed, via)

    use.background(context).spawn(work())


def register(app: AsyncApp) -> None:
    app.command("/errkb")(on_errkb)
