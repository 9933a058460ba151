"""OAuth mode: a workspace that uninstalls errkb or revokes its bot token loses its installation
(Bolt's token-revocation listeners) and its data (the service; its votes stay as anonymous counts)."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.service import ChatService
from bot.slack.listeners import parse


def register(app: AsyncApp, chat: ChatService) -> None:
    uninstalled = app.default_app_uninstalled_event_listener()
    revoked = app.default_tokens_revoked_event_listener()

    @app.event("app_uninstalled")
    async def on_app_uninstalled(context: AsyncBoltContext) -> None:
        await uninstalled(context=context)
        await chat.forget_workspace(parse.workspace_of(context))

    @app.event("tokens_revoked")
    async def on_tokens_revoked(event: dict[str, Any], context: AsyncBoltContext) -> None:
        await revoked(event=event, context=context)
        if (event.get("tokens") or {}).get("bot"):  # without its bot token errkb is gone from the workspace
            await chat.forget_workspace(parse.workspace_of(context))
