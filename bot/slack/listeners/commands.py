"""``/errkb``: search, show, locale, channel, stats, help, or a pasted error. Every answer is ephemeral."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.context.respond.async_respond import AsyncRespond

from bot import i18n
from bot.i18n import _
from bot.render import blocks
from bot.render.blocks import Message, escape
from bot.slack.replies import Replies, workspace_of

MAX_RESPONSES = 5  # Slack accepts five posts per response_url
CHANNEL_MODES = ("auto", "mention", "off")


async def send(respond: AsyncRespond, messages: Sequence[Message]) -> None:
    for message in messages[:MAX_RESPONSES]:
        await respond(text=message["text"], blocks=message["blocks"], response_type="ephemeral",
                      replace_original=False)


def usage(syntax: str) -> Message:
    return blocks.notice(_("Usage: {syntax}").format(syntax=f"`{escape(syntax)}`"))


def register(app: AsyncApp, replies: Replies) -> None:
    service, store = replies.service, replies.store

    async def search(query: str, **_kw: Any) -> list[Message]:
        if not query:
            return [usage("/errkb search <words>")]
        return [blocks.search_message(query, service.search(query, limit=5))]

    async def show(entry_id: str, **_kw: Any) -> list[Message]:
        entry = await service.show(entry_id) if entry_id else None
        if entry is None:
            return [blocks.notice(_("There is no entry `{id}`. Try {search}.").format(
                id=escape(entry_id[:200]) or "?", search=f"`{escape('/errkb search <words>')}`"))]
        return blocks.answer_messages(entry)

    async def locale(arg: str, workspace: str, user: str, **_kw: Any) -> list[Message]:
        arg = arg.lower()
        if arg not in ("auto", *i18n.SUPPORTED):
            return [usage("/errkb locale en|zh|auto")]
        await store.set_locale_override(workspace, user, None if arg == "auto" else arg)
        async with replies.locales.reader(workspace, user) as now:  # the answer already speaks it
            language = blocks.locale_name(arg) + (f" — {blocks.locale_name(now)}" if arg == "auto" else "")
            return [blocks.notice(_("Your language is now {language}.").format(language=language))]

    async def channel(arg: str, workspace: str, channel: str, **_kw: Any) -> list[Message]:
        words = arg.lower().split()
        if words[:1] == ["bots"] and words[1:] in (["on"], ["off"]):
            await store.set_channel_bots(workspace, channel, words[1] == "on")
            return [blocks.notice(_("In this channel I now answer other bots' messages too.") if words[1] == "on"
                                  else _("In this channel I now ignore other bots' messages."))]
        if len(words) != 1 or words[0] not in CHANNEL_MODES:
            return [usage("/errkb channel auto|mention|off"), usage("/errkb channel bots on|off")]
        await store.set_channel_mode(workspace, channel, words[0])
        return [blocks.notice({
            "auto": _("In this channel I now answer every pasted error."),
            "mention": _("In this channel I now answer only when someone mentions me."),
            "off": _("In this channel I now stay quiet; `/errkb` still works."),
        }[words[0]])]

    async def stats(_arg: str, **_kw: Any) -> list[Message]:
        return [blocks.usage_message(await replies.usage(limit=5))]

    async def help_(_arg: str, **_kw: Any) -> list[Message]:
        return [blocks.help_message()]

    subcommands: dict[str, Callable[..., Awaitable[list[Message]]]] = {
        "search": search, "show": show, "locale": locale, "channel": channel, "stats": stats, "help": help_, "": help_,
    }

    async def paste(text: str) -> list[Message]:
        diagnosis = await service.diagnose(text, limit=1)
        if diagnosis.best is not None:
            return blocks.diagnosis_messages(diagnosis.best)
        word = text.split(maxsplit=1)[0][:50]
        lead = (_("I don't know the command “{word}”.").format(word=escape(word)) if len(text.split()) == 1
                else _("I found no known error in what you pasted."))
        return [blocks.help_message(lead)]

    @app.command("/errkb")
    @replies.inflight.tracked
    async def on_errkb(ack: Callable[..., Awaitable[Any]], command: dict[str, Any], context: AsyncBoltContext,
                       respond: AsyncRespond) -> None:
        await ack()
        text = str(command.get("text") or "").strip()
        parts = text.split(maxsplit=1)
        word, rest = [*parts, "", ""][:2]
        workspace, user = workspace_of(context), command.get("user_id", "")
        async with replies.locales.reader(workspace, user):
            handler = subcommands.get(word.lower())
            if handler is None:
                messages = await paste(text)
            else:
                messages = await handler(rest, workspace=workspace, user=user,
                                         channel=command.get("channel_id", ""))
            await send(respond, messages)
