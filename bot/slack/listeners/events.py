"""App Home: the user's language setting, frequent errors, trusted workarounds."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.slack.replies import Replies, workspace_of


def register(app: AsyncApp, replies: Replies) -> None:
    @app.event("app_home_opened")
    @replies.listener
    async def on_home_opened(event: dict[str, Any], context: AsyncBoltContext) -> None:
        if event.get("tab", "home") == "home" and event.get("user"):
            await replies.publish_home(workspace_of(context), event["user"])
