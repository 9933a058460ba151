"""Connection settings: SQLite's WAL, busy timeout and foreign keys; PostgreSQL's schema option."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from bot.store import Store
from bot.store.engine import BUSY_TIMEOUT_MS, Database, make_engine


async def test_sqlite_connections_use_wal_a_busy_timeout_and_foreign_keys(sqlite_url):
    db = Database(sqlite_url)
    try:
        async def pragmas(conn):
            return [(await conn.execute(text(f"PRAGMA {name}"))).scalar()
                    for name in ("journal_mode", "busy_timeout", "foreign_keys")]
        assert await db.read(pragmas) == ["wal", BUSY_TIMEOUT_MS, 1]
    finally:
        await db.dispose()


async def test_foreign_keys_are_enforced(store):
    with pytest.raises(IntegrityError):
        await store._db.write(lambda conn: conn.execute(text(
            "INSERT INTO targets (entry_id, kind, key, text, text_hash, prior, up, down) "
            "VALUES ('no/such-entry', 'diagnosis', '', '', '', 0, 0, 0)")))


async def test_an_in_memory_database_works_for_one_process():
    store = await Store.open("sqlite+aiosqlite:///:memory:")
    try:
        claims = await asyncio.gather(*(store.claim_event("Ev1") for _ in range(5)))
        assert claims.count(True) == 1
    finally:
        await store.close()


def test_a_schema_on_a_postgresql_url_becomes_the_search_path():
    engine, schema = make_engine("postgresql+asyncpg://u@db:5432/errkb?schema=bot_data")
    assert schema == "bot_data"
    assert "schema" not in engine.url.query
    assert engine.url.render_as_string() == "postgresql+asyncpg://u@db:5432/errkb"


async def test_a_postgresql_schema_keeps_errkb_out_of_public(pg_base_url):
    base = pg_base_url
    schema = "errkb_test_schema_check"
    db = Database(base)
    try:
        await db.write(lambda conn: conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE")))
        store = await Store.open(f"{base}?schema={schema}")
        await store.close()

        async def tables(conn):
            rows = await conn.execute(text(
                "SELECT table_schema FROM information_schema.tables WHERE table_name = 'votes'"))
            return sorted(r[0] for r in rows)
        assert schema in await db.read(tables)
    finally:
        await db.write(lambda conn: conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE")))
        await db.dispose()


async def _open_error(url: str) -> str:
    from bot.config import ConfigError

    with pytest.raises(ConfigError) as caught:
        await Store.open(url)
    assert caught.value.variable == "DATABASE_URL"
    return str(caught.value)


async def test_a_refused_connection_is_one_line_naming_the_url():
    said = await _open_error("postgresql+asyncpg://app:hunter2@127.0.0.1:1/errkb")
    assert said == ("DATABASE_URL: postgresql+asyncpg://app:***@127.0.0.1:1/errkb: "
                    "nothing accepts connections at 127.0.0.1:1 (is PostgreSQL running there?)")


async def test_a_server_that_never_answers_times_out_instead_of_hanging(monkeypatch):
    from bot.store import engine

    monkeypatch.setattr(engine, "CONNECT_TIMEOUT_S", 0.5)
    silent = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)  # accepts, never speaks
    port = silent.sockets[0].getsockname()[1]
    try:
        said = await asyncio.wait_for(_open_error(f"postgresql+asyncpg://app@127.0.0.1:{port}/errkb"), 10)
    finally:
        silent.close()
    assert said.endswith(f"127.0.0.1:{port} did not answer within 0.5 s")


async def test_an_sqlite_file_in_a_missing_folder_is_named(tmp_path):
    path = tmp_path / "missing" / "errkb.db"
    said = await _open_error(f"sqlite+aiosqlite:///{path}")
    assert f"cannot create or write '{path}': its folder is missing or read-only" in said


async def test_an_unknown_role_is_the_servers_own_words(pg_base_url):
    from sqlalchemy.engine import make_url

    url = make_url(pg_base_url).set(username="errkb_no_such_role", password="s3cret")
    said = await _open_error(url.render_as_string(hide_password=False))
    assert 'role "errkb_no_such_role" does not exist' in said and "s3cret" not in said


def test_a_full_disk_says_so():
    import sqlite3

    from bot.store.engine import unavailable

    said = str(unavailable(sqlite3.OperationalError("database or disk is full"), "sqlite+aiosqlite:///data/errkb.db"))
    assert said.startswith("DATABASE_URL: sqlite+aiosqlite:///data/errkb.db: the disk holding 'data/errkb.db' is full")


async def test_after_the_server_drops_its_connections_the_next_calls_still_work(db_url, nccl):
    """A PostgreSQL restart (or a proxy's idle cut) drops pooled connections: the next call replaces them."""
    import pytest
    from sqlalchemy import text

    from bot.store import Store
    from bot.store.engine import make_engine

    if not db_url.startswith("postgresql"):
        pytest.skip("SQLite has no server to drop a connection")
    store = await Store.open(db_url)
    try:
        await store.record_hit(nccl["id"], "en")

        async def own_pid(conn):
            return (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()

        pid = await store._db.read(own_pid)  # the pooled connection the next calls would use
        killer, _schema = make_engine(db_url)
        async with killer.begin() as other:
            await other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        await killer.dispose()
        assert (await store.stats()).hits_by_locale == {"en": 1}
        await store.record_hit(nccl["id"], "en")
        assert (await store.stats()).hits_by_locale == {"en": 2}
    finally:
        await store.close()
