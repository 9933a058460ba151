"""Settings from the environment, read in one place."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

BUNDLED_SEEDS = Path(__file__).resolve().parent.parent / "seeds"
DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///errkb.db"


def _seeds_dir() -> Path:
    configured = os.environ.get("ERRKB_SEEDS")
    if configured:
        return Path(configured)
    local = Path("seeds")
    return local if local.is_dir() and any(local.glob("*/*.json")) else BUNDLED_SEEDS


@dataclass(frozen=True)
class Settings:
    bot_token: str | None
    signing_secret: str | None
    app_token: str | None
    api_url: str | None
    database_url: str
    port: int
    seeds_dir: Path

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            bot_token=os.environ.get("SLACK_BOT_TOKEN") or None,
            signing_secret=os.environ.get("SLACK_SIGNING_SECRET") or None,
            app_token=os.environ.get("SLACK_APP_TOKEN") or None,
            api_url=os.environ.get("SLACK_API_URL") or None,
            database_url=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
            port=int(os.environ.get("PORT") or 3000),
            seeds_dir=_seeds_dir(),
        )
