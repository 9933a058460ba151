"""Views → the JSON contract of ARCHITECTURE.md (texts already in the chosen locale)."""

from __future__ import annotations

from typing import Any

from bot.views import Diagnosis, EntryView, MatchView, SearchResultView


def _rate(value: float) -> float:
    return round(value, 4)


def _entry_fields(entry: EntryView) -> dict[str, Any]:
    return {
        "signature": entry.signature,
        "root_cause": entry.root_cause,
        "dead_ends": [{"text": d.text, "fail_rate": _rate(d.fail_rate)} for d in entry.dead_ends],
        "workarounds": [
            {"index": w.index, "text": w.text, "success_rate": _rate(w.success_rate),
             "votes_up": w.votes_up, "votes_down": w.votes_down}
            for w in entry.workarounds
        ],
        "evidence_count": entry.evidence_count,
        "official_doc_url": entry.official_doc_url,
    }


def match_json(match: MatchView) -> dict[str, Any]:
    return {
        "id": match.entry.id,
        "how": match.how,
        "score": _rate(match.score),
        "span": [match.span[0], match.span[1]],
        "line": match.line,
        **_entry_fields(match.entry),
    }


def diagnosis_json(diagnosis: Diagnosis) -> dict[str, Any]:
    return {"locale": diagnosis.locale, "matches": [match_json(m) for m in diagnosis.matches]}


def entry_json(entry: EntryView, locale: str) -> dict[str, Any]:
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
        "related": entry.related,
    }


def search_json(results: list[SearchResultView]) -> dict[str, Any]:
    return {
        "results": [
            {"id": r.id, "score": r.score, "signature": r.signature, "domain": r.domain, "reasons": r.reasons}
            for r in results
        ]
    }
