"""What the service decides to send, as plain data; the Slack gateway carries it out and reports back.

A plan is a sequence of actions, sent in order. Messages are Block Kit dicts from ``bot.render``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]


@dataclass(frozen=True)
class About:
    """What a posted message shows, so that reactions on it vote for that (``workaround`` None: the diagnosis)."""

    entry_id: str
    workaround: int | None
    locale: str


@dataclass(frozen=True)
class Post:
    message: Message
    about: About | None = None


@dataclass(frozen=True)
class Thread:
    """Messages posted in order in ``thread_ts`` of ``channel`` (None: the first starts a new thread for
    the rest). It stops at the first failure; ``if_failed`` is then told to the requester instead."""

    workspace: str
    channel: str
    thread_ts: str | None
    posts: Sequence[Post]
    if_failed: Sequence[Message] = ()


@dataclass(frozen=True)
class Whisper:
    """Ephemeral messages to ``user`` in the channel (in ``thread_ts``), or privately to the requester
    when the bot cannot post there."""

    channel: str
    user: str
    thread_ts: str | None
    messages: Sequence[Message]


@dataclass(frozen=True)
class Reply:
    """Ephemeral answers to whoever sent the command or clicked (Slack's ``response_url``)."""

    messages: Sequence[Message]


@dataclass(frozen=True)
class Update:
    """Replace one of the bot's messages in place."""

    channel: str
    ts: str
    message: Message


@dataclass(frozen=True)
class Publish:
    """The App Home tab of ``user``."""

    user: str
    view: dict[str, Any]


@dataclass(frozen=True)
class OpenView:
    """A modal opened for whoever clicked (``trigger_id`` lives three seconds)."""

    trigger_id: str
    view: dict[str, Any]


@dataclass(frozen=True)
class UpdateView:
    """Replace an open modal (``hash``: only if nobody changed it since, when given)."""

    view_id: str
    view: dict[str, Any]
    hash: str | None = None


Action = Thread | Whisper | Reply | Update | Publish | OpenView | UpdateView


@dataclass(frozen=True)
class Plan:
    actions: Sequence[Action] = ()

    def __bool__(self) -> bool:
        return bool(self.actions)


@dataclass(frozen=True)
class Sent:
    """One message the gateway posted: which post of which thread action, and its ts."""

    thread: Thread
    post: Post
    ts: str
    thread_ts: str


@dataclass(frozen=True)
class Failure:
    """Why an action could not be carried out; ``permanent`` when trying again cannot help."""

    action: Action
    reason: str
    permanent: bool


@dataclass
class Report:
    """What the gateway did with a plan."""

    sent: list[Sent] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures
