"""Alembic migrations: applied on open and by ``errkb db upgrade``, matching the models exactly."""

from __future__ import annotations

import asyncio

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from bot.store import Store, upgrade, upgrade_async
from bot.store.engine import Database
from bot.store.migrate import current_revision, head_revision
from bot.store.models import Base


def test_upgrade_from_synchronous_code_creates_the_schema(sqlite_url):
    assert upgrade(sqlite_url) == head_revision()
    assert upgrade(sqlite_url) == head_revision()  # and again is a no-op


async def test_the_migrations_build_exactly_the_models(fresh_db_url):
    assert await upgrade_async(fresh_db_url) == head_revision()
    db = Database(fresh_db_url)
    try:
        def differences(conn):
            return compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
        assert await db.read(lambda conn: conn.run_sync(differences)) == []
    finally:
        await db.dispose()


async def test_reopening_keeps_the_data(db_url, make_kb, nccl):
    first = await Store.open(db_url)
    await first.sync_entries(make_kb(nccl))
    await first.record_vote("T1", "U1", nccl["id"], 0, "+1", True, 1)
    await first.close()
    again = await Store.open(db_url)
    try:
        assert (await again.feedback([nccl["id"]]))[nccl["id"]].workarounds[0].up == 1
    finally:
        await again.close()


async def test_two_processes_starting_at_once_both_come_up(fresh_db_url):
    stores = await asyncio.gather(*(Store.open(fresh_db_url) for _ in range(3)))
    try:
        assert all([await s.ready() for s in stores])
    finally:
        for s in stores:
            await s.close()


async def test_a_new_database_has_no_revision_until_upgraded(sqlite_url):
    db = Database(sqlite_url)
    try:
        assert await current_revision(db) is None
    finally:
        await db.dispose()
