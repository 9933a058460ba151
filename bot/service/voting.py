"""Voting: 👍/👎 reactions, *Worked* / *Didn't work*, *Wrong error?*, and the answers they redraw.

A vote is stored before Slack's ack (``VoteQueue`` batches a storm into few writes). A vote that
changes a fix's numbers redraws the message that shows it, debounced and in place (``Refresher``); so
does another bot's alert counted on an answer (``bot.service.alerts``), which then shows the count.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot import i18n, metrics
from bot.i18n import _
from bot.render import blocks
from bot.service import refusals
from bot.service.conversation import Conversations
from bot.service.incoming import Click
from bot.service.knowledge import Knowledge
from bot.service.plans import Plan, Reply, Update
from bot.service.ports import Outlet, Via
from bot.service.runtime.caches import Expiring
from bot.service.runtime.numbers import Numbers
from bot.service.runtime.quoted import Key, Quoted
from bot.service.runtime.updates import Refresher
from bot.service.runtime.votes import VoteQueue
from bot.service.runtime.writer import WriteBehind
from bot.store import PostedMessage, Store
from bot.store.records import VoteEvent


def placement(thread: Sequence[PostedMessage], ts: str, entry_id: str) -> int:
    """A posted message's rank among its entry's fix messages in the thread: 1 is the answer itself
    (its fix is the one it shows), 2… the other fixes posted after it."""
    mine = sorted((m.ts or "" for m in thread if m.entry_id == entry_id and m.workaround is not None), key=float)
    return mine.index(ts) + 1 if ts in mine else 1


class Voting:
    def __init__(self, knowledge: Knowledge, store: Store, outlet: Outlet, conversations: Conversations,
                 numbers: Numbers, writer: WriteBehind, quoted: Quoted, update_delay: float = 1.0,
                 alert_window: float = 86400.0) -> None:
        self.knowledge = knowledge
        self.store = store
        self.outlet = outlet
        self.conversations = conversations
        self.numbers = numbers
        self.quoted = quoted
        self.alert_window = alert_window
        self.queue = VoteQueue(store, before=writer.settled)
        self._written = writer.settled  # a redraw reads the rows of messages just posted: written first
        self.updates = Refresher(self._render, self._send, self._tally, update_delay)
        self._vias: Expiring[str, Via] = Expiring(3600.0, size=1000)  # the latest client seen per workspace

    async def reaction(self, workspace: str, user: str, channel: str, ts: str, token: str, present: bool,
                       at: float, via: Via) -> None:
        """A 👍/👎 (``token``) added or removed on a message: a vote, if the message is one of ours."""
        outcome = await self.queue.submit(VoteEvent(workspace, user, at, token=token, present=present,
                                                    channel=channel, ts=ts))
        if outcome.posted is not None:
            metrics.VOTES.labels("reaction", str(bool(outcome.changed)).lower()).inc()
            metrics.outcome("answered", outcome.posted.entry_id)
        if outcome.changed and outcome.posted is not None:
            self.numbers.forget(workspace, outcome.posted.entry_id)
        if outcome.changed and outcome.posted is not None and outcome.posted.workaround is not None:
            self.refresh(workspace, channel, ts, via)

    async def button(self, click: Click, direction: int, via: Via) -> None:
        """Worked (+1) / Didn't work (-1); on an ephemeral answer the receipt comes privately."""
        target = blocks.vote_target(click.value)
        if target is None:
            return
        entry_id, index = target
        outcome = await self.queue.submit(VoteEvent(click.workspace, click.user, click.at, button=direction,
                                                    channel=click.channel, ts=click.ts, entry_id=entry_id,
                                                    workaround=index))
        if outcome.tally is None:  # nothing this workspace may vote on: retired, another workspace's, made up
            await refusals.not_here(self.conversations, self.outlet, click.workspace, click.user, via)
            return
        metrics.VOTES.labels("button", str(bool(outcome.changed)).lower()).inc()
        if outcome.changed:
            self.numbers.forget(click.workspace, outcome.posted.entry_id if outcome.posted else entry_id)
        if click.ts is not None and outcome.posted is not None:
            if outcome.changed:
                self.refresh(click.workspace, click.channel, click.ts, via)
            return
        if click.ts is None:  # an ephemeral message cannot be updated in place: say it privately
            async with self.conversations.speaking(click.workspace, click.user, via):
                entry = await self.knowledge.show(entry_id, click.workspace)
                workaround = entry.workaround(index) if entry else None
                if workaround is not None:
                    await self.outlet.send(Plan([Reply([blocks.vote_receipt(workaround)])]), via)

    async def wrong_error(self, click: Click, entry_id: str, via: Via) -> None:
        """*Wrong error?* counts against the diagnosis, never against a fix."""
        outcome = await self.queue.submit(VoteEvent(click.workspace, click.user, click.at, button=-1,
                                                    entry_id=entry_id, workaround=None))
        if outcome.tally is None:
            await refusals.not_here(self.conversations, self.outlet, click.workspace, click.user, via)
            return
        async with self.conversations.speaking(click.workspace, click.user, via):
            note = blocks.notice(_("Thanks: noted that this is not the error you have. Try {search}.").format(
                search=f"`{blocks.escape('/errkb search <words>')}`"))
        await self.outlet.send(Plan([Reply([note])]), via)

    def refresh(self, workspace: str, channel: str, ts: str, via: Via) -> None:
        """Redraw the message at ``ts`` with the numbers the store holds (debounced, in place)."""
        self._vias.put(workspace, via)
        self.updates.schedule((workspace, channel, ts))

    def forget_workspace(self, workspace: str) -> None:
        self._vias.forget(workspace)

    async def _render(self, key: Key) -> tuple[Update | None, object]:
        workspace, channel, ts = key
        await self._written()
        found = await self.store.message_record(workspace, channel, ts)
        if found is None or found.posted.workaround is None:
            return None, None
        posted, index = found.posted, found.posted.workaround
        with i18n.use_locale(posted.locale):
            entry = await self.knowledge.card(posted.entry_id, found.feedback, workspace)
            workaround = entry.workaround(index) if entry else None
            if entry is None or workaround is None:
                return None, None
            rank = placement(found.thread, ts, entry.id)
            seen = 0
            if rank == 1:  # the answer itself, still showing the fix it was posted with (and alerts counted on it)
                seen = await self.store.alert_count(workspace, channel, ts) or 0
                message = blocks.answer_message(entry, self.quoted.match(key, entry), shown=workaround, seen=seen,
                                                window=self.alert_window)
            else:
                message = blocks.fix_message(entry, workaround, rank)
        return Update(channel, ts, message), (workaround.votes_up, workaround.votes_down, seen)

    async def _tally(self, key: Key) -> object:
        tally = await self.store.message_tally(*key)
        if tally is None:
            return None
        seen = await self.store.alert_count(*key) or 0  # 0 too for a fix message: it shows no count
        return tally.up, tally.down, seen

    async def _send(self, key: Key, update: Update) -> tuple[bool, bool]:
        found, via = self._vias.peek(key[0])
        report = await self.outlet.send(Plan([update]), via if found and via else self.outlet.via_for(key[0]))
        if report.ok:
            return True, False
        return False, all(f.permanent for f in report.failures)
