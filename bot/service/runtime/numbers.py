"""Each entry's live numbers (votes, evidence, the team's suggested fixes) per workspace, held in process.

A new answer takes an entry's numbers from here: trusted for ``TTL`` seconds, then still shown at once
for up to ``STALE`` seconds while fresh ones load in the background (many entries in one read). A vote
made here forgets them at once. The first message from a workspace warms the numbers of the KB's
entries (up to ``WARM_ENTRIES``: the workspace's most matched first when the KB is larger) in the
background, so its first answers need no store read before they are posted either.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection

from bot.kb.feedback import EntryFeedback
from bot.service.runtime.caches import Expiring
from bot.store import Store

log = logging.getLogger(__name__)

TTL = 10.0  # seconds an entry's numbers are trusted for a new answer
STALE = 3600.0  # …after which older numbers still answer at once while fresh ones load
WARM_ENTRIES = 5_000  # entries whose numbers a workspace's first message loads
KEPT = 20_000  # (workspace, entry) numbers kept, least recently used dropped first: a few MiB
CHUNK = 500  # entries per read while warming


class Numbers:
    def __init__(self, store: Store, entry_ids: Callable[[], Collection[str]]) -> None:
        self.store = store
        self._entry_ids = entry_ids
        self._cache: Expiring[tuple[str, str], EntryFeedback] = Expiring(TTL, size=KEPT, stale=STALE,
                                                                          reload_many=self._reload)
        self._warmed: set[str] = set()
        # workspace → entries forgotten while its warming read ran (their numbers from it may be older)
        self._warming: dict[str, set[str]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def get(self, workspace: str, entry_id: str) -> EntryFeedback:
        return await self._cache.get((workspace, entry_id), lambda: self._read(workspace, entry_id))

    def forget(self, workspace: str, entry_id: str) -> None:
        """The entry's numbers changed (a vote, a suggested fix): read them again next time."""
        self._cache.forget((workspace, entry_id))
        if workspace in self._warming:
            self._warming[workspace].add(entry_id)

    def forget_workspace(self, workspace: str) -> None:
        """The workspace's data was deleted: every number is read again (rare: an uninstall)."""
        self._cache.clear()
        self._warmed.discard(workspace)

    def warm(self, workspace: str) -> None:
        """Load the workspace's numbers in the background, once per process."""
        if workspace in self._warmed:
            return
        self._warmed.add(workspace)
        task = asyncio.ensure_future(self._warm(workspace))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _warm(self, workspace: str) -> None:
        self._warming[workspace] = set()
        try:
            ids = list(self._entry_ids())
            if len(ids) > WARM_ENTRIES:
                hits = await self.store.hit_counts(workspace)
                ids.sort(key=lambda e: -hits.get(e, 0))
                ids = ids[:WARM_ENTRIES]
            for start in range(0, len(ids), CHUNK):
                fresh = await self.store.feedback(ids[start:start + CHUNK], workspace)
                changed = self._warming[workspace]
                for entry_id, numbers in fresh.items():
                    if entry_id not in changed and not self._cache.peek((workspace, entry_id))[0]:
                        self._cache.put((workspace, entry_id), numbers)
        except Exception:  # each answer then reads its entry's numbers itself
            log.warning("loading a workspace's numbers failed", exc_info=True)
        finally:
            del self._warming[workspace]

    async def _read(self, workspace: str, entry_id: str) -> EntryFeedback:
        return (await self.store.feedback([entry_id], workspace))[entry_id]

    async def _reload(self, keys: list[tuple[str, str]]) -> dict[tuple[str, str], EntryFeedback]:
        """Numbers fallen due, one read per workspace (many entries each) rather than one per entry."""
        entries: dict[str, list[str]] = {}
        for workspace, entry_id in keys:
            entries.setdefault(workspace, []).append(entry_id)
        fresh = {}
        for workspace, ids in entries.items():
            fresh.update({(workspace, e): live for e, live in (await self.store.feedback(ids, workspace)).items()})
        return fresh
