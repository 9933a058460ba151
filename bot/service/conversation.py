"""Conversation: who a request comes from, through which surface, and the language they read.

A use case that answers someone opens one conversation per request and speaks inside it: the
reader's locale (their ``/errkb locale`` override, else their Slack language, else English) is
resolved once, here, and every ``_()`` in the block is in that language (aiogram's i18n middleware
does the same for a bot's handlers).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

from bot import i18n
from bot.service.locales import Locales
from bot.service.ports import Via


@dataclass(frozen=True)
class Conversation:
    workspace: str
    user: str | None
    via: Via
    locale: str  # as the reader reads: en, zh, zh-TW or zh-HK (i18n.READING)

    @contextlib.contextmanager
    def speaking(self) -> Iterator[str]:
        """Run the block in the reader's locale; yields the language they read the KB in (``en``/``zh``)."""
        with i18n.use_locale(self.locale):
            yield i18n.language(self.locale)


class Conversations:
    def __init__(self, locales: Locales) -> None:
        self.locales = locales

    async def open(self, workspace: str, user: str | None, via: Via) -> Conversation:
        return Conversation(workspace, user, via, await self.locales.locale_for(workspace, user, via))

    @contextlib.asynccontextmanager
    async def speaking(self, workspace: str, user: str | None, via: Via) -> AsyncIterator[Conversation]:
        """Open the reader's conversation and run the block in their locale."""
        conversation = await self.open(workspace, user, via)
        with conversation.speaking():
            yield conversation
