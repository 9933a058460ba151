"""App Home: the user's language setting, frequent errors, trusted workarounds."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.service import ChatService
from bot.slack.listeners import parse
from bot.slack.tasks import Inflight


def register(app: AsyncApp, chat: ChatService, background: Inflight) -> None:
    @app.event("app_home_opened")
    async def on_home_opened(event: dict[str, Any], context: AsyncBoltContext) -> None:
        if event.get("tab", "home") == "home" and event.get("user"):
            background.spawn(chat.home(parse.workspace_of(context), str(event["user"]), parse.via_of(context)))
