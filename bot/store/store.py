"""The store: one object the CLI, the service and the Slack adapter share.

Each method is one transaction; the SQL lives in the modules it delegates to.

One workspace never sees another's data, and that is this API's job, not each caller's: every read and
write of team entries, suggested fixes, votes, unknown errors, channel and user settings and stats takes
the workspace of the request and its queries filter on it. Another workspace's team entry is not found
(None), its suggested fixes and their numbers are not there, and a vote naming either changes nothing.
Only the operator's calls (the CLI) pass ``workspace=None`` where a method allows it, to read them all.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.kb.entry import Entry
from bot.kb.feedback import EntryFeedback, Suggested, Tally, is_suggested
from bot.kb.team_entry import is_team_id
from bot.store import (
    alerts,
    decisions,
    integrity,
    retention,
    slack_state,
    stats,
    sync,
    team,
    team_entries,
    team_fixes,
    trends,
    votes,
)
from bot.store import batch as batch_writes
from bot.store.engine import PROBE_WAIT_S, WRITE_OPTION, Database, unavailable
from bot.store.export import crowd_raw
from bot.store.migrate import HEAD, upgrade_database
from bot.store.records import (
    AlertSeen,
    DayHits,
    Decision,
    MessageRecord,
    PostedMessage,
    PostedRow,
    Stats,
    SyncReport,
    TeamEntry,
    TeamVersion,
    UnknownError,
    UserPrefs,
    VoteEvent,
    VoteOutcome,
    VoteResult,
    WriteBatch,
)
from bot.store.targets import UnknownTarget

log = logging.getLogger(__name__)


async def _feedback(conn: AsyncConnection, entry_ids: list[str], workspace: str | None) -> dict[str, EntryFeedback]:
    """Votes per entry; with ``workspace``, as that workspace may see them: its own suggested fixes (no other
    workspace's fix numbers), and nothing of another workspace's team entry (an empty ``EntryFeedback``)."""
    if workspace is None:
        return await votes.feedback(conn, entry_ids)
    theirs = await team_entries.foreign(conn, workspace, [i for i in entry_ids if is_team_id(i)])
    live = await votes.feedback(conn, [i for i in entry_ids if i not in theirs])
    mine = await team_fixes.suggested(conn, workspace, [i for i in entry_ids if i not in theirs])
    found = {}
    for entry_id in entry_ids:
        if entry_id in theirs:
            found[entry_id] = EntryFeedback()
            continue
        f, suggested = live[entry_id], mine.get(entry_id, ())
        shown = {s.index for s in suggested}
        found[entry_id] = replace(f, suggested=suggested, workarounds={
            i: t for i, t in f.workarounds.items() if not is_suggested(i) or i in shown})
    return found


class Store:
    """Entries, votes, hits and Slack-side state in SQLite (default) or PostgreSQL."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self.clock = clock  # wall-clock seconds; tests may replace it

    @classmethod
    async def open(cls, url: str) -> Store:
        """Connect to ``url`` and migrate its schema to the newest revision."""
        db = Database(url)
        try:
            await upgrade_database(db)
        except Exception as exc:  # whatever the driver raises: refused, timed out, role missing, disk full …
            await db.dispose()
            raise unavailable(exc, url) from exc
        except BaseException:
            await db.dispose()
            raise
        return cls(db)

    async def close(self) -> None:
        await self._db.dispose()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    # --- the knowledge base ---------------------------------------------------------------

    async def sync_entries(self, entries: Mapping[str, Entry]) -> SyncReport:
        """Store the whole KB (idempotent). Raises ``SeedError`` and writes nothing if any entry is invalid."""
        sync.refuse_invalid(entries)
        return await self._db.write(partial(sync.sync, entries=entries, now=self.clock()))

    async def feedback(self, entry_ids: Iterable[str], workspace: str | None = None) -> dict[str, EntryFeedback]:
        """Votes per entry; with ``workspace``, also the fixes its members suggested (``EntryFeedback.suggested``)."""
        ids = list(dict.fromkeys(entry_ids))
        if not ids:
            return {}
        return await self._db.read(partial(_feedback, entry_ids=ids, workspace=workspace))

    async def export_raws(self, entries: Mapping[str, Entry]) -> list[dict]:
        """Each entry's raw object with the crowd-updated numbers (see ``bot.store.export``)."""
        live = await self.feedback(entries)
        return [crowd_raw(entry, live[entry_id]) for entry_id, entry in entries.items()]

    # --- votes ------------------------------------------------------------------------------

    async def record_vote(
        self, workspace: str, user: str, entry_id: str, workaround: int | None, token: str, present: bool, at: float
    ) -> VoteResult:
        """A 👍/👎 mark (``token``, see ``bot.kb.feedback``) added (``present``) or removed at Slack time
        ``at``; ``workaround`` None: the diagnosis. Other tokens change nothing. Raises
        ``UnknownTarget`` for an entry or workaround the store does not have."""
        return self._result(await self.record_votes([VoteEvent(workspace, user, at, token=token, present=present,
                                                               entry_id=entry_id, workaround=workaround)]),
                            entry_id, workaround)

    async def record_button(
        self, workspace: str, user: str, entry_id: str, workaround: int, vote: int, at: float
    ) -> VoteResult:
        """A Worked (``vote`` +1) or Didn't work (-1) click at Slack time ``at``."""
        if vote not in (1, -1):
            raise ValueError(f"a button vote is +1 or -1, got {vote!r}")
        return self._result(await self.record_votes([VoteEvent(workspace, user, at, button=vote, entry_id=entry_id,
                                                               workaround=workaround)]), entry_id, workaround)

    async def record_votes(self, events: Sequence[VoteEvent]) -> list[VoteOutcome]:
        """Many vote events, in order, in one transaction (see ``bot.store.votes.apply_batch``)."""
        return await self._db.write(partial(votes.apply_batch, events=events))

    @staticmethod
    def _result(outcomes: list[VoteOutcome], entry_id: str, workaround: int | None) -> VoteResult:
        outcome = outcomes[0]
        if outcome.tally is None:
            raise UnknownTarget(entry_id, workaround)
        return VoteResult(outcome.changed, outcome.tally)

    # --- usage ------------------------------------------------------------------------------

    async def record_hit(self, entry_id: str, locale: str, day: dt.date | None = None, workspace: str = "") -> None:
        """Count one match of ``entry_id`` (UTC day, reader's locale). The paste itself is never stored."""
        day = day or dt.datetime.fromtimestamp(self.clock(), dt.UTC).date()
        await self._db.write(partial(stats.record_hits, counts={(workspace, entry_id, locale, day): 1}))

    async def stats(self, limit: int = 10, workspace: str | None = None) -> Stats:
        """Usage figures: all of them, or (``workspace``) only that workspace's hits and votes."""
        return await self._db.read(partial(stats.stats, limit=limit, workspace=workspace))

    async def hit_counts(self, workspace: str | None = None) -> dict[str, int]:
        """How often each entry was the best match (a ranking signal for search)."""
        return await self._db.read(partial(stats.hit_counts, workspace=workspace))

    async def daily_hits(self, workspace: str, since: dt.date) -> list[DayHits]:
        """``workspace``'s matches per UTC day and entry from ``since`` on (the dashboard's time series)."""
        return await self._db.read(partial(trends.daily_hits, workspace=workspace, since=since))

    @property
    def engine(self) -> Any:
        """An ``AsyncEngine`` for slack_sdk's OAuth stores (``bot.slack.oauth``): each of its transactions
        takes the write lock at once (SQLite's ``BEGIN IMMEDIATE``), as they read, then write."""
        return self._db.engine.execution_options(**{WRITE_OPTION: True})

    # --- unknown errors (their masked shapes only) ------------------------------------------

    async def seen_unknown(self, workspace: str, channel: str, digest: str, shape: str,
                           error_type: str | None) -> None:
        """Count one sighting of an unknown error's masked shape in ``workspace``."""
        await self._db.write(partial(team.seen_unknown, workspace=workspace, digest=digest, shape=shape,
                                     error_type=error_type, channel=channel, now=self.clock()))

    async def unknown_errors(self, workspace: str | None = None, limit: int = 10) -> list[UnknownError]:
        return await self._db.read(partial(team.unknown_errors, workspace=workspace, limit=limit))

    async def remembers_unknown(self, workspace: str) -> bool:
        return await self._db.read(partial(team.remembers_unknown, workspace=workspace))

    async def set_remember_unknown(self, workspace: str, on: bool) -> None:
        await self._db.write(partial(team.set_remember_unknown, workspace=workspace, on=on))

    # --- alerts from other bots (ids and counts only: ``bot.store.alerts``) ------------------

    async def alert_seen(self, workspace: str, channel: str, key: str, window: float) -> AlertSeen:
        """Count one alert of error ``key`` in ``channel``: the first in ``window`` seconds has count 1."""
        return await self._db.write(partial(alerts.seen, workspace=workspace, channel=channel, key=key,
                                            now=self.clock(), window=window))

    async def alert_answered(self, workspace: str, channel: str, key: str, ts: str) -> int | None:
        """errkb answered error ``key``'s alerts in ``channel`` with message ``ts``; the alerts counted so far."""
        return await self._db.write(partial(alerts.answered, workspace=workspace, channel=channel, key=key, ts=ts))

    async def alert_count(self, workspace: str, channel: str, answer_ts: str) -> int | None:
        """How many alerts errkb's message ``answer_ts`` answers (None: it answers none)."""
        return await self._db.read(partial(alerts.count, workspace=workspace, channel=channel, answer_ts=answer_ts))

    # --- team-written entries (``bot.store.team_entries``) ---------------------------------

    async def add_team_entry(self, workspace: str, author: str, locale: str, body: dict[str, Any], regex: str,
                             example: str) -> TeamEntry:
        """Store a new live team entry written by ``author`` in ``locale``; its id is ``team-<workspace>/<n>``."""
        return await self._db.write(partial(team_entries.add, workspace=workspace, author=author, locale=locale,
                                            body=body, regex=regex, example=example, now=self.clock()))

    async def edit_team_entry(self, workspace: str, entry_id: str, body: dict[str, Any], regex: str,
                              example: str | None = None, editor: str | None = None) -> TeamEntry | None:
        """Replace ``workspace``'s team entry's texts and regex (votes on kept workarounds stay); None when it
        has none by that id (another workspace's is not found)."""
        return await self._db.write(partial(team_entries.edit, workspace=workspace, entry_id=entry_id, body=body,
                                            regex=regex, example=example, now=self.clock(), editor=editor))

    async def set_team_status(self, workspace: str, entry_id: str, status: str,
                              reviewer: str | None) -> TeamEntry | None:
        """``live``, ``verified`` or ``retired`` (stops answering); None when ``workspace`` has no such team entry."""
        return await self._db.write(partial(team_entries.set_status, workspace=workspace, entry_id=entry_id,
                                            status=status, reviewer=reviewer, now=self.clock()))

    async def team_entry(self, workspace: str, entry_id: str) -> TeamEntry | None:
        """``workspace``'s team entry ``entry_id``; None when there is none (another workspace's is not found)."""
        return await self._db.read(partial(team_entries.get, workspace=workspace, entry_id=entry_id))

    async def team_entries(self, workspace: str | None,
                           statuses: tuple[str, ...] = team_entries.ANSWERING) -> list[TeamEntry]:
        """``workspace``'s team entries (None: every workspace's) with one of ``statuses``, oldest first."""
        return await self._db.read(partial(team_entries.listed, workspace=workspace, statuses=statuses))

    async def team_version(self, workspace: str) -> TeamVersion:
        """Changes whenever one of ``workspace``'s team entries is added, edited or changes status."""
        return await self._db.read(partial(team_entries.version, workspace=workspace))

    # --- suggested fixes (``bot.store.team_fixes``) -----------------------------------------

    async def suggest_fix(self, workspace: str, entry_id: str, author: str, locale: str, text: str,
                          text_other: str | None = None) -> Suggested | None:
        """Add ``author``'s fix to ``entry_id``'s workarounds in ``workspace``; None when the entry is not live (or
        is another workspace's team entry)."""
        return await self._db.write(partial(team_fixes.add, workspace=workspace, entry_id=entry_id, author=author,
                                            locale=locale, text=text, text_other=text_other, now=self.clock()))

    async def translate_fix(self, workspace: str, index: int, text: str) -> bool:
        """Add the other language's text to a suggestion that has none; False when it has one (or is not there)."""
        return await self._db.write(partial(team_fixes.translate, workspace=workspace, index=index, text=text))

    async def review_fix(self, workspace: str, index: int, status: str) -> bool:
        """A reviewer marks a suggestion ``verified`` or ``retired``; False when it is not (or no longer) showing."""
        if status not in (team_fixes.VERIFIED, team_fixes.RETIRED):
            raise ValueError(f"not a review status: {status!r}")
        return await self._db.write(partial(team_fixes.review, workspace=workspace, index=index, status=status,
                                            now=self.clock()))

    async def suggested_fixes(self, workspace: str) -> dict[str, tuple[Suggested, ...]]:
        """Every live suggestion of ``workspace``, by entry id."""
        return await self._db.read(partial(team_fixes.suggested, workspace=workspace))

    # --- retention ------------------------------------------------------------------------

    async def prune(self, keep: retention.Retention) -> retention.Removed:
        """Delete what is older than ``keep`` allows (see ``bot.store.retention``)."""
        return await self._db.write(partial(retention.prune, retention=keep, now=self.clock()))

    async def delete_workspace(self, team_id: str) -> retention.Removed:
        """Remove one workspace's data and installation; its votes stay as anonymous counts."""
        return await self._db.write(partial(retention.delete_workspace, team_id=team_id))

    # --- integrity --------------------------------------------------------------------------

    async def check(self) -> list[str]:
        """Every difference between the counters and the vote rows, in words; [] when consistent."""
        return await self._db.read(integrity.check)

    async def repair(self) -> int:
        """Set every counter to what the vote rows say; returns how many rows were fixed."""
        return await self._db.write(integrity.repair)

    async def ready(self) -> bool:
        return await self.readiness() is None

    async def readiness(self) -> str | None:
        """Why the store cannot do its job now, or None when it can (for ``/readyz``): it must answer,
        have the newest schema and take a write (a full disk or a read-only replica fails that)."""
        async def revision(conn: AsyncConnection) -> str | None:
            await conn.execute(text("UPDATE alembic_version SET version_num = version_num"))
            return (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar_one_or_none()
        try:
            found = await self._db.probe(revision)
        except TimeoutError:
            return f"store busy: this process's writes have waited over {PROBE_WAIT_S:.0f} s for their turn"
        except Exception as exc:  # what the driver says: disk full, read-only, locked, connection lost …
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
            return f"store not writable: {reason[0] if reason else type(exc).__name__}"
        return None if found == HEAD else f"store schema is {found}, expected {HEAD} (run `errkb db upgrade`)"

    # --- Slack-side state -------------------------------------------------------------------

    async def flush(self, batch: WriteBatch) -> list[PostedRow]:
        """Write a batch in one transaction; returns the messages whose target is unknown (not remembered).

        The prepared statements on the driver's own connection (``bot.store.batch``); if that fails (a
        dropped connection, a locked database), a transaction with retries: nothing was committed."""
        now = self.clock()
        try:
            async with self._db.driver() as driver:
                return await batch_writes.write(driver, self._db.dialect, batch, now)
        except Exception as exc:
            log.warning("writing a batch on the driver's connection failed (%s); retrying in a transaction",
                        type(exc).__name__)

        async def work(conn: AsyncConnection) -> list[PostedRow]:
            unknown = await slack_state.remember_messages(conn, batch.messages, now) if batch.messages else []
            if batch.finished:
                await decisions.finish(conn, batch.finished)
            if batch.forgotten:
                await decisions.forget(conn, batch.forgotten)
            await stats.record_hits(conn, batch.hits)
            return unknown

        return await self._db.write(work)

    # --- recorded decisions (see ``bot.store.models.DecisionRow``) ---------------------------

    async def record_decision(self, decision: Decision, owner: str, lease_until: float,
                              done: bool = False) -> int | None:
        """Record ``decision`` held by ``owner``; its id, or None when its key is already taken.

        One statement on the driver's connection; if that fails (a dropped connection, a locked
        database), a transaction with retries. A first try that was committed but not reported finds
        the key taken: the decision is then not queued here, and its lease runs out and it is taken
        over (``Outbox``), so it is still carried out once."""
        try:
            async with self._db.driver() as driver:
                return await decisions.record_now(driver, self._db.dialect, decision, owner, lease_until, done)
        except Exception as exc:
            log.warning("recording a decision in one statement failed (%s); retrying in a transaction",
                        type(exc).__name__)
        return await self._db.write(partial(decisions.record, decision=decision, owner=owner,
                                            lease_until=lease_until, done=done))

    async def renew_decisions(self, owner: str, ids: Sequence[int], lease_until: float) -> int:
        return await self._db.write(partial(decisions.renew, owner=owner, ids=ids, until=lease_until))

    async def take_expired_decisions(self, owner: str, lease_until: float, limit: int = 50) -> list[Decision]:
        """Unfinished decisions whose holder stopped renewing them, oldest first, now held by ``owner``."""
        if not await self._db.read(partial(decisions.any_expired, now=self.clock())):
            return []  # the usual case costs a read, not a write
        return await self._db.write(partial(decisions.take_expired, owner=owner, now=self.clock(),
                                            until=lease_until, limit=limit))

    async def release_decisions(self, owner: str) -> None:
        """Let any process take ``owner``'s unfinished decisions at once (on shutdown)."""
        await self._db.write(partial(decisions.release, owner=owner))

    async def pending_decisions(self) -> int:
        return await self._db.read(decisions.pending_count)

    async def remember_message(
        self, workspace: str, channel: str, ts: str, entry_id: str, workaround: int | None, locale: str,
        thread_ts: str | None = None,
    ) -> None:
        """Note that the bot's message ``ts`` shows ``entry_id``'s workaround (None: its diagnosis)."""
        unknown = await self.flush(WriteBatch(messages=[PostedRow(workspace, channel, ts, entry_id, workaround, locale,
                                                                  thread_ts)]))
        if unknown:
            raise UnknownTarget(entry_id, workaround)

    async def message_record(self, workspace: str, channel: str, ts: str) -> MessageRecord | None:
        """What an in-place update needs, in one read: the message, its thread and its entry's votes."""
        async def work(conn: AsyncConnection) -> MessageRecord | None:
            posted = await slack_state.message_target(conn, workspace, channel, ts)
            if posted is None:
                return None
            thread = (await slack_state.thread_messages(conn, workspace, channel, posted.thread_ts)
                      if posted.thread_ts else [])
            live = await _feedback(conn, [posted.entry_id], workspace)
            return MessageRecord(posted, thread, live[posted.entry_id])
        return await self._db.read(work)

    async def message_tally(self, workspace: str, channel: str, ts: str) -> Tally | None:
        """The votes on what one of the bot's messages shows (None: not ours)."""
        return await self._db.read(partial(slack_state.message_tally, workspace=workspace, channel=channel, ts=ts))

    async def message_target(self, workspace: str, channel: str, ts: str) -> PostedMessage | None:
        return await self._db.read(partial(slack_state.message_target, workspace=workspace, channel=channel, ts=ts))

    async def thread_messages(self, workspace: str, channel: str, thread_ts: str) -> list[PostedMessage]:
        """The bot's messages in a thread (``ts`` set), oldest first; retired targets left out."""
        return await self._db.read(partial(slack_state.thread_messages, workspace=workspace, channel=channel,
                                           thread_ts=thread_ts))

    async def user_prefs(self, workspace: str, user: str) -> UserPrefs:
        return await self._db.read(partial(slack_state.user_prefs, workspace=workspace, user=user))

    async def set_locale_override(self, workspace: str, user: str, locale: str | None) -> None:
        """``locale`` None clears the override (``/errkb locale auto``)."""
        await self._db.write(partial(slack_state.set_prefs, workspace=workspace, user=user, locale_override=locale))

    async def cache_slack_locale(self, workspace: str, user: str, locale: str | None) -> None:
        """Remember the locale Slack reported for a user, stamped with the current time."""
        await self._db.write(partial(slack_state.set_prefs, workspace=workspace, user=user, slack_locale=locale,
                                     slack_locale_fetched_at=self.clock()))

    async def claim_event(self, event_id: str, ttl_seconds: int = 86400) -> bool:
        """True exactly once per ``event_id`` (across processes sharing the database) until it expires."""
        return await self._db.write(partial(slack_state.claim_event, event_id=event_id, ttl_seconds=ttl_seconds,
                                            now=self.clock()))

    async def all_channel_settings(self) -> dict[tuple[str, str], tuple[str, bool]]:
        """Every configured channel's mode and whether it answers other bots, in one read."""
        return await self._db.read(slack_state.all_channel_settings)

    async def channel_mode(self, workspace: str, channel: str) -> str:
        """``auto`` (default: answer pastes), ``mention`` (only when mentioned) or ``off``."""
        return await self._db.read(partial(slack_state.channel_mode, workspace=workspace, channel=channel))

    async def set_channel_mode(self, workspace: str, channel: str, mode: str) -> None:
        await self._db.write(partial(slack_state.set_channel_mode, workspace=workspace, channel=channel, mode=mode))

    async def channel_bots(self, workspace: str, channel: str) -> bool:
        """Whether other bots' messages are answered in this channel (default: no)."""
        return await self._db.read(partial(slack_state.channel_bots, workspace=workspace, channel=channel))

    async def set_channel_bots(self, workspace: str, channel: str, bots: bool) -> None:
        await self._db.write(partial(slack_state.set_channel_bots, workspace=workspace, channel=channel, bots=bots))
