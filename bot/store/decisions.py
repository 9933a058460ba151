"""Recorded decisions to answer: insert once per key, leases, take-over, finish or forget, prune.

Statements are built once at import; each call only binds values. Recording, on Slack's ack path,
is one prepared statement sent on the driver's own connection (``record_now``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, delete, or_, select, update
from sqlalchemy.dialects.postgresql import asyncpg
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import aiosqlite
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.models import DecisionRow
from bot.store.records import Decision

# A finished note (a mention's "nothing found", a file or thread-root look-up) keeps its key only
# against Slack's retries of that event (the last comes about five minutes after it); a finished
# answer keeps that thread's error answered as long as its posted messages are kept, and so does an
# alert counted (its edits, however late, are not new alerts).
NOTE_KEEP = 3600.0
_KEPT = ("answer", "alert", "alert_seen")  # answers to a paste or to an alert, and alerts counted

_T = DecisionRow.__table__
_COLUMNS = ("key", "kind", "workspace", "channel", "thread_ts", "message_ts", "user_id", "entry_id", "files",
            "done", "created_at", "lease_until", "owner")
_INSERT = {
    name: build(_T).values({c: bindparam(c) for c in _COLUMNS}).on_conflict_do_nothing(index_elements=["key"])
    .returning(_T.c.id)
    for name, build in (("sqlite", sqlite_insert), ("postgresql", pg_insert))
}
# A dialect's INSERT … ON CONFLICT has no cache key, so SQLAlchemy would compile it on every call:
# compiled here once, for the drivers errkb uses (positional parameters in this order).
_INSERT_SQL = {name: _INSERT[name].compile(dialect=dialect) for name, dialect in (("sqlite", aiosqlite.dialect()),
                                                                                    ("postgresql", asyncpg.dialect()))}
_RENEW = (update(_T).where(_T.c.owner == bindparam("me"), _T.c.done.is_(False),
                           _T.c.id.in_(bindparam("ids", expanding=True)))
          .values(lease_until=bindparam("until")))
_EXPIRED = (select(_T).where(_T.c.done.is_(False), _T.c.lease_until < bindparam("now"))
            .order_by(_T.c.created_at).limit(bindparam("limit")))
_TAKE = (update(_T).where(_T.c.id == bindparam("did"), _T.c.done.is_(False), _T.c.lease_until < bindparam("now"))
         .values(owner=bindparam("me"), lease_until=bindparam("until")))
_FINISH = update(_T).where(_T.c.id.in_(bindparam("ids", expanding=True))).values(done=True)
_FORGET = delete(_T).where(_T.c.id.in_(bindparam("ids", expanding=True)))
_RELEASE = update(_T).where(_T.c.owner == bindparam("me"), _T.c.done.is_(False)).values(lease_until=0.0)
_PRUNE = delete(_T).where(_T.c.done.is_(True),
                          or_(_T.c.created_at < bindparam("answers_before"),
                              _T.c.kind.not_in(_KEPT) & (_T.c.created_at < bindparam("notes_before"))))
_PENDING = select(_T.c.id).where(_T.c.done.is_(False))


def _values(d: Decision, owner: str, lease_until: float, done: bool) -> dict[str, object]:
    return {"key": d.key, "kind": d.kind, "workspace": d.workspace, "channel": d.channel, "thread_ts": d.thread_ts,
            "message_ts": d.message_ts, "user_id": d.user, "entry_id": d.entry_id,
            "files": list(d.files) or None, "done": done, "created_at": d.created_at, "lease_until": lease_until,
            "owner": owner}


async def record(conn: AsyncConnection, decision: Decision, owner: str, lease_until: float,
                 done: bool = False) -> int | None:
    """Insert ``decision``; its id, or None when its key was already taken."""
    row = (await conn.execute(_INSERT[conn.dialect.name], _values(decision, owner, lease_until, done))).first()
    return None if row is None else int(row[0])


async def record_now(driver: Any, dialect: str, decision: Decision, owner: str, lease_until: float,
                     done: bool = False) -> int | None:
    """``record`` as one autocommitted statement on ``driver`` (an aiosqlite or asyncpg connection)."""
    compiled = _INSERT_SQL[dialect]
    values = _values(decision, owner, lease_until, done)
    values["files"] = json.dumps(values["files"]) if values["files"] is not None else None
    params = [values[name] for name in compiled.positiontup or ()]
    if dialect == "postgresql":
        found = await driver.fetchval(compiled.string, *params)
    else:
        rows = await driver.execute_fetchall(compiled.string, params)
        found = rows[0][0] if rows else None
    return None if found is None else int(found)


async def renew(conn: AsyncConnection, owner: str, ids: Sequence[int], until: float) -> int:
    """Extend ``owner``'s lease on the decisions ``ids`` it still has queued or running."""
    return (await conn.execute(_RENEW, {"me": owner, "ids": list(ids), "until": until})).rowcount


async def any_expired(conn: AsyncConnection, now: float) -> bool:
    return (await conn.execute(_EXPIRED, {"now": now, "limit": 1})).first() is not None


async def take_expired(conn: AsyncConnection, owner: str, now: float, until: float, limit: int) -> list[Decision]:
    """Unfinished decisions whose owner stopped renewing them, oldest first, now held by ``owner``."""
    taken = []
    for row in (await conn.execute(_EXPIRED, {"now": now, "limit": limit})).all():
        if (await conn.execute(_TAKE, {"did": row.id, "now": now, "me": owner, "until": until})).rowcount == 1:
            taken.append(Decision(row.key, row.kind, row.workspace, row.channel, row.thread_ts, row.message_ts,
                                  row.user_id, row.entry_id, tuple(row.files or ()), row.created_at, row.id))
    return taken


async def finish(conn: AsyncConnection, ids: Sequence[int]) -> None:
    await conn.execute(_FINISH, {"ids": list(ids)})


async def forget(conn: AsyncConnection, ids: Sequence[int]) -> None:
    await conn.execute(_FORGET, {"ids": list(ids)})


async def release(conn: AsyncConnection, owner: str) -> None:
    await conn.execute(_RELEASE, {"me": owner})


async def pending_count(conn: AsyncConnection) -> int:
    return len((await conn.execute(_PENDING)).all())


async def prune(conn: AsyncConnection, now: float, answers_before: float) -> int:
    """Delete finished notes older than ``NOTE_KEEP`` and finished answers recorded before ``answers_before``."""
    return (await conn.execute(_PRUNE, {"answers_before": answers_before, "notes_before": now - NOTE_KEEP})).rowcount
