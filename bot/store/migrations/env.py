"""Alembic environment. errkb runs migrations from code (``bot.store.migrate``), which hands a
connection in; the ``alembic`` command line (``alembic -c bot/store/alembic.ini …``, to write a new
revision) gets the URL from ``DATABASE_URL`` instead."""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection

from bot.store.models import Base

config = context.config
target_metadata = Base.metadata


def run_with(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_from_url(url: str) -> None:
    from bot.store.engine import Database

    db = Database(url)
    try:
        await db.write(lambda conn: conn.run_sync(run_with))
    finally:
        await db.dispose()


def main() -> None:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("DATABASE_URL", "sqlite+aiosqlite:///errkb.db")
    if context.is_offline_mode():
        context.configure(url=url, target_metadata=target_metadata, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
    elif (connection := config.attributes.get("connection")) is not None:
        run_with(connection)
    else:
        asyncio.run(run_from_url(url))


main()
