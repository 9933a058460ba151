"""What the listeners hand the service: the parts of a payload that matter, no Slack dicts."""

from __future__ import annotations

from dataclasses import dataclass

from bot.service.ports import Author


@dataclass(frozen=True)
class Incoming:
    """A message that may hold a paste (new, edited, or mentioning the bot)."""

    workspace: str
    channel: str
    ts: str
    thread_ts: str  # the thread to answer in (the message's own ts when it starts one)
    author: Author
    text: str
    files: tuple[str, ...] = ()  # ids of its text snippets, read only when its text holds no error


@dataclass(frozen=True)
class Click:
    """Who clicked which button on which message; ``ts`` None for an ephemeral message (not stored)."""

    workspace: str
    user: str
    value: str
    channel: str
    ts: str | None
    thread_ts: str | None
    at: float  # when it was clicked (Slack's action_ts)
    replay_key: str  # the same for Slack's replays of one click
    trigger_id: str = ""  # lets the reply open a modal (for a few seconds after the click)


@dataclass(frozen=True)
class Command:
    """``/errkb <text>``; ``replay_key`` is the same for Slack's replays of one command."""

    workspace: str
    user: str
    channel: str
    text: str
    replay_key: str
