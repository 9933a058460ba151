"""Alembic, run from code: ``Store.open`` and ``errkb db upgrade`` both end up in :func:`upgrade_engine`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from bot.store.engine import Database

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy.ext.asyncio import AsyncConnection

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# The newest revision in migrations/versions (a test checks they agree). A database already there
# opens without importing Alembic, which alone takes about half a second.
HEAD = "0009"
# Any constant will do: two processes starting at once on one PostgreSQL database take turns.
_PG_LOCK_ID = 0x6572726B62  # "errkb"


def alembic_config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def _upgrade(connection: Connection) -> str:
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    command.upgrade(alembic_config(connection), "head")
    revision = MigrationContext.configure(connection).get_current_revision()
    assert revision is not None  # just brought to the head revision
    return revision


def _current(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


async def upgrade_database(db: Database) -> str:
    """Bring ``db`` to the newest schema in one transaction; returns the revision now applied."""
    if await stored_revision(db) == HEAD:
        return HEAD

    async def work(conn: AsyncConnection) -> str:
        if db.dialect == "postgresql":
            await conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _PG_LOCK_ID})
            if db.schema:
                quoted = conn.dialect.identifier_preparer.quote(db.schema)
                await conn.execute(text(f"CREATE SCHEMA IF NOT EXISTS {quoted}"))
        return await conn.run_sync(_upgrade)

    return await db.write(work)


async def stored_revision(db: Database) -> str | None:
    """The revision ``alembic_version`` holds, read with plain SQL (None: no schema yet)."""

    async def read(conn: AsyncConnection) -> str | None:
        return (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar_one_or_none()

    try:
        return await db.read(read)
    except DBAPIError:
        return None


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
