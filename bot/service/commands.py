"""``/errkb …`` and the message shortcut *Diagnose with errkb*: every answer is private, in the caller's language.

The sub-commands are a table (``Commands.table``): a word → what it does with the rest of the line.
Anything else is read as a paste.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot import i18n
from bot.i18n import _
from bot.kb.shape import own_frame, shape
from bot.render import blocks
from bot.render.family import family_message
from bot.render.home import locale_name, usage_message
from bot.service.answers import Answers
from bot.service.conversation import Conversations
from bot.service.families import family_card
from bot.service.incoming import Command
from bot.service.knowledge import Knowledge
from bot.service.locales import Locales
from bot.service.plans import Message, Plan, Reply
from bot.service.ports import Outlet, Via
from bot.service.runtime.channels import Channels
from bot.service.runtime.writer import WriteBehind
from bot.service.unknowns import Unknowns
from bot.store import Store

MAX_RESPONSES = 5  # Slack accepts five posts per response_url
CHANNEL_MODES = ("auto", "mention", "off")

SubCommand = Callable[[str, Command, Via], Awaitable[list[Message]]]


def usage(syntax: str) -> Message:
    return blocks.notice(_("Usage: {syntax}").format(syntax=f"`{blocks.escape(syntax)}`"))


class Commands:
    def __init__(self, knowledge: Knowledge, answers: Answers, store: Store, outlet: Outlet,
                 conversations: Conversations, locales: Locales, channels: Channels, unknowns: Unknowns,
                 writer: WriteBehind, is_reviewer: Callable[[str, str, Via], Awaitable[bool]] | None = None) -> None:
        self.knowledge = knowledge
        self.answers = answers
        self.store = store
        self.outlet = outlet
        self.conversations = conversations
        self.locales = locales
        self.channels = channels
        self.unknowns = unknowns
        self.writer = writer
        self.is_reviewer = is_reviewer  # (workspace, user, via): a workspace admin or owner, or a reviewer
        self.table: dict[str, SubCommand] = {
            "search": self._search, "show": self._show, "locale": self._locale, "channel": self._channel,
            "stats": self._stats, "unknown": self._unknown, "help": self._help, "": self._help,
        }

    async def command(self, c: Command, via: Via) -> None:
        """``/errkb …``: one sub-command, or a paste."""
        word, rest = [*c.text.split(maxsplit=1), "", ""][:2]
        async with self.conversations.speaking(c.workspace, c.user, via):
            handler = self.table.get(word.lower())
            messages = await (self._paste(c) if handler is None else handler(rest, c, via))
        await self.outlet.send(Plan([Reply(messages[:MAX_RESPONSES])]), via)

    async def shortcut(self, workspace: str, user: str, text: str, files: list[str], via: Via) -> None:
        """"Diagnose with errkb" on any message: the answer goes privately to whoever asked."""
        if files:
            text = "\n".join(p for p in (text, await self.outlet.read_files(files, via)) if p)
        async with self.conversations.speaking(workspace, user, via):
            matches = await self.answers.find(workspace, text)
            diagnosis = await self.knowledge.explain(matches, record=False, workspace=workspace) if matches else None
            if diagnosis is not None and diagnosis.best is not None:
                self.writer.hit(workspace, diagnosis.best.entry.id, i18n.current_locale())
                messages = [blocks.answer_message(diagnosis.best.entry, diagnosis.best, private=True)]
            elif (family := family_card(self.knowledge.kb.families, text)) is not None:
                messages = [family_message(family)]
            elif (found := shape(text)) is not None:
                messages = [blocks.unknown_message(found.line, found.error_type, own_frame(text))]
            else:
                messages = [blocks.notice(_("I found no known error in that message."))]
        await self.outlet.send(Plan([Reply(messages[:MAX_RESPONSES])]), via)

    async def _search(self, query: str, c: Command, _via: Via) -> list[Message]:
        if not query:
            return [usage("/errkb search <words>")]
        return [blocks.search_message(query, await self.knowledge.search(query, limit=5, workspace=c.workspace))]

    async def _show(self, entry_id: str, c: Command, _via: Via) -> list[Message]:
        entry = await self.knowledge.show(entry_id, c.workspace) if entry_id else None
        if entry is None:
            return [blocks.notice(_("There is no entry `{id}`. Try {search}.").format(
                id=blocks.escape(entry_id[:200]) or "?", search=f"`{blocks.escape('/errkb search <words>')}`"))]
        return [blocks.answer_message(entry, private=True)]

    async def _locale(self, arg: str, c: Command, _via: Via) -> list[Message]:
        arg = arg.strip().lower().replace("_", "-")
        if arg not in ("auto", "en", "zh", "zh-cn", "zh-tw", "zh-hk"):
            return [usage("/errkb locale en|zh|zh-TW|zh-HK|auto")]
        arg = arg if arg == "auto" else i18n.negotiate(arg)
        await self.locales.set_override(c.workspace, c.user, arg)
        now = await self.locales.locale_for(c.workspace, c.user, Via(None))
        with i18n.use_locale(now):  # the answer already speaks it
            language = locale_name(arg) + (f" — {locale_name(now)}" if arg == "auto" else "")
            return [blocks.notice(_("Your language is now {language}.").format(language=language))]

    async def _reviewer(self, c: Command, via: Via) -> bool:
        """A workspace admin or owner, or a member of the reviewers' user groups (``Teaching.is_reviewer``)."""
        return self.is_reviewer is not None and await self.is_reviewer(c.workspace, c.user, via)

    async def _channel_keeper(self, c: Command, via: Via) -> bool:
        """The channel's creator (``conversations.info``), a workspace admin or a reviewer."""
        if c.channel and await self.outlet.channel_creator(c.channel, via) == c.user:
            return True
        return await self._reviewer(c, via)

    async def _channel(self, arg: str, c: Command, via: Via) -> list[Message]:
        """A channel's settings, in this workspace's own settings only: its creator, a workspace admin or a
        reviewer may change them."""
        words = arg.lower().split()
        valid = words in (["bots", "on"], ["bots", "off"]) or (len(words) == 1 and words[0] in CHANNEL_MODES)
        if valid and not await self._channel_keeper(c, via):
            return [blocks.notice(_("Only this channel's creator, a workspace admin or a reviewer can change how I "
                                    "answer in this channel."))]
        if words[:1] == ["bots"] and words[1:] in (["on"], ["off"]):
            await self.store.set_channel_bots(c.workspace, c.channel, words[1] == "on")
            await self.channels.changed()
            return [blocks.notice(_("In this channel I now answer other bots' messages too.") if words[1] == "on"
                                  else _("In this channel I now ignore other bots' messages."))]
        if len(words) != 1 or words[0] not in CHANNEL_MODES:
            return [usage("/errkb channel auto|mention|off"), usage("/errkb channel bots on|off")]
        await self.store.set_channel_mode(c.workspace, c.channel, words[0])
        await self.channels.changed()
        return [blocks.notice({
            "auto": _("In this channel I now answer every pasted error."),
            "mention": _("In this channel I now answer only when someone mentions me."),
            "off": _("In this channel I now stay quiet; `/errkb` still works."),
        }[words[0]])]

    async def _unknown(self, arg: str, c: Command, via: Via) -> list[Message]:
        """Whether this workspace keeps unknown errors' shapes (``off`` also forgets them): a workspace admin's or
        a reviewer's choice, for the whole workspace."""
        if arg.lower().strip() not in ("on", "off"):
            return [usage("/errkb unknown on|off")]
        if not await self._reviewer(c, via):
            return [blocks.notice(_("Only a workspace admin or a reviewer can change whether I keep the errors I "
                                    "could not answer here."))]
        on = arg.lower().strip() == "on"
        await self.unknowns.switch(c.workspace, on)
        return [blocks.notice(
            _("I now keep the masked error line of what I could not answer here (never the message).") if on
            else _("I no longer keep errors I could not answer here, and I forgot the ones I had."))]

    async def _stats(self, _arg: str, c: Command, _via: Via) -> list[Message]:
        return [usage_message(await self.knowledge.usage(limit=5, workspace=c.workspace))]

    async def _help(self, _arg: str, _c: Command, _via: Via) -> list[Message]:
        return [blocks.help_message()]

    async def _paste(self, c: Command) -> list[Message]:
        matches = await self.answers.find(c.workspace, c.text)
        if matches:
            diagnosis = await self.knowledge.explain(matches, record=False, workspace=c.workspace)
            if diagnosis.best is not None:
                self.writer.hit(c.workspace, diagnosis.best.entry.id, i18n.current_locale())
                return [blocks.answer_message(diagnosis.best.entry, diagnosis.best, private=True)]
        found = await self.unknowns.seen(c.workspace, c.channel, c.text)
        if (family := family_card(self.knowledge.kb.families, c.text)) is not None:
            return [family_message(family)]  # no entry knows it: its code's official page, labelled so
        if found is not None:
            return [blocks.unknown_message(found.line, found.error_type, own_frame(c.text))]
        word = c.text.split(maxsplit=1)[0][:50]
        lead = (_("I don't know the command “{word}”.").format(word=blocks.escape(word)) if len(c.text.split()) == 1
                else _("I found no known error in what you pasted."))
        return [blocks.help_message(lead)]
