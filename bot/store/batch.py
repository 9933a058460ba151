"""The write-behind's batch as statements prepared once and sent on the driver's own connection.

Through SQLAlchemy's aiosqlite adapter every statement costs three or four hops to SQLite's thread
(cursor, execute, fetch, close), each of which waits for the GIL under load while this process's
write turn is held, and Slack's acks wait for that turn (``bot.store.decisions.record_now``). Here a
batch is six hops on SQLite and six round trips on PostgreSQL, whatever its size: begin, look up the
posted messages' targets, remember them, finish or forget decisions, add hits, commit.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, delete, update
from sqlalchemy.dialects.postgresql import asyncpg
from sqlalchemy.dialects.sqlite import aiosqlite
from sqlalchemy.sql.compiler import SQLCompiler

from bot.store.models import DecisionRow, EntryRow, Target
from bot.store.records import PostedRow, WriteBatch
from bot.store.slack_state import REMEMBER, remembered
from bot.store.stats import ADD_HITS

_D = DecisionRow.__table__
_DIALECTS = {"sqlite": aiosqlite.dialect(), "postgresql": asyncpg.dialect()}


def _compiled(statements: dict[str, Any] | Any) -> dict[str, SQLCompiler]:
    compiled = {name: (statements[name] if isinstance(statements, dict) else statements).compile(dialect=dialect)
                for name, dialect in _DIALECTS.items()}
    assert all(isinstance(c, SQLCompiler) for c in compiled.values())  # DML for a SQL dialect
    return compiled


_REMEMBER = _compiled(REMEMBER)
_ADD_HITS = _compiled(ADD_HITS)
_FINISH = _compiled(update(_D).where(_D.c.id == bindparam("did")).values(done=bindparam("yes")))
_FORGET = _compiled(delete(_D).where(_D.c.id == bindparam("did")))
# The live targets of some entries; the ids go as one JSON array (SQLite) or one array (PostgreSQL).
_T, _E = Target.__tablename__, EntryRow.__tablename__
_SELECT_LIVE = (f"SELECT t.id, t.entry_id, t.kind, t.position FROM {_T} t JOIN {_E} e ON e.id = t.entry_id "
                f"WHERE e.retired_at IS NULL AND t.entry_id ")
_LIVE = {"sqlite": _SELECT_LIVE + "IN (SELECT value FROM json_each(?))",
         "postgresql": _SELECT_LIVE + "= ANY($1::varchar[])"}


def _rows(compiled: SQLCompiler, values: Sequence[dict[str, Any]]) -> list[tuple[Any, ...]]:
    names = compiled.positiontup or ()
    return [tuple(v[name] for name in names) for v in values]


async def write(driver: Any, dialect: str, batch: WriteBatch, now: float) -> list[PostedRow]:
    """Write ``batch`` in one transaction on ``driver`` (aiosqlite or asyncpg, outside any transaction);
    returns the posted messages whose entry or workaround is unknown (not remembered)."""
    if dialect == "postgresql":
        async with driver.transaction():
            return await _statements(driver, dialect, batch, now)
    await driver.execute("BEGIN IMMEDIATE")
    try:
        unknown = await _statements(driver, dialect, batch, now)
    except BaseException:
        await driver.rollback()
        raise
    await driver.commit()
    return unknown


async def _statements(driver: Any, dialect: str, batch: WriteBatch, now: float) -> list[PostedRow]:
    sqlite = dialect == "sqlite"

    async def many(compiled: SQLCompiler, values: Sequence[dict[str, Any]]) -> None:
        if values:
            await driver.executemany(compiled.string, _rows(compiled, values))

    unknown: list[PostedRow] = []
    if batch.messages:
        entry_ids = sorted({r.entry_id for r in batch.messages})
        found = (await driver.execute_fetchall(_LIVE[dialect], (json.dumps(entry_ids),)) if sqlite
                 else await driver.fetch(_LIVE[dialect], entry_ids))
        values, unknown = remembered(batch.messages, found, now)
        await many(_REMEMBER[dialect], values)
    await many(_FINISH[dialect], [{"did": i, "yes": True} for i in batch.finished])
    await many(_FORGET[dialect], [{"did": i} for i in batch.forgotten])
    await many(_ADD_HITS[dialect], [{"w": w, "e": e, "l": locale, "d": day.isoformat() if sqlite else day, "n": n}
                                    for (w, e, locale, day), n in sorted(batch.hits.items()) if n])
    return unknown

