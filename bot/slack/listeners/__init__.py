"""Listeners by kind, as in Slack's starter template: each module has ``register(app, replies)``."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot.slack.listeners import actions, commands, events, messages, reactions, shortcuts
from bot.slack.replies import Replies


def register(app: AsyncApp, replies: Replies) -> None:
    for module in (messages, reactions, commands, actions, shortcuts, events):
        module.register(app, replies)
