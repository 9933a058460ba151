"""Views → the JSON contract of ARCHITECTURE.md (texts already in the chosen locale).

Beyond the contract's fields, each workaround says where its rate comes from (``rate_basis``:
``estimate`` by the KB's authors, or ``estimate_and_votes``), the estimate and who made it, and the
same sentence the other formats show (``evidence``); a match gives its ``headline`` (``looks like``
for a fallback match) and the ``quote`` of the reader's line. The reader's line and what a team wrote
are credential-masked; curated KB text is as written.
"""

from __future__ import annotations

from typing import Any

from bot.cards import Diagnosis, EntryCard, MatchCard, SearchResultCard, WorkaroundCard
from bot.render import labels, summary


def _rate(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _live_rate(w: WorkaroundCard) -> float | None:
    """A fix's live rate; None for an unrated fix nobody has voted on (its weak prior is no rate)."""
    return None if labels.rate_basis(w) == "unrated" else _rate(w.success_rate)


def _entry_fields(entry: EntryCard) -> dict[str, Any]:
    return {
        "signature": entry.signature,
        "root_cause": entry.root_cause,
        "dead_ends": [
            {"text": d.text, "fail_rate": _rate(d.fail_rate), "action": d.action, "why": d.why,
             "condition": d.condition, "summary": labels.dead_end_text(d)}
            for d in entry.dead_ends
        ],
        "workarounds": [
            {"index": w.index, "text": w.text, "success_rate": _live_rate(w),
             "votes_up": w.votes_up, "votes_down": w.votes_down,
             "condition": w.condition, "rate_basis": labels.rate_basis(w),
             "estimated_rate": None if w.prior is None else _rate(w.prior),
             "estimated_by": entry.verification_tier,
             "evidence": labels.success_text(w, entry.verification_tier, entry.team_author),
             "fits_paste": {0: False, 2: True}.get(w.fit)}
            for w in entry.workarounds
        ],
        "evidence_count": entry.evidence_count,
        "voters_here": entry.voters,
        "official_doc_url": entry.official_doc_url,
    }


def match_json(match: MatchCard) -> dict[str, Any]:
    return {
        "id": match.entry.id,
        "how": match.how,
        "score": _rate(match.score),
        "span": [match.span[0], match.span[1]],
        "line": match.line,
        "headline": labels.headline(match.entry, match),
        "quote": summary.quote(match.line, match.entry.regex),
        "values": summary.values(match.line, match.entry.regex),
        "values_text": labels.values_line(match.entry, match),
        **_entry_fields(match.entry),
    }


def diagnosis_json(diagnosis: Diagnosis) -> dict[str, Any]:
    return {"locale": diagnosis.locale, "matches": [match_json(m) for m in diagnosis.matches]}


def entry_json(entry: EntryCard, locale: str) -> dict[str, Any]:
    """One entry with live rates; a superset of a match's entry fields."""
    return {
        "locale": locale,
        "id": entry.id,
        **_entry_fields(entry),
        "fix_success_rate": _rate(entry.fix_success_rate),
        "verification_tier": entry.verification_tier,
        "confidence": entry.confidence,
        "resolvable": entry.resolvable,
        "versions": entry.versions,
        "last_confirmed": entry.last_confirmed.isoformat() if entry.last_confirmed else None,
        "related": {kind: [r.id for r in related] for kind, related in entry.related.items()},
        "related_entries": [{"id": r.id, "kind": kind, "title": summary.plain_name(r.signature)}
                            for kind, related in entry.related.items() for r in related],
    }


def search_json(results: list[SearchResultCard]) -> dict[str, Any]:
    return {
        "results": [
            {"id": r.id, "score": r.score, "signature": r.signature, "domain": r.domain, "reasons": r.reasons}
            for r in results
        ]
    }
