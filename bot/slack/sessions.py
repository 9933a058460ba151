"""The dashboard's signed cookies: a sign-in in progress (state and nonce) and a signed-in member's session.

Each is a JWT signed with HMAC-SHA256 under ``ERRKB_DASHBOARD_SECRET`` (PyJWT), with an expiry and its kind, so
a forged, altered or expired cookie, or one kind offered as the other, is simply not a session. The cookies are
HttpOnly and SameSite=Lax (Slack's redirect back is a top-level GET, which Lax lets through), and Secure when the
dashboard is served over HTTPS.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import jwt
from aiohttp import web

SIGN_IN = "errkb_sign_in"
SESSION = "errkb_session"
SIGN_IN_SECONDS = 600  # to approve in Slack and come back
SESSION_SECONDS = 8 * 3600  # a working day; then Slack is asked again (a member who left is no longer let in)
PATH = "/dashboard"


@dataclass(frozen=True)
class Member:
    """Who Slack said signed in: their workspace (the only one whose numbers they see) and names to show."""

    team: str
    user: str
    name: str
    team_name: str
    locale: str | None = None


class Cookies:
    def __init__(self, secret: str) -> None:
        self._secret = secret

    def _seal(self, kind: str, claims: dict[str, Any], seconds: int) -> str:
        now = int(time.time())
        return jwt.encode({**claims, "kind": kind, "iat": now, "exp": now + seconds}, self._secret, "HS256")

    def _open(self, kind: str, value: str | None) -> dict[str, Any] | None:
        if not value:
            return None
        try:
            claims = jwt.decode(value, self._secret, algorithms=["HS256"], options={"require": ["exp", "kind"]})
        except jwt.PyJWTError:
            return None
        return claims if claims.get("kind") == kind else None

    def start_sign_in(self, response: web.StreamResponse, state: str, nonce: str, secure: bool) -> None:
        _set(response, SIGN_IN, self._seal(SIGN_IN, {"state": state, "nonce": nonce}, SIGN_IN_SECONDS),
             SIGN_IN_SECONDS, secure)

    def sign_in(self, request: web.Request) -> tuple[str, str] | None:
        """(state, nonce) of the sign-in this browser started here, or None (none, expired or forged)."""
        claims = self._open(SIGN_IN, request.cookies.get(SIGN_IN))
        if claims is None or not isinstance(claims.get("state"), str) or not isinstance(claims.get("nonce"), str):
            return None
        return claims["state"], claims["nonce"]

    def start_session(self, response: web.StreamResponse, member: Member, secure: bool) -> None:
        claims = {"team": member.team, "user": member.user, "name": member.name, "team_name": member.team_name,
                  "locale": member.locale}
        _set(response, SESSION, self._seal(SESSION, claims, SESSION_SECONDS), SESSION_SECONDS, secure)
        response.del_cookie(SIGN_IN, path=PATH)

    def session(self, request: web.Request) -> Member | None:
        """The signed-in member, or None (no session, or an expired or forged one)."""
        claims = self._open(SESSION, request.cookies.get(SESSION))
        if claims is None or not all(isinstance(claims.get(k), str) for k in ("team", "user", "name", "team_name")):
            return None
        locale = claims.get("locale")
        return Member(claims["team"], claims["user"], claims["name"], claims["team_name"],
                      locale if isinstance(locale, str) else None)

    @staticmethod
    def end(response: web.StreamResponse) -> None:
        response.del_cookie(SESSION, path=PATH)
        response.del_cookie(SIGN_IN, path=PATH)


def _set(response: web.StreamResponse, name: str, value: str, seconds: int, secure: bool) -> None:
    response.set_cookie(name, value, max_age=seconds, path=PATH, httponly=True, samesite="Lax", secure=secure)
