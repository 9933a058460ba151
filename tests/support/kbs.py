"""Small knowledge bases for tests whose answer must not depend on how large the real KB grows."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, write_entry


def families_beside_nccl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nccl_raw: dict[str, Any]) -> Path:
    """The KB's code families beside one entry (the user's NCCL entry), as errkb's seeds and an empty store:
    a coded error in a test stays one no entry knows, whatever the real KB learns."""
    seeds = tmp_path / "seeds"
    nccl_raw.pop("transition_graph", None)
    write_entry(seeds, nccl_raw)
    shutil.copy(REPO / "seeds" / "_families.json", seeds / "_families.json")
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/none.db")
    monkeypatch.setenv("ERRKB_SEEDS", str(seeds))
    return seeds
