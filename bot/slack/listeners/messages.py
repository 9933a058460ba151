"""Pastes: new messages, edits, snippets, and @errkb mentions → a diagnosis in the thread."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext

from bot.i18n import _
from bot.render import blocks
from bot.slack.replies import Answer, Replies, from_bot, is_own, workspace_of

# Message subtypes that can carry a paste; joins, topic changes, deletions etc. never do.
PASTE_SUBTYPES = frozenset({None, "thread_broadcast", "file_share", "bot_message", "me_message"})


def register(app: AsyncApp, replies: Replies) -> None:
    store = replies.store

    async def answerable(message: dict[str, Any], context: AsyncBoltContext, channel: str) -> bool:
        """Not ours, not a bot's unless the channel opted in, and the channel answers pastes."""
        if message.get("subtype") not in PASTE_SUBTYPES or is_own(message, context):
            return False
        workspace = workspace_of(context)
        if from_bot(message) and not await store.channel_bots(workspace, channel):
            return False
        return await store.channel_mode(workspace, channel) == "auto"

    @app.event("message")
    @replies.listener
    async def on_message(event: dict[str, Any], context: AsyncBoltContext) -> None:
        channel = event.get("channel", "")
        if event.get("subtype") == "message_changed":
            message, before = event.get("message") or {}, event.get("previous_message") or {}
            if message.get("text") == before.get("text") and message.get("files") == before.get("files"):
                return  # an unfurl, a reply count: not an edit of the paste
        else:
            message = event
            if context.bot_user_id and f"<@{context.bot_user_id}>" in (message.get("text") or ""):
                return  # app_mention answers it
        if not message.get("ts") or not await answerable(message, context, channel):
            return
        text = await replies.files.message_text(message)
        thread = message.get("thread_ts") or message["ts"]
        await replies.answer_paste(workspace_of(context), channel, thread, message.get("user"), text)

    @app.event("app_mention")
    @replies.listener
    async def on_mention(event: dict[str, Any], context: AsyncBoltContext) -> None:
        workspace, channel, user = workspace_of(context), event.get("channel", ""), event.get("user")
        if is_own(event, context) or await store.channel_mode(workspace, channel) == "off":
            return
        if from_bot(event) and not await store.channel_bots(workspace, channel):
            return
        ts = event["ts"]
        thread = event.get("thread_ts") or ts
        answer = await replies.answer_paste(workspace, channel, thread, user, await replies.files.message_text(event))
        if answer is Answer.NO_MATCH and thread != ts:
            root = await replies.thread_root(channel, thread)
            if root is not None and not is_own(root, context):
                answer = await replies.answer_paste(workspace, channel, thread, user,
                                                    await replies.files.message_text(root))
        if answer is not Answer.POSTED:
            async with replies.locales.reader(workspace, user):
                note = (_("I've already answered that error in this thread.") if answer is Answer.ALREADY
                        else _("I found no known error in this message or at the top of its thread."))
                await replies.say(channel, thread, blocks.notice(note))
