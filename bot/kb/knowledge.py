"""The loaded KB: entries, with the matcher and the search index each built on first use.

``errkb diagnose`` never searches and ``errkb show`` never matches, so neither pays for the other.
The matcher (its literal prefilter) and the fallback's index are kept in the KB snapshot beside the
validated seeds (:mod:`bot.kb.seeds`), keyed by the same hash: unchanged seeds load them instead
of analysing every regex again, and an edited seed re-analyses only the regexes that changed.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from bot.kb.entry import Entry
from bot.kb.fallback import Fallback
from bot.kb.matcher import Matcher
from bot.kb.seeds import Seeds, code_digest, load_seeds, read_cached, write_cached

if TYPE_CHECKING:
    from bot.kb.search import SearchIndex


class KnowledgeBase:
    def __init__(self, entries: dict[str, Entry]) -> None:
        self.entries = entries

    @cached_property
    def matcher(self) -> Matcher:
        digest = self.entries.digest if isinstance(self.entries, Seeds) else None
        if digest is None:
            return Matcher(self.entries)
        matcher = read_cached("matcher", digest)
        if not isinstance(matcher, Matcher) or len(matcher) != len(self.entries):
            # the regexes' analyses are kept by the code's hash alone: an edit re-analyses only its regex
            code = code_digest()
            analyses = read_cached("analyses", code)
            analyses = analyses if isinstance(analyses, dict) else {}
            matcher = Matcher(self.entries, analyses)
            write_cached("matcher", digest, matcher)
            write_cached("analyses", code, analyses)

        def fallback(build: Callable[[], Fallback]) -> Fallback:
            index = read_cached("fallback", digest)
            if not isinstance(index, Fallback):
                index = build()
                write_cached("fallback", digest, index)
            return index

        matcher.attach(self.entries, fallback)
        return matcher

    @cached_property
    def index(self) -> SearchIndex:
        from bot.kb.search import SearchIndex  # rapidfuzz: imported only by the commands that search

        return SearchIndex(self.entries)

    @classmethod
    def from_entries(cls, entries: dict[str, Entry]) -> KnowledgeBase:
        return cls(entries)

    @classmethod
    def load(cls, seeds_dir: str | Path) -> KnowledgeBase:
        """Load and validate a seeds directory (raises ``SeedError`` with every problem)."""
        return cls(load_seeds(seeds_dir))
