"""Sign in with Slack, as the fake Slack plays it: the authorize page (it approves at once, as ``member``), the
token exchange (``openid.connect.token``: an RS256 ID token signed with a key made here), ``userInfo`` and the
JWKS that publishes the key.

A test says who approves (``member``) and may spoil what Slack answers: ``claims`` overrides ID token claims
(a wrong audience, an expired token, another nonce), ``forge`` signs with a key Slack does not publish, and
``keys_down`` makes the JWKS unreachable.
"""

from __future__ import annotations

import base64
import itertools
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import jwt
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric import rsa

ISSUER = "https://slack.com"
KID = "fake-slack-key-1"


@dataclass
class Approver:
    """Who approves the next sign-in in the fake Slack."""

    team: str
    user: str
    name: str = "Ada Lovelace"
    team_name: str = ""
    locale: str = "en-US"


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@dataclass
class FakeSignIn:
    client_id: str
    client_secret: str
    member: Approver | None = None
    claims: dict[str, Any] = field(default_factory=dict)
    forge: bool = False
    keys_down: bool = False
    key: rsa.RSAPrivateKey = field(default_factory=_key)
    codes: dict[str, tuple[Approver, str]] = field(default_factory=dict)  # code → (who, nonce)
    tokens: dict[str, Approver] = field(default_factory=dict)  # access token → who
    _issued: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def code(self, member: Approver, nonce: str) -> str:
        """A code Slack would hand back after ``member`` approved a sign-in with ``nonce``."""
        code = f"oidc-code-{next(self._issued)}"
        self.codes[code] = (member, nonce)
        return code

    async def authorize(self, request: web.Request) -> web.Response:
        """``GET /openid/connect/authorize``: ``member`` approves, the browser goes back with a code and the state."""
        query = request.query
        if self.member is None or query.get("client_id") != self.client_id or query.get("response_type") != "code" \
                or "openid" not in query.get("scope", "").split():
            return web.Response(status=400, text="bad sign-in request")
        back = urlencode({"code": self.code(self.member, query.get("nonce", "")), "state": query.get("state", "")})
        return web.Response(status=302, headers={"Location": f"{query['redirect_uri']}?{back}"})

    async def keys(self, _request: web.Request) -> web.Response:
        """``GET /openid/connect/keys``: the JWKS with the one key Slack signs with."""
        if self.keys_down:
            return web.Response(status=503, text="down")
        public = self.key.public_key().public_numbers()

        def b64(n: int) -> str:
            return base64.urlsafe_b64encode(n.to_bytes((n.bit_length() + 7) // 8, "big")).rstrip(b"=").decode()

        return web.json_response({"keys": [{"kty": "RSA", "kid": KID, "alg": "RS256", "use": "sig",
                                            "n": b64(public.n), "e": b64(public.e)}]})

    def token(self, args: dict[str, Any], auth: str) -> dict[str, Any]:
        """``openid.connect.token``: the app's credentials and a code → an access token and a signed ID token."""
        basic = base64.b64decode(auth.removeprefix("Basic ")).decode() if auth.startswith("Basic ") else ":"
        if tuple(basic.split(":", 1)) != (self.client_id, self.client_secret):
            return {"ok": False, "error": "invalid_client_id"}
        found = self.codes.pop(str(args.get("code")), None)
        if found is None:
            return {"ok": False, "error": "invalid_code"}
        member, nonce = found
        now = int(time.time())
        claims = {"iss": ISSUER, "sub": member.user, "aud": self.client_id, "exp": now + 300, "iat": now,
                  "auth_time": now, "nonce": nonce, **self._identity(member), **self.claims}
        key = _key() if self.forge else self.key
        id_token = jwt.encode(claims, key, "RS256", headers={"kid": KID})
        access = f"xoxp-oidc-{next(self._issued)}"
        self.tokens[access] = member
        return {"ok": True, "access_token": access, "token_type": "Bearer", "id_token": id_token}

    def user_info(self, token: str | None) -> dict[str, Any]:
        member = self.tokens.get(token or "")
        if member is None:
            return {"ok": False, "error": "invalid_auth"}
        return {"ok": True, "sub": member.user, **self._identity(member)}

    @staticmethod
    def _identity(member: Approver) -> dict[str, Any]:
        return {"https://slack.com/team_id": member.team, "https://slack.com/user_id": member.user,
                "https://slack.com/team_name": member.team_name or f"Team {member.team}", "name": member.name,
                "locale": member.locale}
