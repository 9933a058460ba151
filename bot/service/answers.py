"""Answers: pastes and mentions → recorded decisions → posted answers.

A message costs only the match until the matcher finds an error: then the channel's settings (held
in memory) decide whether to answer, and the decision is recorded before Slack's ack (``Outbox``),
so a retry, an edit or another replica never answers twice. The outbox's workers carry decisions
out (``carry_out``): the one compact answer in the paste's thread, in the reader's language. Another
bot's alert is answered only when it is the first of its error in the channel (``Alerts``).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from dataclasses import replace

from bot import metrics
from bot.cards import EntryCard, MatchCard
from bot.i18n import _
from bot.kb.fallback import error_lines as has_error_line
from bot.kb.families import FamilyHit
from bot.kb.matcher import Match
from bot.kb.shape import Shape, own_frame
from bot.render import blocks
from bot.render.family import family_message
from bot.service import keys
from bot.service.alerts import Alerts, Refresh
from bot.service.conversation import Conversations
from bot.service.families import card_of, family_hit
from bot.service.incoming import Incoming
from bot.service.knowledge import Knowledge
from bot.service.plans import About, Plan, Post, Sent, Thread, Whisper
from bot.service.ports import Author, Outlet, Via
from bot.service.runtime.channels import Channels
from bot.service.runtime.numbers import Numbers
from bot.service.runtime.outbox import Job, Later, Outbox
from bot.service.runtime.quoted import Quoted
from bot.service.runtime.writer import WriteBehind
from bot.service.team import TeamKnowledge
from bot.service.unknowns import Unknowns
from bot.store import Store
from bot.store.records import Decision, PostedRow

log = logging.getLogger(__name__)

RESUME_AFTER = 5.0  # seconds before posting the rest of an answer whose middle post failed
_ERROR_CODE = re.compile(r"[a-z_]{1,40}")


def answer_post(entry: EntryCard, match: MatchCard | None, locale: str) -> Post:
    """The one compact answer; 👍/👎 on it vote for the fix it shows (the diagnosis, if it has none)."""
    best = entry.workarounds[0] if entry.workarounds else None
    return Post(blocks.answer_message(entry, match), About(entry.id, best.index if best else None, locale))


class Answers:
    def __init__(self, knowledge: Knowledge, team: TeamKnowledge, store: Store, outlet: Outlet,
                 conversations: Conversations, channels: Channels, numbers: Numbers, unknowns: Unknowns,
                 writer: WriteBehind, quoted: Quoted, refresh: Refresh, alert_window: float,
                 clock: Callable[[], float] = time.time) -> None:
        self.knowledge = knowledge
        self.team = team
        self.outlet = outlet
        self.conversations = conversations
        self.channels = channels
        self.numbers = numbers
        self.unknowns = unknowns
        self.writer = writer
        self.quoted = quoted
        self.clock = clock
        self.outbox = Outbox(store, writer, self.carry_out, outlet.via_for, clock=clock)
        self.alerts = Alerts(store, self.outbox.record_done, refresh, alert_window, clock)

    # --- what to answer ---------------------------------------------------------------------

    async def message(self, m: Incoming, via: Via) -> None:
        """A new or edited message in a channel: record the decision to answer it, if there is one."""
        if m.author.own:
            return
        errorish = bool(has_error_line(m.text))  # once per message: the team lookup and the unknown count both ask
        matches = await self.find(m.workspace, m.text, errorish)
        if not matches and not m.files:
            if errorish:
                await self._unknown(m)
            return  # chat: it cost the match (and, for an error line, a counter) and nothing else
        mode, bots = await self.channels.settings(m.workspace, m.channel)
        if mode != "auto" or (m.author.bot and not bots):
            return
        if matches:
            if m.author.bot:  # an alert: answered once per error and channel within the window, else counted
                recorded = (await self.alerts.first(m, matches[0].entry_id, via)
                            and await self._decide_answer(m, matches[0], via, kind="alert"))
            else:
                recorded = await self._decide_answer(m, matches[0], via)
            metrics.outcome("answered" if recorded else "duplicate", matches[0].entry_id)
        else:
            recorded = await self.outbox.record(self._decision(m, "files", keys.message(m.workspace, m.channel, m.ts),
                                                               files=m.files), via)
            metrics.outcome("answered" if recorded else "duplicate")

    async def _unknown(self, m: Incoming) -> None:
        """Count the error nothing matched in ``m`` (which has an error line), where errkb listens."""
        if not m.author.bot:
            mode, _bots = await self.channels.settings(m.workspace, m.channel)
            if mode != "off":
                await self.unknowns.seen(m.workspace, m.channel, m.text, m.ts)

    def chat(self, text: str) -> bool:
        """True when a new message with ``text`` (and no files) needs nothing from errkb, as most traffic:
        no error line (nothing to count as unknown, no team entry to look up) and no known error in it.
        Chat is counted as a match of none here; anything else is matched and counted by ``message``."""
        if not text.strip():
            return True
        if has_error_line(text):
            return False
        began = time.perf_counter()
        if self.knowledge.find(text, limit=1):
            return False
        metrics.matched("none", time.perf_counter() - began)
        return True

    async def find(self, workspace: str, text: str, errorish: bool | None = None) -> list[Match]:
        """The best match for a message (the workspace's own team entries first: they were taught on an
        error line, so chat without one costs no store read), timed and counted by how it was found."""
        if not text.strip():
            return []
        if errorish is None:
            errorish = bool(has_error_line(text))
        team = await self.team.find(workspace, text) if errorish else []
        with metrics.timed_match() as found:
            matches = team or self.knowledge.find(text, limit=1)
            if matches:
                found(matches[0].how)
        return matches

    async def mention(self, m: Incoming, via: Via) -> None:
        """@errkb: diagnose the message, else the first message of its thread, else say why not."""
        if m.author.own:
            return
        mode, bots = await self.channels.settings(m.workspace, m.channel)
        if mode == "off" or (m.author.bot and not bots):
            return
        matches = await self.find(m.workspace, m.text)
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
            hit = family_hit(self.knowledge.kb.families, m.text)  # a documented code: its official page, no fix
            memo = (found, own_frame(m.text), hit) if found is not None or hit is not None else None
            await self.outbox.record(self._decision(m, "nothing", key), via, memo=memo)

    def _decision(self, m: Incoming, kind: str, key: str, entry_id: str | None = None,
                  files: tuple[str, ...] = ()) -> Decision:
        return Decision(key, kind, m.workspace, m.channel, m.thread_ts, m.ts, m.author.user, entry_id, files,
                        self.clock())

    async def _decide_answer(self, m: Incoming, match: Match, via: Via, created_at: float | None = None,
                             kind: str = "answer") -> bool:
        self.numbers.warm(m.workspace)  # once: the workspace's next answers need no store read for their numbers
        decision = self._decision(m, kind, keys.answer(m.workspace, m.channel, m.thread_ts, match.entry_id),
                                  match.entry_id)
        if created_at is not None:
            decision = replace(decision, created_at=created_at)
        return await self.outbox.record(decision, via, memo=match)

    async def taken(self, workspace: str, channel: str, thread_ts: str, entry_id: str, user: str) -> None:
        """``entry_id`` was posted in ``thread_ts`` by other means (a search result posted to the channel):
        the same error pasted there later is already answered."""
        await self.outbox.record_done(Decision(keys.answer(workspace, channel, thread_ts, entry_id), "answer",
                                               workspace, channel, thread_ts, thread_ts, user, entry_id, (),
                                               self.clock()))

    # --- carrying a decision out ------------------------------------------------------------

    async def carry_out(self, job: Job) -> bool | Later:
        """Do what a recorded decision says; False when it could not be done (it is then forgotten)."""
        d = job.decision
        via = job.via or self.outlet.via_for(d.workspace)
        if d.kind in ("answer", "alert"):
            return await self._answer(d, job.memo, via)
        incoming = Incoming(d.workspace, d.channel, d.message_ts, d.thread_ts, Author(d.user, own=False, bot=False), "")
        if d.kind == "files":
            text = await self.outlet.read_files(list(d.files), via)
            matches = await self.find(d.workspace, text)
            if matches:  # already taken when that error is answered in this thread: nothing more to do
                await self._decide_answer(incoming, matches[0], via, d.created_at)
            return True
        if d.kind == "root":
            root = await self.outlet.thread_root(d.channel, d.thread_ts, via)
            matches = await self.find(d.workspace, root.text) if root and not root.author.own else []
            if matches:
                if await self._decide_answer(incoming, matches[0], via, d.created_at):
                    return True
                return await self._note(d, "already", via)
            return await self._note(d, "nothing", via)
        if d.kind == "nothing" and job.memo is not None:
            found, frame, hit = job.memo
            return await self._unknown_note(d, found, frame, via, hit)
        return await self._note(d, d.kind, via)

    async def _unknown_note(self, d: Decision, found: Shape | None, frame: str | None, via: Via,
                            hit: FamilyHit | None = None) -> bool:
        """A mention on an unknown error: privately, what errkb could tell (its code's official page when it carries
        a documented one) and *Add to errkb*."""
        async with self.conversations.speaking(d.workspace, d.user, via):
            if hit is not None:
                message = family_message(card_of(hit))
            else:
                assert found is not None
                message = blocks.unknown_message(found.line, found.error_type, frame)
        thread = d.thread_ts if d.thread_ts != d.message_ts else None
        report = await self.outlet.send(Plan([Whisper(d.channel, d.user or "", thread, [message])]), via)
        return report.ok

    async def _note(self, d: Decision, kind: str, via: Via) -> bool:
        async with self.conversations.speaking(d.workspace, d.user, via):
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
        numbers = asyncio.ensure_future(self.numbers.get(d.workspace, d.entry_id))
        try:
            conversation = await self.conversations.open(d.workspace, d.user, via)
        except BaseException:
            numbers.cancel()
            raise
        live = {d.entry_id: await numbers}
        locale = conversation.locale  # the answer and its later redraws keep the reader's script
        with conversation.speaking():
            if match is not None and match.entry_id == d.entry_id:
                diagnosis = await self.knowledge.explain([match], record=False, live=live, workspace=d.workspace)
                best = diagnosis.best
                entry, shown = (best.entry, best) if best else (None, None)
            else:  # taken over from another process: the paste is gone, the entry is known
                entry, shown = await self.knowledge.card(d.entry_id, live[d.entry_id], d.workspace), None
            if entry is None:
                return False
            self.writer.hit(d.workspace, entry.id, locale)
            plan = Plan([Thread(d.workspace, d.channel, d.thread_ts, [answer_post(entry, shown, locale)])])
        return await self._post_answer(d, plan, via, first=True, shown=shown, memo=match)

    async def _post_answer(self, d: Decision, plan: Plan, via: Via, first: bool = False,
                           shown: MatchCard | None = None, memo: Match | None = None) -> bool | Later:
        def on_sent(sent: Sent) -> None:
            self.outbox.sent()  # in Slack now: on shutdown this decision is never handed to another process
            self.posted(d.workspace, sent, shown)

        report = await self.outlet.send(plan, via, on_sent=on_sent)
        if first and report.sent:
            metrics.FIRST_REPLY_SECONDS.observe(max(0.0, self.clock() - d.created_at))
            if d.kind == "alert" and d.entry_id is not None:
                await self.alerts.answered(d.workspace, d.channel, d.entry_id, report.sent[0].ts, via)
        metrics.ANSWERS.labels("posted" if report.ok else "partial" if report.sent else "failed").inc()
        if report.ok:
            return True
        failure = report.failures[0]
        if first and not report.sent:
            if not failure.permanent:  # Slack is down or failing: wait it out from the queue (the outbox's back-off)
                return Later(0.0, memo, transient=_reason(failure.reason))
            log.warning("gave up answering in %s: %s", d.channel, _reason(failure.reason))
            return False  # nothing posted, for good: forgotten, so the thread stays answerable
        (thread,) = plan.actions
        assert isinstance(thread, Thread)
        rest = Thread(thread.workspace, thread.channel, report.sent[0].thread_ts if report.sent else thread.thread_ts,
                      thread.posts[len(report.sent):])
        if failure.permanent:
            return True  # what was posted stays; the rest cannot be posted there
        return Later(RESUME_AFTER, rest)

    def posted(self, workspace: str, sent: Sent, match: MatchCard | None = None) -> None:
        """A message of ours is in Slack: remember what it shows (votes on it count), and the quoted line."""
        about = sent.post.about
        if match is not None:
            self.quoted.keep((workspace, sent.thread.channel, sent.ts), match)
        if about is not None:
            self.writer.posted(PostedRow(workspace, sent.thread.channel, sent.ts, about.entry_id, about.workaround,
                                         about.locale, sent.thread_ts))


def _reason(reason: str) -> str:
    """Slack's error code or the HTTP status (``http_503``), else ``connection``: a bounded label, no text."""
    if reason.isdigit():
        return f"http_{reason}"
    return reason if _ERROR_CODE.fullmatch(reason) else "connection"
