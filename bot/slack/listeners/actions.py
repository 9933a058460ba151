"""Buttons on the bot's answers: Worked / Didn't work, Other fixes, Why / what not to try, a related
error, the ⋮ menu (wrong error), 中文 / English, post a search result to the channel, and the App
Home language select. Each acts once per click."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.render import blocks
from bot.service import ChatService, Click, Via
from bot.slack.listeners import parse
from bot.slack.tasks import Inflight

Ack = Callable[..., Awaitable[Any]]
Work = Callable[[Click, Via], Awaitable[None]]


def on_button(app: AsyncApp, chat: ChatService, background: Inflight, action_id: str, work: Work) -> None:
    """A button that acks at once and does ``work`` off the ack path, once per click (Slack replays a click)."""
    async def on_click(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext,
                       respond: AsyncRespond) -> None:
        await ack()
        clicked, via = parse.click(body, action, context), parse.via_of(context, respond)

        async def run() -> None:
            if await chat.once(clicked.replay_key):
                await work(clicked, via)

        background.spawn(run())

    on_click.__name__ = f"on_{action_id}"
    app.action(action_id)(on_click)


def register(app: AsyncApp, chat: ChatService, background: Inflight) -> None:
    def button(action_id: str, work: Work) -> None:
        on_button(app, chat, background, action_id, work)

    button(blocks.ACTION_VOTE_UP, lambda c, via: chat.vote_button(c, 1, via))
    button(blocks.ACTION_VOTE_DOWN, lambda c, via: chat.vote_button(c, -1, via))
    button(blocks.ACTION_OTHER_FIXES, chat.other_fixes)
    button(blocks.ACTION_DETAILS, chat.details)
    button(blocks.ACTION_SHOW, chat.show_entry)
    button(blocks.ACTION_OVERFLOW, chat.answer_menu)
    button(blocks.ACTION_TRANSLATE, chat.translate)
    button(blocks.ACTION_POST, chat.post_entry)

    @app.action(blocks.ACTION_HOME_LOCALE)
    async def on_home_locale(ack: Ack, body: dict[str, Any], action: dict[str, Any],
                             context: AsyncBoltContext) -> None:
        await ack()
        user = str((body.get("user") or {}).get("id") or "")
        setting = str((action.get("selected_option") or {}).get("value") or "auto")
        background.spawn(chat.home_locale(parse.workspace_of(context), user, setting, parse.via_of(context)))
