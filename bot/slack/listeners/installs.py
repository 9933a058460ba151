"""OAuth mode: a workspace that uninstalls errkb or revokes its bot token loses its installation
(Bolt's token-revocation listeners) and its data (``Workspaces``; its votes stay as anonymous counts)."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.slack.listeners import parse, use


def register(app: AsyncApp) -> None:
    uninstalled = app.default_app_uninstalled_event_listener()
    revoked = app.default_tokens_revoked_event_listener()

    async def on_app_uninstalled(context: AsyncBoltContext) -> None:
        await uninstalled(context=context)
        await use.service(context).workspaces.forget(parse.workspace_of(context))

    async def on_tokens_revoked(event: dict[str, Any], context: AsyncBoltContext) -> None:
        await revoked(event=event, context=context)
        if parse.field(event.get("tokens"), "bot"):  # without its bot token errkb is gone from the workspace
            await use.service(context).workspaces.forget(parse.workspace_of(context))

    app.event("app_uninstalled")(on_app_uninstalled)
    app.event("tokens_revoked")(on_tokens_revoked)
