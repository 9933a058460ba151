"""Shared fixtures: the repository's real seeds, a loaded KB, and entry-writing helpers."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from bot import i18n
from bot.kb.knowledge import KnowledgeBase

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "seeds"
PASTES = REPO / "pastes"  # paste fixtures beside the seeds: <domain>/<slug>/N.txt
CHAT = PASTES / "_chat"  # chat that must match nothing
NCCL_ID = "pytorch/nccl-timeout-during-allreduce"
USER_SEED = SEEDS / "pytorch" / "nccl-timeout-during-allreduce.json"


@pytest.fixture(scope="session", autouse=True)
def catalogs() -> None:
    i18n.load_catalogs()


@pytest.fixture(scope="session")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load(SEEDS)


@pytest.fixture(scope="session")
def seeded_db(tmp_path_factory: pytest.TempPathFactory, kb: KnowledgeBase) -> Path:
    """A store file seeded once per run; each test starts from a copy (seeding takes a second or two)."""
    import asyncio

    from bot.store import Store

    path = tmp_path_factory.mktemp("store") / "seeded.db"

    async def seed() -> None:
        store = await Store.open(f"sqlite+aiosqlite:///{path}")
        await store.sync_entries(kb.entries)
        await store.close()

    asyncio.run(seed())
    return path


@pytest.fixture
def bare_kb(nccl_raw) -> KnowledgeBase:
    """Only the user's entry, without its translations file: its dead ends have no Chinese."""
    from bot.kb.entry import Entry

    return KnowledgeBase.from_entries({NCCL_ID: Entry(nccl_raw)})


@pytest.fixture
def nccl_raw() -> dict:
    """A fresh copy of the user's own entry."""
    return copy.deepcopy(json.loads(USER_SEED.read_text(encoding="utf-8")))


def write_entry(seeds_dir: Path, raw: dict, relative: str | None = None) -> Path:
    """Write ``raw`` where the seeds layout wants it (or at ``relative``); returns the path."""
    path = seeds_dir / (relative or f"{raw['id']}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(raw, ensure_ascii=False, indent=2), encoding="utf-8")
    return path
