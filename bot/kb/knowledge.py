"""The loaded KB: entries, with the matcher and the search index each built on first use.

``errkb diagnose`` never searches and ``errkb show`` never matches, so neither pays for the other.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from bot.kb.entry import Entry
from bot.kb.matcher import Matcher
from bot.kb.search import SearchIndex
from bot.kb.seeds import load_seeds


class KnowledgeBase:
    def __init__(self, entries: dict[str, Entry]) -> None:
        self.entries = entries

    @cached_property
    def matcher(self) -> Matcher:
        return Matcher(self.entries)

    @cached_property
    def index(self) -> SearchIndex:
        return SearchIndex(self.entries)

    @classmethod
    def from_entries(cls, entries: dict[str, Entry]) -> KnowledgeBase:
        return cls(entries)

    @classmethod
    def load(cls, seeds_dir: str | Path) -> KnowledgeBase:
        """Load and validate a seeds directory (raises ``SeedError`` with every problem)."""
        return cls(load_seeds(seeds_dir))
