"""Buttons on the bot's answers: Worked / Didn't work, more workarounds, 中文 / English, post a
search result to the channel, and the App Home language select."""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot import i18n
from bot.i18n import _
from bot.render import blocks
from bot.slack.listeners.commands import send
from bot.slack.replies import Replies, workspace_of

Ack = Callable[..., Awaitable[Any]]


def vote_target(value: str) -> tuple[str, int] | None:
    """``{"entry", "workaround"}`` from a vote button's value; None when it is not one."""
    try:
        data = json.loads(value)
        return str(data["entry"]), int(data["workaround"])
    except (ValueError, TypeError, KeyError):
        return None


@dataclass(frozen=True)
class Click:
    """Who clicked which button on which message (``ephemeral`` messages are not in the store)."""

    workspace: str
    user: str
    value: str
    channel: str
    ts: str | None
    thread_ts: str | None
    ephemeral: bool

    @classmethod
    def of(cls, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext) -> Click:
        container = body.get("container") or {}
        message = body.get("message") or {}
        ts = container.get("message_ts") or message.get("ts")
        return cls(
            workspace=workspace_of(context),
            user=body["user"]["id"],
            value=str(action.get("value") or ""),
            channel=container.get("channel_id") or (body.get("channel") or {}).get("id") or "",
            ts=ts,
            thread_ts=message.get("thread_ts") or container.get("thread_ts") or ts,
            ephemeral=bool(container.get("is_ephemeral")),
        )

    @property
    def stored_ts(self) -> str | None:
        """The clicked message's ts when the store can know it."""
        return None if self.ephemeral else self.ts


def register(app: AsyncApp, replies: Replies) -> None:
    service, store = replies.service, replies.store

    async def vote(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext,
                   respond: AsyncRespond, direction: int) -> None:
        await ack()
        click = Click.of(body, action, context)
        target = vote_target(click.value)
        if target is None:
            return
        at = float(action.get("action_ts") or time.time())
        recorded = await replies.vote_button(click.workspace, click.user, *target, direction, at, click.channel,
                                             click.stored_ts)
        if recorded and click.ephemeral:  # an ephemeral message cannot be updated in place: say it privately
            async with replies.locales.reader(click.workspace, click.user):
                entry = await service.show(target[0])
                workaround = entry.workaround(target[1]) if entry else None
                if workaround is not None:
                    await send(respond, [blocks.vote_receipt(workaround)])

    @app.action(blocks.ACTION_VOTE_UP)
    @replies.inflight.tracked
    async def on_worked(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext,
                        respond: AsyncRespond) -> None:
        await vote(ack, body, action, context, respond, 1)

    @app.action(blocks.ACTION_VOTE_DOWN)
    @replies.inflight.tracked
    async def on_did_not_work(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext,
                              respond: AsyncRespond) -> None:
        await vote(ack, body, action, context, respond, -1)

    @app.action(blocks.ACTION_MORE)
    @replies.inflight.tracked
    async def on_more(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext,
                      respond: AsyncRespond) -> None:
        await ack()
        click = Click.of(body, action, context)
        if click.stored_ts and await replies.post_more(click.workspace, click.channel, click.stored_ts, click.value):
            return
        async with replies.locales.reader(click.workspace, click.user):  # an ephemeral answer gets the rest privately
            entry = await service.show(click.value)
            if entry is not None:
                await send(respond, blocks.entry_messages(entry, start=blocks.TOP_WORKAROUNDS)[1:])

    @app.action(blocks.ACTION_TRANSLATE)
    @replies.inflight.tracked
    async def on_translate(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext,
                           respond: AsyncRespond) -> None:
        await ack()
        click = Click.of(body, action, context)
        shown = await replies.message_locale(click.workspace, click.channel, click.stored_ts, click.user)
        with i18n.use_locale("en" if shown == "zh" else "zh"):
            entry = await service.show(click.value)
            if entry is not None:
                await replies.whisper(click.channel, click.user, click.thread_ts, blocks.entry_messages(entry), respond)

    @app.action(blocks.ACTION_POST)
    @replies.inflight.tracked
    async def on_post(ack: Ack, body: dict[str, Any], action: dict[str, Any], context: AsyncBoltContext,
                      respond: AsyncRespond) -> None:
        await ack()
        click = Click.of(body, action, context)
        async with replies.locales.reader(click.workspace, click.user) as locale:
            entry = await service.show(click.value)
            if entry is None:
                return
            if not await replies.post_answer(click.workspace, click.channel, None, entry, locale):
                await send(respond, [blocks.notice(_("I couldn't post in this channel. Invite me first: "
                                                     "`/invite @errkb`."))])

    @app.action(blocks.ACTION_HOME_LOCALE)
    @replies.inflight.tracked
    async def on_home_locale(ack: Ack, body: dict[str, Any], action: dict[str, Any],
                             context: AsyncBoltContext) -> None:
        await ack()
        workspace, user = workspace_of(context), body["user"]["id"]
        setting = str((action.get("selected_option") or {}).get("value") or "auto")
        if setting in ("auto", *i18n.SUPPORTED):
            await store.set_locale_override(workspace, user, None if setting == "auto" else setting)
        await replies.publish_home(workspace, user)
