"""The composition root: every use case, built once from the KB, the store, the outlet and the settings.

This is the only place that knows how the use cases and the runtime machinery are wired together.
Adapters (the Slack listeners, the CLI) receive the use cases they call and nothing else.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.kb.knowledge import KnowledgeBase
from bot.service.answers import Answers
from bot.service.buttons import Buttons
from bot.service.commands import Commands
from bot.service.conversation import Conversations
from bot.service.dashboard import Dashboard
from bot.service.home import Home
from bot.service.knowledge import Knowledge
from bot.service.locales import Locales
from bot.service.ports import Outlet
from bot.service.replays import Replays
from bot.service.runtime.channels import Channels
from bot.service.runtime.numbers import Numbers
from bot.service.runtime.quoted import Quoted
from bot.service.runtime.writer import WriteBehind
from bot.service.suggestions import Suggestions
from bot.service.teaching import Teaching
from bot.service.team import TeamKnowledge
from bot.service.unknowns import Unknowns
from bot.service.voting import Voting
from bot.service.workspaces import Workspaces
from bot.store import Store


@dataclass(frozen=True)
class Service:
    """The use cases an adapter calls, and the handles to start and stop the machinery behind them."""

    knowledge: Knowledge
    answers: Answers
    voting: Voting
    buttons: Buttons
    commands: Commands
    home: Home
    workspaces: Workspaces
    teaching: Teaching
    suggestions: Suggestions
    replays: Replays
    locales: Locales
    writer: WriteBehind
    dashboard: Dashboard

    def start(self) -> None:
        self.writer.start()
        self.answers.outbox.start()

    async def stop(self, timeout: float) -> None:
        """Finish recorded answers and pending updates (within ``timeout``), then write what is queued."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        await self.answers.outbox.stop(timeout)
        await self.voting.updates.drain(max(0.5, deadline - loop.time()))
        await self.writer.stop()

    def pending(self) -> int:
        """Recorded answers not yet posted by this process."""
        return len(self.answers.outbox)


def build(kb: KnowledgeBase, store: Store, outlet: Outlet, *, update_delay: float = 1.0,
          clock: Callable[[], float] = time.time, pastes: Path | None = None,
          reviewers: tuple[str, ...] = (), site_url: str | None = None,
          alert_window: float = 86400.0) -> Service:
    """Every use case over ``kb``, ``store`` and ``outlet`` (the Slack gateway, or a test's recorder).

    ``pastes`` is the KB's paste fixtures (what a taught regex must not steal); ``reviewers`` the user
    groups whose members review team entries besides workspace admins; ``site_url`` where ``errkb site``'s pages
    are served, for the details view to link to; ``alert_window`` the seconds within which other bots' alerts of
    one error in a channel are counted on one answer."""
    team = TeamKnowledge(store, pastes)
    knowledge = Knowledge(kb, store, team)
    locales = Locales(store, outlet)
    conversations = Conversations(locales)
    writer = WriteBehind(store, clock)
    channels = Channels(store)
    numbers = Numbers(store, lambda: kb.entries)
    unknowns = Unknowns(store)
    quoted = Quoted()
    voting = Voting(knowledge, store, outlet, conversations, numbers, writer, quoted, update_delay, alert_window)
    answers = Answers(knowledge, team, store, outlet, conversations, channels, numbers, unknowns, writer, quoted,
                      voting.refresh, alert_window, clock)
    home = Home(knowledge, store, outlet, conversations, locales, unknowns)
    teaching = Teaching(store, team, conversations, outlet, reviewers, home=home.show)
    suggestions = Suggestions(knowledge, store, outlet, conversations, numbers.forget, teaching.is_reviewer,
                              voting.refresh)
    buttons = Buttons(knowledge, store, outlet, conversations, locales, writer, answers, voting, suggestions,
                      site_url)
    commands = Commands(knowledge, answers, store, outlet, conversations, locales, channels, unknowns, writer,
                        teaching.is_reviewer)
    workspaces = Workspaces(store, channels, numbers, voting)
    return Service(knowledge, answers, voting, buttons, commands, home, workspaces, teaching, suggestions,
                   Replays(store), locales, writer, Dashboard(knowledge, store, unknowns))
