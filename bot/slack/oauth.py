"""Installing errkb in many workspaces: Bolt's OAuth flow with slack_sdk's stores in errkb's database.

``GET /slack/install`` starts an install (a state value, kept in ``slack_oauth_states``), Slack sends
the browser back to ``GET /slack/oauth_redirect`` and Bolt exchanges the code for that workspace's
bot token (``oauth.v2.access``) and saves it in ``slack_installations``/``slack_bots``. Each request
then runs with its own workspace's client (``context.client``); a token that expires (token rotation)
is refreshed by Bolt before it is used. The tables come from errkb's migrations (0004), not from
slack_sdk's ``create_tables``. Every token in them is encrypted with ``ERRKB_ENCRYPTION_KEY``
(:class:`SealedInstallationStore`, ``bot.store.secrets``).
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from slack_bolt.authorization.async_authorize import AsyncInstallationStoreAuthorize
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.installation_store.models.bot import Bot
from slack_sdk.oauth.installation_store.models.installation import Installation
from slack_sdk.oauth.installation_store.sqlalchemy import AsyncSQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import AsyncSQLAlchemyOAuthStateStore
from slack_sdk.web.async_client import AsyncWebClient

from bot.config import Settings
from bot.store.models import SEALED_COLUMNS
from bot.store.secrets import Cipher

INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"
STATE_SECONDS = 600  # an install started longer ago than this must start again
# The bot scopes of manifest.yml (docs/privacy.md says why each is needed).
SCOPES = ("app_mentions:read", "channels:history", "groups:history", "im:history", "mpim:history", "chat:write",
          "commands", "files:read", "reactions:read", "users:read", "usergroups:read", "channels:read", "groups:read",
          "metadata.message:read")


def oauth_settings(settings: Settings, engine: Any) -> AsyncOAuthSettings:
    """Bolt's OAuth settings over the store's own engine (``engine``: an ``AsyncEngine``)."""
    assert settings.client_id and settings.client_secret
    return AsyncOAuthSettings(
        client_id=settings.client_id,
        client_secret=settings.client_secret,
        scopes=list(SCOPES),
        redirect_uri=settings.redirect_uri,
        install_path=INSTALL_PATH,
        redirect_uri_path=REDIRECT_PATH,
        installation_store=SealedInstallationStore(settings.client_id, engine,
                                                   Cipher.from_setting(settings.encryption_key)),
        installation_store_bot_only=True,
        state_store=AsyncSQLAlchemyOAuthStateStore(STATE_SECONDS, engine),
        state_expiration_seconds=STATE_SECONDS,
    )


T = TypeVar("T", Bot, Installation)


def _each(found: T, names: Iterable[str], change: Callable[[str | None], str | None]) -> T:
    """A copy of ``found`` with ``change`` applied to each of its attributes ``names``."""
    changed = copy.copy(found)
    for name in names:
        setattr(changed, name, change(getattr(found, name)))
    return changed


class SealedInstallationStore(AsyncSQLAlchemyInstallationStore):
    """slack_sdk's installation store with every token encrypted at rest: each value of ``SEALED_COLUMNS`` is
    encrypted before it is saved and decrypted after it is found (``cipher``: ``ERRKB_ENCRYPTION_KEY``'s keys).
    A plain value that an older errkb stored is read as it is, until the start-up pass encrypts it."""

    INSTALLATION = SEALED_COLUMNS["slack_installations"]
    BOT = SEALED_COLUMNS["slack_bots"]

    def __init__(self, client_id: str, engine: Any, cipher: Cipher) -> None:
        super().__init__(client_id, engine)
        self.cipher = cipher

    async def async_save(self, installation: Installation) -> None:
        # slack_sdk saves its bot too (installation.to_bot()), through async_save_bot: sealed values stay as they are
        await super().async_save(_each(installation, self.INSTALLATION, self.cipher.seal))

    async def async_save_bot(self, bot: Bot) -> None:
        await super().async_save_bot(_each(bot, self.BOT, self.cipher.seal))

    async def async_find_bot(self, *, enterprise_id: str | None, team_id: str | None,
                             is_enterprise_install: bool | None = False) -> Bot | None:
        bot = await super().async_find_bot(enterprise_id=enterprise_id, team_id=team_id,
                                           is_enterprise_install=is_enterprise_install)
        return None if bot is None else _each(bot, self.BOT, self.cipher.unseal)

    async def async_find_installation(self, *, enterprise_id: str | None, team_id: str | None,
                                      user_id: str | None = None, is_enterprise_install: bool | None = False
                                      ) -> Installation | None:
        # slack_sdk may fill in the latest bot's token from async_find_bot (above): decrypted already, kept as it is
        found = await super().async_find_installation(enterprise_id=enterprise_id, team_id=team_id, user_id=user_id,
                                                      is_enterprise_install=is_enterprise_install)
        return None if found is None else _each(found, self.INSTALLATION, self.cipher.unseal)


def authorize(oauth: AsyncOAuthSettings, client: AsyncWebClient) -> AsyncInstallationStoreAuthorize:
    """Finds each request's bot token, and rotates one about to expire through ``client`` (so through
    ``SLACK_API_URL``; Bolt's own would always call slack.com)."""
    return AsyncInstallationStoreAuthorize(
        installation_store=oauth.installation_store, client_id=oauth.client_id, client_secret=oauth.client_secret,
        token_rotation_expiration_minutes=oauth.token_rotation_expiration_minutes, bot_only=True, client=client,
        logger=logging.getLogger("slack_bolt.authorize"))


class WorkspaceClient(AsyncWebClient):
    """A client for work outside any request (an answer taken over after a restart): it looks up its
    workspace's bot token in the installation store on first use."""

    def __init__(self, store: AsyncInstallationStore, workspace: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._store, self._workspace = store, workspace

    async def api_call(self, *args: Any, **kwargs: Any) -> Any:
        if self.token is None:
            bot = await self._store.async_find_bot(enterprise_id=None, team_id=self._workspace)
            self.token = bot.bot_token if bot is not None else None
        return await super().api_call(*args, **kwargs)


class Installations:
    """Whether a workspace has installed errkb, for requests handled without Bolt's authorize (the
    dispatcher's fast path): a yes is trusted for ``KNOWN_FOR`` seconds, a no for ``UNKNOWN_FOR``."""

    KNOWN_FOR = 60.0
    UNKNOWN_FOR = 5.0

    def __init__(self, store: AsyncInstallationStore, clock: Callable[[], float] = time.monotonic) -> None:
        self._store = store
        self._clock = clock
        self._seen: dict[str, tuple[bool, float]] = {}

    async def known(self, workspace: str) -> bool:
        found = self._seen.get(workspace)
        now = self._clock()
        if found is not None and now < found[1]:
            return found[0]
        bot = await self._store.async_find_bot(enterprise_id=None, team_id=workspace)
        known = bot is not None and bool(bot.bot_token)
        if len(self._seen) > 10_000:
            self._seen.clear()
        self._seen[workspace] = (known, now + (self.KNOWN_FOR if known else self.UNKNOWN_FOR))
        return known

    def forget(self, workspace: str) -> None:
        self._seen.pop(workspace, None)
