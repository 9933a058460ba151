"""``errkb new DOMAIN/SLUG``: a new entry with every field, and its fixture files, to fill in."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from bot.kb.entry import ID_PATTERN
from bot.kb.seeds import entry_json

FIXTURE_HINT = (
    "Replace this file with a real paste of the error, as people paste it in Slack:\n"
    "a traceback, log lines with timestamps, or a code block with &lt;escapes&gt;.\n"
)


def new_entry(entry_id: str, today: dt.date | None = None) -> dict:
    """A template entry: every key of the seed format, with placeholders to replace."""
    domain = entry_id.split("/", 1)[0]
    day = (today or dt.date.today()).isoformat()
    action = {"action": "TODO: the concrete command or setting", "how": "", "condition": "", "sources": []}
    return {
        "id": entry_id,
        "signature": "TODO: the error line exactly as the tool prints it",
        "signature_zh": "TODO: 中文标题",
        "regex": "TODO: an RE2 regex for the distinctive part of the message",
        "domain": domain,
        "category": "TODO",
        "subcategory": None,
        "root_cause": "TODO: why it happens, in your own words",
        "root_cause_type": "generic",
        "root_cause_zh": "TODO: 根本原因",
        "versions": [],
        "os_specific": {},
        "dead_ends": [
            {"action": "TODO: what people try", "why_fails": "TODO: why it fails", "fail_rate": 0.7,
             "condition": "", "sources": []},
            {"action": "TODO", "why_fails": "TODO", "fail_rate": 0.6, "condition": "", "sources": []},
        ],
        "dead_ends_zh": ["TODO", "TODO"],
        "workarounds": [dict(action), dict(action)],  # unrated until an author estimates a success_rate
        "workarounds_zh": ["TODO", "TODO"],
        "transition_graph": {"leads_to": [], "preceded_by": [], "frequently_confused_with": []},
        "official_doc_url": None,
        "official_doc_section": None,
        "error_code": None,
        "verification_tier": "ai_generated",
        "confidence": 0.6,
        "resolvable": "partial",
        "first_seen": day,
        "last_confirmed": None,
        "last_updated": day,
        "evidence_count": 0,
        "tags": [],
        "locale": "en",
        "aliases": [],
    }


def scaffold(entry_id: str, seeds_dir: Path, fixtures_dir: Path) -> list[Path]:
    """Write the template entry and two fixture files; refuses to overwrite anything."""
    if not ID_PATTERN.match(entry_id):
        raise ValueError(f"{entry_id!r} is not domain/slug in lowercase [a-z0-9._-]")
    domain, slug = entry_id.split("/", 1)
    entry_path = seeds_dir / domain / f"{slug}.json"
    fixtures = [fixtures_dir / domain / slug / f"{n}.txt" for n in (1, 2)]
    existing = [p for p in (entry_path, *fixtures) if p.exists()]
    if existing:
        raise FileExistsError(f"{existing[0]} already exists")
    entry_path.parent.mkdir(parents=True, exist_ok=True)
    entry_path.write_text(entry_json(new_entry(entry_id)), encoding="utf-8")
    for path in fixtures:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(FIXTURE_HINT, encoding="utf-8")
    return [entry_path, *fixtures]


