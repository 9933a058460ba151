"""App Home: the user's language setting, frequent errors, trusted workarounds."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.slack.listeners import parse, use


async def on_home_opened(event: dict[str, Any], context: AsyncBoltContext) -> None:
    user = parse.slack_id(event.get("user"), "user")
    if event.get("tab", "home") == "home" and user:
        use.background(context).spawn(use.service(context).home.show(parse.workspace_of(context), user,
                                                                      parse.via_of(context)))


def register(app: AsyncApp) -> None:
    app.event("app_home_opened")(on_home_opened)
