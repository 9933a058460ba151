"""The reader's locale: their ``/errkb locale`` override, else Slack's (``users.info``), cached a day."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Protocol

from aiohttp import ClientError
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot import i18n
from bot.store.views import UserPrefs

log = logging.getLogger(__name__)

MAX_AGE = dt.timedelta(days=1)
SETTINGS = ("auto", "en", "zh")


class PrefsStore(Protocol):
    async def user_prefs(self, workspace: str, user: str) -> UserPrefs: ...

    async def cache_slack_locale(self, workspace: str, user: str, locale: str | None) -> None: ...


def setting_of(prefs: UserPrefs) -> str:
    """What the user chose: ``auto`` (follow Slack), ``en`` or ``zh``."""
    return i18n.negotiate(prefs.override) if prefs.override else "auto"


class LocaleResolver:
    def __init__(self, store: PrefsStore, client: AsyncWebClient,
                 clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)) -> None:
        self.store = store
        self.client = client
        self.clock = clock

    async def locale_for(self, workspace: str, user: str | None) -> str:
        """``en`` or ``zh`` for ``user``; English when unknown or Slack cannot be asked."""
        if not user:
            return i18n.DEFAULT_LOCALE
        prefs = await self.store.user_prefs(workspace, user)
        if prefs.override:
            return i18n.negotiate(prefs.override)
        if prefs.fetched_at is not None and self.clock() - prefs.fetched_at < MAX_AGE:
            return i18n.negotiate(prefs.slack_locale)
        try:
            response = await self.client.users_info(user=user, include_locale=True)
        except (SlackApiError, ClientError, TimeoutError) as exc:
            log.warning("users.info for %s failed (%s); using the cached locale", user, exc)
            return i18n.negotiate(prefs.slack_locale)
        code = (response.get("user") or {}).get("locale")
        await self.store.cache_slack_locale(workspace, user, code)
        return i18n.negotiate(code)

    @asynccontextmanager
    async def reader(self, workspace: str, user: str | None) -> AsyncIterator[str]:
        """Run a block in ``user``'s locale: every ``_()`` inside speaks their language."""
        locale = await self.locale_for(workspace, user)
        with i18n.use_locale(locale):
            yield locale
