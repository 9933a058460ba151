"""Sign in with Slack (OpenID Connect): the authorize URL, the code exchange and the ID token's checks.

The browser goes to Slack's ``openid/connect/authorize`` with a state and a nonce; Slack sends it back with a
code, which errkb exchanges (``openid.connect.token``, with the app's client id and secret) for an ID token and
an access token. The ID token must come from Slack (issuer), be meant for this app (audience: the client id),
answer this sign-in (nonce) and be unexpired; its RS256 signature is checked with Slack's published keys
(JWKS). Should those keys be unreachable, the token is still trusted as OpenID Connect allows for one received
straight from the token endpoint over TLS (Core 1.0 §3.1.3.7), and a warning is logged. The member's name and
locale come from ``openid.connect.userInfo``, which must describe the same user in the same workspace.

Slack's web addresses are derived from ``SLACK_API_URL`` (``https://slack.com/api/`` → ``https://slack.com/``),
so GovSlack, a proxy or a test's fake Slack serve the whole flow.
"""

from __future__ import annotations

import logging
import time
from typing import Any
from urllib.parse import urlencode

import aiohttp
import jwt
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.sessions import Member

log = logging.getLogger(__name__)

ISSUER = "https://slack.com"
SCOPES = "openid profile"
TEAM_CLAIM = "https://slack.com/team_id"
TEAM_NAME_CLAIM = "https://slack.com/team_name"
USER_CLAIM = "https://slack.com/user_id"
KEYS_SECONDS = 3600.0  # Slack's keys are kept this long (a token signed with a key not among them refetches)
LEEWAY_SECONDS = 30  # clock skew allowed on exp / iat


class SignInRefused(Exception):
    """The sign-in cannot go on; ``reason`` says why, for the log (never a token or a code)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def slack_site(api_url: str | None) -> str:
    """Slack's web root for an API base URL: ``https://slack.com/api/`` → ``https://slack.com/``."""
    base = (api_url or AsyncWebClient.BASE_URL).rstrip("/")
    return base.removesuffix("/api") + "/"


class SignInWithSlack:
    def __init__(self, client_id: str, client_secret: str, api_url: str | None,
                 session: aiohttp.ClientSession) -> None:
        self.client_id = client_id
        self._secret = client_secret
        self._api_url = api_url or AsyncWebClient.BASE_URL
        self._site = slack_site(api_url)
        self._session = session
        self._keys: tuple[float, dict[str, Any]] | None = None

    def authorize_url(self, state: str, nonce: str, redirect_uri: str) -> str:
        query = urlencode({"response_type": "code", "scope": SCOPES, "client_id": self.client_id, "state": state,
                           "nonce": nonce, "redirect_uri": redirect_uri})
        return f"{self._site}openid/connect/authorize?{query}"

    def _client(self, token: str | None = None) -> AsyncWebClient:
        return AsyncWebClient(token=token, base_url=self._api_url, session=self._session, timeout=15,
                              retry_handlers=[])

    async def member(self, code: str, redirect_uri: str, nonce: str) -> Member:
        """Who signed in, from the code Slack sent back; raises :class:`SignInRefused`."""
        try:
            exchanged = await self._client().openid_connect_token(client_id=self.client_id,
                                                                  client_secret=self._secret, code=code,
                                                                  redirect_uri=redirect_uri)
        except SlackApiError as exc:  # Slack's {"ok": false, "error": …}, or an HTTP error with no JSON
            data = exc.response.data
            why = data.get("error") if isinstance(data, dict) else f"HTTP {exc.response.status_code}"
            raise SignInRefused(f"openid.connect.token: {why}") from exc
        except (SlackClientError, aiohttp.ClientError, TimeoutError) as exc:  # Slack unreachable, or not Slack
            raise SignInRefused(f"openid.connect.token: {type(exc).__name__}") from exc
        id_token, access_token = exchanged.get("id_token"), exchanged.get("access_token")
        if not isinstance(id_token, str) or not isinstance(access_token, str):
            raise SignInRefused("openid.connect.token answered without an ID token")
        claims = await self.verify(id_token, nonce)
        team, user = claims.get(TEAM_CLAIM), claims.get("sub")
        if not isinstance(team, str) or not team or not isinstance(user, str) or not user:
            raise SignInRefused("the ID token names no workspace or no user")
        try:
            info = await self._client(access_token).openid_connect_userInfo()
        except (SlackClientError, aiohttp.ClientError, TimeoutError) as exc:
            raise SignInRefused(f"openid.connect.userInfo: {type(exc).__name__}") from exc
        if info.get("sub") != user or info.get(TEAM_CLAIM) != team:
            raise SignInRefused("openid.connect.userInfo describes someone else")
        name = info.get("name") or claims.get("name") or user
        team_name = info.get(TEAM_NAME_CLAIM) or claims.get(TEAM_NAME_CLAIM) or team
        locale = info.get("locale") or claims.get("locale")
        return Member(team, user, str(name), str(team_name), locale if isinstance(locale, str) else None)

    async def verify(self, id_token: str, nonce: str) -> dict[str, Any]:
        """The ID token's claims once issuer, audience, expiry, nonce and (keys reachable) signature hold."""
        try:
            header = jwt.get_unverified_header(id_token)
        except jwt.PyJWTError as exc:
            raise SignInRefused("the ID token is not a JWT") from exc
        key = await self._key(str(header.get("kid", "")))
        options = {"require": ["iss", "aud", "exp", "iat", "sub", "nonce"], "verify_signature": key is not None,
                   "verify_exp": True, "verify_iat": True, "verify_aud": True, "verify_iss": True}
        try:
            claims: dict[str, Any] = jwt.decode(id_token, key, algorithms=["RS256"], audience=self.client_id,
                                                issuer=ISSUER, leeway=LEEWAY_SECONDS, options=options)  # type: ignore[arg-type]
        except jwt.PyJWTError as exc:
            raise SignInRefused(f"the ID token was refused: {exc}") from exc
        if claims.get("nonce") != nonce:
            raise SignInRefused("the ID token answers another sign-in (nonce)")
        return claims

    async def _key(self, kid: str) -> Any:
        """The public key ``kid`` from Slack's JWKS; None only when the JWKS cannot be fetched. An unknown
        ``kid`` refetches the set once, then refuses."""
        for fresh in (False, True):
            keys = await self._jwks(fresh)
            if keys is None:
                return None
            for jwk in keys.get("keys", []):
                if isinstance(jwk, dict) and jwk.get("kid") == kid:
                    try:
                        return jwt.PyJWK(jwk, "RS256").key
                    except jwt.PyJWTError as exc:
                        raise SignInRefused(f"Slack's key {kid!r} is not usable") from exc
        raise SignInRefused(f"the ID token is signed with a key Slack does not publish ({kid!r})")

    async def _jwks(self, fresh: bool) -> dict[str, Any] | None:
        now = time.monotonic()
        if self._keys is not None and not fresh and now < self._keys[0]:
            return self._keys[1]
        try:
            async with self._session.get(f"{self._site}openid/connect/keys",
                                         timeout=aiohttp.ClientTimeout(total=10)) as response:
                response.raise_for_status()
                keys = await response.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            log.warning("Slack's signing keys are unreachable (%s): trusting the ID token from the token endpoint "
                        "over TLS", type(exc).__name__)
            return None
        if not isinstance(keys, dict):
            raise SignInRefused("Slack's signing keys are not a JWKS")
        self._keys = (now + KEYS_SECONDS, keys)
        return keys
