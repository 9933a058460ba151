"""Slack's v0 request signature: ``v0=`` HMAC-SHA256 of ``v0:{timestamp}:{body}`` under the signing secret."""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping

SECRET = "fake-signing-secret"
MAX_AGE = 300  # seconds: Slack's advice, and what Bolt refuses beyond


def signature(body: str | bytes, timestamp: str, secret: str = SECRET) -> str:
    data = body.encode() if isinstance(body, str) else body
    return "v0=" + hmac.new(secret.encode(), b"v0:" + timestamp.encode() + b":" + data, hashlib.sha256).hexdigest()


def sign(body: str | bytes, timestamp: int | None = None, secret: str = SECRET) -> dict[str, str]:
    """The headers Slack sends with ``body``: its timestamp (now, unless given) and signature."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": signature(body, ts, secret)}


def signed_by_slack(body: bytes, headers: Mapping[str, str], secret: str = SECRET) -> bool:
    """What the least Slack app checks: a recent timestamp and the signature over it."""
    ts = headers.get("X-Slack-Request-Timestamp", "")
    if not ts.isdigit() or abs(time.time() - int(ts)) > MAX_AGE:
        return False
    return hmac.compare_digest(signature(body, ts, secret), headers.get("X-Slack-Signature", ""))
