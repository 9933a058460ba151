"""The loaded KB: entries with their matcher and search index, built once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.kb.entry import Entry
from bot.kb.matcher import Matcher
from bot.kb.search import SearchIndex
from bot.kb.seeds import load_seeds


@dataclass(frozen=True)
class KnowledgeBase:
    entries: dict[str, Entry]
    matcher: Matcher
    index: SearchIndex

    @classmethod
    def from_entries(cls, entries: dict[str, Entry]) -> KnowledgeBase:
        return cls(entries, Matcher(entries), SearchIndex(entries))

    @classmethod
    def load(cls, seeds_dir: str | Path) -> KnowledgeBase:
        """Load and validate a seeds directory (raises ``SeedError`` with every problem)."""
        return cls.from_entries(load_seeds(seeds_dir))
