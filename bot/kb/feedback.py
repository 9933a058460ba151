"""Crowd feedback maths: mark state, vote polarity, success rates and ranking.

A reader's vote on a workaround comes from the marks (reactions, buttons) they currently hold there:
👍 only → up, 👎 only → down, both or neither → no vote. Each reaction keeps the timestamp of the
last event that touched it, and an event older than that is ignored, so any sequence of
add/remove events — repeated, duplicated or delivered out of order — ends in the state the
message really shows.

Success rate is the posterior mean of a Beta prior centred on the seed's ``success_rate`` (the KB
authors' estimate, worth a few pseudo-votes)::

    n0    = 2 + 3 * confidence                 (prior weight: 2 to 5 pseudo-votes)
    rate  = (p0 * n0 + up) / (n0 + up + down)

and workarounds are ranked by a lower bound of that posterior (mean − 1.2816·sd, a one-sided
90% bound), so a single 👍 cannot lift a weak workaround above a well-established one.

A fix with no estimate (*unrated*: a seed workaround without ``success_rate``) and a fix a teammate
suggests from Slack (``Suggested``) start from a deliberately weak prior: 50% worth one vote
(``WEAK_PRIOR``, ``WEAK_WEIGHT``), which nobody reads as a rate: such a fix shows its votes only.
Unvoted, it ranks below the KB's estimated fixes (lower bound ≈ 0.05), in the authors' order; three 👍
out of three lift it above a typical estimated 70% fix, and a 👎 sinks it at once. A suggestion's
workaround index is ``SUGGESTED_BASE`` + its id, far above any KB index, so votes address it like any
other fix.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

# A token names one held mark: an up mark starts with "+", a down mark with "-" (the adapter
# spells its reactions that way, e.g. "+1::skin-tone-3@C1/170.1"); the two buttons are marks too.
UP = "+"
DOWN = "-"
BUTTON_UP = "button:up"
BUTTON_DOWN = "button:down"
LOWER_BOUND_Z = 1.2816


def token_polarity(token: str) -> int:
    """+1 for an up mark, -1 for a down mark, 0 for anything else."""
    if token.startswith(UP) or token == BUTTON_UP:
        return 1
    if token.startswith(DOWN) or token == BUTTON_DOWN:
        return -1
    return 0


@dataclass(frozen=True)
class Mark:
    """Whether one reaction (or button choice) is held, as of the event time ``at``."""

    present: bool
    at: float


Ledger = Mapping[str, Mark]


def apply_event(ledger: Ledger, token: str, present: bool, at: float) -> dict[str, Mark]:
    """The ledger after an add (``present``) or remove of ``token`` at time ``at``.

    An event older than what the ledger already knows about ``token`` changes nothing; at the
    same instant a removal wins, so a duplicated add/remove pair settles on "removed".
    """
    updated = dict(ledger)
    known = updated.get(token)
    if known is None or at > known.at or (at == known.at and not present):
        updated[token] = Mark(present, at)
    return updated


def choose_button(ledger: Ledger, vote: int, at: float) -> dict[str, Mark]:
    """The ledger after a Worked (+1) / Didn't work (-1) click: that button held, the other released."""
    held, released = (BUTTON_UP, BUTTON_DOWN) if vote > 0 else (BUTTON_DOWN, BUTTON_UP)
    return apply_event(apply_event(ledger, released, False, at), held, True, at)


def vote_of(ledger: Ledger) -> int:
    """The user's effective vote: +1, -1, or 0 when they hold both or neither."""
    up = any(m.present and token_polarity(t) > 0 for t, m in ledger.items())
    down = any(m.present and token_polarity(t) < 0 for t, m in ledger.items())
    return int(up) - int(down)


def confirmed_at(ledger: Ledger) -> float | None:
    """When the user's 👍 (or Worked) still standing was given, if their vote is up; else None.

    An entry's ``last_confirmed`` is the latest of these over its voters.
    """
    if vote_of(ledger) <= 0:
        return None
    return max(m.at for t, m in ledger.items() if m.present and token_polarity(t) > 0)


@dataclass(frozen=True)
class Tally:
    """Current votes on one workaround."""

    up: int = 0
    down: int = 0

    def moved(self, before: int, after: int) -> Tally:
        """The tally after one user's vote changed from ``before`` to ``after``."""
        return Tally(self.up + (after > 0) - (before > 0), self.down + (after < 0) - (before < 0))


@dataclass(frozen=True)
class EntryFeedback:
    """Crowd votes on one entry, as the store reports them; ``workarounds`` is keyed by the
    workaround's current index."""

    workarounds: dict[int, Tally] = field(default_factory=dict)
    diagnosis: Tally = field(default_factory=Tally)
    distinct_voters: int = 0
    last_confirmed: dt.date | None = None
    suggested: tuple[Suggested, ...] = ()  # this workspace's suggested fixes (their tallies in ``workarounds``)


@dataclass(frozen=True)
class Totals:
    """Usage and feedback totals (of one workspace, or of all): what ``errkb stats``, ``/errkb stats`` and
    App Home count. The store's ``Stats`` is these with its top rows; the service's ``UsageCard`` carries them."""

    hits_by_locale: dict[str, int] = field(default_factory=dict)  # matches by the reader's language
    votes_up: int = 0  # on workarounds
    votes_down: int = 0
    diagnosis_up: int = 0  # "right error" on the diagnosis
    diagnosis_down: int = 0
    voters: int = 0  # distinct people who voted


# Suggested fixes: indexes from SUGGESTED_BASE on (never a KB workaround's). They and unrated KB fixes
# start from a 50% prior worth one vote.
SUGGESTED_BASE = 1_000_000
WEAK_PRIOR = 0.5
WEAK_WEIGHT = 1.0


@dataclass(frozen=True)
class Suggested:
    """A fix a teammate added to an entry in their workspace; ``text`` is in the author's ``locale``,
    ``text_other`` (None until someone adds it) in the other language."""

    index: int
    author: str
    locale: str
    text: str
    text_other: str | None = None
    verified: bool = False  # a reviewer vouched for it


def suggested_index(fix_id: int) -> int:
    """The workaround index a suggested fix is voted on by."""
    return SUGGESTED_BASE + fix_id


def is_suggested(index: int) -> bool:
    return index >= SUGGESTED_BASE


SUGGESTED_KEY_PREFIX = "team-fix-"


def suggested_key(index: int) -> str:
    """The identity key of a suggested fix's workaround (``key`` in a seed claims it; see ``bot.store.identity``)."""
    return f"{SUGGESTED_KEY_PREFIX}{index - SUGGESTED_BASE}"


def prior_weight(confidence: float) -> float:
    """How many votes the authors' estimate is worth: 2 for an unsure entry, 5 for a certain one."""
    return 2.0 + 3.0 * min(max(confidence, 0.0), 1.0)


def _start(prior: float | None, confidence: float) -> tuple[float, float]:
    """Where a fix's rate starts: the authors' estimate and its weight, or the weak prior when unrated."""
    return (WEAK_PRIOR, WEAK_WEIGHT) if prior is None else (prior, prior_weight(confidence))


def _mean(prior: float, n0: float, tally: Tally) -> float:
    return (prior * n0 + tally.up) / (n0 + tally.up + tally.down)


def _lower_bound(prior: float, n0: float, tally: Tally) -> float:
    n = n0 + tally.up + tally.down
    mean = _mean(prior, n0, tally)
    return max(0.0, mean - LOWER_BOUND_Z * math.sqrt(mean * (1.0 - mean) / (n + 1.0)))


def success_rate(prior: float | None, confidence: float, tally: Tally) -> float:
    """Posterior mean success rate of a workaround (``prior`` None: unrated)."""
    return _mean(*_start(prior, confidence), tally)


def rate_lower_bound(prior: float | None, confidence: float, tally: Tally) -> float:
    """A one-sided 90% lower bound of the success rate, used to rank workarounds."""
    return _lower_bound(*_start(prior, confidence), tally)


def suggested_rate(tally: Tally) -> float:
    """A suggested fix's success rate: its votes on the weak prior."""
    return _mean(WEAK_PRIOR, WEAK_WEIGHT, tally)


def suggested_lower_bound(tally: Tally) -> float:
    """A suggested fix's ranking bound, comparable with ``rate_lower_bound`` of the KB's fixes."""
    return _lower_bound(WEAK_PRIOR, WEAK_WEIGHT, tally)


def fix_success_rate(estimate: float | None, confidence: float, tallies: Iterable[Tally]) -> float | None:
    """How often the entry's fixes fix the error: the votes on all its fixes pooled, starting from the
    authors' estimate (the seed's ``fix_success_rate``) worth a few votes; None when there is neither."""
    up = down = 0
    for tally in tallies:
        up, down = up + tally.up, down + tally.down
    if estimate is None:
        return up / (up + down) if up + down else None
    return _mean(estimate, prior_weight(confidence), Tally(up, down))


def evidence_count(seed_evidence: int, distinct_voters: int) -> int:
    """Real reports behind an entry: those the seed records (``evidence_count``) plus every distinct voter."""
    return seed_evidence + distinct_voters
