"""Alembic migrations: applied on open and by ``errkb db upgrade``, matching the models exactly."""

from __future__ import annotations

import asyncio

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from bot.store import Store, upgrade, upgrade_async
from bot.store.engine import Database
from bot.store.migrate import current_revision, head_revision
from bot.store.models import Base


def test_the_head_errkb_checks_without_alembic_is_alembics_head():
    from bot.store.migrate import HEAD

    assert head_revision() == HEAD


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


async def test_processes_starting_at_once_on_an_empty_database_all_seed_and_come_up(fresh_db_url, make_kb, nccl,
                                                                                   other):
    async def replica() -> Store:
        store = await Store.open(fresh_db_url)
        await store.sync_entries(make_kb(nccl, other))
        return store

    stores = await asyncio.gather(*(replica() for _ in range(3)))
    try:
        assert all([await s.ready() for s in stores])
        assert (await stores[0].feedback([nccl["id"]]))[nccl["id"]].workarounds[0].up == 0
        assert await stores[0].check() == []
    finally:
        for s in stores:
            await s.close()


async def test_legacy_reaction_aliases_in_ledgers_are_respelled_with_their_sign(sqlite_url, make_kb, nccl):
    """Votes stored before tokens carried their sign (0002) still count after the upgrade (0003)."""
    import json

    from alembic import command
    from sqlalchemy import text

    from bot.store.migrate import alembic_config

    db = Database(sqlite_url)

    def to(revision: str):
        return lambda conn: conn.run_sync(lambda c: command.upgrade(alembic_config(c), revision))

    try:
        await db.write(to("0002"))
        store = Store(db)
        await store.sync_entries(make_kb(nccl))
        async def plant(conn):
            target = (await conn.execute(text("SELECT id FROM targets WHERE position = 0"))).scalar_one()
            ledger = json.dumps({"thumbsup::skin-tone-2@C1/1.1": [True, 5.0]})
            await conn.execute(text("INSERT INTO votes VALUES ('T1', 'U1', :t, :e, :l, 1, 5.0, 5.0)"),
                               {"t": target, "e": nccl["id"], "l": ledger})
            await conn.execute(text("UPDATE targets SET up = 1 WHERE id = :t"), {"t": target})
        await db.write(plant)
        await db.write(to("head"))
        assert await store.check() == []
        result = await store.record_vote("T1", "U1", nccl["id"], 0, "+1::skin-tone-2@C1/1.1", False, 6.0)
        assert result.tally.up == 0  # the removal found the respelled 👍
    finally:
        await db.dispose()
