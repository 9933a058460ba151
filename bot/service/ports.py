"""What the service needs from the chat platform, implemented by ``bot.slack.gateway``.

``via`` is the platform's handle for one workspace (the Web API client Bolt put in the request's
context, the requester's ``respond``); the service passes it back untouched.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from bot.service.plans import Plan, Report, Sent


@dataclass(frozen=True)
class Via:
    """How to reach one workspace for one request: its client, and the requester's reply channel."""

    client: Any
    respond: Callable[..., Awaitable[Any]] | None = None
    me: frozenset[str] = frozenset()  # the ids the bot's own messages carry (its user and bot ids)


@dataclass(frozen=True)
class Author:
    """Who wrote a message, as far as deciding whether to answer it goes."""

    user: str | None
    own: bool  # errkb's own message
    bot: bool  # another bot's (or an integration's)


@dataclass(frozen=True)
class Fetched:
    """A message read back from the platform: its text (snippets included) and its author."""

    text: str
    author: Author


class Outlet(Protocol):
    async def send(self, plan: Plan, via: Via, on_sent: Callable[[Sent], None] | None = None) -> Report: ...

    async def read_files(self, file_ids: list[str], via: Via) -> str: ...

    async def thread_root(self, channel: str, thread_ts: str, via: Via) -> Fetched | None: ...

    async def user_locale(self, user: str, via: Via) -> str | None:
        """The user's language as the platform reports it; None when it cannot be asked."""
        ...

    async def is_admin(self, user: str, via: Via) -> bool:
        """Whether ``user`` is an admin or owner of the workspace (False when it cannot be asked)."""
        ...

    async def group_members(self, group: str, via: Via) -> set[str]:
        """The members of user group ``group`` (empty when it cannot be asked)."""
        ...

    async def channel_creator(self, channel: str, via: Via) -> str | None:
        """The user who created ``channel`` in the request's workspace (None: unknown, a DM, or it cannot be
        asked)."""
        ...

    def via_for(self, workspace: str) -> Via:
        """A handle for ``workspace`` outside any request (work recovered after a restart)."""
        ...
