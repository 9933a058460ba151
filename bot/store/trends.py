"""One workspace's matches over time: hits per day and entry, for the team dashboard."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.models import Hit
from bot.store.records import DayHits


async def daily_hits(conn: AsyncConnection, workspace: str, since: dt.date) -> list[DayHits]:
    """``workspace``'s hits per day and entry from ``since`` on (every locale summed), by day then entry."""
    hits = func.sum(Hit.count)
    query = (select(Hit.day, Hit.entry_id, hits).where(Hit.workspace == workspace, Hit.day >= since)
             .group_by(Hit.day, Hit.entry_id).order_by(Hit.day, Hit.entry_id))
    return [DayHits(day, entry_id, int(n)) for day, entry_id, n in (await conn.execute(query)).all() if n]
