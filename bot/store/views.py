"""What the store hands back: small frozen dataclasses, no ORM objects."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from bot.kb.feedback import Tally


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
class Stats:
    """Usage and feedback totals for ``errkb stats`` and ``/errkb stats``."""

    top_entries: list[EntryHits]
    top_workarounds: list[WorkaroundVotes]
    hits_by_locale: dict[str, int]
    votes_up: int
    votes_down: int
    diagnosis_up: int
    diagnosis_down: int
    voters: int


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
