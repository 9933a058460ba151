"""``/errkb``: acknowledged at once; the service answers privately, once per command."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.service import ChatService
from bot.slack.listeners import parse
from bot.slack.tasks import Inflight


def register(app: AsyncApp, chat: ChatService, background: Inflight) -> None:
    @app.command("/errkb")
    async def on_errkb(ack: Callable[..., Awaitable[Any]], command: dict[str, Any], context: AsyncBoltContext,
                       respond: AsyncRespond) -> None:
        await ack()
        parsed, via = parse.command(command, context), parse.via_of(context, respond)

        async def work() -> None:
            if await chat.once(parsed.replay_key):
                await chat.command(parsed, via)

        background.spawn(work())
