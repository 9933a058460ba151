"""Match hits (entry, day, locale → count; never the paste) and the numbers ``errkb stats`` shows."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from sqlalchemy import bindparam, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.models import DIAGNOSIS, WORKAROUND, Hit, Target, Vote
from bot.store.views import EntryHits, Stats, WorkaroundVotes

_H = Hit.__table__
_ADD_HITS = {
    name: build(_H).values(entry_id=bindparam("e"), day=bindparam("d"), locale=bindparam("l"), count=bindparam("n"))
    for name, build in (("sqlite", sqlite_insert), ("postgresql", pg_insert))
}
_ADD_HITS = {name: stmt.on_conflict_do_update(index_elements=["entry_id", "day", "locale"],
                                              set_={"count": _H.c.count + stmt.excluded["count"]})
             for name, stmt in _ADD_HITS.items()}


async def record_hits(conn: AsyncConnection, counts: Mapping[tuple[str, str, dt.date], int]) -> None:
    """Add ``counts`` ((entry, locale, day) → matches) to the hit counters."""
    rows = [{"e": e, "l": locale, "d": day, "n": n} for (e, locale, day), n in sorted(counts.items()) if n]
    if rows:
        await conn.execute(_ADD_HITS[conn.dialect.name], rows)


async def stats(conn: AsyncConnection, limit: int) -> Stats:
    hits = func.sum(Hit.count).label("hits")
    top_entries = [
        EntryHits(entry_id, int(n))
        for entry_id, n in await conn.execute(
            select(Hit.entry_id, hits).group_by(Hit.entry_id).order_by(hits.desc(), Hit.entry_id).limit(limit))
    ]
    by_locale = {
        locale: int(n)
        for locale, n in await conn.execute(select(Hit.locale, hits).group_by(Hit.locale).order_by(Hit.locale))
    }
    total = (Target.up + Target.down).label("total")
    top_workarounds = [
        WorkaroundVotes(row.entry_id, row.position, row.up, row.down)
        for row in await conn.execute(
            select(Target.entry_id, Target.position, Target.up, Target.down, total)
            .where(Target.kind == WORKAROUND, Target.position.is_not(None), total > 0)
            .order_by(total.desc(), Target.entry_id, Target.position)
            .limit(limit))
    ]
    sums = {
        kind: (int(up or 0), int(down or 0))
        for kind, up, down in await conn.execute(
            select(Target.kind, func.sum(Target.up), func.sum(Target.down)).group_by(Target.kind))
    }
    voters = select(Vote.workspace, Vote.user_id).where(Vote.vote != 0).distinct().subquery()
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
