"""Engine set-up and the two kinds of transaction every store operation runs in.

SQLite: WAL (readers never wait for the writer; synchronous=NORMAL), a busy timeout, foreign keys on, and every
write transaction opened with ``BEGIN IMMEDIATE`` so that writers queue for the lock up front
instead of failing when a read turns into a write. PostgreSQL: READ COMMITTED writes whose
read-modify-write steps lock the row they change (``SELECT … FOR UPDATE``), REPEATABLE READ reads
so one call sees one snapshot. A ``?schema=NAME`` query parameter on a PostgreSQL URL keeps
errkb's tables in that schema (created when missing).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy import Table, event
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

from bot.errors import ConfigError

T = TypeVar("T")
Work = Callable[[AsyncConnection], Awaitable[T]]

# How long SQLite's busy handler waits for another connection's write lock, in SQLite's thread (never on
# the event loop). Short: a lock held for long (another process, a backup) fails the attempt, and
# ``Database.write`` tries again after a pause that holds nothing, instead of this process's write turn
# being held for 30 s while every write behind it (votes, decisions) waits.
BUSY_TIMEOUT_MS = 2_000
# /readyz's probe: how long it waits for this process's write turn, and SQLite's lock, before saying why not.
PROBE_WAIT_S = 1.0
PROBE_BUSY_MS = 500
# A PostgreSQL port that accepts connections but never answers must not hang start-up for a minute.
CONNECT_TIMEOUT_S = 5
WRITE_OPTION = "errkb_write"
ATTEMPTS = 5
# PostgreSQL: serialization failure, deadlock detected. Both leave nothing behind; run it again.
RETRY_SQLSTATES = frozenset({"40001", "40P01"})


def make_engine(url: str) -> tuple[AsyncEngine, str | None]:
    """The engine for ``url`` and the PostgreSQL schema it should use (None: the default)."""
    parsed = make_url(url)
    kwargs: dict[str, Any] = {}
    schema = None
    if parsed.get_backend_name() == "postgresql":
        value = parsed.query.get("schema")
        schema = value if isinstance(value, str) else (value[-1] if value else None)
        parsed = parsed.difference_update_query(["schema"])
        kwargs["connect_args"] = {"timeout": CONNECT_TIMEOUT_S}
        if schema:
            kwargs["connect_args"]["server_settings"] = {"search_path": schema}
    else:  # every use ends its own transaction: a rollback on return would only cost a thread hop
        kwargs["pool_reset_on_return"] = None
    engine = create_async_engine(parsed, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        _configure_sqlite(engine)
    return engine, schema


def unavailable(exc: BaseException, url: str) -> ConfigError:
    """What went wrong opening ``url``, in one line an operator can act on (the password hidden)."""
    parsed = make_url(url)
    shown = parsed.render_as_string(hide_password=True)
    cause = getattr(exc, "orig", None) or exc
    text = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
    where = f"{parsed.host or 'localhost'}:{parsed.port or 5432}"
    if isinstance(cause, ConnectionRefusedError):
        reason = f"nothing accepts connections at {where} (is PostgreSQL running there?)"
    elif isinstance(cause, TimeoutError | asyncio.TimeoutError):
        reason = f"{where} did not answer within {CONNECT_TIMEOUT_S} s"
    elif isinstance(cause, OSError) and not isinstance(cause, PermissionError):
        reason = f"cannot reach {where}: {cause.strerror or text}"
    elif parsed.get_backend_name() == "sqlite":
        path = parsed.database or ""
        if "disk is full" in text or "disk I/O error" in text:
            reason = f"the disk holding {path!r} is full or failing; free space or point DATABASE_URL elsewhere"
        elif "unable to open" in text or "readonly" in text or isinstance(cause, PermissionError):
            reason = (f"cannot create or write {path!r}: its folder is missing or read-only; "
                      "use a writable path, e.g. sqlite+aiosqlite:////var/lib/errkb/errkb.db")
        else:
            reason = text
    else:
        reason = text  # the server's own words: role or database missing, password rejected …
    return ConfigError("DATABASE_URL", f"{shown}: {reason}")


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the driver must not BEGIN on its own; _on_begin does
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA journal_mode = WAL")
        # With WAL, NORMAL never corrupts and never loses a commit to a killed process; only a
        # power cut may undo the last few commits, all-or-nothing like any crash.
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        write = connection.get_execution_options().get(WRITE_OPTION)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def insert(conn: AsyncConnection | Connection, table: Table | type[Any]) -> Any:
    """An INSERT for ``table`` (mapped class or Table) with this dialect's ON CONFLICT clauses."""
    target = table if isinstance(table, Table) else table.__table__
    assert isinstance(target, Table)
    return pg_insert(target) if conn.dialect.name == "postgresql" else sqlite_insert(target)


def _transient(exc: DBAPIError) -> bool:
    if exc.connection_invalidated or getattr(exc.orig, "sqlstate", None) in RETRY_SQLSTATES:
        return True  # a connection the server dropped (it restarted) is replaced on the next try
    message = str(exc.orig).lower()
    return "database is locked" in message or "database table is locked" in message


class Database:
    """An engine plus read and write transactions with the settings above."""

    def __init__(self, url: str) -> None:
        self.engine, self.schema = make_engine(url)
        self.dialect = self.engine.dialect.name
        # SQLite has one writer at a time: this process's writers queue here rather than in
        # SQLite's sleeping busy handler (which still arbitrates between processes). An in-memory
        # database is one shared connection, so readers queue too.
        sqlite = self.dialect == "sqlite"
        self._write_turns = asyncio.Lock() if sqlite else None
        self._read_turns = self._write_turns if isinstance(self.engine.pool, StaticPool) else None

    @contextlib.asynccontextmanager
    async def _connect(self, write: bool) -> AsyncIterator[AsyncConnection]:
        async with contextlib.AsyncExitStack() as stack:
            turns = self._write_turns if write else self._read_turns
            if turns is not None:
                await stack.enter_async_context(turns)
            conn = await stack.enter_async_context(self.engine.connect())
            if write:
                await conn.execution_options(**{WRITE_OPTION: True})
            elif self.dialect == "postgresql":
                await conn.execution_options(isolation_level="REPEATABLE READ")
            yield conn

    async def write(self, work: Work[T]) -> T:
        """Run ``work`` in one write transaction, again if the database asks for a retry."""
        for attempt in range(ATTEMPTS):
            try:
                async with self._connect(write=True) as conn, conn.begin():
                    return await work(conn)
            except DBAPIError as exc:
                if attempt + 1 == ATTEMPTS or not _transient(exc):
                    raise
            await asyncio.sleep(0.05 * 2**attempt)
        raise AssertionError("unreachable")

    async def probe(self, work: Work[T]) -> T:
        """Run ``work`` in one write transaction, once, failing fast: ``TimeoutError`` when this process's
        writes have held the write turn for over ``PROBE_WAIT_S``, SQLite's "database is locked" when
        another connection holds the lock past ``PROBE_BUSY_MS``. For ``/readyz``, which must say why
        rather than wait with the writes it reports on."""
        async with contextlib.AsyncExitStack() as stack:
            if self._write_turns is not None:
                await asyncio.wait_for(self._write_turns.acquire(), PROBE_WAIT_S)
                stack.callback(self._write_turns.release)
            conn = await stack.enter_async_context(self.engine.connect())
            if self.dialect == "sqlite":
                driver: Any = (await conn.get_raw_connection()).driver_connection
                await driver.execute(f"PRAGMA busy_timeout = {PROBE_BUSY_MS}")
                stack.push_async_callback(driver.execute, f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await conn.execution_options(**{WRITE_OPTION: True})
            async with conn.begin():
                return await work(conn)
        raise AssertionError("unreachable")

    @contextlib.asynccontextmanager
    async def driver(self) -> AsyncIterator[Any]:
        """The driver's own connection (aiosqlite's or asyncpg's) from the pool, outside any transaction
        (autocommit), holding this process's write turn on SQLite: for the one statement on Slack's ack
        path, which then costs one thread hop or one round trip instead of a transaction's several.
        A failure discards the connection (it may be the one that broke)."""
        async with contextlib.AsyncExitStack() as stack:
            if self._write_turns is not None:
                await stack.enter_async_context(self._write_turns)
            conn = await stack.enter_async_context(self.engine.connect())
            raw = await conn.get_raw_connection()
            try:
                yield raw.driver_connection
            except Exception:
                await conn.invalidate()
                raise

    async def read(self, work: Work[T]) -> T:
        """Run ``work`` in one read transaction (one consistent snapshot), again on a dropped connection."""
        try:
            async with self._connect(write=False) as conn, conn.begin():
                return await work(conn)
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
        async with self._connect(write=False) as conn, conn.begin():
            return await work(conn)

    async def dispose(self) -> None:
        await self.engine.dispose()
