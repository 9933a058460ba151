"""Slack tokens at rest (bot/store/secrets.py, bot/slack/oauth.py's SealedInstallationStore): the rows hold only
ciphertext, plain rows from before are encrypted once, an old key behind a new one still decrypts until
`errkb db rotate-key`, and a wrong or malformed key is one line naming ERRKB_ENCRYPTION_KEY. On a real SQLite
file, and on PostgreSQL when ERRKB_TEST_POSTGRES_URL is set."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

import pytest
from cryptography.fernet import Fernet
from slack_sdk.oauth.installation_store import Installation
from sqlalchemy import text

from bot.cli import main
from bot.errors import ConfigError
from bot.slack.oauth import SealedInstallationStore
from bot.store import Store
from bot.store.secrets import Cipher, Sealed, is_sealed, seal_tokens

CLIENT_ID = "1111.2222"
# Shaped like Slack's rotating tokens: the longest values errkb stores (ciphertext of them outgrows String(200)).
BOT = "xoxe.xoxb-1-" + "MS0yLTEyMzQ1Njc4OTAxMi0" * 7
REFRESH = "xoxe-1-" + "My0xLTEyMzQ1Njc4OTAxMi0" * 7
USER = "xoxp-1234-5678-" + "a" * 40
USER_REFRESH = "xoxe-1-user-" + "b" * 120
WEBHOOK = "https://hooks.slack.com/services/T0SEAL/B0SEAL/" + "c" * 24
PLAIN = (BOT, REFRESH, USER, USER_REFRESH, WEBHOOK)
SEALED = {"slack_installations": ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token",
                                  "incoming_webhook_url"),
          "slack_bots": ("bot_token", "bot_refresh_token")}


def new_key() -> str:
    return Fernet.generate_key().decode()


def installation(team: str = "T0SEAL") -> Installation:
    return Installation(app_id="AERRKB", enterprise_id=None, team_id=team, bot_token=BOT, bot_id="B0BOT",
                        bot_user_id="U0BOT", bot_scopes=["chat:write"], bot_refresh_token=REFRESH,
                        bot_token_expires_in=43200, user_id="U0INSTALLER", user_token=USER, user_scopes=["search:read"],
                        user_refresh_token=USER_REFRESH, user_token_expires_in=43200, incoming_webhook_url=WEBHOOK,
                        token_type="bot")


def installations(store: Store, keys: str) -> SealedInstallationStore:
    return SealedInstallationStore(CLIENT_ID, store.engine, Cipher.from_setting(keys))


async def raw_rows(store: Store) -> dict[str, list[dict[str, Any]]]:
    """Every row of both tables, read with plain SQL (no slack_sdk, no decryption)."""
    async with store.engine.connect() as conn:
        return {table: [dict(r) for r in (await conn.execute(text(f"SELECT * FROM {table} ORDER BY id"))).mappings()]
                for table in SEALED}


async def insert_plain_rows(store: Store, team: str = "T0OLD") -> None:
    """What an errkb from before encryption left: the same tables, the tokens in plain text."""
    now = dt.datetime(2026, 1, 2, 3, 4, 5)
    common = {"client_id": CLIENT_ID, "app_id": "AERRKB", "team_id": team, "bot_token": BOT, "bot_id": "B0BOT",
              "bot_user_id": "U0BOT", "bot_scopes": "chat:write", "bot_refresh_token": REFRESH, "installed_at": now,
              "is_enterprise_install": False}
    async with store.engine.begin() as conn:
        await conn.execute(text(
            "INSERT INTO slack_bots (client_id, app_id, team_id, bot_token, bot_id, bot_user_id, bot_scopes, "
            "bot_refresh_token, is_enterprise_install, installed_at) VALUES (:client_id, :app_id, :team_id, "
            ":bot_token, :bot_id, :bot_user_id, :bot_scopes, :bot_refresh_token, :is_enterprise_install, "
            ":installed_at)"), common)
        await conn.execute(text(
            "INSERT INTO slack_installations (client_id, app_id, team_id, bot_token, bot_id, bot_user_id, bot_scopes, "
            "bot_refresh_token, user_id, user_token, user_refresh_token, incoming_webhook_url, is_enterprise_install, "
            "installed_at) VALUES (:client_id, :app_id, :team_id, :bot_token, :bot_id, :bot_user_id, :bot_scopes, "
            ":bot_refresh_token, :user_id, :user_token, :user_refresh_token, :incoming_webhook_url, "
            ":is_enterprise_install, :installed_at)"),
            common | {"user_id": "U0INSTALLER", "user_token": USER, "user_refresh_token": USER_REFRESH,
                      "incoming_webhook_url": WEBHOOK})


def assert_no_plaintext(rows: dict[str, list[dict[str, Any]]]) -> None:
    assert rows["slack_bots"] and rows["slack_installations"]
    for table, found in rows.items():
        for row in found:
            assert not any(secret in str(value) for value in row.values() for secret in PLAIN), (table, row)
            assert all(is_sealed(row[column]) for column in SEALED[table]), (table, row)


def sealed_values(rows: dict[str, list[dict[str, Any]]]) -> list[str]:
    return [row[column] for table, found in rows.items() for row in found for column in SEALED[table]]


class TestTokensAtRest:
    async def test_a_saved_installation_is_only_ciphertext_in_its_rows_and_plain_text_when_found(self, store):
        found_by = installations(store, new_key())
        await found_by.async_save(installation())

        assert_no_plaintext(await raw_rows(store))
        bot = await found_by.async_find_bot(enterprise_id=None, team_id="T0SEAL")
        assert bot is not None and (bot.bot_token, bot.bot_refresh_token) == (BOT, REFRESH)
        found = await found_by.async_find_installation(enterprise_id=None, team_id="T0SEAL")
        assert found is not None
        assert (found.bot_token, found.bot_refresh_token, found.user_token, found.user_refresh_token,
                found.incoming_webhook_url) == PLAIN
        by_user = await found_by.async_find_installation(enterprise_id=None, team_id="T0SEAL", user_id="U0INSTALLER")
        assert by_user is not None and (by_user.bot_token, by_user.user_token) == (BOT, USER)

    async def test_a_rotated_bot_token_is_saved_encrypted_too(self, store):
        found_by = installations(store, new_key())
        await found_by.async_save(installation())
        bot = await found_by.async_find_bot(enterprise_id=None, team_id="T0SEAL")
        assert bot is not None
        bot.bot_token, bot.bot_refresh_token = "xoxe.xoxb-1-rotated", "xoxe-1-rotated"  # as Bolt's token rotator
        await found_by.async_save_bot(bot)

        rows = await raw_rows(store)
        assert not any("rotated" in str(row) for row in rows["slack_bots"])
        again = await found_by.async_find_bot(enterprise_id=None, team_id="T0SEAL")
        assert again is not None and again.bot_token == "xoxe.xoxb-1-rotated"

    async def test_plain_rows_from_before_are_encrypted_once_and_still_found(self, store):
        await insert_plain_rows(store)
        cipher = Cipher.from_setting(key := new_key())

        assert await seal_tokens(store.engine, cipher) == Sealed(encrypted=7)
        rows = await raw_rows(store)
        assert_no_plaintext(rows)
        again = await seal_tokens(store.engine, cipher)  # idempotent: the ciphertext stays as it is
        assert (again.encrypted, again.checked) == (0, 7)
        assert sealed_values(await raw_rows(store)) == sealed_values(rows)
        bot = await installations(store, key).async_find_bot(enterprise_id=None, team_id="T0OLD")
        assert bot is not None and (bot.bot_token, bot.bot_refresh_token) == (BOT, REFRESH)

    async def test_an_old_key_behind_a_new_one_decrypts_until_rotate_key_then_only_the_new_one_is_needed(self, store):
        old, new = new_key(), new_key()
        await installations(store, old).async_save(installation())

        both = installations(store, f"{new},{old}")
        bot = await both.async_find_bot(enterprise_id=None, team_id="T0SEAL")
        assert bot is not None and bot.bot_token == BOT
        assert (await seal_tokens(store.engine, both.cipher)).checked == 7

        assert (await seal_tokens(store.engine, both.cipher, rotate=True)).rotated == 7
        assert_no_plaintext(await raw_rows(store))
        found = await installations(store, new).async_find_installation(enterprise_id=None, team_id="T0SEAL")
        assert found is not None and (found.bot_refresh_token, found.user_refresh_token) == (REFRESH, USER_REFRESH)
        with pytest.raises(ConfigError):
            await installations(store, old).async_find_bot(enterprise_id=None, team_id="T0SEAL")

    async def test_a_wrong_key_fails_in_one_line_naming_the_variable_and_changes_nothing(self, store):
        await installations(store, new_key()).async_save(installation())
        await insert_plain_rows(store)  # a plain row besides: the failed pass must not half-encrypt
        before = await raw_rows(store)

        with pytest.raises(ConfigError) as caught:
            await seal_tokens(store.engine, Cipher.from_setting(f"{new_key()},{new_key()}"))
        assert caught.value.variable == "ERRKB_ENCRYPTION_KEY" and len(str(caught.value).splitlines()) == 1
        assert "none of the 2 keys given" in str(caught.value)
        assert await raw_rows(store) == before


async def test_a_database_from_before_encryption_upgrades_and_its_long_tokens_are_encrypted_in_place(fresh_db_url):
    """Rows stored at revision 0007 (String(200) token columns, plain text): 0008 widens the columns, the start-up
    pass encrypts each token, ciphertext longer than 200 characters included (PostgreSQL enforces the length)."""
    from alembic import command

    from bot.store.engine import Database
    from bot.store.migrate import alembic_config

    db = Database(fresh_db_url)

    async def to_0007(conn: Any) -> None:
        if db.schema:  # PostgreSQL's throw-away schema, as errkb's own upgrade makes it
            await conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{db.schema}"'))
        await conn.run_sync(lambda c: command.upgrade(alembic_config(c), "0007"))

    try:
        await db.write(to_0007)
        await insert_plain_rows(Store(db))
    finally:
        await db.dispose()
    store = await Store.open(fresh_db_url)  # migrates to the head
    try:
        cipher = Cipher.from_setting(key := new_key())
        assert (await seal_tokens(store.engine, cipher)).encrypted == 7
        rows = await raw_rows(store)
        assert_no_plaintext(rows)
        assert max(len(v) for v in sealed_values(rows)) > 200
        found = await installations(store, key).async_find_installation(enterprise_id=None, team_id="T0OLD")
        assert found is not None and (found.bot_token, found.bot_refresh_token, found.user_token,
                                      found.user_refresh_token, found.incoming_webhook_url) == PLAIN
    finally:
        await store.close()


@pytest.mark.parametrize("keys", ["", " , ", "not-a-key", "k" * 44, f"{Fernet.generate_key().decode()},short"],
                         ids=["empty", "commas", "not-a-key", "44-letters", "good-then-short"])
def test_a_missing_or_malformed_key_is_one_line_naming_the_variable(keys):
    with pytest.raises(ConfigError) as caught:
        Cipher.from_setting(keys)
    assert str(caught.value).startswith("ERRKB_ENCRYPTION_KEY: ") and len(str(caught.value).splitlines()) == 1
    assert "Fernet.generate_key()" in str(caught.value)


class TestCommands:
    """`errkb db encrypt` and `errkb db rotate-key`, as an operator runs them."""

    async def run(self, capsys, monkeypatch, db_url: str, keys: str | None, *argv: str) -> tuple[int, str, str]:
        monkeypatch.setenv("DATABASE_URL", db_url)
        if keys is None:
            monkeypatch.delenv("ERRKB_ENCRYPTION_KEY", raising=False)
        else:
            monkeypatch.setenv("ERRKB_ENCRYPTION_KEY", keys)
        code = await asyncio.to_thread(main, list(argv))  # its own event loop, as from a shell
        out, err = capsys.readouterr()
        return code, out, err

    async def test_encrypt_then_rotate_key_then_only_the_new_key_is_needed(self, store, db_url, capsys, monkeypatch):
        await insert_plain_rows(store)
        old, new = new_key(), new_key()

        code, out, err = await self.run(capsys, monkeypatch, db_url, None, "db", "encrypt")
        assert code == 2 and err.startswith("errkb: ERRKB_ENCRYPTION_KEY: not set") and len(err.splitlines()) == 1
        code, out, _ = await self.run(capsys, monkeypatch, db_url, old, "db", "encrypt")
        assert code == 0 and out.startswith("7 Slack tokens encrypted, 0 were encrypted already")
        assert_no_plaintext(await raw_rows(store))
        code, out, _ = await self.run(capsys, monkeypatch, db_url, f"{new}, {old}", "db", "rotate-key")
        assert code == 0 and out.startswith("7 Slack tokens encrypted with the first key")

        code, out, _ = await self.run(capsys, monkeypatch, db_url, new, "db", "encrypt")
        assert code == 0 and out.startswith("0 Slack tokens encrypted, 7 were encrypted already")
        code, out, err = await self.run(capsys, monkeypatch, db_url, old, "db", "encrypt")
        assert (code, out) == (2, "") and len(err.splitlines()) == 1
        assert err.startswith("errkb: ERRKB_ENCRYPTION_KEY: the key given is not the one the stored Slack tokens")
        bot = await installations(store, new).async_find_bot(enterprise_id=None, team_id="T0OLD")
        assert bot is not None and bot.bot_token == BOT
