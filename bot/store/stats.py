"""Match hits (workspace, entry, day, locale → count; never the paste) and the numbers ``errkb stats`` shows."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from sqlalchemy import Select, bindparam, case, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.models import DIAGNOSIS, WORKAROUND, Hit, Target, Vote
from bot.store.records import EntryHits, Stats, WorkaroundVotes

_H = Hit.__table__
ADD_HITS = {
    name: build(_H).values(workspace=bindparam("w"), entry_id=bindparam("e"), day=bindparam("d"),
                           locale=bindparam("l"), count=bindparam("n"))
    for name, build in (("sqlite", sqlite_insert), ("postgresql", pg_insert))
}
ADD_HITS = {name: stmt.on_conflict_do_update(index_elements=["workspace", "entry_id", "day", "locale"],
                                              set_={"count": _H.c.count + stmt.excluded["count"]})
             for name, stmt in ADD_HITS.items()}


async def record_hits(conn: AsyncConnection, counts: Mapping[tuple[str, str, str, dt.date], int]) -> None:
    """Add ``counts`` ((workspace, entry, locale, day) → matches) to the hit counters."""
    rows = [{"w": w, "e": e, "l": locale, "d": day, "n": n} for (w, e, locale, day), n in sorted(counts.items()) if n]
    if rows:
        await conn.execute(ADD_HITS[conn.dialect.name], rows)


async def hit_counts(conn: AsyncConnection, workspace: str | None = None) -> dict[str, int]:
    """How often each entry was the best match: in all workspaces, or only in ``workspace``."""
    query = select(Hit.entry_id, func.sum(Hit.count)).group_by(Hit.entry_id)
    if workspace is not None:
        query = query.where(Hit.workspace == workspace)
    return {entry_id: int(total) for entry_id, total in (await conn.execute(query)).all()}


def _votes_in(workspace: str) -> Select[Any]:
    """One workspace's votes per target: (target id, up, down), from its own vote rows."""
    return (select(Vote.target_id, func.sum(case((Vote.vote == 1, 1), else_=0)).label("up"),
                   func.sum(case((Vote.vote == -1, 1), else_=0)).label("down"))
            .where(Vote.workspace == workspace).group_by(Vote.target_id))


async def stats(conn: AsyncConnection, limit: int, workspace: str | None = None) -> Stats:
    """The usage figures; with ``workspace``, only its hits and its people's votes (never another's)."""
    hits = func.sum(Hit.count).label("hits")
    mine = (Hit.workspace == workspace,) if workspace is not None else ()
    top_entries = [
        EntryHits(entry_id, int(n))
        for entry_id, n in await conn.execute(
            select(Hit.entry_id, hits).where(*mine).group_by(Hit.entry_id).order_by(hits.desc(), Hit.entry_id)
            .limit(limit))
    ]
    by_locale = {
        locale: int(n)
        for locale, n in await conn.execute(select(Hit.locale, hits).where(*mine).group_by(Hit.locale)
                                            .order_by(Hit.locale))
    }
    if workspace is None:
        counts = select(Target.id.label("target_id"), Target.up.label("up"), Target.down.label("down")).subquery()
    else:
        counts = _votes_in(workspace).subquery()
    total = (counts.c.up + counts.c.down).label("total")
    top_workarounds = [
        WorkaroundVotes(row.entry_id, row.position, int(row.up), int(row.down))
        for row in await conn.execute(
            select(Target.entry_id, Target.position, counts.c.up, counts.c.down, total)
            .join(counts, counts.c.target_id == Target.id)
            .where(Target.kind == WORKAROUND, Target.position.is_not(None), total > 0)
            .order_by(total.desc(), Target.entry_id, Target.position)
            .limit(limit))
    ]
    sums = {
        kind: (int(up or 0), int(down or 0))
        for kind, up, down in await conn.execute(
            select(Target.kind, func.sum(counts.c.up), func.sum(counts.c.down))
            .join(counts, counts.c.target_id == Target.id).group_by(Target.kind))
    }
    voters = (select(Vote.workspace, Vote.user_id).where(Vote.vote != 0, *((Vote.workspace == workspace,)
                                                                           if workspace is not None else ()))
              .distinct().subquery())
    voter_count = (await conn.execute(select(func.count()).select_from(voters))).scalar_one()
    return Stats(
        top_entries=top_entries,
        top_workarounds=top_workarounds,
        hits_by_locale=by_locale,
        votes_up=sums.get(WORKAROUND, (0, 0))[0],
        votes_down=sums.get(WORKAROUND, (0, 0))[1],
        diagnosis_up=sums.get(DIAGNOSIS, (0, 0))[0],
        diagnosis_down=sums.get(DIAGNOSIS, (0, 0))[1],
        voters=voter_count,
    )
