"""Every configured channel's settings, held in process: a paste costs no store read to learn them.

Only channels someone configured (``/errkb channel …``) have a row; every other channel answers pastes
(``auto``) and ignores other bots. The whole table is read on first use and again every ``REFRESH``
seconds in the background (one read, however many pastes arrive), so a change made by another
process is followed within seconds; a change made here is followed at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from bot.store import Store

log = logging.getLogger(__name__)

DEFAULT = ("auto", False)
REFRESH = 5.0  # seconds between background reads of the table


class Channels:
    def __init__(self, store: Store, refresh: float = REFRESH, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.refresh = refresh
        self.clock = clock
        self._settings: dict[tuple[str, str], tuple[str, bool]] = {}
        self._loaded_at: float | None = None
        self._first = asyncio.Lock()
        self._reload: asyncio.Task[None] | None = None

    async def settings(self, workspace: str, channel: str) -> tuple[str, bool]:
        """The channel's mode (``auto``, ``mention``, ``off``) and whether it answers other bots."""
        if self._loaded_at is None:
            async with self._first:  # the first pastes wait for one read, together
                if self._loaded_at is None:
                    await self._load()
        elif self.clock() - self._loaded_at > self.refresh and self._reload is None:
            self._reload = asyncio.ensure_future(self._load_later())
        return self._settings.get((workspace, channel), DEFAULT)

    async def changed(self) -> None:
        """A channel's settings were just written here: read them all again now."""
        await self._load()

    def forget_workspace(self, workspace: str) -> None:
        self._settings = {key: value for key, value in self._settings.items() if key[0] != workspace}

    async def _load(self) -> None:
        began = self.clock()
        self._settings = await self.store.all_channel_settings()
        self._loaded_at = began

    async def _load_later(self) -> None:
        try:
            await self._load()
        except Exception:  # the settings read last stay until the next try
            log.warning("reading the channels' settings failed; keeping the last ones read", exc_info=True)
        finally:
            self._reload = None
