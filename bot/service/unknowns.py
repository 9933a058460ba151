"""Remembering what errkb could not answer: the masked shape of its error line, never the paste.

A message, ``/errkb <paste>`` or the shortcut whose text announces an error that nothing matched
counts one sighting of its shape (``bot.kb.shape``) in its workspace, unless the workspace said
``/errkb unknown off``. An edited message or a replayed event counts once.
"""

from __future__ import annotations

import logging

from bot.kb.shape import Shape, shape
from bot.service.runtime.caches import Expiring
from bot.store import Store
from bot.store.records import UnknownError

log = logging.getLogger(__name__)

SETTING_TTL = 5.0  # seconds a workspace's on/off is trusted in process
SEEN_WINDOW = 86400  # seconds within which the same message (an edit) counts its error once


class Unknowns:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._on: Expiring[str, bool] = Expiring(SETTING_TTL)

    async def seen(self, workspace: str, channel: str, text: str, message: str | None = None) -> Shape | None:
        """Count the unknown error in ``text`` (``message``: its ts, so an edit is not counted again).

        Returns its shape (also when not counted), or None when ``text`` announces no error."""
        found = shape(text)
        if found is None:
            return None
        try:
            if not await self.remembers(workspace):
                return found
            if message is not None and not await self.store.claim_event(
                    f"unknown:{workspace}:{channel}:{message}:{found.digest}", ttl_seconds=SEEN_WINDOW):
                return found
            await self.store.seen_unknown(workspace, channel, found.digest, found.line, found.error_type)
        except Exception:  # never lose the reply over a counter
            log.exception("could not count an unknown error in %s", workspace)
        return found

    async def remembers(self, workspace: str) -> bool:
        return await self._on.get(workspace, lambda: self.store.remembers_unknown(workspace))

    async def switch(self, workspace: str, on: bool) -> None:
        await self.store.set_remember_unknown(workspace, on)
        self._on.put(workspace, on)

    async def top(self, workspace: str, limit: int = 5) -> list[UnknownError]:
        return await self.store.unknown_errors(workspace, limit)
