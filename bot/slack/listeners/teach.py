"""Teaching errkb: *Add to errkb* (opens the modal), Enter in its regex field (redraws the verdict), its
submission (stored, or ``response_action: errors`` per field), App Home's menu on a team entry (a
reviewer's verify, edit, retire; anyone's *Add my language*) and the translation's submission."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.render import blocks, modals
from bot.slack.listeners import parse, use

Ack = Callable[..., Awaitable[Any]]


def form_of(view: dict[str, Any]) -> dict[str, str]:
    """The modal's fields as typed (``view.state.values``); a missing one is empty."""
    values = parse.field(parse.field(view, "state"), "values") or {}
    form = {}
    for block_id in modals.FIELDS:
        block = values.get(block_id) if isinstance(values, dict) else None
        element = next(iter(block.values()), None) if isinstance(block, dict) and block else None
        form[block_id] = parse.text(parse.field(element, "value"))
    return form


def meta_of(view: dict[str, Any]) -> dict[str, Any]:
    try:
        meta = json.loads(parse.text(parse.field(view, "private_metadata")) or "{}")
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


async def on_teach(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext) -> None:
    await ack()
    clicked, via, service = parse.click(body, action, context), parse.via_of(context), use.service(context)
    line = ""
    with contextlib.suppress(ValueError, AttributeError):
        line = str(json.loads(clicked.value).get("line") or "")

    async def run() -> None:
        if line and await service.replays.first(clicked.replay_key):
            await service.teaching.open(clicked.workspace, clicked.user, parse.text(body.get("trigger_id")), line, via)

    use.background(context).spawn(run())


async def on_regex(ack: Ack, body: dict[str, Any], context: AsyncBoltContext) -> None:
    await ack()
    view = parse.field(body, "view") or {}
    view_id = parse.slack_id(parse.field(view, "id"), "view_id")
    if view_id:
        use.background(context).spawn(use.service(context).teaching.check(
            parse.workspace_of(context), view_id, form_of(view), meta_of(view), parse.via_of(context)))


async def on_submit(ack: Ack, body: dict[str, Any], view: dict[str, Any], context: AsyncBoltContext) -> None:
    user = parse.slack_id(parse.field(parse.field(body, "user"), "id"), "user")
    via, teaching = parse.via_of(context), use.service(context).teaching
    errors, confirmation = await teaching.save(parse.workspace_of(context), user, form_of(view), meta_of(view), via)
    await (ack(response_action="errors", errors=errors) if errors else ack())
    if confirmation:
        use.background(context).spawn(teaching.confirm(confirmation, via))


async def on_translate(ack: Ack, body: dict[str, Any], view: dict[str, Any], context: AsyncBoltContext) -> None:
    user = parse.slack_id(parse.field(parse.field(body, "user"), "id"), "user")
    errors = await use.service(context).teaching.translate(parse.workspace_of(context), user, form_of(view),
                                                           meta_of(view))
    await (ack(response_action="errors", errors=errors) if errors else ack())


async def on_review(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext) -> None:
    await ack()
    clicked, via, service = parse.click(body, action, context), parse.via_of(context), use.service(context)

    async def run() -> None:
        if await service.replays.first(clicked.replay_key):
            await service.teaching.review(clicked.workspace, clicked.user, parse.text(body.get("trigger_id")),
                                          clicked.value, via)

    use.background(context).spawn(run())


def register(app: AsyncApp) -> None:
    app.action(blocks.ACTION_TEACH)(on_teach)
    app.action(modals.ACTION_REGEX)(on_regex)
    app.view(modals.CALLBACK_TEACH)(on_submit)
    app.view(modals.CALLBACK_TRANSLATE)(on_translate)
    app.action(modals.ACTION_REVIEW)(on_review)
