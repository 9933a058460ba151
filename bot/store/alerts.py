"""Alerts from other bots: one row per workspace, channel and error, counted within a window.

Counting is one upsert: the first alert inserts the row (count 1), one within the window adds one,
one after the window starts it again (count 1, no answer yet). The count it returns says which, so two
processes counting the same error at once never both see 1: only one alert answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Table, and_, bindparam, case, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store.models import AlertRow
from bot.store.records import AlertSeen

_A = AlertRow.__table__


def _counted(build: Callable[[Table], Any]) -> Any:
    stmt = build(_A).values(workspace=bindparam("w"), channel=bindparam("c"), key=bindparam("k"), answer_ts=None,
                            count=1, first_seen=bindparam("now"), last_seen=bindparam("now"))
    over = _A.c.first_seen < bindparam("since")  # the row's window has ended: this alert starts a new one
    return stmt.on_conflict_do_update(
        index_elements=["workspace", "channel", "key"],
        set_={"count": case((over, 1), else_=_A.c.count + 1),
              "first_seen": case((over, stmt.excluded.first_seen), else_=_A.c.first_seen),
              "answer_ts": case((over, None), else_=_A.c.answer_ts),
              "last_seen": stmt.excluded.last_seen},
    ).returning(_A.c.count, _A.c.answer_ts)


_SEEN = {name: _counted(build) for name, build in (("sqlite", sqlite_insert), ("postgresql", pg_insert))}
_MINE = and_(_A.c.workspace == bindparam("w"), _A.c.channel == bindparam("c"), _A.c.key == bindparam("k"))
_ANSWERED = (update(_A).where(_MINE, _A.c.answer_ts.is_(None)).values(answer_ts=bindparam("ts"))
             .returning(_A.c.count))
_COUNT = select(_A.c.count).where(_A.c.workspace == bindparam("w"), _A.c.channel == bindparam("c"),
                                  _A.c.answer_ts == bindparam("ts"))


async def seen(conn: AsyncConnection, workspace: str, channel: str, key: str, now: float,
               window: float) -> AlertSeen:
    """Count one alert of error ``key`` in ``channel`` at ``now``."""
    row = (await conn.execute(_SEEN[conn.dialect.name], {"w": workspace, "c": channel, "k": key, "now": now,
                                                         "since": now - window})).one()
    alerts, answer_ts = row
    return AlertSeen(int(alerts), answer_ts)


async def answered(conn: AsyncConnection, workspace: str, channel: str, key: str, ts: str) -> int | None:
    """Note errkb's answer ``ts`` to error ``key`` in ``channel``; the alerts counted so far (None: no row
    waits for an answer)."""
    row = (await conn.execute(_ANSWERED, {"w": workspace, "c": channel, "k": key, "ts": ts})).first()
    return None if row is None else int(row[0])


async def count(conn: AsyncConnection, workspace: str, channel: str, answer_ts: str) -> int | None:
    """How many alerts errkb's answer ``answer_ts`` stands for (None: it answers no alert)."""
    found = (await conn.execute(_COUNT, {"w": workspace, "c": channel, "ts": answer_ts})).scalar_one_or_none()
    return None if found is None else int(found)
