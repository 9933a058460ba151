"""The message shortcut "Diagnose with errkb": works on any message, answers the clicker privately."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot.i18n import _
from bot.render import blocks
from bot.slack.listeners.commands import send
from bot.slack.replies import Replies, workspace_of

SHORTCUT_DIAGNOSE = "errkb_diagnose"  # callback_id in manifest.yml


def register(app: AsyncApp, replies: Replies) -> None:
    @app.shortcut(SHORTCUT_DIAGNOSE)
    @replies.inflight.tracked
    async def on_diagnose(ack: Callable[..., Awaitable[Any]], shortcut: dict[str, Any], context: AsyncBoltContext,
                          respond: AsyncRespond) -> None:
        await ack()
        workspace, user = workspace_of(context), shortcut["user"]["id"]
        text = await replies.files.message_text(shortcut.get("message") or {})
        async with replies.locales.reader(workspace, user):
            diagnosis = await replies.service.diagnose(text, limit=1)
            if diagnosis.best is not None:
                await send(respond, blocks.diagnosis_messages(diagnosis.best))
            else:
                await send(respond, [blocks.notice(_("I found no known error in that message."))])
