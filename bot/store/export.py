"""``errkb export``: seeds carrying the crowd's numbers, which re-seed without counting votes twice;
and (``with_suggestions``) a team's suggested fixes appended to their entries.

Pure code. Only entries with votes change; an entry nobody voted on is written back as it was.
The authored prior stays beside each crowd-updated number (``seed_success_rate``,
``seed_evidence_count``), and the store reads the prior from there, so re-seeding an export moves
nothing: the live rate is still the prior plus the same votes.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Sequence
from typing import Any

from bot.kb import feedback
from bot.kb.entry import NEEDS_TRANSLATION_KEY, SEED_EVIDENCE_KEY, SEED_FIX_KEY, SEED_PRIOR_KEY, Entry
from bot.kb.feedback import EntryFeedback, Suggested

DECIMALS = 3


def crowd_raw(entry: Entry, live: EntryFeedback) -> dict[str, Any]:
    """A deep copy of ``entry.raw`` (unknown keys kept) with the crowd-updated numbers."""
    raw = copy.deepcopy(entry.raw)
    voted = any(t.up or t.down for i, t in live.workarounds.items() if not feedback.is_suggested(i))
    tallies = []
    for w, item in zip(entry.workarounds, raw.get("workarounds") or [], strict=True):
        tally = live.workarounds.get(w.index, feedback.Tally())
        tallies.append(tally)
        if tally.up or tally.down or SEED_PRIOR_KEY in item:
            item[SEED_PRIOR_KEY] = w.prior  # None: unrated, and its rate below is its votes alone
            rate = (feedback.success_rate(w.prior, entry.confidence, tally) if w.prior is not None
                    else tally.up / max(1, tally.up + tally.down))
            item["success_rate"] = round(rate, DECIMALS)
    fix_rate = feedback.fix_success_rate(entry.fix_estimate, entry.confidence, tallies)
    if voted and fix_rate is not None:
        if entry.fix_estimate is not None:
            raw[SEED_FIX_KEY] = entry.fix_estimate
        raw["fix_success_rate"] = round(fix_rate, DECIMALS)
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


def with_suggestions(raw: dict[str, Any], fixes: Sequence[Suggested], live: EntryFeedback,
                     overlay: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """``raw`` (and its translations ``overlay``) with each suggested fix appended as a workaround.

    Each keeps its target's key (``team-fix-<id>``), so seeding the file claims the suggestion, votes and
    all, instead of adding it twice; ``success_rate`` carries its votes, and ``seed_success_rate`` is
    null: nobody estimated it, so re-seeded it still starts from the weak prior and shows its votes only.
    Its Chinese goes where the entry keeps Chinese (``""`` until written: a Chinese reader then sees the
    English, marked untranslated); a fix written only in Chinese gets an empty ``action`` marked
    ``needs_translation: "en"`` (English readers see the Chinese, marked)."""
    raw, overlay = copy.deepcopy(raw), copy.deepcopy(overlay)
    zh_list = raw.get("workarounds_zh") if "workarounds_zh" in raw else (overlay or {}).get("workarounds_zh")
    chinese_plain = raw.get("locale") == "zh"  # a team entry written in Chinese keeps Chinese in plain fields
    texts = [(f, *((f.text_other or (f.text if chinese_plain else ""), f.text) if f.locale == "zh"
                   else (f.text, f.text_other))) for f in fixes]
    if zh_list is None and any(chinese for _f, _english, chinese in texts):
        zh_list = raw["workarounds_zh"] = [""] * len(raw["workarounds"])  # aligned; the KB's own untranslated
    for fix, english, chinese in texts:
        rate = feedback.suggested_rate(live.workarounds.get(fix.index, feedback.Tally()))
        raw["workarounds"].append({"action": english, "success_rate": round(rate, DECIMALS),
                                   SEED_PRIOR_KEY: None, "how": "", "condition": "",
                                   "sources": [], "key": feedback.suggested_key(fix.index),
                                   **({} if english else {NEEDS_TRANSLATION_KEY: "en"})})
        if isinstance(zh_list, list):
            zh_list.append(chinese or "")
    return raw, overlay
