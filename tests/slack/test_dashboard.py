"""The team dashboard behind Sign in with Slack, over real HTTP against the running bot and the fake Slack: a
member of an installed workspace signs in and sees that workspace's numbers only; a forged state, another
sign-in's nonce, an expired or forged ID token, another app's token, a workspace that never installed errkb are
refused; an expired or forged session goes back to Slack; signing out ends the session."""

from __future__ import annotations

import datetime as dt
import re
import shutil
import time
from collections import Counter
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlencode, urlsplit

import aiohttp
import jwt
import pytest

from bot.slack.app import start
from bot.slack.sessions import SESSION
from tests.slack.conftest import NCCL_ID, Harness, SlackSender, settings_for
from tests.slack.test_oauth import KEY, in_team, install
from tests.support import payloads as p
from tests.support.fake_slack import CLIENT_ID, CLIENT_SECRET
from tests.support.slack_sign_in import Approver
from tests.support.waits import eventually

SECRET = "dashboard-secret-made-for-these-tests-0123456789"
NPM_ID = "node/npm-eresolve-dependency-tree"


@pytest.fixture
async def dash(fake_slack, tmp_path, kb, seeded_db) -> AsyncIterator[Harness]:
    shutil.copy(seeded_db, tmp_path / "errkb.db")
    settings = settings_for(fake_slack, tmp_path, bot_token=None, client_id=CLIENT_ID, client_secret=CLIENT_SECRET,
                            encryption_key=KEY, dashboard_secret=SECRET)
    running = await start(settings, host="127.0.0.1", port=0, kb=kb, update_delay=0.2, pace=1000.0, seed=False)
    async with aiohttp.ClientSession() as session:
        harness = Harness(running, fake_slack, SlackSender(f"http://127.0.0.1:{running.port}", session))
        for team in ("T0AAA", "T0BBB"):
            assert (await install(harness, team)).status == 200
        yield harness
    await running.stop(grace=5)


def browser() -> aiohttp.ClientSession:
    """A browser of its own: its own cookies (kept for 127.0.0.1 too)."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def open_dashboard(h: Harness, web: aiohttp.ClientSession, team: str, path: str = "/dashboard",
                         **member: str) -> tuple[int, str]:
    """Open ``path`` in ``web`` and follow every redirect, approving in Slack as a member of ``team``."""
    h.slack.sign_in.member = Approver(team, member.pop("user", "U_ADA"), **member)
    async with web.get(f"{h.send.base_url}{path}") as page:
        return page.status, await page.text()


async def seed(h: Harness) -> None:
    """T0AAA hit NCCL 3 times (today and two days ago) and npm twice; T0BBB hit npm 7 times, voted, kept an
    unknown error and wrote a team entry that awaits review."""
    today = dt.datetime.now(dt.UTC).date()
    store = h.store
    for day, entry_id, n in [(today, NCCL_ID, 2), (today - dt.timedelta(days=2), NCCL_ID, 1), (today, NPM_ID, 2)]:
        for _ in range(n):
            await store.record_hit(entry_id, "en", day, workspace="T0AAA")
    for _ in range(7):
        await store.record_hit(NPM_ID, "zh", today, workspace="T0BBB")
    await store.record_button("T0BBB", "U_B1", NPM_ID, 0, 1, time.time())
    await store.record_button("T0BBB", "U_B2", NPM_ID, 0, -1, time.time())
    await store.seen_unknown("T0BBB", "C1", "d1", "KafkaTimeoutError: broker <n> unreachable", "KafkaTimeoutError")
    await store.add_team_entry("T0BBB", "U_B1", "en", {"title": "WidgetError: widget stuck",
                                                       "cause": "The widget daemon hangs.",
                                                       "workarounds": ["Restart the widget daemon."]},
                               r"WidgetError: widget \w+ stuck", "WidgetError: widget w1 stuck")


def summary(html: str) -> str:
    found = re.search(r'<p class="summary">([^<]*)</p>', html)
    assert found, html[:500]
    return found.group(1)


class TestSignIn:
    async def test_each_workspaces_member_sees_only_their_own_workspaces_numbers(self, dash):
        await seed(dash)
        async with browser() as a, browser() as b:
            status_a, page_a = await open_dashboard(dash, a, "T0AAA", team_name="Acme")
            status_b, page_b = await open_dashboard(dash, b, "T0BBB", team_name="Beta", name="Bob")
        assert status_a == status_b == 200
        assert summary(page_a) == "5 errors answered in the last 30 days"
        assert summary(page_b) == "7 errors answered in the last 30 days"
        assert "Ada Lovelace in Acme" in page_a and "Bob in Beta" in page_b
        assert page_a.count("<svg") == page_b.count("<svg") == 5  # five plots, each inline SVG
        assert ">pytorch<" in page_a and ">node<" in page_a and ">pytorch<" not in page_b
        # B's vote, unknown error and team entry are on B's page only
        assert "KafkaTimeoutError: broker &lt;n&gt; unreachable" in page_b and "KafkaTimeoutError" not in page_a
        assert "WidgetError: widget stuck" in page_b and "WidgetError" not in page_a
        assert ">worked<" in page_b and "50%" in page_b and "50%" not in page_a
        for page in (page_a, page_b):  # nothing fetched from elsewhere: the page works offline
            assert "src=" not in page and "<link" not in page and "@import" not in page and "<script" not in page

    async def test_the_page_is_private_and_allows_no_script_or_resource_from_elsewhere(self, dash):
        async with browser() as web:
            dash.slack.sign_in.member = Approver("T0AAA", "U_ADA")
            async with web.get(f"{dash.send.base_url}/dashboard") as page:
                assert page.status == 200
                policy = page.headers["Content-Security-Policy"]
                assert "default-src 'none'" in policy and "script-src" not in policy
                assert page.headers["Cache-Control"] == "no-store" and page.headers["Referrer-Policy"] == "no-referrer"

    async def test_the_flow_asks_slack_for_openid_profile_and_exchanges_the_code_with_the_apps_credentials(self, dash):
        async with browser() as web, web.get(f"{dash.send.base_url}/dashboard", allow_redirects=False) as first:
            assert first.status == 302
            cookie = first.headers["Set-Cookie"]
            assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/dashboard" in cookie
            to = urlsplit(first.headers["Location"])
            query = parse_qs(to.query)
            assert f"{to.scheme}://{to.netloc}/" == dash.slack.base_url + "/" and to.path == "/openid/connect/authorize"
            assert query["scope"] == ["openid profile"] and query["client_id"] == [CLIENT_ID]
            assert query["redirect_uri"] == [f"{dash.send.base_url}/dashboard/oidc"]
            assert len(query["state"][0]) >= 24 and len(query["nonce"][0]) >= 24
            status, _ = await open_dashboard(dash, web, "T0AAA")
        assert status == 200
        (exchange,) = dash.slack.calls_to("openid.connect.token")
        assert exchange.args["redirect_uri"] == f"{dash.send.base_url}/dashboard/oidc"
        assert len(dash.slack.calls_to("openid.connect.userInfo")) == 1

    async def test_a_forged_state_is_refused_before_any_code_is_exchanged(self, dash):
        async with browser() as web:
            async with web.get(f"{dash.send.base_url}/dashboard", allow_redirects=False) as first:
                nonce = parse_qs(urlsplit(first.headers["Location"]).query)["nonce"][0]
            code = dash.slack.sign_in.code(Approver("T0AAA", "U_ADA"), nonce)
            back = urlencode({"code": code, "state": "forged"})
            async with web.get(f"{dash.send.base_url}/dashboard/oidc?{back}", allow_redirects=False) as refused:
                assert refused.status == 400 and SESSION not in refused.cookies
                assert "This sign-in expired or did not start here." in await refused.text()
        assert not dash.slack.calls_to("openid.connect.token")

    @pytest.mark.parametrize("query", ["", "?state=", "?code=&state=%FF%FE", "?error=access_denied",
                                       "?code=" + "x" * 5000 + "&state=" + "é" * 300, "?state=a&state=b&code=c"])
    async def test_a_malformed_way_back_gets_400_never_a_server_error(self, dash, query):
        async with browser() as web:
            async with web.get(f"{dash.send.base_url}/dashboard", allow_redirects=False):
                pass  # a sign-in started in this browser: its cookie is there
            async with web.get(f"{dash.send.base_url}/dashboard/oidc{query}", allow_redirects=False) as back:
                assert back.status == 400
        assert not dash.slack.calls_to("openid.connect.token")

    async def test_slack_down_during_the_exchange_refuses_the_sign_in_without_a_server_error(self, dash):
        dash.slack.fail_next(status=503, count=1, method="openid.connect.token")
        async with browser() as web:
            status, page = await open_dashboard(dash, web, "T0AAA")
        assert status == 403 and "Slack did not confirm who you are." in page

    async def test_a_way_back_with_no_sign_in_started_in_this_browser_is_refused(self, dash):
        code = dash.slack.sign_in.code(Approver("T0AAA", "U_ADA"), "n")
        async with browser() as web, web.get(f"{dash.send.base_url}/dashboard/oidc?code={code}&state=s") as r:
            assert r.status == 400
        assert not dash.slack.calls_to("openid.connect.token")

    @pytest.mark.parametrize(("spoiled", "forge"), [
        ({"nonce": "another-sign-in"}, False),
        ({"exp": int(time.time()) - 3600, "iat": int(time.time()) - 7200}, False),
        ({"aud": "9999.9999"}, False),  # an ID token for another app
        ({"iss": "https://evil.example"}, False),
        ({}, True),  # signed with a key Slack does not publish
    ], ids=["wrong-nonce", "expired", "wrong-audience", "wrong-issuer", "forged-signature"])
    async def test_an_id_token_that_fails_a_check_signs_nobody_in(self, dash, spoiled, forge):
        await seed(dash)
        dash.slack.sign_in.claims, dash.slack.sign_in.forge = spoiled, forge
        async with browser() as web:
            status, page = await open_dashboard(dash, web, "T0AAA")
            assert not any(c.key == SESSION for c in web.cookie_jar)
        assert status == 403 and "Slack did not confirm who you are." in page and "errors answered" not in page

    async def test_with_slacks_keys_unreachable_the_token_from_the_token_endpoint_is_trusted(self, dash):
        dash.slack.sign_in.keys_down = True
        async with browser() as web:
            status, page = await open_dashboard(dash, web, "T0AAA")
        assert status == 200 and "errors answered" in page

    async def test_a_member_of_a_workspace_that_never_installed_errkb_is_refused(self, dash):
        await seed(dash)
        async with browser() as web:
            status, page = await open_dashboard(dash, web, "T0NEVER", team_name="Nowhere")
            assert not any(c.key == SESSION for c in web.cookie_jar)
        assert status == 403 and "errkb is not installed in Nowhere" in page


class TestSession:
    @pytest.mark.parametrize("cookie", [
        jwt.encode({"kind": SESSION, "team": "T0AAA", "user": "U", "name": "n", "team_name": "t",
                    "exp": int(time.time()) - 60}, SECRET, "HS256"),  # expired
        jwt.encode({"kind": SESSION, "team": "T0AAA", "user": "U", "name": "n", "team_name": "t",
                    "exp": int(time.time()) + 3600}, "a-guessed-secret-that-is-not-the-servers", "HS256"),  # forged
        "not-a-token",
        jwt.encode({"kind": "errkb_sign_in", "state": "s", "nonce": "n", "team": "T0AAA", "user": "U", "name": "n",
                    "team_name": "t", "exp": int(time.time()) + 600}, SECRET, "HS256"),  # a sign-in, not a session
    ], ids=["expired", "forged", "garbage", "another-kind"])
    async def test_an_expired_or_forged_session_goes_back_to_sign_in(self, dash, cookie):
        async with browser() as web, web.get(f"{dash.send.base_url}/dashboard", allow_redirects=False,
                                             headers={"Cookie": f"{SESSION}={cookie}"}) as r:
            assert r.status == 302
            assert r.headers["Location"].startswith(f"{dash.slack.base_url}/openid/connect/authorize?")

    async def test_a_url_naming_another_workspace_gives_nothing_of_it(self, dash):
        await seed(dash)
        async with browser() as web:
            assert (await open_dashboard(dash, web, "T0AAA"))[0] == 200
            for param in ("team", "team_id", "workspace"):
                async with web.get(f"{dash.send.base_url}/dashboard?{param}=T0BBB") as r:
                    page = await r.text()
                    assert r.status == 404 and "errors answered" not in page and "7" not in summary_or_empty(page)
            async with web.get(f"{dash.send.base_url}/dashboard?team=T0AAA") as mine:
                assert mine.status == 200 and summary(await mine.text()) == "5 errors answered in the last 30 days"

    async def test_signing_out_ends_the_session(self, dash):
        async with browser() as web:
            assert (await open_dashboard(dash, web, "T0AAA"))[0] == 200
            async with web.post(f"{dash.send.base_url}/dashboard/signout") as out:
                assert out.status == 200 and "You are signed out" in await out.text()
            assert not any(c.key == SESSION for c in web.cookie_jar)
            async with web.get(f"{dash.send.base_url}/dashboard", allow_redirects=False) as again:
                assert again.status == 302 and "/openid/connect/authorize" in again.headers["Location"]

    async def test_a_workspace_that_uninstalled_since_signing_in_sees_nothing(self, dash):
        await seed(dash)
        async with browser() as web:
            assert (await open_dashboard(dash, web, "T0AAA"))[0] == 200
            event = in_team(p.envelope({"type": "app_uninstalled", "event_ts": p.new_ts()}), "T0AAA")
            assert (await dash.send.event(event)).status == 200

            async def status() -> tuple[int, str]:
                async with web.get(f"{dash.send.base_url}/dashboard") as r:
                    return r.status, await r.text()

            gone, page = await eventually(status, lambda answer: answer[0] == 403)
            assert gone == 403 and "errors answered" not in page


def summary_or_empty(html: str) -> str:
    found = re.search(r'<p class="summary">([^<]*)</p>', html)
    return found.group(1) if found else ""


class TestLanguages:
    async def test_the_page_speaks_the_members_slack_language_or_the_one_asked_for(self, dash):
        await seed(dash)
        async with browser() as web:
            status, page = await open_dashboard(dash, web, "T0AAA", locale="zh-CN")
            assert status == 200 and "最近 30 天回答了 5 个错误" in summary(page)
            async with web.get(f"{dash.send.base_url}/dashboard?locale=zh-TW") as r:
                assert "最近 30 天回答了 5 個錯誤" in summary(await r.text())
            async with web.get(f"{dash.send.base_url}/dashboard?locale=en") as r:
                assert summary(await r.text()) == "5 errors answered in the last 30 days"


class TestOff:
    async def test_without_a_secret_the_dashboard_is_off_and_says_what_turns_it_on(self, harness):
        async with browser() as web, web.get(f"{harness.send.base_url}/dashboard", allow_redirects=False) as r:
            assert r.status == 503
            page = await r.text()
        assert "The dashboard is off" in page and "ERRKB_DASHBOARD_SECRET" in page


# --- a real headless browser -----------------------------------------------------------------

DEMO = {  # realistic demo data: entry → (matches a day on average, votes 👍, votes 👎 on its first fix)
    "pytorch/cuda-out-of-memory": (3.0, 9, 2),
    "pytorch/nccl-timeout-during-allreduce": (1.2, 4, 3),
    "kubernetes/crashloopbackoff": (1.6, 6, 1),
    "kubernetes/imagepullbackoff": (0.8, 2, 2),
    "node/npm-eresolve-dependency-tree": (1.4, 3, 4),
    "python/modulenotfounderror-no-module-named": (1.1, 5, 0),
    "docker/no-space-left-on-device": (0.6, 2, 0),
    "pip/cant-find-rust-compiler": (0.3, 0, 0),
}
UNKNOWN = [("KafkaTimeoutError: Failed to update metadata after <n> secs.", 9),
           ("grpc._channel._InactiveRpcError: StatusCode.UNAVAILABLE failed to connect to all addresses", 6),
           ("FATAL: role \"<name>\" does not exist", 4),
           ("terraform: Error acquiring the state lock: ConditionalCheckFailedException", 2)]
WAITING = [("Redis READONLY You can't write against a read only replica", 12),
           ("Celery worker lost: WorkerLostError signal 9 (SIGKILL)", 5),
           ("Vault: permission denied on secret/data/<path>", 1)]


async def seed_demo(store, team: str) -> None:
    """Thirty days of a busy team's matches, votes, unknown errors and team entries, through the store's API."""
    import random

    rng = random.Random(23)
    today = dt.datetime.now(dt.UTC).date()
    for back in range(30):
        day = today - dt.timedelta(days=back)
        weekday = day.weekday() < 5
        for entry_id, (rate, _up, _down) in DEMO.items():
            for _ in range(sum(rng.random() < rate / 3 * (1.0 if weekday else 0.35) for _ in range(3))):
                await store.record_hit(entry_id, rng.choice(("en", "en", "zh")), day, workspace=team)
    now = time.time()
    for n, (entry_id, (_rate, up, down)) in enumerate(DEMO.items()):
        for voter in range(up + down):
            await store.record_button(team, f"U{n}{voter:03d}", entry_id, 0, 1 if voter < up else -1, now)
    for shape, count in UNKNOWN:
        for _ in range(count):
            await store.seen_unknown(team, "C0OPS", shape[:12], shape, shape.split(":")[0])
    clock = store.clock
    try:
        for title, days in WAITING:
            store.clock = lambda days=days: now - days * 86400 - 3600
            await store.add_team_entry(team, "U0AUTHOR", "en", {"title": title, "cause": "Written by the team.",
                                                                "workarounds": ["See the runbook."]},
                                       r"WorkerLostError|READONLY|permission denied", title)
    finally:
        store.clock = clock
    await store.record_hit(NPM_ID, "en", today, workspace="T0BBB")  # another workspace's: never on this page


def png_pixels(png: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit, non-interlaced PNG, as Chromium writes its screenshots."""
    import struct
    import zlib

    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, data, width, height, channels = 8, b"", 0, 0, 4
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            data += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(data), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def colours(png: bytes) -> Counter[tuple[int, int, int]]:
    """How many pixels of each RGB colour the image has."""
    width, _height, rows = png_pixels(png)
    channels = len(rows[0]) // width
    counts: Counter[tuple[int, int, int]] = Counter()
    for row in rows:
        counts.update(zip(row[0::channels], row[1::channels], row[2::channels], strict=True))
    return counts


def pixels_near(counts: Counter[tuple[int, int, int]], colour: str, tolerance: int = 4) -> int:
    """How many pixels are within ``tolerance`` of ``colour`` as the charts draw it (0.92 opacity on white)."""
    target = [round(0.92 * int(colour[i:i + 2], 16) + 0.08 * 255) for i in (1, 3, 5)]
    return sum(n for rgb, n in counts.items() if all(abs(rgb[c] - target[c]) <= tolerance for c in range(3)))


async def shoot(browser: str, url: str, png, height: int) -> None:
    """``url`` in a headless Chromium of its own (a fresh profile: no cookie), the whole sign-in included."""
    import asyncio
    import tempfile

    with tempfile.TemporaryDirectory(prefix="errkb-chromium-") as profile:
        process = await asyncio.create_subprocess_exec(
            browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
            "--no-first-run", f"--user-data-dir={profile}", "--force-device-scale-factor=1",
            f"--window-size=1100,{height}", f"--screenshot={png}", url,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        await asyncio.wait_for(process.wait(), 120)


class TestInABrowser:
    @pytest.mark.parametrize("locale", ["en", "zh"])
    async def test_a_headless_browser_signs_in_and_draws_every_plot(self, dash, tmp_path, locale):
        """Draws docs/dashboard-<locale>.png when ERRKB_DASHBOARD_SCREENSHOTS=docs (else into a temp dir)."""
        import os

        from bot import preview
        from tests.slack.conftest import REPO

        browser = preview.find_browser()
        if browser is None:
            pytest.skip("no Chromium on this machine (apt-get install -y chromium; or set ERRKB_CHROMIUM)")
        await seed_demo(dash.store, "T0AAA")
        dash.slack.sign_in.member = Approver("T0AAA", "U0ADA", name="Ada Lovelace", team_name="Acme Robotics",
                                             locale="zh-CN" if locale == "zh" else "en-US")
        png = tmp_path / f"dashboard-{locale}.png"
        await shoot(browser, f"{dash.send.base_url}/dashboard", png, 2150)
        assert png.exists(), "Chromium drew nothing"
        drawn = png.read_bytes()
        width, height, _rows = png_pixels(drawn)
        assert (width, height) == (1100, 2150)
        counts = colours(drawn)
        assert len(dash.slack.calls_to("openid.connect.token")) == 1  # the browser went through Sign in with Slack
        # every plot's bars were drawn: the time series and top errors (blue), worked (green) and didn't (red),
        # unknown errors (red too) and entries awaiting review (yellow)
        for colour, at_least in (("#1264a3", 5000), ("#2eb67d", 3000), ("#e01e5a", 3000), ("#ecb22e", 3000)):
            assert pixels_near(counts, colour) >= at_least, colour
        if os.environ.get("ERRKB_DASHBOARD_SCREENSHOTS") == "docs":
            shutil.copyfile(png, REPO / "docs" / png.name)
