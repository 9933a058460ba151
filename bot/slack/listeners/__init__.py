"""Listeners by kind, module-level as in Slack's starter template; each module has ``register(app)``.

A listener parses its payload (``parse``), takes the use case it needs from Bolt's context (``use``,
put there by ``use.provide``) and calls it. The app runs listeners before answering Slack
(``process_before_response``): events do their quick part (a match, a recorded decision, a vote)
before the ack; commands and buttons ack first and do their work in the background.
"""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot.slack.listeners import actions, commands, events, messages, reactions, shortcuts, suggest, teach


def register(app: AsyncApp) -> None:
    for module in (messages, reactions, commands, actions, shortcuts, suggest, events, teach):
        module.register(app)
