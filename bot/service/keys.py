"""The keys that make a decision one decision, whichever process records it first."""

from __future__ import annotations

import hashlib


def _key(kind: str, *parts: str) -> str:
    return f"{kind}:" + hashlib.sha256("\0".join(parts).encode()).hexdigest()[:40]


def answer(workspace: str, channel: str, thread_ts: str, entry_id: str) -> str:
    """One answer per error per thread: a paste, its edit and Slack's retries share it."""
    return _key("answer", workspace, channel, thread_ts, entry_id)


def message(workspace: str, channel: str, ts: str) -> str:
    """One decision per message read later (snippets, a mention's thread)."""
    return _key("message", workspace, channel, ts)


def alert(workspace: str, channel: str, ts: str) -> str:
    """One count per alert another bot posted, however often Slack delivers it."""
    return _key("alert", workspace, channel, ts)


def replay(*parts: str) -> str:
    """One effect per click or command, however often Slack replays it."""
    return _key("replay", *parts)
