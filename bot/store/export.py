"""``errkb export``: seeds carrying the crowd's numbers, which re-seed without counting votes twice.

Pure code. Only entries with votes change; an entry nobody voted on is written back as it was.
The authored prior stays beside each crowd-updated number (``seed_success_rate``,
``seed_evidence_count``), and the store reads the prior from there, so re-seeding an export moves
nothing: the live rate is still the prior plus the same votes.
"""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

from bot.kb import feedback
from bot.kb.entry import SEED_EVIDENCE_KEY, SEED_PRIOR_KEY, Entry
from bot.kb.feedback import EntryFeedback

DECIMALS = 3


def crowd_raw(entry: Entry, live: EntryFeedback) -> dict[str, Any]:
    """A deep copy of ``entry.raw`` (unknown keys kept) with the crowd-updated numbers."""
    raw = copy.deepcopy(entry.raw)
    voted = any(t.up or t.down for t in live.workarounds.values())
    rates = []
    for w, item in zip(entry.workarounds, raw.get("workarounds") or [], strict=True):
        tally = live.workarounds.get(w.index, feedback.Tally())
        rate = feedback.success_rate(w.prior, entry.confidence, tally)
        rates.append(rate)
        if tally.up or tally.down or SEED_PRIOR_KEY in item:
            item[SEED_PRIOR_KEY] = w.prior
            item["success_rate"] = round(rate, DECIMALS)
    if voted:
        raw["fix_success_rate"] = round(feedback.fix_success_rate(rates), DECIMALS)
    evidence = feedback.evidence_count(entry.evidence_count, live.distinct_voters)
    if live.distinct_voters or SEED_EVIDENCE_KEY in raw:
        raw[SEED_EVIDENCE_KEY] = entry.evidence_count
        raw["evidence_count"] = evidence
    if live.last_confirmed is not None and live.last_confirmed > _date(raw.get("last_confirmed")):
        raw["last_confirmed"] = live.last_confirmed.isoformat()
    return raw


def _date(value: Any) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        return dt.date.min
