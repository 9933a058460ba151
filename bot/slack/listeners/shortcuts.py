"""The message shortcut "Diagnose with errkb": works on any message, answers the clicker privately."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.service.keys import replay
from bot.slack.files import text_file_ids
from bot.slack.listeners import parse, use

SHORTCUT_DIAGNOSE = "errkb_diagnose"  # callback_id in manifest.yml


async def on_diagnose(ack: Callable[..., Awaitable[Any]], shortcut: dict[str, Any], context: AsyncBoltContext,
                      respond: AsyncRespond) -> None:
    await ack()
    workspace, user = parse.workspace_of(context), parse.slack_id(parse.field(shortcut.get("user"), "id"), "user")
    message = parse.field(shortcut, "message") or {}
    text, via, service = parse.text(message.get("text")), parse.via_of(context, respond), use.service(context)
    files = list(text_file_ids(message))
    key = replay(workspace, "shortcut", parse.text(shortcut.get("trigger_id")))

    async def work() -> None:
        if await service.replays.first(key):
            await service.commands.shortcut(workspace, user, text, files, via)

    use.background(context).spawn(work())


def register(app: AsyncApp) -> None:
    app.shortcut(SHORTCUT_DIAGNOSE)(on_diagnose)
