"""A team-written entry: what its author typed in Slack, and the seed entry errkb answers with.

The store keeps an author's texts as a small ``body`` (title, root cause, workarounds, dead ends, in
the language they wrote in, plus texts added later in the other language); :func:`team_raw` turns it
into an ordinary seed object (``ENTRY-FORMAT.md``), so it matches, renders, takes votes and exports
like any KB entry. Its id is ``team-<workspace>/<n>``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from bot.kb.entry import Entry

TEAM_PREFIX = "team-"
LOCALES = ("en", "zh")
WORKAROUND_PRIOR = 0.5  # an author's workaround starts as a coin toss; votes move it
DEAD_END_RATE = 0.8
TIERS = {"live": "human_reviewed", "verified": "expert_verified", "retired": "human_reviewed"}


def team_domain(workspace: str) -> str:
    """The id domain of ``workspace``'s team entries (lowercase, only the characters ids allow)."""
    return TEAM_PREFIX + re.sub(r"[^a-z0-9._-]", "", workspace.lower())


def team_entry_id(workspace: str, n: int) -> str:
    return f"{team_domain(workspace)}/{n}"


def is_team_id(entry_id: str) -> bool:
    return entry_id.startswith(TEAM_PREFIX)


def clean_body(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with stripped texts and no empty list items (``other``: {locale: the same keys})."""
    def texts(part: dict[str, Any]) -> dict[str, Any]:
        return {"title": str(part.get("title") or "").strip(), "root_cause": str(part.get("root_cause") or "").strip(),
                "workarounds": [s.strip() for s in part.get("workarounds") or () if str(s).strip()],
                "dead_ends": [s.strip() for s in part.get("dead_ends") or () if str(s).strip()]}
    cleaned = texts(body)
    other = {loc: texts(part) for loc, part in (body.get("other") or {}).items() if loc in LOCALES}
    if other:
        cleaned["other"] = other
    return cleaned


def team_raw(entry_id: str, locale: str, body: dict[str, Any], regex: str, status: str = "live",
             author: str | None = None, reviewer: str | None = None) -> dict[str, Any]:
    """The seed object of a team entry. Plain fields hold English when there is any (the author's, or a
    translation added later), else the author's own text; ``*_zh`` hold Chinese where written;
    ``team_author`` (an extra key, kept like any unknown key) names who wrote it, ``team_reviewer`` the
    reviewer who verified it (only once verified)."""
    body = clean_body(body)
    by_locale = {locale: body, **(body.get("other") or {})}
    en, zh = by_locale.get("en") or {}, by_locale.get("zh") or {}
    plain = en if en.get("title") else body
    works = plain["workarounds"] or body["workarounds"]
    ends = plain["dead_ends"] or body["dead_ends"]
    raw: dict[str, Any] = {
        "id": entry_id,
        "signature": plain["title"],
        "regex": regex,
        "domain": entry_id.split("/")[0],
        "category": "team",
        "root_cause": plain["root_cause"] or body["root_cause"],
        "root_cause_type": "generic",
        "dead_ends": [{"action": "", "why_fails": d, "fail_rate": DEAD_END_RATE, "condition": "", "sources": []}
                      for d in ends],
        "workarounds": [{"action": w, "success_rate": WORKAROUND_PRIOR, "how": "", "condition": "", "sources": [],
                         **({"key": _key(body["workarounds"][i])} if i < len(body["workarounds"]) else {})}
                        for i, w in enumerate(works)],
        "tags": ["team"],
        "verification_tier": TIERS.get(status, "human_reviewed"),
        "confidence": 0.6 if status == "verified" else 0.5,
        "locale": "en" if plain is en else locale,
    }
    if author:
        raw["team_author"] = author
    if reviewer and status == "verified":
        raw["team_reviewer"] = reviewer
    if zh.get("title"):
        raw["signature_zh"] = zh["title"]
    if zh.get("root_cause"):
        raw["root_cause_zh"] = zh["root_cause"]
    if zh.get("workarounds") and len(zh["workarounds"]) == len(works):
        raw["workarounds_zh"] = zh["workarounds"]
    if zh.get("dead_ends") and len(zh["dead_ends"]) == len(ends):
        raw["dead_ends_zh"] = zh["dead_ends"]
    return raw


def _key(text: str) -> str:
    """A workaround's vote identity: from the author's own words, so adding a translation (which changes
    the plain field) or reordering keeps its votes."""
    return "t" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def team_entry(entry_id: str, locale: str, body: dict[str, Any], regex: str, status: str = "live",
               author: str | None = None, reviewer: str | None = None) -> Entry:
    return Entry(raw=team_raw(entry_id, locale, body, regex, status, author, reviewer), source=f"{entry_id} (team)")
