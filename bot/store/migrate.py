"""Alembic, run from code: ``Store.open`` and ``errkb db upgrade`` both end up in :func:`upgrade_engine`."""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection

from bot.store.engine import Database

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Any constant will do: two processes starting at once on one PostgreSQL database take turns.
_PG_LOCK_ID = 0x6572726B62  # "errkb"


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def _upgrade(connection: Connection) -> str | None:
    command.upgrade(alembic_config(connection), "head")
    return MigrationContext.configure(connection).get_current_revision()


def _current(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def upgrade_database(db: Database) -> str:
    """Bring ``db`` to the newest schema in one transaction; returns the revision now applied."""

    async def work(conn):  # type: ignore[no-untyped-def]
        if db.dialect == "postgresql":
            await conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_LOCK_ID})
            if db.schema:
                quoted = conn.dialect.identifier_preparer.quote(db.schema)
                await conn.execute(text(f"CREATE SCHEMA IF NOT EXISTS {quoted}"))
        return await conn.run_sync(_upgrade)

    return await db.write(work)


async def current_revision(db: Database) -> str | None:
    """The schema revision ``db`` is at (None for an empty database)."""
    return await db.read(lambda conn: conn.run_sync(_current))


async def upgrade_async(url: str) -> str:
    db = Database(url)
    try:
        return await upgrade_database(db)
    finally:
        await db.dispose()


def upgrade(url: str) -> str:
    """``errkb db upgrade``: migrate the database at ``url`` to the newest schema; returns its revision.

    Call it from synchronous code; async code awaits :func:`upgrade_async`.
    """
    return asyncio.run(upgrade_async(url))
