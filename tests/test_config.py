"""Settings from the environment: a mistake names its variable and what would work."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet

from bot.config import ConfigError, Settings, database_url
from tests.conftest import REPO


@pytest.mark.parametrize(
    ("given", "used"),
    [
        ("sqlite+aiosqlite:///errkb.db", "sqlite+aiosqlite:///errkb.db"),
        ("sqlite:///data/errkb.db", "sqlite+aiosqlite:///data/errkb.db"),
        ("postgres://app:pw@db.internal:5432/errkb", "postgresql+asyncpg://app:pw@db.internal:5432/errkb"),
        ("postgresql://app@db/errkb?schema=bot", "postgresql+asyncpg://app@db/errkb?schema=bot"),
        ("postgresql+asyncpg://app@db/errkb", "postgresql+asyncpg://app@db/errkb"),
    ],
)
def test_common_spellings_of_a_database_url_are_accepted(given, used):
    assert database_url(given) == used


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("garbage", "DATABASE_URL: not a database URL; use sqlite+aiosqlite:///errkb.db or postgresql+asyncpg://"),
        ("mysql://root@localhost/errkb", "DATABASE_URL: 'mysql' is not supported; errkb stores in SQLite or PostgreSQL"),
        ("postgresql+psycopg2://app@db/errkb", "DATABASE_URL: 'postgresql+psycopg2' is not supported"),
    ],
)
def test_a_database_url_errkb_cannot_use_is_named(given, said):
    with pytest.raises(ConfigError) as caught:
        database_url(given)
    assert str(caught.value).startswith(said) and caught.value.variable == "DATABASE_URL"


@pytest.mark.parametrize("port", ["abc", "70000", "-1", "30 00"])
def test_a_port_that_is_not_a_port_is_named(monkeypatch, port):
    monkeypatch.setenv("PORT", port)
    with pytest.raises(ConfigError, match=r"^PORT: .* is not a TCP port; use a number from 1 to 65535"):
        Settings.from_env()


def test_a_seeds_folder_that_does_not_exist_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("ERRKB_SEEDS", str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match=r"^ERRKB_SEEDS: .* is not a folder"):
        Settings.from_env()


def test_a_pastes_folder_that_does_not_exist_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("ERRKB_PASTES", str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match=r"^ERRKB_PASTES: .* is not a folder"):
        Settings.from_env()


def test_the_paste_fixtures_are_the_local_pastes_folder_else_the_bundled_kbs(monkeypatch, tmp_path):
    for name in ("ERRKB_PASTES", "ERRKB_SEEDS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    assert Settings.from_env().pastes_dir == REPO / "pastes"
    (tmp_path / "pastes").mkdir()
    assert Settings.from_env().pastes_dir.resolve() == tmp_path.resolve() / "pastes"
    monkeypatch.setenv("ERRKB_PASTES", str(tmp_path))
    assert Settings.from_env().pastes_dir == tmp_path


def test_defaults_need_no_variable(monkeypatch):
    for name in ("DATABASE_URL", "PORT", "ERRKB_SEEDS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(REPO)
    settings = Settings.from_env()
    assert (settings.database_url, settings.port) == ("sqlite+aiosqlite:///errkb.db", 3000)


def test_reviewer_groups_are_user_group_ids_and_anything_else_is_named(monkeypatch):
    monkeypatch.setenv("ERRKB_REVIEWERS", "S0REVIEW, S0OPS")
    assert Settings.from_env().reviewers == ("S0REVIEW", "S0OPS")
    monkeypatch.setenv("ERRKB_REVIEWERS", "@oncall")
    with pytest.raises(ConfigError, match=r"^ERRKB_REVIEWERS: '@oncall' is not a user group id"):
        Settings.from_env()


def test_a_dashboard_secret_too_short_to_sign_cookies_safely_is_named(monkeypatch):
    monkeypatch.delenv("ERRKB_DASHBOARD_SECRET", raising=False)
    assert Settings.from_env().dashboard_secret is None  # unset: the dashboard is off
    monkeypatch.setenv("ERRKB_DASHBOARD_SECRET", "x" * 40)
    assert Settings.from_env().dashboard_secret == "x" * 40
    monkeypatch.setenv("ERRKB_DASHBOARD_SECRET", "hunter2")
    with pytest.raises(ConfigError, match=r"^ERRKB_DASHBOARD_SECRET: too short \(7 characters\); use at least 32"):
        Settings.from_env()


KEY, KEY2 = (Fernet.generate_key().decode() for _ in range(2))  # ERRKB_ENCRYPTION_KEY's: made here, none in the repo


def _slack(**given: str) -> Settings:
    unset = dict.fromkeys(("bot_token", "signing_secret", "app_token", "api_url"))
    return Settings(**{**unset, **given}, database_url="sqlite://", port=3000, seeds_dir=REPO / "seeds")


@pytest.mark.parametrize(
    ("given", "variable"),
    [
        ({}, "SLACK_BOT_TOKEN"),
        ({"signing_secret": "s"}, "SLACK_BOT_TOKEN"),
        ({"client_id": "1.2", "client_secret": "c", "app_token": "xapp-1"}, "SLACK_APP_TOKEN"),
        ({"bot_token": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
        ({"client_id": "1.2", "client_secret": "c"}, "SLACK_SIGNING_SECRET"),
        ({"client_id": "1.2", "client_secret": "c", "signing_secret": "s"}, "ERRKB_ENCRYPTION_KEY"),
        ({"client_id": "1.2", "client_secret": "c", "signing_secret": "s", "encryption_key": "secret"},
         "ERRKB_ENCRYPTION_KEY"),
        ({"client_id": "1.2", "client_secret": "c", "signing_secret": "s", "encryption_key": f"{KEY},nope"},
         "ERRKB_ENCRYPTION_KEY"),
    ],
)
def test_what_serve_lacks_is_named(given, variable):
    with pytest.raises(ConfigError, match=rf"^{variable}: ") as caught:
        _slack(**given).check_serve()
    assert caught.value.variable == variable and len(str(caught.value).splitlines()) == 1


@pytest.mark.parametrize(
    "given",
    [
        {"bot_token": "xoxb-1", "signing_secret": "s"},  # HTTP, one workspace
        {"bot_token": "xoxb-1", "app_token": "xapp-1"},  # Socket Mode needs no signing secret
        {"client_id": "1.2", "client_secret": "c", "signing_secret": "s", "encryption_key": KEY},  # OAuth over HTTP
        {"client_id": "1.2", "client_secret": "c", "signing_secret": "s", "encryption_key": f" {KEY} , {KEY2}"},
    ],
)
def test_settings_serve_can_run_with_pass(given):
    _slack(**given).check_serve()


def test_the_alert_window_is_hours_and_anything_else_is_named(monkeypatch):
    monkeypatch.delenv("ERRKB_ALERT_WINDOW", raising=False)
    assert Settings.from_env().alert_window == 24 * 3600  # a day unless set
    monkeypatch.setenv("ERRKB_ALERT_WINDOW", "6")
    assert Settings.from_env().alert_window == 6 * 3600
    for bad in ("0", "1.5", "24h", "721"):
        monkeypatch.setenv("ERRKB_ALERT_WINDOW", bad)
        with pytest.raises(ConfigError, match=r"^ERRKB_ALERT_WINDOW: .* is not a number of hours; use a whole number"):
            Settings.from_env()
