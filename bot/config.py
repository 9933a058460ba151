"""Settings from the environment, read in one place."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from bot.bundled import bundled
from bot.errors import ConfigError

BUNDLED_SEEDS = bundled("seeds")
BUNDLED_PASTES = bundled("pastes")  # the KB's paste fixtures, beside its seeds
DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///errkb.db"
_DATABASE_EXAMPLES = "sqlite+aiosqlite:///errkb.db or postgresql+asyncpg://user:password@host:5432/db"


def database_url(value: str) -> str:
    """``value`` as the async SQLAlchemy URL errkb uses. Heroku-style ``postgres://`` and a driverless
    ``postgresql://`` mean asyncpg; a plain ``sqlite:///`` means aiosqlite; anything else is refused."""
    scheme, sep, rest = value.strip().partition("://")
    if not sep or not scheme:
        raise ConfigError("DATABASE_URL", f"not a database URL; use {_DATABASE_EXAMPLES}")
    backend, _, driver = scheme.lower().partition("+")
    if backend in ("postgres", "postgresql") and driver in ("", "asyncpg"):
        return f"postgresql+asyncpg://{rest}"
    if backend == "sqlite" and driver in ("", "aiosqlite"):
        return f"sqlite+aiosqlite://{rest}"
    raise ConfigError("DATABASE_URL", f"{scheme!r} is not supported; errkb stores in SQLite or PostgreSQL: "
                                      f"use {_DATABASE_EXAMPLES}")


LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


LOG_FORMATS = ("text", "json")


def _log_format(value: str | None) -> str:
    fmt = (value or "text").strip().lower()
    if fmt not in LOG_FORMATS:
        raise ConfigError("LOG_FORMAT", f"{value!r} is not a log format; use text (the default) or json")
    return fmt


def _log_level(value: str | None) -> str:
    level = (value or "INFO").strip().upper()
    if level not in LOG_LEVELS:
        raise ConfigError("LOG_LEVEL", f"{value!r} is not a log level; use one of {', '.join(LOG_LEVELS)}")
    return level


def _port(value: str | None) -> int:
    if not value:
        return 3000
    if not value.strip().isdigit() or not 0 <= int(value) < 65536:
        raise ConfigError("PORT", f"{value!r} is not a TCP port; use a number from 1 to 65535, e.g. PORT=3000 "
                                  "(0 picks a free one)")
    return int(value)


def _kb_dir(variable: str, default: str, bundled: Path, layout: str, holds: str | None = None) -> Path:
    """A KB data folder from ``variable``, else ``./default`` when it exists (and holds ``holds``), else the
    bundled one."""
    configured = os.environ.get(variable)
    if configured:
        if not Path(configured).is_dir():
            raise ConfigError(variable, f"{configured!r} is not a folder; point it at a {default} folder "
                                        f"({layout} files) or unset it for the bundled KB's")
        return Path(configured)
    local = Path(default)
    return local if local.is_dir() and (holds is None or any(local.glob(holds))) else bundled


def _seeds_dir() -> Path:
    return _kb_dir("ERRKB_SEEDS", "seeds", BUNDLED_SEEDS, "<domain>/<slug>.json", "*/*.json")


def _pastes_dir() -> Path:
    """``ERRKB_PASTES``: the paste fixtures (``<domain>/<slug>/N.txt``; chat that must match nothing in ``_chat/``)."""
    return _kb_dir("ERRKB_PASTES", "pastes", BUNDLED_PASTES, "<domain>/<slug>/N.txt")


@dataclass(frozen=True)
class Retention:
    """How long rows are kept, in days (0 keeps them for ever); see ``bot.store.retention``."""

    posted_days: int = 90  # posted-message rows and answered-thread decisions
    hits_days: int = 365  # hit counts


def _days(variable: str, default: int) -> int:
    value = os.environ.get(variable)
    if not value:
        return default
    if not value.strip().isdigit():
        raise ConfigError(variable, f"{value!r} is not a number of days; use e.g. {variable}={default} "
                                    "(0 keeps the rows for ever)")
    return int(value)


SHUTDOWN_GRACE = 8.0  # seconds: within Docker's 10 s stop timeout (and Kubernetes' 30 s)


def _grace(value: str | None) -> float:
    """``ERRKB_SHUTDOWN_GRACE``: seconds on SIGTERM to finish answers in flight (the rest is handed over)."""
    if not value or not value.strip():
        return SHUTDOWN_GRACE
    try:
        grace = float(value)
    except ValueError:
        grace = -1.0
    if not 0 <= grace <= 3600:
        raise ConfigError("ERRKB_SHUTDOWN_GRACE", f"{value!r} is not a number of seconds; use e.g. "
                                                  f"ERRKB_SHUTDOWN_GRACE={SHUTDOWN_GRACE:g}, a little less than the "
                                                  "platform's stop timeout")
    return grace


def _reviewers(value: str | None) -> tuple[str, ...]:
    """``ERRKB_REVIEWERS``: user group ids (``S…``), comma-separated."""
    groups = tuple(g.strip() for g in (value or "").split(",") if g.strip())
    bad = [g for g in groups if not re.fullmatch(r"S[A-Z0-9]{2,30}", g)]
    if bad:
        raise ConfigError("ERRKB_REVIEWERS", f"{bad[0]!r} is not a user group id; give ids like S0123ABCD, "
                                             "comma-separated (Slack: the group's profile → Copy group ID)")
    return groups


ALERT_WINDOW_HOURS = 24


def _alert_window(value: str | None) -> float:
    """``ERRKB_ALERT_WINDOW``: hours within which the same error alerting again in a channel is counted on
    errkb's first answer instead of answered again; in seconds."""
    if not value or not value.strip():
        return ALERT_WINDOW_HOURS * 3600.0
    if not value.strip().isdigit() or not 1 <= int(value) <= 720:
        raise ConfigError("ERRKB_ALERT_WINDOW", f"{value!r} is not a number of hours; use a whole number from 1 to "
                                                f"720, e.g. ERRKB_ALERT_WINDOW={ALERT_WINDOW_HOURS} (the default)")
    return int(value) * 3600.0


def _site_url(value: str | None) -> str | None:
    """``ERRKB_SITE_URL``: the address ``errkb site``'s pages are served at (``bot/site/``)."""
    url = (value or "").strip().rstrip("/")
    if url and not re.fullmatch(r"https?://[^\s<>|`]+", url):
        raise ConfigError("ERRKB_SITE_URL", f"{value!r} is not a web address; give where the site is served, e.g. "
                                            "https://OWNER.github.io/errkb")
    return url or None


DASHBOARD_SECRET_MIN = 32  # characters: the HMAC key that signs the dashboard's cookies


def _dashboard_secret(value: str | None) -> str | None:
    """``ERRKB_DASHBOARD_SECRET``: signs the dashboard's sign-in and session cookies; unset, the dashboard is off."""
    secret = (value or "").strip()
    if secret and len(secret) < DASHBOARD_SECRET_MIN:
        raise ConfigError("ERRKB_DASHBOARD_SECRET", f"too short ({len(secret)} characters); use at least "
                                                    f"{DASHBOARD_SECRET_MIN} random ones, e.g. the output of "
                                                    "`openssl rand -hex 32`, or unset it to turn the dashboard off")
    return secret or None


@dataclass(frozen=True)
class Settings:
    bot_token: str | None
    signing_secret: str | None
    app_token: str | None
    api_url: str | None
    database_url: str
    port: int
    seeds_dir: Path
    pastes_dir: Path = BUNDLED_PASTES  # ERRKB_PASTES: paste fixtures and chat (``_chat/``) a regex is checked against
    retention: Retention = field(default_factory=Retention)
    log_level: str = "INFO"
    log_format: str = "text"  # LOG_FORMAT: text, or json (one JSON object per line)
    # OAuth (install in many workspaces): on when both are set; then SLACK_BOT_TOKEN is not used.
    client_id: str | None = None
    client_secret: str | None = None
    redirect_uri: str | None = None
    # Slack user groups (S…) whose members may verify, edit and retire team entries, besides admins.
    reviewers: tuple[str, ...] = ()
    # ERRKB_ENCRYPTION_KEY: Fernet keys, comma-separated (the first encrypts, all decrypt) for the tokens OAuth
    # stores (bot/store/secrets.py); needed in OAuth mode only.
    encryption_key: str | None = None
    # ERRKB_MCP_TOKEN: the bearer token `errkb mcp --http` requires of every request (bot/mcp.py).
    mcp_token: str | None = None
    # ERRKB_SHUTDOWN_GRACE: seconds on SIGTERM to finish answers in flight; the rest go to another process.
    shutdown_grace: float = SHUTDOWN_GRACE
    # ERRKB_SITE_URL: where `errkb site` is published; the details view then links to the entry's page there.
    site_url: str | None = None
    # ERRKB_ALERT_WINDOW: seconds (set in hours) within which other bots' alerts of one error in a channel are
    # counted on errkb's one answer (bot/service/alerts.py).
    alert_window: float = ALERT_WINDOW_HOURS * 3600.0
    # ERRKB_DASHBOARD_SECRET: signs the team dashboard's cookies (bot/slack/dashboard.py); unset, the dashboard is off.
    dashboard_secret: str | None = None

    @property
    def oauth(self) -> bool:
        return bool(self.client_id and self.client_secret)

    @classmethod
    def from_env(cls) -> Settings:
        client_id = os.environ.get("SLACK_CLIENT_ID") or None
        client_secret = os.environ.get("SLACK_CLIENT_SECRET") or None
        if bool(client_id) != bool(client_secret):
            given, missing = (("SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET") if client_id
                              else ("SLACK_CLIENT_SECRET", "SLACK_CLIENT_ID"))
            raise ConfigError(given, f"set without {missing}: OAuth needs both (Basic Information → App "
                                     "Credentials); unset both for one workspace with SLACK_BOT_TOKEN")
        return cls(
            bot_token=os.environ.get("SLACK_BOT_TOKEN") or None,
            signing_secret=os.environ.get("SLACK_SIGNING_SECRET") or None,
            app_token=os.environ.get("SLACK_APP_TOKEN") or None,
            api_url=os.environ.get("SLACK_API_URL") or None,
            database_url=database_url(os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL),
            port=_port(os.environ.get("PORT")),
            seeds_dir=_seeds_dir(),
            pastes_dir=_pastes_dir(),
            retention=Retention(posted_days=_days("ERRKB_RETAIN_POSTED_DAYS", Retention.posted_days),
                                hits_days=_days("ERRKB_RETAIN_HITS_DAYS", Retention.hits_days)),
            log_level=_log_level(os.environ.get("LOG_LEVEL")),
            log_format=_log_format(os.environ.get("LOG_FORMAT")),
            client_id=client_id,
            client_secret=client_secret,
            redirect_uri=os.environ.get("SLACK_REDIRECT_URI") or None,
            reviewers=_reviewers(os.environ.get("ERRKB_REVIEWERS")),
            encryption_key=os.environ.get("ERRKB_ENCRYPTION_KEY") or None,
            mcp_token=os.environ.get("ERRKB_MCP_TOKEN") or None,
            shutdown_grace=_grace(os.environ.get("ERRKB_SHUTDOWN_GRACE")),
            site_url=_site_url(os.environ.get("ERRKB_SITE_URL")),
            alert_window=_alert_window(os.environ.get("ERRKB_ALERT_WINDOW")),
            dashboard_secret=_dashboard_secret(os.environ.get("ERRKB_DASHBOARD_SECRET")),
        )

    def check_serve(self) -> None:
        """Raise :class:`ConfigError`, naming the variable to set or unset, unless ``errkb serve`` can run with
        these settings: a bot token or OAuth; OAuth only over HTTP and with a key to encrypt the tokens it stores; a
        signing secret over HTTP."""
        if not self.bot_token and not self.oauth:
            raise ConfigError("SLACK_BOT_TOKEN", "not set: give the bot token (xoxb-…), or SLACK_CLIENT_ID and "
                                                 "SLACK_CLIENT_SECRET to install in many workspaces (OAuth)")
        if self.oauth and self.app_token:
            raise ConfigError("SLACK_APP_TOKEN", "set with SLACK_CLIENT_ID/SECRET, but OAuth installs need HTTP mode "
                                                 "(Slack redirects the browser to /slack/oauth_redirect); unset "
                                                 "SLACK_APP_TOKEN, or SLACK_CLIENT_ID/SECRET")
        if not self.app_token and not self.signing_secret:
            raise ConfigError("SLACK_SIGNING_SECRET", "not set: HTTP mode needs it (Basic Information → App "
                                                      "Credentials); or set SLACK_APP_TOKEN for Socket Mode")
        if self.oauth:  # ERRKB_ENCRYPTION_KEY: missing or malformed
            from bot.store.secrets import Cipher

            Cipher.from_setting(self.encryption_key)
