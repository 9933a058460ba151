"""Install in many workspaces (OAuth): a fresh workspace installs through /slack/install, is answered
with its own token, sees only its own stats, gets a rotated token when it expires, and its uninstall
removes its installation and its data; every token it stores is ciphertext (ERRKB_ENCRYPTION_KEY). Against the
fake Slack, which answers ``oauth.v2.access``."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest
from cryptography.fernet import Fernet

from bot.errors import ConfigError
from bot.slack.app import start
from tests.slack.conftest import NCCL_PASTE, Harness, SlackSender, settings_for
from tests.support import payloads as p
from tests.support.fake_slack import CLIENT_ID, CLIENT_SECRET, TOKEN
from tests.support.waits import eventually

KEY = Fernet.generate_key().decode()  # ERRKB_ENCRYPTION_KEY: made here, none in the repo
SEALED = {"slack_bots": ("bot_token", "bot_refresh_token"),
          "slack_installations": ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token",
                                  "incoming_webhook_url")}


async def start_oauth(fake_slack, tmp_path, kb, key: str = KEY):
    settings = settings_for(fake_slack, tmp_path, bot_token=None, client_id=CLIENT_ID, client_secret=CLIENT_SECRET,
                            encryption_key=key)
    return await start(settings, host="127.0.0.1", port=0, kb=kb, update_delay=0.2, pace=1000.0, seed=False)


@pytest.fixture
async def oauth(fake_slack, tmp_path, kb, seeded_db) -> AsyncIterator[Harness]:
    shutil.copy(seeded_db, tmp_path / "errkb.db")
    running = await start_oauth(fake_slack, tmp_path, kb)
    async with aiohttp.ClientSession() as session:
        yield Harness(running, fake_slack, SlackSender(f"http://127.0.0.1:{running.port}", session))
    await running.stop(grace=5)


async def install(h: Harness, team: str) -> aiohttp.ClientResponse:
    """Click "Add to Slack" on /slack/install, approve in Slack, come back to /slack/oauth_redirect."""
    async with h.send.session.get(f"{h.send.base_url}/slack/install") as page:
        assert page.status == 200
        html = await page.text()
        state = page.cookies["slack-app-oauth-state"].value
    assert f"state={state}" in html and f"client_id={CLIENT_ID}" in html and "chat:write" in html.replace("%3A", ":")
    query = urlencode({"code": h.slack.install_code(team), "state": state})
    async with h.send.session.get(f"{h.send.base_url}/slack/oauth_redirect?{query}",
                                  headers={"Cookie": f"slack-app-oauth-state={state}"}) as back:
        await back.read()
        return back


def in_team(payload: dict[str, Any], team: str) -> dict[str, Any]:
    payload["team_id"] = team
    payload["authorizations"][0]["team_id"] = team
    payload["event"]["team"] = team
    return payload


async def paste_in(h: Harness, team: str, user: str) -> list[Any]:
    before = len(h.slack.calls_to("chat.postMessage"))
    assert (await h.send.event(in_team(p.message(NCCL_PASTE, user=user), team))).status == 200
    return (await h.slack.wait_for("chat.postMessage", before + 1))[before:]


async def stats_text(h: Harness, team: str) -> str:
    key = f"stats-{team}-{len(h.slack.calls)}"
    form = p.slash_command("stats", h.slack.response_url(key)) | {"team_id": team}
    assert (await h.send.form(form)).status == 200
    (answer,) = await h.slack.wait_for("response_url", 1, key=key)
    return answer.text_of_blocks


def token_of(h: Harness, team: str) -> str:
    return next(t for t, owner in reversed(h.slack.tokens.items()) if owner == team)


class TestInstall:
    async def test_two_workspaces_install_and_each_is_answered_with_its_own_token(self, oauth):
        for team in ("T0AAA", "T0BBB"):
            back = await install(oauth, team)
            assert back.status == 200
        assert {token_of(oauth, "T0AAA"), token_of(oauth, "T0BBB")}.isdisjoint({TOKEN})

        posts_a = await paste_in(oauth, "T0AAA", "U_EN")
        posts_b = await paste_in(oauth, "T0BBB", "U_CN")
        assert {c.token for c in posts_a} == {token_of(oauth, "T0AAA")}
        assert {c.token for c in posts_b} == {token_of(oauth, "T0BBB")}

        text_a = await eventually(lambda: stats_text(oauth, "T0AAA"), lambda t: "en: 1" in t)
        text_b = await eventually(lambda: stats_text(oauth, "T0BBB"), lambda t: "zh: 1" in t)
        assert "zh:" not in text_a and "en:" not in text_b  # neither sees the other's matches

    async def test_an_install_without_its_state_cookie_is_refused(self, oauth):
        query = urlencode({"code": oauth.slack.install_code("T0EVIL"), "state": "forged"})
        async with oauth.send.session.get(f"{oauth.send.base_url}/slack/oauth_redirect?{query}") as back:
            assert back.status >= 400
        assert not oauth.slack.calls_to("oauth.v2.access")

    async def test_a_workspace_that_never_installed_gets_no_answer(self, oauth):
        assert (await oauth.send.event(in_team(p.message(NCCL_PASTE), "T0NEVER"))).status in (200, 401)
        await oauth.slack.settle()
        assert not oauth.slack.calls_to("chat.postMessage")

    async def test_an_expiring_token_is_rotated_before_it_is_used(self, oauth):
        oauth.slack.token_lifetime = 60  # seconds: inside Bolt's refresh window at once
        assert (await install(oauth, "T0ROT")).status == 200
        first = token_of(oauth, "T0ROT")
        posts = await paste_in(oauth, "T0ROT", "U_EN")
        rotated = token_of(oauth, "T0ROT")
        assert rotated != first and first not in oauth.slack.tokens
        assert {c.token for c in posts} == {rotated}
        assert any(c.args.get("grant_type") == "refresh_token" for c in oauth.slack.calls_to("oauth.v2.access"))


class TestUninstall:
    async def test_uninstall_removes_the_installation_and_the_workspaces_data(self, oauth):
        assert (await install(oauth, "T0GONE")).status == 200
        assert (await install(oauth, "T0STAY")).status == 200
        await paste_in(oauth, "T0GONE", "U_EN")
        await paste_in(oauth, "T0STAY", "U_EN")
        await eventually(lambda: stats_text(oauth, "T0GONE"), lambda t: "en: 1" in t)

        event = in_team(p.envelope({"type": "app_uninstalled", "event_ts": p.new_ts()}), "T0GONE")
        assert (await oauth.send.event(event)).status == 200

        store = oauth.store
        assert await eventually(lambda: store.stats(workspace="T0GONE"), lambda s: not s.hits_by_locale)
        assert (await store.stats(workspace="T0STAY")).hits_by_locale == {"en": 1}
        installations = oauth.bot.app.oauth_flow.settings.installation_store
        assert await installations.async_find_bot(enterprise_id=None, team_id="T0GONE") is None
        assert await installations.async_find_bot(enterprise_id=None, team_id="T0STAY") is not None
        before = len(oauth.slack.calls_to("chat.postMessage"))
        await oauth.send.event(in_team(p.message(NCCL_PASTE), "T0GONE"))
        await oauth.slack.settle()
        assert len(oauth.slack.calls_to("chat.postMessage")) == before  # gone: no token, no answer
        assert re.search(r"en: 1", await stats_text(oauth, "T0STAY"))


def raw_rows(db: Path) -> dict[str, list[dict[str, Any]]]:
    """Both OAuth tables as plain SQL reads them: no slack_sdk, no key."""
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        return {table: [dict(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY id")] for table in SEALED}


def issued(h: Harness, team: str) -> list[str]:
    """Every token the fake Slack ever gave ``team``'s installation: bot tokens, refresh tokens."""
    return [t for t, owner in (*h.slack.tokens.items(), *h.slack.refresh_tokens.items()) if owner == team]


class TestTokensAtRest:
    async def test_an_installs_tokens_are_ciphertext_in_the_database_and_the_bot_answers_with_the_real_token(
            self, oauth, tmp_path):
        oauth.slack.token_lifetime = 60  # rotating tokens: a refresh token too, and a rotation at the first paste
        assert (await install(oauth, "T0ENC")).status == 200
        secrets = issued(oauth, "T0ENC")
        assert len(secrets) == 2  # a bot token and its refresh token

        rows = raw_rows(tmp_path / "errkb.db")
        assert rows["slack_bots"] and rows["slack_installations"]
        for found in rows.values():
            for row in found:
                assert not any(s in str(v) for v in row.values() for s in secrets)
                assert row["bot_token"].startswith("gAAAAA") and row["bot_refresh_token"].startswith("gAAAAA")
        for stored in tmp_path.glob("errkb.db*"):  # the file and its write-ahead log, byte for byte
            assert not any(s.encode() in stored.read_bytes() for s in secrets)

        posts = await paste_in(oauth, "T0ENC", "U_EN")
        rotated = token_of(oauth, "T0ENC")
        assert {c.token for c in posts} == {rotated} and rotated not in secrets  # decrypted, refreshed, used
        rows = raw_rows(tmp_path / "errkb.db")
        assert not any(s in str(row) for s in issued(oauth, "T0ENC") for row in rows["slack_bots"])
        assert all(r["bot_token"].startswith("gAAAAA") for r in rows["slack_bots"])

    async def test_plain_tokens_stored_before_are_encrypted_at_start_and_still_answer(
            self, fake_slack, tmp_path, kb, seeded_db):
        shutil.copy(seeded_db, tmp_path / "errkb.db")
        plain = "xoxb-T0OLD-stored-before-encryption"
        fake_slack.tokens[plain] = "T0OLD"
        with sqlite3.connect(tmp_path / "errkb.db") as conn:  # as errkb left them before it encrypted
            for table in SEALED:
                conn.execute(f"INSERT INTO {table} (client_id, app_id, team_id, bot_token, bot_id, bot_user_id, "
                             "bot_scopes, is_enterprise_install, installed_at"
                             + (", user_id" if table == "slack_installations" else "") + ") VALUES (?, 'AERRKB', "
                             "'T0OLD', ?, 'B0OLD', 'U0BOT', 'chat:write', 0, '2026-01-02 03:04:05.000000'"
                             + (", 'U0INSTALLER'" if table == "slack_installations" else "") + ")",
                             (CLIENT_ID, plain))

        running = await start_oauth(fake_slack, tmp_path, kb)
        try:
            rows = raw_rows(tmp_path / "errkb.db")
            assert all(r["bot_token"].startswith("gAAAAA") and plain not in str(r) for t in rows.values() for r in t)
            async with aiohttp.ClientSession() as session:
                h = Harness(running, fake_slack, SlackSender(f"http://127.0.0.1:{running.port}", session))
                posts = await paste_in(h, "T0OLD", "U_EN")
            assert {c.token for c in posts} == {plain}
        finally:
            await running.stop(grace=5)
        running = await start_oauth(fake_slack, tmp_path, kb)  # a second start: nothing left to encrypt
        await running.stop(grace=5)
        assert raw_rows(tmp_path / "errkb.db") == rows

    async def test_a_new_key_in_front_of_the_old_one_still_answers(self, fake_slack, tmp_path, kb, seeded_db):
        shutil.copy(seeded_db, tmp_path / "errkb.db")
        running = await start_oauth(fake_slack, tmp_path, kb)
        async with aiohttp.ClientSession() as session:
            await install(Harness(running, fake_slack, SlackSender(f"http://127.0.0.1:{running.port}", session)),
                          "T0KEY")
        await running.stop(grace=5)

        running = await start_oauth(fake_slack, tmp_path, kb, key=f"{Fernet.generate_key().decode()},{KEY}")
        try:
            async with aiohttp.ClientSession() as session:
                h = Harness(running, fake_slack, SlackSender(f"http://127.0.0.1:{running.port}", session))
                posts = await paste_in(h, "T0KEY", "U_EN")
            assert {c.token for c in posts} == {token_of(h, "T0KEY")}
        finally:
            await running.stop(grace=5)

    async def test_a_wrong_key_stops_the_start_with_one_line(self, oauth, fake_slack, tmp_path, kb):
        assert (await install(oauth, "T0WRONG")).status == 200
        with pytest.raises(ConfigError) as caught:
            await start_oauth(fake_slack, tmp_path, kb, key=Fernet.generate_key().decode())
        assert str(caught.value).startswith("ERRKB_ENCRYPTION_KEY: the key given is not the one the stored Slack "
                                            "tokens were encrypted with")
        assert len(str(caught.value).splitlines()) == 1


class TestServeNeedsTheKey:
    """`errkb serve` as an operator starts it: a missing or wrong ERRKB_ENCRYPTION_KEY is one line on stderr and
    exit 2, before anything is served."""

    async def serve(self, tmp_path: Path, key: str | None) -> tuple[int, str]:
        env = {name: value for name, value in os.environ.items()
               if not name.startswith(("SLACK_", "ERRKB_", "LOG_")) and name not in ("DATABASE_URL", "PORT")}
        env |= {"SLACK_CLIENT_ID": CLIENT_ID, "SLACK_CLIENT_SECRET": CLIENT_SECRET,
                "SLACK_SIGNING_SECRET": "fake-signing-secret", "SLACK_API_URL": "http://127.0.0.1:9/api/",
                "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'errkb.db'}", "PORT": "0", "LOG_LEVEL": "INFO"}
        if key is not None:
            env["ERRKB_ENCRYPTION_KEY"] = key
        errkb = Path(sys.executable).with_name("errkb")
        process = await asyncio.create_subprocess_exec(str(errkb), "serve", env=env, stderr=asyncio.subprocess.PIPE)
        try:
            _, err = await asyncio.wait_for(process.communicate(), 60)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        return process.returncode or 0, err.decode()

    async def test_oauth_without_a_key_exits_2_naming_errkb_encryption_key(self, tmp_path):
        code, err = await self.serve(tmp_path, None)
        assert code == 2 and err.startswith("errkb: ERRKB_ENCRYPTION_KEY: not set") and len(err.splitlines()) == 1

    async def test_a_wrong_key_exits_2_with_one_line_not_a_traceback(self, oauth, tmp_path):
        assert (await install(oauth, "T0WRONG")).status == 200
        code, err = await self.serve(tmp_path, Fernet.generate_key().decode())
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert err.startswith("errkb: ERRKB_ENCRYPTION_KEY: the key given is not the one")
