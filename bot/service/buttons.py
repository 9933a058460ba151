"""Buttons on an answer: *Other fixes*, *Why / what not to try*, a related error, the ⋮ menu, the other
language, and *Post* on a search result. Each answers whoever clicked, in their language."""

from __future__ import annotations

import json

from bot import i18n
from bot.cards import MatchCard
from bot.i18n import _
from bot.render import blocks, labels
from bot.service import refusals
from bot.service.answers import Answers, answer_post
from bot.service.conversation import Conversations
from bot.service.incoming import Click
from bot.service.knowledge import Knowledge
from bot.service.locales import Locales
from bot.service.plans import About, Message, Plan, Post, Reply, Thread, Whisper
from bot.service.ports import Outlet, Via
from bot.service.runtime.writer import WriteBehind
from bot.service.suggestions import Suggestions
from bot.service.voting import Voting
from bot.store import Store

MAX_RESPONSES = 5  # Slack accepts five posts per response_url


def clicked_answer(value: str) -> tuple[str, str, float | None]:
    """(entry, quoted line, fallback score) from the language button's value; a bare id is an entry."""
    try:
        data = json.loads(value)
        return str(data["entry"]), str(data.get("line") or ""), data.get("score")
    except (ValueError, TypeError, KeyError):
        return value, "", None


class Buttons:
    def __init__(self, knowledge: Knowledge, store: Store, outlet: Outlet, conversations: Conversations,
                 locales: Locales, writer: WriteBehind, answers: Answers, voting: Voting,
                 suggestions: Suggestions, site_url: str | None = None) -> None:
        self.knowledge = knowledge
        self.site_url = site_url  # ERRKB_SITE_URL: the details view links to the entry's page there
        self.store = store
        self.outlet = outlet
        self.conversations = conversations
        self.locales = locales
        self.writer = writer
        self.answers = answers
        self.voting = voting
        self.suggestions = suggestions

    async def other_fixes(self, click: Click, via: Via) -> None:
        """*Other fixes*: each fix not yet in the clicked answer's thread, ranked, as its own reactable
        message (privately, voting by button, for an ephemeral answer)."""
        await self.writer.settled()  # the rows of messages just posted
        posted = await self.store.message_target(click.workspace, click.channel, click.ts) if click.ts else None
        if posted is not None and posted.thread_ts is not None:
            thread = await self.store.thread_messages(click.workspace, click.channel, posted.thread_ts)
            shown = {m.workaround for m in thread if m.entry_id == click.value and m.workaround is not None}
            with i18n.use_locale(posted.locale):
                entry = await self.knowledge.show(click.value, click.workspace)
            if entry is None:
                await self._not_here(click, via)
                return
            with i18n.use_locale(posted.locale):
                rest = [w for w in entry.workarounds if w.index not in shown]
                posts = [Post(blocks.fix_message(entry, w, len(shown) + i), About(entry.id, w.index, posted.locale))
                         for i, w in enumerate(rest, 1)]
            if not posts:
                async with self.conversations.speaking(click.workspace, click.user, via):
                    note = blocks.notice(_("Every fix for this error is already in this thread."))
                await self.outlet.send(Plan([Reply([note])]), via)
                return
            plan = Plan([Thread(click.workspace, click.channel, posted.thread_ts, posts)])
            await self.outlet.send(plan, via, on_sent=lambda sent: self.answers.posted(click.workspace, sent))
            return
        async with self.conversations.speaking(click.workspace, click.user, via):
            entry = await self.knowledge.show(click.value, click.workspace)
            messages = ([m for m, _index in blocks.other_fix_messages(entry, private=True)] if entry is not None
                        else [blocks.notice(labels.not_here())])
        await self.outlet.send(Plan([Reply(messages[:MAX_RESPONSES])]), via)

    async def details(self, click: Click, via: Via) -> None:
        """*Why / what not to try*: the dead ends, versions, docs and related errors, to whoever asked."""
        async with self.conversations.speaking(click.workspace, click.user, via):
            entry = await self.knowledge.show(click.value, click.workspace)
            message = (blocks.details_message(entry, self.site_url) if entry is not None
                       else blocks.notice(labels.not_here()))
        await self._privately(click, message, via)

    async def show_entry(self, click: Click, via: Via) -> None:
        """A related error's compact answer, privately, in the clicker's language."""
        async with self.conversations.speaking(click.workspace, click.user, via):
            entry = await self.knowledge.show(click.value, click.workspace)
            message = (blocks.answer_message(entry, private=True) if entry is not None
                       else blocks.notice(labels.not_here()))
        await self._privately(click, message, via)

    async def menu(self, click: Click, via: Via) -> None:
        """The answer's ⋮ menu: *Wrong error?* counts against the diagnosis; *Suggest a fix* opens its form."""
        try:
            data = json.loads(click.value)
            entry_id, option = str(data["entry"]), str(data["option"])
        except (ValueError, TypeError, KeyError):
            return
        if option == blocks.OPTION_SUGGEST_FIX:
            await self.suggestions.open(click, entry_id, via)
        elif option == blocks.OPTION_WRONG_ERROR:
            await self.voting.wrong_error(click, entry_id, via)

    async def translate(self, click: Click, via: Via) -> None:
        """The same compact answer in the other language, once, privately to whoever clicked."""
        await self.writer.settled()
        posted = await self.store.message_target(click.workspace, click.channel, click.ts) if click.ts else None
        shown = posted.locale if posted else await self.locales.locale_for(click.workspace, click.user, via)
        entry_id, line, score = clicked_answer(click.value)
        with i18n.use_locale("en" if i18n.language(shown) == "zh" else "zh"):
            entry = await self.knowledge.show(entry_id, click.workspace)
            match = (MatchCard(entry, "regex" if score is None else "fuzzy", 1.0 if score is None else float(score),
                               (0, 0), line) if line and entry is not None else None)
            message = blocks.answer_message(entry, match, private=True, other_language=False) if entry else None
        if message is None:
            await self._not_here(click, via)
            return
        await self._privately(click, message, via)

    async def post_entry(self, click: Click, via: Via) -> None:
        """A search result posted to the channel as a new thread, in the clicker's language."""
        async with self.conversations.speaking(click.workspace, click.user, via) as conversation:
            entry = await self.knowledge.show(click.value, click.workspace)
            if entry is None:
                note = blocks.notice(labels.not_here())
            else:
                failed = [blocks.notice(_("I couldn't post in this channel. Invite me first: `/invite @errkb`."))]
                post = answer_post(entry, None, conversation.locale)
                plan = Plan([Thread(click.workspace, click.channel, None, [post], failed)])
        if entry is None:
            await self.outlet.send(Plan([Reply([note])]), via)
            return
        report = await self.outlet.send(plan, via, on_sent=lambda sent: self.answers.posted(click.workspace, sent))
        if report.sent:  # the same error pasted in that thread later is already answered
            await self.answers.taken(click.workspace, click.channel, report.sent[0].thread_ts, entry.id, click.user)

    async def _not_here(self, click: Click, via: Via) -> None:
        """The clicked entry is not this workspace's to see (another's, retired, or made up): say so, privately."""
        await refusals.not_here(self.conversations, self.outlet, click.workspace, click.user, via)

    async def _privately(self, click: Click, message: Message, via: Via) -> None:
        """Ephemeral, in the clicked message's thread (or through ``respond`` where errkb cannot post)."""
        await self.outlet.send(Plan([Whisper(click.channel, click.user, click.thread_ts, [message])]), via)
