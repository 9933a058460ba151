"""Team-written entries in the service: each workspace's own small matcher, current on every replica.

A workspace's team entries are loaded once into a ``Matcher`` (its public constructor, regex hits
only: no guessing for entries a team wrote) and kept in process; at most every ``CHECK_EVERY``
seconds a paste in that workspace reads the workspace's version (``Store.team_version``, one indexed
read) and reloads when another process added, edited, verified or retired an entry. The regex an
author proposes is checked here against the chat that must stay unanswered and every other entry's
pastes (the KB's paste fixtures and the workspace's other team entries' example lines).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from bot.kb.entry import Entry
from bot.kb.matcher import Match, Matcher
from bot.kb.normalize import normalize
from bot.kb.propose import Issue, check, sample
from bot.kb.quality import CHAT_DIR, chat_messages, paste_files, read_fixture
from bot.kb.team_entry import is_team_id, team_entry
from bot.store import Store
from bot.store.records import TeamEntry, TeamVersion

log = logging.getLogger(__name__)

CHECK_EVERY = 2.0  # seconds a workspace's team entries are trusted before their version is read again
MAX_PASTE_CHARS = 200_000


def entry_of(row: TeamEntry) -> Entry:
    return team_entry(row.entry_id, row.locale, row.body, row.regex, row.status, row.author, row.reviewer)


@dataclass
class _Loaded:
    version: TeamVersion
    checked: float
    rows: dict[str, TeamEntry] = field(default_factory=dict)
    entries: dict[str, Entry] = field(default_factory=dict)
    matcher: Matcher | None = None


class Corpus:
    """What a taught regex must not match: chat (``<pastes>/_chat``) and the KB's pastes
    (``<pastes>/<entry id>/*.txt``, ``settings.pastes_dir``), read on first use and kept."""

    def __init__(self, fixtures: Path | None) -> None:
        self.fixtures = fixtures

    @cached_property
    def chat(self) -> tuple[str, ...]:
        return tuple(normalize(m).text for m in chat_messages(self.fixtures / CHAT_DIR)) if self.fixtures else ()

    @cached_property
    def pastes(self) -> tuple[tuple[str, str], ...]:
        if self.fixtures is None:
            return ()
        root = self.fixtures
        return tuple(("/".join(path.relative_to(root).parts[:2]), normalize(read_fixture(path)).text)
                     for path in paste_files(root))


class TeamKnowledge:
    def __init__(self, store: Store, fixtures: Path | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.clock = clock
        self.corpus = Corpus(fixtures)
        self._loaded: dict[str, _Loaded] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._by_id: dict[str, tuple[str, Entry]] = {}  # entry id → (its workspace, the entry)

    async def find(self, workspace: str, paste: str) -> list[Match]:
        """The best regex hit among ``workspace``'s team entries (none: [])."""
        loaded = await self._current(workspace)
        if loaded.matcher is None:
            return []
        return loaded.matcher.regex_hits(normalize(paste[-MAX_PASTE_CHARS:]))[:1]

    def entry(self, entry_id: str, workspace: str | None) -> Entry | None:
        """``workspace``'s team entry as loaded in this process (by a paste in its workspace, or ``fetch``);
        None for another workspace's."""
        found = self._by_id.get(entry_id)
        return found[1] if found is not None and found[0] == workspace else None

    async def fetch(self, workspace: str, entry_id: str) -> Entry | None:
        """``workspace``'s team entry still answering, as the store has it now (None: unknown, retired, or
        another workspace's)."""
        if not is_team_id(entry_id):
            return None
        row = await self.store.team_entry(workspace, entry_id)
        if row is None or row.status == "retired":
            cached = self._by_id.get(entry_id)
            if cached is not None and cached[0] == workspace:
                del self._by_id[entry_id]
            return None
        entry = entry_of(row)
        self._by_id[entry_id] = (workspace, entry)
        return entry

    async def entries(self, workspace: str) -> list[TeamEntry]:
        """``workspace``'s answering team entries as loaded now, oldest first."""
        return list((await self._current(workspace)).rows.values())

    def forget(self, workspace: str) -> None:
        """Reload ``workspace`` on its next paste (this process just changed one of its entries)."""
        self._loaded.pop(workspace, None)

    async def _current(self, workspace: str) -> _Loaded:
        loaded = self._loaded.get(workspace)
        if loaded is not None and self.clock() - loaded.checked < CHECK_EVERY:
            return loaded
        async with self._locks.setdefault(workspace, asyncio.Lock()):
            loaded = self._loaded.get(workspace)
            if loaded is not None and self.clock() - loaded.checked < CHECK_EVERY:
                return loaded
            version = await self.store.team_version(workspace)
            if loaded is not None and loaded.version == version:
                loaded.checked = self.clock()
                return loaded
            self._loaded[workspace] = fresh = await self._load(workspace, version)
            return fresh

    async def _load(self, workspace: str, version: TeamVersion) -> _Loaded:
        rows = {r.entry_id: r for r in await self.store.team_entries(workspace)} if version.count else {}
        entries = {entry_id: entry_of(row) for entry_id, row in rows.items()}
        old = self._loaded.get(workspace)
        for gone in set(old.entries if old else ()) - set(entries):
            self._by_id.pop(gone, None)
        self._by_id.update({entry_id: (workspace, entry) for entry_id, entry in entries.items()})
        try:
            matcher = Matcher(entries) if entries else None
        except Exception:  # a stored regex RE2 refuses (checked on submit, so only a hand-edited row)
            log.warning("workspace %s: team entries not loaded, a regex does not compile", workspace)
            matcher = None
        return _Loaded(version, self.clock(), rows, entries, matcher)

    async def issues(self, workspace: str, pattern: str, example: str, editing: str | None = None) -> list[Issue]:
        """What is wrong with teaching ``pattern`` for the masked line ``example`` ([]: nothing).

        ``editing``: the team entry being edited (its own example is not another entry's paste)."""
        others = [(r.entry_id, normalize(sample(r.example)).text)
                  for r in await self.entries(workspace) if r.entry_id != editing]
        corpus = self.corpus
        return await asyncio.to_thread(lambda: check(pattern, example, corpus.chat, [*others, *corpus.pastes]))
