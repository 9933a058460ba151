"""Every paste fixture with the matches the service finds for it, found once per test process: the tests that
look at answers across the whole KB (headlines, fixes, compact cards) share one pass of the matcher."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bot.kb.knowledge import KnowledgeBase
from bot.kb.matcher import Match
from bot.kb.quality import paste_files
from bot.service.knowledge import Knowledge


@dataclass(frozen=True)
class Found:
    path: Path
    paste: str
    matches: list[Match]  # best first, at most one


@cache
def found(kb: KnowledgeBase, pastes: Path) -> tuple[Found, ...]:
    """Each fixture under ``pastes`` and its best match in ``kb`` (the service's ``find``: fits included)."""
    knowledge = Knowledge(kb)
    rows = []
    for path in paste_files(pastes):
        paste = path.read_text(encoding="utf-8", errors="replace")
        rows.append(Found(path, paste, knowledge.find(paste, limit=1)))
    return tuple(rows)
