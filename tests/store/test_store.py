"""Opening, closing and health of the store as a whole."""

from __future__ import annotations

from sqlalchemy import text

from bot.store import Store


async def test_open_store_is_ready(store):
    assert await store.ready() is True


async def test_a_database_behind_the_code_is_not_ready(fresh_db_url):
    store = await Store.open(fresh_db_url)
    try:
        await store._db.write(lambda conn: conn.execute(text("UPDATE alembic_version SET version_num = 'old'")))
        assert await store.ready() is False
    finally:
        await store.close()


async def test_a_database_without_the_schema_is_not_ready(sqlite_url):
    store = await Store.open(sqlite_url)
    await store._db.write(lambda conn: conn.execute(text("DROP TABLE alembic_version")))
    assert await store.ready() is False
    await store.close()


async def test_store_as_async_context_manager(sqlite_url, make_kb, nccl):
    async with await Store.open(sqlite_url) as store:
        report = await store.sync_entries(make_kb(nccl))
        assert report.added == [nccl["id"]]
