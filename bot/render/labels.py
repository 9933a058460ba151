"""Interface words shared by every renderer, each through the gettext catalog."""

from __future__ import annotations

from bot.i18n import _, fmt_date, fmt_number, fmt_percent, ngettext
from bot.views import EntryView, MatchView, WorkaroundView


def tier_label(tier: str) -> str:
    names = {
        "ai_generated": _("AI-drafted, not yet reviewed"),
        "human_reviewed": _("reviewed by a maintainer"),
        "community_verified": _("verified by the community"),
        "expert_verified": _("verified by an expert"),
    }
    return names.get(tier, tier)


def resolvable_label(value: str) -> str:
    return {"true": _("fixable"), "partial": _("partly fixable"), "false": _("no known fix")}.get(value, value)


def untranslated_mark() -> str:
    return _("(untranslated)")


def fail_rate_text(rate: float) -> str:
    return _("fails {rate} of the time").format(rate=fmt_percent(rate))


def success_text(w: WorkaroundView) -> str:
    return _("works in {rate} of reports").format(rate=fmt_percent(w.success_rate))


def votes_text(w: WorkaroundView) -> str:
    up = ngettext("{n} vote up", "{n} votes up", w.votes_up).format(n=fmt_number(w.votes_up))
    down = ngettext("{n} vote down", "{n} votes down", w.votes_down).format(n=fmt_number(w.votes_down))
    return f"{up} · {down}"


def how_matched(match: MatchView) -> str:
    if match.how == "fuzzy":
        return _("close match ({score} similar)").format(score=fmt_percent(match.score))
    return _("exact match")


def trust_text(entry: EntryView) -> str:
    parts = [
        tier_label(entry.verification_tier),
        _("confidence {rate}").format(rate=fmt_percent(entry.confidence)),
        ngettext("{n} report", "{n} reports", entry.evidence_count).format(n=fmt_number(entry.evidence_count)),
        _("fixes work {rate} overall").format(rate=fmt_percent(entry.fix_success_rate)),
        resolvable_label(entry.resolvable),
    ]
    if entry.last_confirmed:
        parts.append(_("last confirmed {date}").format(date=fmt_date(entry.last_confirmed)))
    return " · ".join(parts)


def related_label(kind: str) -> str:
    return {
        "leads_to": _("Often leads to"),
        "preceded_by": _("Often preceded by"),
        "frequently_confused_with": _("Often confused with"),
    }.get(kind, kind)


def heading(name: str) -> str:
    return {
        "root_cause": _("Root cause"),
        "dead_ends": _("Dead ends (what usually fails)"),
        "workarounds": _("Workarounds (best first)"),
        "versions": _("Applies to"),
        "docs": _("Docs"),
        "trust": _("Trust"),
        "matched_line": _("Matched line"),
        "no_match": _("No known error found in the input."),
        "no_results": _("Nothing in the knowledge base matches that search."),
        "condition": _("When"),
    }[name]
