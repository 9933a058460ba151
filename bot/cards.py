"""What the service decides and the renderers show: plain data, texts already in the reader's locale."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from bot.kb.feedback import Totals


@dataclass(frozen=True)
class DeadEndCard:
    text: str  # the whole item: what people try and why it fails
    fail_rate: float
    untranslated: bool = False
    action: str = ""  # what people try ("" when the KB gives only why it fails)
    why: str = ""  # why it fails ("" when ``text`` cannot be split)
    condition: str = ""
    condition_untranslated: bool = False


@dataclass(frozen=True)
class WorkaroundCard:
    index: int  # position in the seed entry; votes hang off it
    text: str
    success_rate: float
    votes_up: int
    votes_down: int
    untranslated: bool = False
    condition: str = ""
    prior: float | None = None  # the KB authors' estimate before any vote here
    condition_untranslated: bool = False
    author: str | None = None  # who suggested it in this workspace (None: the KB's own fix)
    verified: bool = False  # a suggested fix a reviewer vouched for

    @property
    def votes(self) -> int:
        return self.votes_up + self.votes_down


@dataclass(frozen=True)
class RelatedCard:
    """A related entry, named by its signature in the reader's locale."""

    id: str
    signature: str


@dataclass(frozen=True)
class EntryCard:
    id: str
    domain: str
    signature: str
    root_cause: str
    dead_ends: list[DeadEndCard]
    workarounds: list[WorkaroundCard]  # best first (by the lower bound of their live rate)
    versions: list[str]
    official_doc_url: str | None
    verification_tier: str
    confidence: float
    evidence_count: int
    fix_success_rate: float
    resolvable: str
    last_confirmed: dt.date | None = None
    root_cause_untranslated: bool = False
    related: dict[str, list[RelatedCard]] = field(default_factory=dict)
    voters: int = 0  # distinct people who voted on this entry here
    regex: str = ""  # what finds the error in a line (to quote the reader's decisive part)
    team_author: str | None = None  # the Slack user who wrote it, for a team-written entry
    team_reviewer: str | None = None  # the reviewer who verified a team-written entry (None: not reviewed)

    def workaround(self, index: int) -> WorkaroundCard | None:
        return next((w for w in self.workarounds if w.index == index), None)


@dataclass(frozen=True)
class MatchCard:
    entry: EntryCard
    how: str  # "regex" | "fuzzy"
    score: float
    span: tuple[int, int]
    line: str


@dataclass(frozen=True)
class Diagnosis:
    locale: str
    matches: list[MatchCard]

    @property
    def best(self) -> MatchCard | None:
        return self.matches[0] if self.matches else None


@dataclass(frozen=True)
class SearchResultCard:
    id: str
    score: float
    signature: str
    domain: str
    reasons: dict[str, list[str]]


@dataclass(frozen=True)
class TopEntryCard:
    """An entry among the most matched, with its signature in the reader's locale."""

    id: str
    signature: str
    hits: int


@dataclass(frozen=True)
class TrustedWorkaroundCard:
    entry_id: str
    signature: str
    workaround: WorkaroundCard


@dataclass(frozen=True)
class UsageCard:
    """What ``/errkb stats`` and the App Home show: the workspace's errors and trusted fixes."""

    entries: int
    top_entries: list[TopEntryCard]
    trusted: list[TrustedWorkaroundCard]
    totals: Totals = field(default_factory=Totals)  # matches by language, votes, voters


@dataclass(frozen=True)
class HomeCard:
    setting: str  # "auto" or one of i18n.READING: the user's choice
    locale: str  # the locale in effect
    usage: UsageCard
    unknown: tuple[UnknownLineCard, ...] = ()  # this workspace's most frequent errors errkb could not answer
    remembering: bool = True  # whether this workspace keeps them (``/errkb unknown on|off``)
    team: tuple[TeamLineCard, ...] = ()  # this workspace's team-written entries still answering


@dataclass(frozen=True)
class TeamLineCard:
    """A team-written entry as App Home lists it."""

    entry_id: str
    title: str
    author: str
    status: str  # live | verified
    untranslated: bool = False  # written in another language than the reader's, and not yet translated


@dataclass(frozen=True)
class UnknownLineCard:
    """An error errkb could not answer, as it is kept: the masked decisive line and how often it came."""

    line: str
    error_type: str | None
    count: int
    last_seen: float
