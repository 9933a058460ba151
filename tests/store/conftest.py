"""Store fixtures: a real SQLite file always; PostgreSQL too when ERRKB_TEST_POSTGRES_URL is set.

PostgreSQL tests run in a schema of their own (``?schema=`` on the URL): one per session, emptied
before each test, dropped at the end; tests of migrations get a brand-new schema each.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from bot.kb.entry import Entry
from bot.store import Store, upgrade_async
from bot.store.models import Base

REPO = Path(__file__).resolve().parents[2]
NCCL_ID = "pytorch/nccl-timeout-during-allreduce"
NCCL_FILE = REPO / "seeds" / "pytorch" / "nccl-timeout-during-allreduce.json"
PG_ENV = "ERRKB_TEST_POSTGRES_URL"
SKIP_PG = f"PostgreSQL cases need {PG_ENV}, e.g. postgresql+asyncpg://postgres@127.0.0.1:5432/test"


def _with_schema(base: str, schema: str) -> str:
    return make_url(base).update_query_dict({"schema": schema}).render_as_string(hide_password=False)


async def _drop_schema(base: str, schema: str) -> None:
    engine = create_async_engine(base)
    async with engine.begin() as conn:
        await conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    await engine.dispose()


class SharedSchema:
    """One PostgreSQL schema for the session, migrated on first use and emptied before each test."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.schema = f"errkb_test_{uuid.uuid4().hex[:12]}"
        self.url = _with_schema(base, self.schema)
        self.migrated = False

    async def clean(self) -> str:
        if not self.migrated:
            await upgrade_async(self.url)
            self.migrated = True
        tables = ", ".join(t.name for t in Base.metadata.sorted_tables)
        engine = create_async_engine(self.base)
        async with engine.begin() as conn:
            await conn.execute(text(f'SET search_path TO "{self.schema}"'))
            await conn.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
        await engine.dispose()
        return self.url


@pytest.fixture(scope="session")
def pg_shared() -> Iterator[SharedSchema]:
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(SKIP_PG)
    shared = SharedSchema(base)
    yield shared
    if shared.migrated:
        asyncio.run(_drop_schema(base, shared.schema))


@pytest.fixture(params=["sqlite", "postgresql"])
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database with errkb's schema and no rows: a new SQLite file, or the emptied PostgreSQL schema."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'errkb.db'}"
    return await request.getfixturevalue("pg_shared").clean()


@pytest.fixture(params=["sqlite", "postgresql"])
async def fresh_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A database nothing has touched (no schema yet): a new SQLite file, or a new PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
        return
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(SKIP_PG)
    schema = f"errkb_test_{uuid.uuid4().hex[:12]}"
    yield _with_schema(base, schema)
    await _drop_schema(base, schema)


@pytest.fixture
def pg_base_url() -> str:
    """The PostgreSQL server's URL as given (no schema of its own: the test must clean up)."""
    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(SKIP_PG)
    return base


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'errkb.db'}"


class Clock:
    """A settable wall clock for the store (Unix seconds)."""

    def __init__(self, now: float = 1_750_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def store(db_url: str, clock: Clock) -> AsyncIterator[Store]:
    opened = await Store.open(db_url)
    opened.clock = clock
    yield opened
    await opened.close()


def nccl_raw() -> dict[str, Any]:
    """A fresh copy of the user's own entry (three workarounds)."""
    return copy.deepcopy(json.loads(NCCL_FILE.read_text(encoding="utf-8")))


def other_raw(slug: str = "other-error") -> dict[str, Any]:
    """A second entry, built from the first with its own id and texts."""
    raw = nccl_raw()
    raw["id"] = f"pytorch/{slug}"
    raw["signature"] = f"RuntimeError: {slug}"
    raw["workarounds"] = [
        {"action": "Upgrade the driver to the version the CUDA toolkit needs.", "success_rate": 0.7,
         "how": "", "condition": "", "sources": []},
        {"action": "Pin the library to the last release before the regression.", "success_rate": 0.6,
         "how": "", "condition": "", "sources": []},
    ]
    raw["workarounds_zh"] = ["升级驱动。", "固定库版本。"]
    return raw


def kb(*raws: dict[str, Any]) -> dict[str, Entry]:
    return {raw["id"]: Entry(raw=raw, source=f"{raw['id']}.json") for raw in raws}


@pytest.fixture
def make_kb() -> Callable[..., dict[str, Entry]]:
    """``make_kb(raw, ...)``: entries by id, as ``load_seeds`` returns them."""
    return kb


@pytest.fixture
def nccl() -> dict[str, Any]:
    return nccl_raw()


@pytest.fixture
def other() -> dict[str, Any]:
    return other_raw()


@pytest.fixture
async def seeded(store: Store) -> Store:
    """A store holding the user's NCCL entry and one other."""
    await store.sync_entries(kb(nccl_raw(), other_raw()))
    return store
