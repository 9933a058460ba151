"""The reader's locale: their ``/errkb locale`` override, else their Slack language (asked once a day).

Answers are cached in process for a few seconds (``TTL``; then reloaded in the background while the
older answer still serves) and forgotten here when the user changes their setting, so a change made
through another process shows within seconds.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Callable

from bot import i18n
from bot.service.ports import Outlet, Via
from bot.service.runtime.caches import Expiring
from bot.store import Store

log = logging.getLogger(__name__)

SLACK_LOCALE_MAX_AGE = dt.timedelta(days=1)
TTL = 5.0
STALE_FOR = 60.0  # an older answer is used while a fresh one loads in the background


class Locales:
    def __init__(self, store: Store, outlet: Outlet, clock: Callable[[], dt.datetime] | None = None) -> None:
        self.store = store
        self.outlet = outlet
        self.clock = clock or (lambda: dt.datetime.fromtimestamp(store.clock(), dt.UTC))
        self._cache: Expiring[tuple[str, str], str] = Expiring(TTL, stale=STALE_FOR)
        self._writes: set[asyncio.Task[None]] = set()

    async def locale_for(self, workspace: str, user: str | None, via: Via) -> str:
        """``en`` or ``zh`` for ``user``; English when unknown or Slack cannot be asked."""
        if not user:
            return i18n.DEFAULT_LOCALE
        return await self._cache.get((workspace, user), lambda: self._resolve(workspace, user, via))

    async def _resolve(self, workspace: str, user: str, via: Via) -> str:
        prefs = await self.store.user_prefs(workspace, user)
        if prefs.override:
            return i18n.negotiate(prefs.override)
        if prefs.fetched_at is not None and self.clock() - prefs.fetched_at < SLACK_LOCALE_MAX_AGE:
            return i18n.negotiate(prefs.slack_locale)
        code = await self.outlet.user_locale(user, via)
        if code is None:
            return i18n.negotiate(prefs.slack_locale)
        # kept for the next process in the background: the answer waiting for this locale need not wait for a write
        task = asyncio.ensure_future(self._keep(workspace, user, code))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)
        return i18n.negotiate(code)

    async def _keep(self, workspace: str, user: str, code: str) -> None:
        try:
            await self.store.cache_slack_locale(workspace, user, code)
        except Exception:  # asked of Slack again next time
            log.warning("keeping a reader's Slack language failed", exc_info=True)

    async def set_override(self, workspace: str, user: str, setting: str) -> None:
        """``setting``: ``auto`` (follow Slack), ``en`` or ``zh``."""
        await self.store.set_locale_override(workspace, user, None if setting == "auto" else setting)
        self._cache.forget((workspace, user))

    def forget_all(self) -> None:
        """Ask the store again next time (for instance once the clock has moved on)."""
        self._cache.clear()

    async def setting(self, workspace: str, user: str) -> str:
        prefs = await self.store.user_prefs(workspace, user)
        return i18n.negotiate(prefs.override) if prefs.override else "auto"
