"""What the store hands back: small frozen dataclasses, no ORM objects."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, fields

from bot.kb.feedback import EntryFeedback, Tally, Totals


@dataclass(frozen=True)
class SyncReport:
    """What ``Store.sync_entries`` did, by entry id.

    ``retired`` lists entries no longer in the seeds (kept, with their votes, but no longer
    votable); ``retired_workarounds`` lists workarounds removed from a still-present entry, as
    ``"<entry id> workarounds[<old index>]"``.
    """

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    retired_workarounds: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class VoteResult:
    """``changed`` is whether the user's effective vote (and so the tally) moved."""

    changed: bool
    tally: Tally


@dataclass(frozen=True)
class EntryHits:
    entry_id: str
    hits: int


@dataclass(frozen=True)
class WorkaroundVotes:
    entry_id: str
    workaround: int
    up: int
    down: int


@dataclass(frozen=True)
class Stats(Totals):
    """Usage and feedback totals for ``errkb stats`` and ``/errkb stats``, with the most matched entries and
    most voted workarounds behind them."""

    top_entries: list[EntryHits] = field(default_factory=list)
    top_workarounds: list[WorkaroundVotes] = field(default_factory=list)

    @property
    def totals(self) -> Totals:
        """The totals alone."""
        return Totals(**{f.name: getattr(self, f.name) for f in fields(Totals)})


@dataclass(frozen=True)
class PostedMessage:
    """What one of the bot's messages is about; ``workaround`` None means the diagnosis message."""

    entry_id: str
    workaround: int | None
    locale: str
    thread_ts: str | None = None
    ts: str | None = field(default=None, compare=False)  # the message's own ts, where the caller wants it


@dataclass(frozen=True)
class UserPrefs:
    override: str | None = None
    slack_locale: str | None = None
    fetched_at: dt.datetime | None = None


@dataclass(frozen=True)
class Decision:
    """A recorded decision to answer (see ``bot.store.models.DecisionRow``)."""

    key: str
    kind: str  # "answer" | "alert" (an answer to another bot's alert) | "alert_seen" | "files" | "mention" | "note"
    workspace: str
    channel: str
    thread_ts: str
    message_ts: str
    user: str | None = None
    entry_id: str | None = None
    files: tuple[str, ...] = ()
    created_at: float = 0.0
    id: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class VoteEvent:
    """One 👍/👎 (``token``, ``present``) or button (``button`` ±1) event on a target, at Slack time ``at``.

    The target is a posted message (``channel``, ``ts``) or, for a button on a message errkb does not
    know (an ephemeral answer), ``entry_id`` and ``workaround``."""

    workspace: str
    user: str
    at: float
    token: str | None = None
    present: bool = True
    button: int = 0
    channel: str | None = None
    ts: str | None = None
    entry_id: str | None = None
    workaround: int | None = None


@dataclass(frozen=True)
class VoteOutcome:
    """What one vote event did: the message it was on (None: not ours), whether the vote moved, the tally."""

    posted: PostedMessage | None
    changed: bool
    tally: Tally | None  # None: no such target


@dataclass(frozen=True)
class PostedRow:
    """One of the bot's messages to remember: what it shows (``workaround`` None: the diagnosis)."""

    workspace: str
    channel: str
    ts: str
    entry_id: str
    workaround: int | None
    locale: str
    thread_ts: str | None


@dataclass
class WriteBatch:
    """Writes that may wait a moment and go together in one transaction."""

    messages: list[PostedRow] = field(default_factory=list)
    finished: list[int] = field(default_factory=list)  # decision ids carried out
    forgotten: list[int] = field(default_factory=list)  # decision ids dropped (the thread stays answerable)
    # (workspace, entry, locale, day) → count
    hits: dict[tuple[str, str, str, dt.date], int] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.messages or self.finished or self.forgotten or self.hits)


@dataclass(frozen=True)
class MessageRecord:
    """One of the bot's messages with its thread (oldest first) and its entry's votes."""

    posted: PostedMessage
    thread: list[PostedMessage]
    feedback: EntryFeedback


@dataclass(frozen=True)
class AlertSeen:
    """An alert counted: alerts of its error in its channel within the window (1: the first, to answer),
    and errkb's answer to them, once posted."""

    count: int
    answer_ts: str | None


@dataclass(frozen=True)
class UnknownError:
    """An error errkb could not answer, as stored: its masked decisive line and how often it came."""

    workspace: str
    digest: str
    shape: str
    error_type: str | None
    channel: str
    count: int
    first_seen: float
    last_seen: float


@dataclass(frozen=True)
class TeamEntry:
    """A team-written entry as stored (``bot.kb.team_entry``); ``body`` is its texts, already parsed."""

    entry_id: str
    workspace: str
    author: str
    locale: str
    body: dict
    regex: str
    example: str
    status: str  # live | verified | retired
    reviewer: str | None
    created_at: float
    updated_at: float


@dataclass(frozen=True)
class TeamVersion:
    """What changes whenever one of a workspace's team entries does: compare it to know a cache is stale."""

    updated_at: float
    count: int


@dataclass(frozen=True)
class DayHits:
    """How often one entry was the best match on one UTC day (all locales together)."""

    day: dt.date
    entry_id: str
    hits: int
