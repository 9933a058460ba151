"""Catalog: the knowledge base in the store, for the CLI (``errkb seed``, ``export``, ``stats``, ``db``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.kb.entry import Problem
from bot.kb.knowledge import KnowledgeBase
from bot.kb.team_entry import team_raw
from bot.kb.validate import validate_entry
from bot.store import Store
from bot.store.export import with_suggestions
from bot.store.records import Stats, SyncReport


@dataclass
class TeamExport:
    """What ``errkb export --team`` writes: seed objects, changed translation overlays, fixtures by entry id."""

    raws: list[dict[str, Any]] = field(default_factory=list)
    translations: dict[str, dict[str, Any]] = field(default_factory=dict)
    fixtures: dict[str, str] = field(default_factory=dict)  # a team entry's example line (masked)
    fixes: int = 0
    problems: list[Problem] = field(default_factory=list)


class Catalog:
    """What the operator's commands do to the store: bring it in line with the seeds, export, count, check."""

    def __init__(self, kb: KnowledgeBase, store: Store) -> None:
        self.kb = kb
        self.store = store

    async def seed(self) -> SyncReport:
        """Bring the store in line with this KB (votes are kept)."""
        return await self.store.sync_entries(self.kb.entries)

    async def export(self) -> tuple[list[dict[str, Any]], list[Problem]]:
        """Each entry as a seed carrying the crowd's numbers, and anything that would not validate."""
        raws = await self.store.export_raws(self.kb.entries)
        return raws, [p for raw in raws for p in validate_entry(raw, raw.get("id", "?"))]

    async def export_team(self, workspace: str) -> TeamExport:
        """``workspace``'s live team entries (their example line as a fixture) and its suggested fixes, appended
        to their entries, as seed objects; see ``bot.store.export.with_suggestions``."""
        store = self.store
        team = await store.team_entries(workspace, ("live", "verified"))
        fixes = await store.suggested_fixes(workspace)
        live = await store.feedback([t.entry_id for t in team] + list(fixes), workspace)
        found = TeamExport()
        for t in team:
            raw, _ = with_suggestions(team_raw(t.entry_id, t.locale, t.body, t.regex, t.status),
                                      fixes.get(t.entry_id, ()), live[t.entry_id])
            found.raws.append(raw)
            found.fixtures[t.entry_id] = t.example
        for entry_id, mine in fixes.items():
            entry = self.kb.entries.get(entry_id)
            if entry is None or entry_id in found.fixtures:
                continue  # a fix on a retired entry, or on a team entry already written
            raw, overlay = with_suggestions(entry.raw, mine, live[entry_id], entry.translations or None)
            found.raws.append(raw)
            if overlay:
                found.translations[entry_id] = overlay
        found.fixes = sum(len(f) for i, f in fixes.items() if i in found.fixtures or i in self.kb.entries)
        found.problems.extend(p for raw in found.raws for p in validate_entry(raw, raw["id"]))
        return found

    async def stats(self, limit: int = 10) -> tuple[dict[str, int], Stats]:
        """Entries per domain, and the store's usage figures."""
        domains = Counter(e.domain for e in self.kb.entries.values())
        return dict(sorted(domains.items())), await self.store.stats(limit=limit)

    async def check(self, repair: bool = False) -> list[str]:
        """Every counter that disagrees with the vote rows ([] when none); ``repair`` mends them."""
        if repair:
            fixed = await self.store.repair()
            return [f"{fixed} counter(s) repaired"] if fixed else []
        return await self.store.check()

