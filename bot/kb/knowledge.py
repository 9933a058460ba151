"""The loaded KB: entries, with the matcher and the search index each built on first use.

``errkb diagnose`` never searches and ``errkb show`` never matches, so neither pays for the other.
The matcher (its literal prefilter), the fallback's index and the search index are kept in the KB
snapshot beside the validated seeds (:mod:`bot.kb.seeds`), keyed by the same hash: unchanged seeds
load them instead of analysing every regex and tokenising every entry again, and an edited seed
re-analyses only the regexes that changed (the search index is built again whole).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from bot.kb.entry import Entry
from bot.kb.fallback import Fallback
from bot.kb.families import Families
from bot.kb.families import load as load_families
from bot.kb.matcher import Matcher
from bot.kb.seeds import Seeds, code_digest, has_cached, load_seeds, read_cached, write_cached

if TYPE_CHECKING:
    from bot.kb.search import SearchIndex

T = TypeVar("T")


class KnowledgeBase:
    def __init__(self, entries: dict[str, Entry], families: Families | None = None) -> None:
        self.entries = entries
        self.families = families if families is not None else Families()  # the code families (``_families.json``)
        self._index: SearchIndex | None = None
        self._index_lock = threading.Lock()

    @cached_property
    def matcher(self) -> Matcher:
        digest = self.entries.digest if isinstance(self.entries, Seeds) else None
        if digest is None:
            return Matcher(self.entries)

        def build_matcher() -> Matcher:
            # the regexes' analyses are kept by the code's hash alone: an edit re-analyses only its regex
            code = code_digest()
            analyses = read_cached("analyses", code)
            analyses = analyses if isinstance(analyses, dict) else {}
            built = Matcher(self.entries, analyses)
            write_cached("analyses", code, analyses)
            return built

        matcher = _kept("matcher", digest, build_matcher,
                        lambda found: isinstance(found, Matcher) and len(found) == len(self.entries))

        def fallback(build: Callable[[], Fallback]) -> Fallback:
            return _kept("fallback", digest, build, lambda found: isinstance(found, Fallback))

        matcher.attach(self.entries, fallback)
        return matcher

    @property
    def index(self) -> SearchIndex:
        """The search index: from the snapshot, or built (and kept there) when the seeds changed.

        Safe from several threads: one loads or builds it, the others wait for it."""
        with self._index_lock:
            if self._index is None:
                self._index = self._load_index()
            return self._index

    @property
    def index_loaded(self) -> bool:
        """Whether ``index`` answers at once (else it loads, or waits for the build, first)."""
        return self._index is not None

    def _load_index(self) -> SearchIndex:
        from bot.kb.search import SearchIndex  # rapidfuzz: imported only by the commands that search

        digest = self.entries.digest if isinstance(self.entries, Seeds) else None
        if digest is None:
            return SearchIndex(self.entries)
        return _kept("search", digest, lambda: SearchIndex(self.entries),
                     lambda found: isinstance(found, SearchIndex) and len(found) == len(self.entries))

    def prepare_index(self) -> threading.Thread | None:
        """Start building the search index in the background if a search would have to build it (the
        seeds changed since the snapshot was made); the thread, or None when a search can load it (well
        under a second at 50,000 entries) or it is there already. A search meanwhile waits for it."""
        digest = self.entries.digest if isinstance(self.entries, Seeds) else None
        if self._index is not None or (digest is not None and has_cached("search", digest)):
            return None
        thread = threading.Thread(target=lambda: self.index, name="errkb-search-index", daemon=True)
        thread.start()
        return thread

    @classmethod
    def from_entries(cls, entries: dict[str, Entry]) -> KnowledgeBase:
        return cls(entries)

    @classmethod
    def load(cls, seeds_dir: str | Path) -> KnowledgeBase:
        """Load and validate a seeds directory and its code families (raises ``SeedError`` with every problem)."""
        return cls(load_seeds(seeds_dir), load_families(seeds_dir))


def _kept(kind: str, digest: str, build: Callable[[], T], usable: Callable[[object], bool]) -> T:
    """The ``kind`` kept in the KB snapshot under ``digest`` when usable, else built and kept."""
    found = read_cached(kind, digest)
    if usable(found):
        return found
    built = build()
    write_cached(kind, digest, built)
    return built
