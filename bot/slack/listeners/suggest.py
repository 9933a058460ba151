"""*Suggest a fix*: the button on a fix message opens the form (the answer's ⋮ menu does too, through
``actions``), and the form's submission stores the fix; *Translate this fix* likewise for a suggested
fix's other language; and a reviewer's *Mark verified* / *Retire this fix* on a suggested fix. A bad form
is answered in the modal itself (Slack's ``response_action: errors``),
so the ack waits for the check and the one write."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.render import blocks
from bot.render.suggest import CALLBACK, CODE_BLOCK, FIX_BLOCK, INPUT, OTHER_BLOCK, TRANSLATE_CALLBACK
from bot.service import ChatService
from bot.service.suggest import Form
from bot.slack.listeners import parse
from bot.slack.listeners.actions import Work, on_button
from bot.slack.tasks import Inflight

Ack = Callable[..., Awaitable[Any]]


def typed(view: Any, block: str) -> str | None:
    """What was typed in one input of a submitted view (None: left empty)."""
    value = parse.field(parse.field(parse.field(parse.field(view, "state"), "values"), block), INPUT)
    found = parse.field(value, "value")
    return parse.text(found) if isinstance(found, str) else None


def register(app: AsyncApp, chat: ChatService, background: Inflight) -> None:
    def button(action_id: str, work: Work) -> None:
        on_button(app, chat, background, action_id, work)

    button(blocks.ACTION_SUGGEST_FIX, lambda c, via: chat.suggestions.open(c, c.value, via))
    button(blocks.ACTION_TRANSLATE_FIX, chat.suggestions.open_translation)
    button(blocks.ACTION_REVIEW_FIX, chat.suggestions.review)

    @app.view(TRANSLATE_CALLBACK)
    async def on_translate(ack: Ack, body: dict[str, Any], view: dict[str, Any], context: AsyncBoltContext) -> None:
        user, via = parse.slack_id(parse.field(body.get("user"), "id"), "user"), parse.via_of(context)
        problems, thanks = await chat.suggestions.submit_translation(
            parse.workspace_of(context), user, parse.text(view.get("private_metadata")), typed(view, FIX_BLOCK), via)
        await (ack(response_action="errors", errors=problems) if problems else ack())
        if thanks:
            background.spawn(chat.suggestions.thank(thanks, via))

    @app.view(CALLBACK)
    async def on_submit(ack: Ack, body: dict[str, Any], view: dict[str, Any], context: AsyncBoltContext) -> None:
        user = parse.slack_id(parse.field(body.get("user"), "id"), "user")
        form = Form(typed(view, FIX_BLOCK), typed(view, CODE_BLOCK), typed(view, OTHER_BLOCK))
        via = parse.via_of(context)
        problems, thanks = await chat.suggestions.submit(parse.workspace_of(context), user,
                                                         parse.text(view.get("private_metadata")), form, via)
        if problems:
            await ack(response_action="errors", errors=problems)
            return
        await ack()
        if thanks:
            background.spawn(chat.suggestions.thank(thanks, via))
