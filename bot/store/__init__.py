"""Persistence: entries, crowd votes, usage counts and Slack-side state (SQLAlchemy 2, async).

``Store.open(url)`` takes ``sqlite+aiosqlite:///path`` (default) or ``postgresql+asyncpg://…``
and applies the Alembic migrations before returning. Pasted text is never stored.
"""

from bot.kb.feedback import EntryFeedback
from bot.store.migrate import upgrade, upgrade_async
from bot.store.records import (
    EntryHits,
    PostedMessage,
    Stats,
    SyncReport,
    UserPrefs,
    VoteResult,
    WorkaroundVotes,
)
from bot.store.store import Store
from bot.store.targets import UnknownTarget

__all__ = [
    "EntryFeedback",
    "EntryHits",
    "PostedMessage",
    "Stats",
    "Store",
    "SyncReport",
    "UnknownTarget",
    "UserPrefs",
    "VoteResult",
    "WorkaroundVotes",
    "upgrade",
    "upgrade_async",
]
