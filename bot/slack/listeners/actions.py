"""Buttons on the bot's answers: Worked / Didn't work, Other fixes, Why / what not to try, a related
error, the ⋮ menu (wrong error), 中文 / English, post a search result to the channel, and the App
Home language select. Each acks at once and acts once per click (Slack replays a click)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.render import blocks
from bot.service import Click, Service, Via
from bot.slack.listeners import parse, use

Ack = Callable[..., Awaitable[Any]]
# the use case a button calls, chosen from the service: (service) → (click, via) → work
Work = Callable[[Service], Callable[[Click, Via], Awaitable[None]]]


def button(app: AsyncApp, action_id: str, work: Work) -> None:
    """A button that acks at once and does ``work`` off the ack path, once per click."""
    async def on_click(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext,
                       respond: AsyncRespond) -> None:
        await ack()
        clicked, via, service = parse.click(body, action, context), parse.via_of(context, respond), use.service(context)

        async def run() -> None:
            if await service.replays.first(clicked.replay_key):
                await work(service)(clicked, via)

        use.background(context).spawn(run())

    on_click.__name__ = f"on_{action_id}"
    app.action(action_id)(on_click)


async def on_home_locale(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext) -> None:
    await ack()
    user = parse.slack_id(parse.field(body.get("user"), "id"), "user")
    setting = parse.text(parse.field(action.get("selected_option"), "value")) or "auto"
    use.background(context).spawn(use.service(context).home.set_locale(parse.workspace_of(context), user, setting,
                                                                        parse.via_of(context)))


def register(app: AsyncApp) -> None:
    button(app, blocks.ACTION_VOTE_UP, lambda s: lambda c, via: s.voting.button(c, 1, via))
    button(app, blocks.ACTION_VOTE_DOWN, lambda s: lambda c, via: s.voting.button(c, -1, via))
    button(app, blocks.ACTION_OTHER_FIXES, lambda s: s.buttons.other_fixes)
    button(app, blocks.ACTION_DETAILS, lambda s: s.buttons.details)
    button(app, blocks.ACTION_SHOW, lambda s: s.buttons.show_entry)
    button(app, blocks.ACTION_OVERFLOW, lambda s: s.buttons.menu)
    button(app, blocks.ACTION_TRANSLATE, lambda s: s.buttons.translate)
    button(app, blocks.ACTION_POST, lambda s: s.buttons.post_entry)
    app.action(blocks.ACTION_HOME_LOCALE)(on_home_locale)
