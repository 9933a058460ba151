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
from bot.service.suggestions import Form
from bot.slack.listeners import parse, use
from bot.slack.listeners.actions import button

Ack = Callable[..., Awaitable[Any]]


def typed(view: Any, block: str) -> str | None:
    """What was typed in one input of a submitted view (None: left empty)."""
    value = parse.field(parse.field(parse.field(parse.field(view, "state"), "values"), block), INPUT)
    found = parse.field(value, "value")
    return parse.text(found) if isinstance(found, str) else None


async def on_translate(ack: Ack, body: dict[str, Any], view: dict[str, Any], context: AsyncBoltContext) -> None:
    user, via = parse.slack_id(parse.field(body.get("user"), "id"), "user"), parse.via_of(context)
    suggestions = use.service(context).suggestions
    problems, thanks = await suggestions.submit_translation(
        parse.workspace_of(context), user, parse.text(view.get("private_metadata")), typed(view, FIX_BLOCK), via)
    await (ack(response_action="errors", errors=problems) if problems else ack())
    if thanks:
        use.background(context).spawn(suggestions.thank(thanks, via))


async def on_submit(ack: Ack, body: dict[str, Any], view: dict[str, Any], context: AsyncBoltContext) -> None:
    user = parse.slack_id(parse.field(body.get("user"), "id"), "user")
    form = Form(typed(view, FIX_BLOCK), typed(view, CODE_BLOCK), typed(view, OTHER_BLOCK))
    via, suggestions = parse.via_of(context), use.service(context).suggestions
    problems, thanks = await suggestions.submit(parse.workspace_of(context), user,
                                                parse.text(view.get("private_metadata")), form, via)
    if problems:
        await ack(response_action="errors", errors=problems)
        return
    await ack()
    if thanks:
        use.background(context).spawn(suggestions.thank(thanks, via))


def register(app: AsyncApp) -> None:
    button(app, blocks.ACTION_SUGGEST_FIX, lambda s: lambda c, via: s.suggestions.open(c, c.value, via))
    button(app, blocks.ACTION_TRANSLATE_FIX, lambda s: s.suggestions.open_translation)
    button(app, blocks.ACTION_REVIEW_FIX, lambda s: s.suggestions.review)
    app.view(TRANSLATE_CALLBACK)(on_translate)
    app.view(CALLBACK)(on_submit)
