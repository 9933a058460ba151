"""The chat service: every decision the Slack adapter needs, and the work that follows its ack.

Listeners parse a payload and call one method here. A message costs only the match until the
matcher finds an error: then the channel's settings (cached) decide whether to answer, and the
decision is recorded before Slack's ack (``Outbox``). Everything sent goes through the ``Outlet``
(the Slack gateway) as a ``Plan``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from pathlib import Path

from bot import i18n, metrics
from bot.cards import EntryCard, HomeCard, MatchCard, TeamLineCard, UnknownLineCard
from bot.diagnose import ErrkbService
from bot.i18n import _
from bot.kb.fallback import error_lines as has_error_line
from bot.kb.matcher import Match
from bot.kb.shape import Shape, own_frame, shape
from bot.render import blocks, summary
from bot.service import keys
from bot.service.runtime.caches import Expiring
from bot.service.runtime.channels import Channels
from bot.service.incoming import Click, Command, Incoming
from bot.service.locales import Locales
from bot.service.runtime.numbers import Numbers
from bot.service.runtime.outbox import Job, Later, Outbox
from bot.service.plans import About, Message, Plan, Post, Publish, Reply, Sent, Thread, Update, Whisper
from bot.service.ports import Author, Outlet, Via
from bot.service.suggest import Suggestions
from bot.service.teaching import Teaching
from bot.service.team import TeamKnowledge
from bot.service.unknowns import Unknowns
from bot.service.runtime.updates import Refresher
from bot.service.runtime.votes import VoteQueue
from bot.service.runtime.writer import WriteBehind
from bot.store import PostedMessage, Store
from bot.store.records import Decision, PostedRow, VoteEvent

log = logging.getLogger(__name__)

REPLAY_WINDOW = 600  # seconds: Slack replays a click or command for up to five minutes
MAX_RESPONSES = 5  # Slack accepts five posts per response_url
RESUME_AFTER = 5.0  # seconds before posting the rest of an answer whose middle post failed
CHANNEL_MODES = ("auto", "mention", "off")
FOUND_TTL = 5.0  # seconds a match found by ``chatter`` waits for ``message``


SHOWN_TTL = 86_400.0  # seconds the quoted line of a posted answer is kept in process, to redraw it after votes
# …for the latest this many answers (about 0.6 KiB each): a bounded few MiB that a busy bot fills in
# minutes and then holds flat; a vote on an older answer redraws it without its quoted line.
SHOWN_ANSWERS = 10_000


def placement(thread: Sequence[PostedMessage], ts: str, entry_id: str) -> int:
    """A posted message's rank among its entry's fix messages in the thread: 1 is the answer itself
    (its fix is the one it shows), 2… the other fixes posted after it."""
    mine = sorted((m.ts or "" for m in thread if m.entry_id == entry_id and m.workaround is not None), key=float)
    return mine.index(ts) + 1 if ts in mine else 1


def answer_post(entry: EntryCard, match: MatchCard | None, locale: str) -> Post:
    """The one compact answer; 👍/👎 on it vote for the fix it shows (the diagnosis, if it has none)."""
    best = entry.workarounds[0] if entry.workarounds else None
    return Post(blocks.answer_message(entry, match), About(entry.id, best.index if best else None, locale))


def clicked_answer(value: str) -> tuple[str, str, float | None]:
    """(entry, quoted line, fallback score) from the language button's value; a bare id is an entry."""
    try:
        data = json.loads(value)
        return str(data["entry"]), str(data.get("line") or ""), data.get("score")
    except (ValueError, TypeError, KeyError):
        return value, "", None


def usage(syntax: str) -> Message:
    return blocks.notice(_("Usage: {syntax}").format(syntax=f"`{blocks.escape(syntax)}`"))


class ChatService:
    def __init__(self, core: ErrkbService, store: Store, outlet: Outlet, update_delay: float = 1.0,
                 clock: Callable[[], float] = time.time, fixtures: Path | None = None,
                 reviewers: tuple[str, ...] = ()) -> None:
        self.core = core
        self.team = core.team = TeamKnowledge(store, fixtures)
        self.store = store
        self.outlet = outlet
        self.clock = clock
        self.locales = Locales(store, outlet)
        self.unknowns = Unknowns(store)
        self.teaching = Teaching(store, self.team, self.locales, outlet, reviewers, home=self.home)
        self.writer = WriteBehind(store, clock)
        self.votes = VoteQueue(store, before=self.writer.settled)
        self.outbox = Outbox(store, self.writer, self._carry_out, outlet.via_for, clock=clock)
        self.updates = Refresher(self._render_update, self._send_update, self._shown_now, update_delay)
        self.channels = Channels(store)
        self._vias: Expiring[str, Via] = Expiring(3600.0, size=1000)
        self.numbers = Numbers(store, lambda: core.kb.entries)
        self.suggestions = Suggestions(core, store, outlet, self.locales, self.numbers.forget,
                                       self.teaching.is_reviewer, self._refresh)
        # (workspace, channel, ts) of a posted answer → how it matched and the reader's quoted line
        self._shown: Expiring[tuple[str, str, str], tuple[str, float, str]] = Expiring(SHOWN_TTL, size=SHOWN_ANSWERS)
        # text → its match, from ``chatter`` to ``message`` of the same request (matched once)
        self._found: Expiring[str, list[Match]] = Expiring(FOUND_TTL, size=64)

    def start(self) -> None:
        self.writer.start()
        self.outbox.start()

    async def stop(self, timeout: float) -> None:
        """Finish recorded answers and pending updates (within ``timeout``), then write what is queued."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        await self.outbox.stop(timeout)
        await self.updates.drain(max(0.5, deadline - loop.time()))
        await self.writer.stop()

    # --- channel settings -------------------------------------------------------------------

    async def channel(self, workspace: str, channel: str) -> tuple[str, bool]:
        """The channel's mode (``auto``, ``mention``, ``off``) and whether it answers other bots."""
        return await self.channels.settings(workspace, channel)

    # --- pastes -----------------------------------------------------------------------------

    async def message(self, m: Incoming, via: Via) -> None:
        """A new or edited message in a channel: record the decision to answer it, if there is one."""
        if m.author.own:
            return
        errorish = has_error_line(m.text)  # once per message: the team lookup and the unknown count both ask
        matches = await self._find(m.workspace, m.text, errorish)
        if not matches and not m.files:
            if errorish:
                await self._unknown(m)
            return  # chat: it cost the match (and, for an error line, a counter) and nothing else
        mode, bots = await self.channel(m.workspace, m.channel)
        if mode != "auto" or (m.author.bot and not bots):
            return
        if matches:
            recorded = await self._decide_answer(m, matches[0], via)
            metrics.outcome("answered" if recorded else "duplicate", matches[0].entry_id)
        else:
            recorded = await self.outbox.record(self._decision(m, "files", keys.message(m.workspace, m.channel, m.ts),
                                                               files=m.files), via)
            metrics.outcome("answered" if recorded else "duplicate")

    async def _unknown(self, m: Incoming) -> None:
        """Count the error nothing matched in ``m`` (which has an error line), where errkb listens."""
        if not m.author.bot:
            mode, _bots = await self.channel(m.workspace, m.channel)
            if mode != "off":
                await self.unknowns.seen(m.workspace, m.channel, m.text, m.ts)

    def chatter(self, text: str) -> bool:
        """True when a new message with ``text`` and no files needs nothing from errkb (most traffic): no
        error line (nothing to count as unknown, no team entry to look up) and no known error in it.
        Otherwise ``message`` follows, and reuses a match found here."""
        if not text.strip():
            return True
        if has_error_line(text):
            return False
        matches = self._core_find(text)
        if not matches:
            return True
        self._found.put(text, matches)
        return False

    async def _find(self, workspace: str, text: str, errorish: bool | None = None) -> list[Match]:
        """The best match for a message (the workspace's own team entries first: they were taught on an
        error line, so chat without one costs no store read), timed and counted by how it was found."""
        if not text.strip():
            return []
        known, memo = self._found.peek(text)
        if known and memo is not None:
            self._found.forget(text)  # once: a retry of the same event is matched (and counted) again
            return memo
        if errorish is None:
            errorish = has_error_line(text)
        team = await self.team.find(workspace, text) if errorish else []
        return self._core_find(text, team)

    def _core_find(self, text: str, team: list[Match] | None = None) -> list[Match]:
        with metrics.timed_match() as found:
            matches = team or self.core.find(text, limit=1)
            if matches:
                found(matches[0].how)
        return matches

    async def mention(self, m: Incoming, via: Via) -> None:
        """@errkb: diagnose the message, else the first message of its thread, else say why not."""
        if m.author.own:
            return
        mode, bots = await self.channel(m.workspace, m.channel)
        if mode == "off" or (m.author.bot and not bots):
            return
        matches = await self._find(m.workspace, m.text)
        key = keys.message(m.workspace, m.channel, m.ts)
        metrics.outcome("answered", matches[0].entry_id if matches else None)
        if matches:
            if not await self._decide_answer(m, matches[0], via):
                await self.outbox.record(self._decision(m, "already", key), via)
        elif m.files:
            await self.outbox.record(self._decision(m, "files", key, files=m.files), via)
        elif m.thread_ts != m.ts:
            await self.outbox.record(self._decision(m, "root", key), via)
        else:  # told privately, with what errkb could tell and *Add to errkb*
            found = await self.unknowns.seen(m.workspace, m.channel, m.text, m.ts)
            memo = (found, own_frame(m.text)) if found is not None else None
            await self.outbox.record(self._decision(m, "nothing", key), via, memo=memo)

    def _decision(self, m: Incoming, kind: str, key: str, entry_id: str | None = None,
                  files: tuple[str, ...] = ()) -> Decision:
        return Decision(key, kind, m.workspace, m.channel, m.thread_ts, m.ts, m.author.user, entry_id, files,
                        self.clock())

    async def _decide_answer(self, m: Incoming, match: Match, via: Via, created_at: float | None = None) -> bool:
        self.numbers.warm(m.workspace)  # once: the workspace's next answers need no store read for their numbers
        decision = self._decision(m, "answer", keys.answer(m.workspace, m.channel, m.thread_ts, match.entry_id),
                                  match.entry_id)
        if created_at is not None:
            decision = replace(decision, created_at=created_at)
        return await self.outbox.record(decision, via, memo=match)

    async def _carry_out(self, job: Job) -> bool | Later:
        """Do what a recorded decision says; False when it could not be done (it is then forgotten)."""
        d = job.decision
        via = job.via or self.outlet.via_for(d.workspace)
        if d.kind == "answer":
            return await self._answer(d, job.memo, via)
        incoming = Incoming(d.workspace, d.channel, d.message_ts, d.thread_ts, Author(d.user, own=False, bot=False), "")
        if d.kind == "files":
            text = await self.outlet.read_files(list(d.files), via)
            matches = await self._find(d.workspace, text)
            if matches:  # already taken when that error is answered in this thread: nothing more to do
                await self._decide_answer(incoming, matches[0], via, d.created_at)
            return True
        if d.kind == "root":
            root = await self.outlet.thread_root(d.channel, d.thread_ts, via)
            matches = await self._find(d.workspace, root.text) if root and not root.author.own else []
            if matches:
                if await self._decide_answer(incoming, matches[0], via, d.created_at):
                    return True
                return await self._note(d, "already", via)
            return await self._note(d, "nothing", via)
        if d.kind == "nothing" and job.memo is not None:
            return await self._unknown_note(d, *job.memo, via)
        return await self._note(d, d.kind, via)

    async def _unknown_note(self, d: Decision, found: Shape, frame: str | None, via: Via) -> bool:
        """A mention on an unknown error: privately, what errkb could tell and *Add to errkb*."""
        async with self._reader(d.workspace, d.user, via):
            message = blocks.unknown_message(found.line, found.error_type, frame)
        thread = d.thread_ts if d.thread_ts != d.message_ts else None
        report = await self.outlet.send(Plan([Whisper(d.channel, d.user or "", thread, [message])]), via)
        return report.ok

    async def _note(self, d: Decision, kind: str, via: Via) -> bool:
        async with self._reader(d.workspace, d.user, via):
            note = (_("I've already answered that error in this thread.") if kind == "already"
                    else _("I found no known error in this message or at the top of its thread."))
            plan = Plan([Thread(d.workspace, d.channel, d.thread_ts, [Post(blocks.notice(note))])])
        return bool((await self.outlet.send(plan, via)).sent)

    async def _answer(self, d: Decision, memo: Match | Thread | None, via: Via) -> bool | Later:
        """Post the answer; the rest of it later when a post in the middle fails (the thread has an answer)."""
        assert d.entry_id is not None
        if isinstance(memo, Thread):  # what is left of an answer begun earlier
            return await self._post_answer(d, Plan([memo]), via)
        match = memo
        # the entry's numbers and the reader's locale are looked up side by side (each may be a store read)
        feedback = asyncio.ensure_future(self.numbers.get(d.workspace, d.entry_id))
        try:
            locale = await self.locales.locale_for(d.workspace, d.user, via)
        except BaseException:
            feedback.cancel()
            raise
        live = {d.entry_id: await feedback}
        with i18n.use_locale(locale):
            if match is not None and match.entry_id == d.entry_id:
                diagnosis = await self.core.explain([match], record=False, live=live)
                best = diagnosis.best
                entry, shown = (best.entry, best) if best else (None, None)
            else:  # taken over from another process: the paste is gone, the entry is known
                entry, shown = await self.core.card(d.entry_id, live[d.entry_id]), None
            if entry is None:
                return False
            self.writer.hit(d.workspace, entry.id, locale)
            plan = Plan([Thread(d.workspace, d.channel, d.thread_ts, [answer_post(entry, shown, locale)])])
        return await self._post_answer(d, plan, via, first=True, shown=shown)

    async def _post_answer(self, d: Decision, plan: Plan, via: Via, first: bool = False,
                           shown: MatchCard | None = None) -> bool | Later:
        report = await self.outlet.send(plan, via, on_sent=lambda sent: self._posted(d.workspace, sent, shown))
        if first and report.sent:
            metrics.FIRST_REPLY_SECONDS.observe(max(0.0, self.clock() - d.created_at))
        metrics.ANSWERS.labels("posted" if report.ok else "partial" if report.sent else "failed").inc()
        if report.ok:
            return True
        if first and not report.sent:
            return False  # nothing posted: forgotten, so the thread stays answerable
        failure = report.failures[0]
        (thread,) = plan.actions
        assert isinstance(thread, Thread)
        rest = Thread(thread.workspace, thread.channel, report.sent[0].thread_ts if report.sent else thread.thread_ts,
                      thread.posts[len(report.sent):])
        if failure.permanent:
            return True  # what was posted stays; the rest cannot be posted there
        return Later(RESUME_AFTER, rest)

    def _posted(self, workspace: str, sent: Sent, match: MatchCard | None = None) -> None:
        about = sent.post.about
        if match is not None:
            self._shown.put((workspace, sent.thread.channel, sent.ts),
                            (match.how, match.score, summary.quote(match.line, match.entry.regex)))
        if about is not None:
            self.writer.posted(PostedRow(workspace, sent.thread.channel, sent.ts, about.entry_id, about.workaround,
                                         about.locale, sent.thread_ts))

    @contextlib.asynccontextmanager
    async def _reader(self, workspace: str, user: str | None, via: Via) -> AsyncIterator[str]:
        """Run the block in the reader's locale: every ``_()`` inside speaks their language."""
        locale = await self.locales.locale_for(workspace, user, via)
        with i18n.use_locale(locale):
            yield locale

    # --- votes ------------------------------------------------------------------------------

    async def reaction(self, workspace: str, user: str, channel: str, ts: str, token: str, present: bool,
                       at: float, via: Via) -> None:
        """A 👍/👎 (``token``) added or removed on a message: a vote, if the message is one of ours."""
        outcome = await self.votes.submit(VoteEvent(workspace, user, at, token=token, present=present,
                                                    channel=channel, ts=ts))
        if outcome.posted is not None:
            metrics.VOTES.labels("reaction", str(bool(outcome.changed)).lower()).inc()
            metrics.outcome("answered", outcome.posted.entry_id)
        if outcome.changed and outcome.posted is not None:
            self.numbers.forget(workspace, outcome.posted.entry_id)
        if outcome.changed and outcome.posted is not None and outcome.posted.workaround is not None:
            self._refresh(workspace, channel, ts, via)

    async def vote_button(self, click: Click, direction: int, via: Via) -> None:
        """Worked (+1) / Didn't work (-1); on an ephemeral answer the receipt comes privately."""
        target = blocks.vote_target(click.value)
        if target is None:
            return
        entry_id, index = target
        outcome = await self.votes.submit(VoteEvent(click.workspace, click.user, click.at, button=direction,
                                                    channel=click.channel, ts=click.ts, entry_id=entry_id,
                                                    workaround=index))
        if outcome.tally is None:
            return
        metrics.VOTES.labels("button", str(bool(outcome.changed)).lower()).inc()
        if outcome.changed:
            self.numbers.forget(click.workspace, outcome.posted.entry_id if outcome.posted else entry_id)
        if click.ts is not None and outcome.posted is not None:
            if outcome.changed:
                self._refresh(click.workspace, click.channel, click.ts, via)
            return
        if click.ts is None:  # an ephemeral message cannot be updated in place: say it privately
            async with self._reader(click.workspace, click.user, via):
                entry = await self.core.show(entry_id, click.workspace)
                workaround = entry.workaround(index) if entry else None
                if workaround is not None:
                    await self.outlet.send(Plan([Reply([blocks.vote_receipt(workaround)])]), via)

    def _refresh(self, workspace: str, channel: str, ts: str, via: Via) -> None:
        self._vias.put(workspace, via)
        self.updates.schedule((workspace, channel, ts))

    async def _render_update(self, key: tuple[str, str, str]) -> tuple[Update | None, object]:
        workspace, channel, ts = key
        found = await self.store.message_record(workspace, channel, ts)
        if found is None or found.posted.workaround is None:
            return None, None
        posted = found.posted
        with i18n.use_locale(posted.locale):
            entry = await self.core.card(posted.entry_id, found.feedback)
            workaround = entry.workaround(posted.workaround) if entry else None
            if entry is None or workaround is None:
                return None, None
            rank = placement(found.thread, ts, entry.id)
            if rank == 1:  # the answer itself, still showing the fix it was posted with
                message = blocks.answer_message(entry, self._shown_match(key, entry), shown=workaround)
            else:
                message = blocks.fix_message(entry, workaround, rank)
        return Update(channel, ts, message), (workaround.votes_up, workaround.votes_down)

    async def _shown_now(self, key: tuple[str, str, str]) -> object:
        tally = await self.store.message_tally(*key)
        return None if tally is None else (tally.up, tally.down)

    def _shown_match(self, key: tuple[str, str, str], entry: EntryCard) -> MatchCard | None:
        """The match a posted answer showed (its quoted line), while this process remembers it."""
        found, shown = self._shown.peek(key)
        if not found or shown is None:
            return None
        how, score, line = shown
        return MatchCard(entry, how, score, (0, 0), line)

    async def _send_update(self, key: tuple[str, str, str], update: Update) -> tuple[bool, bool]:
        found, via = self._vias.peek(key[0])
        report = await self.outlet.send(Plan([update]), via if found and via else self.outlet.via_for(key[0]))
        if report.ok:
            return True, False
        return False, all(f.permanent for f in report.failures)

    # --- buttons ----------------------------------------------------------------------------

    async def once(self, replay_key: str) -> bool:
        """True the first time a click or command is seen (in any process) within Slack's replay window."""
        return await self.store.claim_event(replay_key, ttl_seconds=REPLAY_WINDOW)

    async def other_fixes(self, click: Click, via: Via) -> None:
        """*Other fixes*: each fix not yet in the clicked answer's thread, ranked, as its own reactable
        message (privately, voting by button, for an ephemeral answer)."""
        await self.writer.settled()  # the rows of messages just posted
        posted = await self.store.message_target(click.workspace, click.channel, click.ts) if click.ts else None
        if posted is not None and posted.thread_ts is not None:
            thread = await self.store.thread_messages(click.workspace, click.channel, posted.thread_ts)
            shown = {m.workaround for m in thread if m.entry_id == click.value and m.workaround is not None}
            with i18n.use_locale(posted.locale):
                entry = await self.core.show(click.value, click.workspace)
                if entry is None:
                    return
                rest = [w for w in entry.workarounds if w.index not in shown]
                posts = [Post(blocks.fix_message(entry, w, len(shown) + i), About(entry.id, w.index, posted.locale))
                         for i, w in enumerate(rest, 1)]
            if not posts:
                async with self._reader(click.workspace, click.user, via):
                    note = blocks.notice(_("Every fix for this error is already in this thread."))
                await self.outlet.send(Plan([Reply([note])]), via)
                return
            plan = Plan([Thread(click.workspace, click.channel, posted.thread_ts, posts)])
            await self.outlet.send(plan, via, on_sent=lambda sent: self._posted(click.workspace, sent))
            return
        async with self._reader(click.workspace, click.user, via):
            entry = await self.core.show(click.value, click.workspace)
            if entry is not None:
                messages = [m for m, _index in blocks.other_fix_messages(entry, private=True)]
                await self.outlet.send(Plan([Reply(messages[:MAX_RESPONSES])]), via)

    async def details(self, click: Click, via: Via) -> None:
        """*Why / what not to try*: the dead ends, versions, docs and related errors, to whoever asked."""
        async with self._reader(click.workspace, click.user, via):
            entry = await self.core.show(click.value, click.workspace)
            if entry is None:
                return
            message = blocks.details_message(entry)
        await self._privately(click, message, via)

    async def show_entry(self, click: Click, via: Via) -> None:
        """A related error's compact answer, privately, in the clicker's language."""
        async with self._reader(click.workspace, click.user, via):
            entry = await self.core.show(click.value, click.workspace)
            if entry is None:
                return
            message = blocks.answer_message(entry, private=True)
        await self._privately(click, message, via)

    async def answer_menu(self, click: Click, via: Via) -> None:
        """The answer's ⋮ menu: *Wrong error?* counts against the diagnosis, never against a fix;
        *Suggest a fix* opens its form."""
        try:
            data = json.loads(click.value)
            entry_id, option = str(data["entry"]), str(data["option"])
        except (ValueError, TypeError, KeyError):
            return
        if option == blocks.OPTION_SUGGEST_FIX:
            await self.suggestions.open(click, entry_id, via)
            return
        if option != blocks.OPTION_WRONG_ERROR:
            return
        outcome = await self.votes.submit(VoteEvent(click.workspace, click.user, click.at, button=-1,
                                                    entry_id=entry_id, workaround=None))
        if outcome.tally is None:
            return
        async with self._reader(click.workspace, click.user, via):
            note = blocks.notice(_("Thanks: noted that this is not the error you have. Try {search}.").format(
                search=f"`{blocks.escape('/errkb search <words>')}`"))
        await self.outlet.send(Plan([Reply([note])]), via)

    async def _privately(self, click: Click, message: Message, via: Via) -> None:
        """Ephemeral, in the clicked message's thread (or through ``respond`` where errkb cannot post)."""
        await self.outlet.send(Plan([Whisper(click.channel, click.user, click.thread_ts, [message])]), via)

    async def translate(self, click: Click, via: Via) -> None:
        """The same compact answer in the other language, once, privately to whoever clicked."""
        await self.writer.settled()
        posted = await self.store.message_target(click.workspace, click.channel, click.ts) if click.ts else None
        shown = posted.locale if posted else await self.locales.locale_for(click.workspace, click.user, via)
        entry_id, line, score = clicked_answer(click.value)
        with i18n.use_locale("en" if shown == "zh" else "zh"):
            entry = await self.core.show(entry_id, click.workspace)
            if entry is None:
                return
            match = (MatchCard(entry, "regex" if score is None else "fuzzy", 1.0 if score is None else float(score),
                               (0, 0), line) if line else None)
            message = blocks.answer_message(entry, match, private=True, other_language=False)
        await self._privately(click, message, via)

    async def post_entry(self, click: Click, via: Via) -> None:
        """A search result posted to the channel as a new thread, in the clicker's language."""
        async with self._reader(click.workspace, click.user, via) as locale:
            entry = await self.core.show(click.value, click.workspace)
            if entry is None:
                return
            failed = [blocks.notice(_("I couldn't post in this channel. Invite me first: `/invite @errkb`."))]
            plan = Plan([Thread(click.workspace, click.channel, None, [answer_post(entry, None, locale)], failed)])
        report = await self.outlet.send(plan, via, on_sent=lambda sent: self._posted(click.workspace, sent))
        if report.sent:  # the same error pasted in that thread later is already answered
            thread_ts = report.sent[0].thread_ts
            await self.outbox.record_done(Decision(keys.answer(click.workspace, click.channel, thread_ts, entry.id),
                                                   "answer", click.workspace, click.channel, thread_ts, thread_ts,
                                                   click.user, entry.id, (), self.clock()))

    # --- workspaces -------------------------------------------------------------------------

    async def forget_workspace(self, workspace: str) -> None:
        """The workspace uninstalled errkb or revoked its token: delete its data (votes stay as counts)."""
        removed = await self.store.delete_workspace(workspace)
        self.channels.forget_workspace(workspace)
        self.numbers.forget_workspace(workspace)
        self._vias.forget(workspace)
        log.info("workspace %s removed: %d rows deleted", workspace, removed.total)

    # --- App Home ---------------------------------------------------------------------------

    async def home(self, workspace: str, user: str, via: Via) -> None:
        async with self._reader(workspace, user, via) as locale:
            remembering = await self.unknowns.remembers(workspace)
            unknown = tuple(UnknownLineCard(u.shape, u.error_type, u.count, u.last_seen)
                            for u in (await self.unknowns.top(workspace) if remembering else []))
            team = tuple(TeamLineCard(r.entry_id, r.body.get("title", ""), r.author, r.status,
                                      r.locale != locale and not (r.body.get("other") or {}).get(locale))
                         for r in await self.store.team_entries(workspace))
            view = blocks.home_view(HomeCard(await self.locales.setting(workspace, user), locale,
                                             await self.core.usage(workspace=workspace), unknown, remembering, team))
        await self.outlet.send(Plan([Publish(user, view)]), via)

    async def home_locale(self, workspace: str, user: str, setting: str, via: Via) -> None:
        if setting in ("auto", *i18n.SUPPORTED):
            await self.locales.set_override(workspace, user, setting)
        await self.home(workspace, user, via)

    # --- /errkb -----------------------------------------------------------------------------

    async def command(self, c: Command, via: Via) -> None:
        """``/errkb …``: every answer is ephemeral, in the caller's language."""
        word, rest = [*c.text.split(maxsplit=1), "", ""][:2]
        async with self._reader(c.workspace, c.user, via):
            handler = {"search": self._search, "show": self._show, "locale": self._locale, "channel": self._channel,
                       "stats": self._stats, "unknown": self._unknown_switch, "help": self._help,
                       "": self._help}.get(word.lower())
            messages = await (self._paste(c) if handler is None else handler(rest, c))
        await self.outlet.send(Plan([Reply(messages[:MAX_RESPONSES])]), via)

    async def _search(self, query: str, c: Command) -> list[Message]:
        if not query:
            return [usage("/errkb search <words>")]
        return [blocks.search_message(query, await self.core.search(query, limit=5, workspace=c.workspace))]

    async def _show(self, entry_id: str, c: Command) -> list[Message]:
        entry = await self.core.show(entry_id, c.workspace) if entry_id else None
        if entry is None:
            return [blocks.notice(_("There is no entry `{id}`. Try {search}.").format(
                id=blocks.escape(entry_id[:200]) or "?", search=f"`{blocks.escape('/errkb search <words>')}`"))]
        return [blocks.answer_message(entry, private=True)]

    async def _locale(self, arg: str, c: Command) -> list[Message]:
        arg = arg.lower()
        if arg not in ("auto", *i18n.SUPPORTED):
            return [usage("/errkb locale en|zh|auto")]
        await self.locales.set_override(c.workspace, c.user, arg)
        now = await self.locales.locale_for(c.workspace, c.user, Via(None))
        with i18n.use_locale(now):  # the answer already speaks it
            language = blocks.locale_name(arg) + (f" — {blocks.locale_name(now)}" if arg == "auto" else "")
            return [blocks.notice(_("Your language is now {language}.").format(language=language))]

    async def _channel(self, arg: str, c: Command) -> list[Message]:
        words = arg.lower().split()
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

    async def _unknown_switch(self, arg: str, c: Command) -> list[Message]:
        if arg.lower().strip() not in ("on", "off"):
            return [usage("/errkb unknown on|off")]
        on = arg.lower().strip() == "on"
        await self.unknowns.switch(c.workspace, on)
        return [blocks.notice(
            _("I now keep the masked error line of what I could not answer here (never the message).") if on
            else _("I no longer keep errors I could not answer here, and I forgot the ones I had."))]

    async def _stats(self, _arg: str, c: Command) -> list[Message]:
        return [blocks.usage_message(await self.core.usage(limit=5, workspace=c.workspace))]

    async def _help(self, _arg: str, _c: Command) -> list[Message]:
        return [blocks.help_message()]

    async def _paste(self, c: Command) -> list[Message]:
        matches = await self._find(c.workspace, c.text)
        if matches:
            diagnosis = await self.core.explain(matches, record=False, workspace=c.workspace)
            if diagnosis.best is not None:
                self.writer.hit(c.workspace, diagnosis.best.entry.id, i18n.current_locale())
                return [blocks.answer_message(diagnosis.best.entry, diagnosis.best, private=True)]
        found = await self.unknowns.seen(c.workspace, c.channel, c.text)
        if found is not None:
            return [blocks.unknown_message(found.line, found.error_type, own_frame(c.text))]
        word = c.text.split(maxsplit=1)[0][:50]
        lead = (_("I don't know the command “{word}”.").format(word=blocks.escape(word)) if len(c.text.split()) == 1
                else _("I found no known error in what you pasted."))
        return [blocks.help_message(lead)]

    # --- the message shortcut ---------------------------------------------------------------

    async def shortcut(self, workspace: str, user: str, text: str, files: list[str], via: Via) -> None:
        """"Diagnose with errkb" on any message: the answer goes privately to whoever asked."""
        if files:
            text = "\n".join(p for p in (text, await self.outlet.read_files(files, via)) if p)
        async with self._reader(workspace, user, via):
            matches = await self._find(workspace, text)
            diagnosis = await self.core.explain(matches, record=False, workspace=workspace) if matches else None
            if diagnosis is not None and diagnosis.best is not None:
                self.writer.hit(workspace, diagnosis.best.entry.id, i18n.current_locale())
                messages = [blocks.answer_message(diagnosis.best.entry, diagnosis.best, private=True)]
            elif (found := shape(text)) is not None:
                messages = [blocks.unknown_message(found.line, found.error_type, own_frame(text))]
            else:
                messages = [blocks.notice(_("I found no known error in that message."))]
        await self.outlet.send(Plan([Reply(messages[:MAX_RESPONSES])]), via)
