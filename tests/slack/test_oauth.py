"""Install in many workspaces (OAuth): a fresh workspace installs through /slack/install, is answered
with its own token, sees only its own stats, gets a rotated token when it expires, and its uninstall
removes its installation and its data. Against the fake Slack, which answers ``oauth.v2.access``."""

from __future__ import annotations

import re
import shutil
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

import aiohttp
import pytest

from bot.slack.app import start
from tests.slack.conftest import NCCL_PASTE, Harness, SlackSender, settings_for
from tests.support import payloads as p
from tests.support.fake_slack import CLIENT_ID, CLIENT_SECRET, TOKEN
from tests.support.waits import eventually


@pytest.fixture
async def oauth(fake_slack, tmp_path, kb, seeded_db) -> AsyncIterator[Harness]:
    shutil.copy(seeded_db, tmp_path / "errkb.db")
    settings = settings_for(fake_slack, tmp_path, bot_token=None, client_id=CLIENT_ID, client_secret=CLIENT_SECRET)
    running = await start(settings, host="127.0.0.1", port=0, kb=kb, update_delay=0.2, pace=1000.0, seed=False)
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
