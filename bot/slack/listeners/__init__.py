"""Listeners by kind, as in Slack's starter template: each module has ``register(app, chat, background)``.

A listener parses its payload (``parse``) and calls the chat service. The app runs listeners
before answering Slack (``process_before_response``): events do their quick part (a match, a
recorded decision, a vote) before the ack; commands and buttons ack first and do their work in
``background``.
"""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot.service import ChatService
from bot.slack.listeners import actions, commands, events, messages, reactions, shortcuts, suggest, teach
from bot.slack.tasks import Inflight


def register(app: AsyncApp, chat: ChatService, background: Inflight) -> None:
    for module in (messages, reactions, commands, actions, shortcuts, suggest, events, teach):
        module.register(app, chat, background)
