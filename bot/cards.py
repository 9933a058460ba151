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
    fit: int = 1  # how its condition stands against the reader's paste: 0 ruled out, 1 unknown, 2 fits (kb.fit.Fit)

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
    fix_success_rate: float | None  # the authors' estimate with every fix's votes pooled; None: neither
    resolvable: str
    last_confirmed: dt.date | None = None
    root_cause_untranslated: bool = False
    related: dict[str, list[RelatedCard]] = field(default_factory=dict)
    voters: int = 0  # distinct people who voted on this entry here
    regex: str = ""  # what finds the error in a line (to quote the reader's decisive part)
    team_author: str | None = None  # the Slack user who wrote it, for a team-written entry
    team_reviewer: str | None = None  # the reviewer who verified a team-written entry (None: not reviewed)
    values_text: tuple[str, ...] = ()  # sentences that say the reader's values ({name}: the regex's named groups)

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


TEAM_ECOSYSTEM = "team"  # the series of a workspace's own team entries
OTHER_ECOSYSTEM = "other"  # the series of the ecosystems past the dashboard's first few


@dataclass(frozen=True)
class EcosystemSeriesCard:
    """One ecosystem's matches per day, aligned with ``DashboardCard.days``."""

    ecosystem: str
    counts: tuple[int, ...]


@dataclass(frozen=True)
class FixVotesCard:
    """A fix this workspace voted on: how often it worked for the team, and the votes behind that."""

    entry_id: str
    signature: str
    text: str
    worked: int
    failed: int

    @property
    def rate(self) -> float:
        return self.worked / (self.worked + self.failed) if self.worked + self.failed else 0.0


@dataclass(frozen=True)
class AwaitingReviewCard:
    """A team entry that answers but no reviewer has verified yet."""

    entry_id: str
    title: str
    author: str
    waiting_days: int


@dataclass(frozen=True)
class DashboardCard:
    """One workspace's team dashboard: what it hits, what worked, what is still unknown or unreviewed."""

    days: tuple[dt.date, ...]  # the window, oldest first
    series: tuple[EcosystemSeriesCard, ...]  # most matched ecosystem first
    top: tuple[TopEntryCard, ...]  # the most matched entries in the window
    fixes: tuple[FixVotesCard, ...]  # the fixes with the most votes here
    unknown: tuple[UnknownLineCard, ...]  # errors waiting to be taught (masked shapes)
    remembering: bool  # whether this workspace keeps unknown errors' shapes at all
    awaiting: tuple[AwaitingReviewCard, ...]  # team entries not yet verified, longest waiting first

    @property
    def matches(self) -> int:
        return sum(sum(s.counts) for s in self.series)
