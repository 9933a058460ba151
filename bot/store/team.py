"""What a team's errkb remembers of the errors it could not answer (their masked shapes) and its switches."""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.models import UnknownErrorRow, WorkspaceSettingsRow
from bot.store.records import UnknownError

_U = UnknownErrorRow.__table__
_SEEN = {
    name: build(_U).values(workspace=bindparam("w"), digest=bindparam("d"), shape=bindparam("s"),
                           error_type=bindparam("t"), channel=bindparam("c"), count=1,
                           first_seen=bindparam("now"), last_seen=bindparam("now"))
    for name, build in (("sqlite", sqlite_insert), ("postgresql", pg_insert))
}
_SEEN = {name: stmt.on_conflict_do_update(index_elements=["workspace", "digest"],
                                          set_={"count": _U.c.count + 1, "last_seen": stmt.excluded["last_seen"],
                                                "channel": stmt.excluded["channel"]})
         for name, stmt in _SEEN.items()}
_S = WorkspaceSettingsRow.__table__
_SET = {name: build(_S).values(workspace=bindparam("w"), unknown=bindparam("u"))
        for name, build in (("sqlite", sqlite_insert), ("postgresql", pg_insert))}
_SET = {name: stmt.on_conflict_do_update(index_elements=["workspace"], set_={"unknown": stmt.excluded["unknown"]})
        for name, stmt in _SET.items()}


async def seen_unknown(conn: AsyncConnection, workspace: str, digest: str, shape: str, error_type: str | None,
                       channel: str, now: float) -> None:
    """Count one more sighting of an unknown error's shape (created on its first)."""
    await conn.execute(_SEEN[conn.dialect.name], {"w": workspace, "d": digest, "s": shape, "t": error_type,
                                                  "c": channel, "now": now})


async def unknown_errors(conn: AsyncConnection, workspace: str | None, limit: int) -> list[UnknownError]:
    """The most frequent unknown shapes (most recent first among equals): of ``workspace``, or of all."""
    query = (select(_U.c.workspace, _U.c.digest, _U.c.shape, _U.c.error_type, _U.c.channel, _U.c.count,
                    _U.c.first_seen, _U.c.last_seen)
             .order_by(_U.c.count.desc(), _U.c.last_seen.desc(), _U.c.digest).limit(limit))
    if workspace is not None:
        query = query.where(_U.c.workspace == workspace)
    return [UnknownError(*row) for row in (await conn.execute(query)).all()]


async def remembers_unknown(conn: AsyncConnection, workspace: str) -> bool:
    """Whether ``workspace`` keeps unknown errors' shapes (on unless it said ``/errkb unknown off``)."""
    found = (await conn.execute(select(WorkspaceSettingsRow.unknown)
                                .where(WorkspaceSettingsRow.workspace == workspace))).scalar_one_or_none()
    return True if found is None else bool(found)


async def set_remember_unknown(conn: AsyncConnection, workspace: str, on: bool) -> None:
    """Switch remembering on or off; off also forgets what this workspace had remembered."""
    await conn.execute(_SET[conn.dialect.name], {"w": workspace, "u": on})
    if not on:
        await conn.execute(_U.delete().where(_U.c.workspace == workspace))
