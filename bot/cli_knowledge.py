"""How a CLI command reads the KB: ``Knowledge`` over the seeds, with the store's live numbers when one
is configured or the default file exists (``errkb diagnose``, ``show``, ``search``, ``ci``, ``demo``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from bot.config import Settings
from bot.kb.knowledge import KnowledgeBase
from bot.service.knowledge import Knowledge

T = TypeVar("T")


async def with_knowledge(settings: Settings, use_store: bool, work: Callable[[Knowledge], Awaitable[T]]) -> T:
    """Run ``work(knowledge)`` with the store attached when it is wanted and reachable."""
    kb = KnowledgeBase.load(settings.seeds_dir)
    if not use_store:
        return await work(Knowledge(kb))
    from bot.store import Store

    async with await Store.open(settings.database_url) as store:
        return await work(Knowledge(kb, store))


def store_wanted(settings: Settings) -> bool:
    """Live numbers come from the store when one is configured or the default file exists."""
    url = settings.database_url
    if not url.startswith("sqlite"):
        return True
    path = url.split("///", 1)[-1]
    return path == ":memory:" or Path(path).exists()
