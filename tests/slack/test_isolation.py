"""Workspace isolation, end to end (issue 24): two workspaces install errkb (OAuth) and talk to the running app
over the real signed HTTP path. Workspace A has a team entry, suggested fixes, votes, unknown errors, channel
and user settings. Workspace B then sends every command, button, view submission and event it can, with A's
ids forged in (entry ids, ``private_metadata``, button values, A's channel and message, A's user ids). Each
must read nothing of A's (no text of A's in any reply to B, and no call with A's token), change nothing of
A's (A's rows, read with plain store calls, are as before), answer 200, and, where B clicked or submitted
something that names what B cannot have, tell B so in one private line.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from bot.config import Settings
from bot.kb.feedback import Suggested
from bot.render import blocks, modals
from bot.render.suggest import CALLBACK, FIX_BLOCK, INPUT, TRANSLATE_CALLBACK, Place
from bot.slack.app import start
from bot.store.records import TeamEntry
from tests.slack.conftest import NCCL_ID, NCCL_PASTE, Harness, Sent, SlackSender, settings_for
from tests.support import payloads as p
from tests.support.fake_slack import CLIENT_ID, CLIENT_SECRET, FakeSlack
from tests.support.waits import eventually, until

pytestmark = pytest.mark.asyncio(loop_scope="module")

A, B = "T0AAA", "T0BBB"
CHANNEL, OTHER_CHANNEL = p.CHANNEL, "C0OTHER"
# Words only A's data holds: none may reach B.
SECRETS = ("zebracorn", "marmalade", "periwinkle", "tangerine", "aubergine", "clementine")
A_BODY = {"title": "QuuxWidgetError: spindle zebracorn jammed", "root_cause": "The marmalade bearing seized.",
          "workarounds": ["Oil the periwinkle bearing."], "dead_ends": ["Restarting the clementine daemon."]}
A_REGEX = r"QuuxWidgetError: spindle \d+ jammed"
A_EXAMPLE = "QuuxWidgetError: spindle <n> jammed"
TEAM_PASTE = "Traceback (most recent call last):\n  File \"spin.py\", line 3, in <module>\nQuuxWidgetError: spindle 42 jammed"
NOT_HERE = "isn't available in this workspace"
STATUSES = ("live", "verified", "retired")


# --- two workspaces, and A's data ---------------------------------------------------------------------------

def as_team(form: dict[str, str], team: str) -> dict[str, str]:
    """A slash command's or interactivity's form as sent from ``team``."""
    if "payload" not in form:
        return form | {"team_id": team}
    payload = json.loads(form["payload"])
    payload["team"]["id"] = team
    payload["user"]["team_id"] = team
    if isinstance(payload.get("view"), dict):
        payload["view"]["team_id"] = team
    return {"payload": json.dumps(payload)}


def event_in(payload: dict[str, Any], team: str) -> dict[str, Any]:
    payload["team_id"] = team
    payload["authorizations"][0]["team_id"] = team
    payload["event"]["team"] = team
    return payload


@dataclass
class World:
    h: Harness
    entry: TeamEntry  # A's team entry
    fix: Suggested  # A's suggested fix on a KB entry
    own_fix: Suggested  # A's suggested fix on its own team entry
    a_ts: str  # A's answer in A's channel
    a_thread: str
    before: dict[str, Any]  # A's rows once set up

    @property
    def token_of_a(self) -> str:
        return next(t for t, owner in self.h.slack.tokens.items() if owner == A)

    async def rows_of_a(self) -> dict[str, Any]:
        """A's rows, read through the store's API with A's workspace: what B must never change."""
        store, entry = self.h.store, self.entry.entry_id
        numbers = await store.feedback([entry, NCCL_ID], A)
        return {
            "team entries": await store.team_entries(A, STATUSES),
            "team entry": await store.team_entry(A, entry),
            "suggested fixes": await store.suggested_fixes(A),
            "team entry's votes": numbers[entry],
            "fix votes": (numbers[NCCL_ID].workarounds.get(self.fix.index), numbers[NCCL_ID].suggested),
            "stats": await store.stats(workspace=A),
            "hits": await store.hit_counts(A),
            "unknown errors": await store.unknown_errors(A, 50),
            "remembers unknown": await store.remembers_unknown(A),
            "channels": [(await store.channel_mode(A, c), await store.channel_bots(A, c))
                         for c in (CHANNEL, OTHER_CHANNEL)],
            "settings": {k: v for k, v in (await store.all_channel_settings()).items() if k[0] == A},
            "prefs": [await store.user_prefs(A, u) for u in ("U_A", "U_B")],
            "message": await store.message_target(A, CHANNEL, self.a_ts),
            "thread": await store.thread_messages(A, CHANNEL, self.a_thread),
        }

    async def idle(self) -> None:
        """Until what B sent is done: its background work, answers, writes, and Slack calls."""
        bot = self.h.bot
        await bot.background.drain(10)
        await until(lambda: bot.service.pending() == 0, 10)
        await bot.service.voting.updates.drain(5)
        await bot.service.writer.settled()
        await self.h.slack.settle(quiet=0.05)

    # --- what B sends ----------------------------------------------------------------------------------------

    async def command(self, text: str, user: str = "U_B", channel: str = CHANNEL) -> list[Sent]:
        form = p.slash_command(text, self.h.slack.response_url(f"b-{uuid.uuid4().hex[:8]}"), user=user,
                               channel=channel)
        return [await self.h.send.form(as_team(form, B))]

    async def click(self, action_id: str, value: str | None, user: str = "U_B", **fields: Any) -> list[Sent]:
        form = p.block_action(action_id, value, self.h.slack.response_url(f"b-{uuid.uuid4().hex[:8]}"), user=user,
                              **fields)
        return [await self.h.send.form(as_team(form, B))]

    async def submit(self, callback: str, values: dict[str, dict[str, str | None]], meta: str,
                     user: str = "U_B") -> list[Sent]:
        return [await self.h.send.form(as_team(p.view_submission(callback, values, meta, user=user), B))]

    async def event(self, payload: dict[str, Any]) -> list[Sent]:
        return [await self.h.send.event(event_in(payload, B))]


def oauth_settings(fake: FakeSlack, tmp_path: Any) -> Settings:
    extra: dict[str, Any] = {}
    if "encryption_key" in {f.name for f in dataclasses.fields(Settings)}:  # an errkb that encrypts stored tokens
        from cryptography.fernet import Fernet

        extra["encryption_key"] = Fernet.generate_key().decode()
    return settings_for(fake, tmp_path, bot_token=None, client_id=CLIENT_ID, client_secret=CLIENT_SECRET, **extra)


async def install(h: Harness, team: str) -> None:
    async with h.send.session.get(f"{h.send.base_url}/slack/install") as page:
        state = page.cookies["slack-app-oauth-state"].value
    query = f"code={h.slack.install_code(team)}&state={state}"
    async with h.send.session.get(f"{h.send.base_url}/slack/oauth_redirect?{query}",
                                  headers={"Cookie": f"slack-app-oauth-state={state}"}) as back:
        assert back.status == 200


async def a_command(h: Harness, text: str) -> str:
    key = f"a-{uuid.uuid4().hex[:8]}"
    assert (await h.send.form(as_team(p.slash_command(text, h.slack.response_url(key), user="U_A"), A))).status == 200
    (answer,) = await h.slack.wait_for("response_url", 1, key=key)
    return json.dumps(answer.args, ensure_ascii=False)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(tmp_path_factory, kb, seeded_db) -> AsyncIterator[World]:
    tmp_path = tmp_path_factory.mktemp("isolation")
    shutil.copy(seeded_db, tmp_path / "errkb.db")
    fake = await FakeSlack().start()
    fake.admins.add("U_BADMIN")  # B's workspace admin (users.info)
    fake.creators[(A, CHANNEL)] = "U_A"  # conversations.info: A's channel, created in A by U_A
    running = await start(oauth_settings(fake, tmp_path), host="127.0.0.1", port=0, kb=kb, update_delay=0.05,
                          pace=1000.0, seed=False)
    async with aiohttp.ClientSession() as session:
        h = Harness(running, fake, SlackSender(f"http://127.0.0.1:{running.port}", session))
        for team in (A, B):
            await install(h, team)
        store = h.store
        # A: a team entry that answers there; an answer in its channel, voted on; fixes; votes; unknown errors;
        # channel and user settings.
        entry = await store.add_team_entry(A, "U_A", "en", A_BODY, A_REGEX, A_EXAMPLE)
        paste = event_in(p.message(NCCL_PASTE, user="U_A"), A)
        assert (await h.send.event(paste)).status == 200
        [answer] = await fake.wait_for("chat.postMessage", 1)
        assert (await h.send.event(event_in(p.reaction("+1", answer.ts, user="U_A"), A))).status == 200
        fix = await store.suggest_fix(A, NCCL_ID, "U_A", "en", "Pin the tangerine driver.")
        own_fix = await store.suggest_fix(A, entry.entry_id, "U_A", "en", "Swap the tangerine spindle.")
        await store.record_button(A, "U_A2", entry.entry_id, 0, 1, time.time())
        await store.record_button(A, "U_A2", NCCL_ID, fix.index, 1, time.time())
        await store.record_button(A, "U_A2", entry.entry_id, own_fix.index, -1, time.time())
        await store.seen_unknown(A, CHANNEL, "d" * 32, "AcmeError: aubergine <n> failed", "AcmeError")
        await store.set_channel_mode(A, OTHER_CHANNEL, "mention")
        await store.set_channel_bots(A, CHANNEL, True)
        await store.set_locale_override(A, "U_A", "zh")
        # In A, A's entry answers its error and shows its texts: the words B must never see are really there.
        assert (await h.send.event(event_in(p.message(TEAM_PASTE, user="U_A2"), A))).status == 200
        taught = await eventually(lambda: _posts_with(fake, "zebracorn"), bool, timeout=10)
        assert "periwinkle" in json.dumps(taught[0].args)
        assert "zebracorn" in await a_command(h, f"show {entry.entry_id}")
        w = World(h, entry, fix, own_fix, answer.ts, paste["event"]["ts"], {})
        await w.idle()
        w.before = await w.rows_of_a()
        yield w
    await running.stop(grace=5)
    await fake.stop()


async def _posts_with(fake: FakeSlack, word: str) -> list[Any]:
    return [c for c in fake.calls_to("chat.postMessage") if word in json.dumps(c.args)]


# --- what B sends, with A's ids forged in -------------------------------------------------------------------

Send = Callable[[World], Awaitable[list[Sent]]]


@dataclass(frozen=True)
class Case:
    send: Send
    told: str | None = None  # what B must be told, privately (None: nothing in particular)


def teach_form(title: str = "QuuxWidgetError: overwritten by B") -> dict[str, dict[str, str | None]]:
    return {"title": {"value": title}, "root_cause": {"value": "B wrote this."},
            "workarounds": {"value": "B's fix."}, "dead_ends": {"value": ""}, "regex": {"value": A_REGEX}}


def regex_check(w: World) -> dict[str, str]:
    """Enter in the regex field of a teach modal whose metadata names A's entry (an edit)."""
    meta = json.dumps({"line": A_EXAMPLE, "locale": "en", "entry": w.entry.entry_id})
    payload = {"type": "block_actions", "team": {"id": B, "domain": "b"}, "user": {"id": "U_BADMIN", "team_id": B},
               "api_app_id": p.APP, "token": "legacy-verification-token", "trigger_id": "trigger.regex",
               "container": {"type": "view", "view_id": "V0B"},
               "view": {"id": "V0B", "type": "modal", "callback_id": modals.CALLBACK_TEACH, "hash": "h1",
                        "private_metadata": meta, "team_id": B,
                        "state": {"values": {k: {"value": {"type": "plain_text_input", "value": v["value"]}}
                                             for k, v in teach_form().items()}}},
               "actions": [{"action_id": modals.ACTION_REGEX, "block_id": "regex", "type": "plain_text_input",
                            "value": A_REGEX, "action_ts": f"{time.time():.6f}"}]}
    return {"payload": json.dumps(payload)}


def home_review(do: str) -> Send:
    def send(w: World) -> Awaitable[list[Sent]]:
        option = json.dumps({"entry": w.entry.entry_id, "do": do}, separators=(",", ":"))
        return w.click(modals.ACTION_REVIEW, None, user="U_BADMIN", option=option)
    return send


async def _sent(send: Awaitable[Sent]) -> list[Sent]:
    return [await send]


CASES: dict[str, Case] = {
    # /errkb
    "show A's entry": Case(lambda w: w.command(f"show {w.entry.entry_id}"), "There is no entry"),
    "search A's words": Case(lambda w: w.command("search QuuxWidgetError spindle jammed")),
    "stats": Case(lambda w: w.command("stats")),
    "help": Case(lambda w: w.command("help")),
    "paste of A's error": Case(lambda w: w.command(TEAM_PASTE)),
    "locale as A's user id": Case(lambda w: w.command("locale en", user="U_A")),
    "channel off by a member, in A's channel id": Case(lambda w: w.command("channel off"),
                                                       "Only this channel's creator"),
    "channel off by A's channel's creator's id": Case(lambda w: w.command("channel off", user="U_A"),
                                                      "Only this channel's creator"),
    "channel bots off by B's admin, in A's channel id": Case(lambda w: w.command("channel bots off",
                                                                                 user="U_BADMIN")),
    "unknown off by a member": Case(lambda w: w.command("unknown off"), "Only a workspace admin or a reviewer"),
    "unknown off by B's admin": Case(lambda w: w.command("unknown off", user="U_BADMIN")),
    # buttons on answers and fix messages, with A's ids as their values
    "Worked on A's entry": Case(lambda w: w.click(blocks.ACTION_VOTE_UP, blocks.vote_value(w.entry.entry_id, 0),
                                                  ephemeral=True), NOT_HERE),
    "Didn't work on A's entry's fix": Case(lambda w: w.click(
        blocks.ACTION_VOTE_DOWN, blocks.vote_value(w.entry.entry_id, w.own_fix.index), ephemeral=True), NOT_HERE),
    "Worked on A's fix of a KB entry": Case(lambda w: w.click(
        blocks.ACTION_VOTE_UP, blocks.vote_value(NCCL_ID, w.fix.index), ephemeral=True), NOT_HERE),
    "Worked on A's message": Case(lambda w: w.click(
        blocks.ACTION_VOTE_UP, blocks.vote_value(w.entry.entry_id, 0), message_ts=w.a_ts, thread_ts=w.a_thread),
        NOT_HERE),
    "Worked on a KB fix, on A's message": Case(lambda w: w.click(
        blocks.ACTION_VOTE_UP, blocks.vote_value(NCCL_ID, 0), message_ts=w.a_ts, thread_ts=w.a_thread)),
    "Other fixes of A's entry": Case(lambda w: w.click(blocks.ACTION_OTHER_FIXES, w.entry.entry_id,
                                                       message_ts=w.a_ts, thread_ts=w.a_thread), NOT_HERE),
    "Other fixes of A's entry, ephemeral": Case(lambda w: w.click(blocks.ACTION_OTHER_FIXES, w.entry.entry_id,
                                                                  ephemeral=True), NOT_HERE),
    "Why / what not to try": Case(lambda w: w.click(blocks.ACTION_DETAILS, w.entry.entry_id), NOT_HERE),
    "a related error": Case(lambda w: w.click(blocks.ACTION_SHOW, w.entry.entry_id), NOT_HERE),
    "the other language": Case(lambda w: w.click(
        blocks.ACTION_TRANSLATE, json.dumps({"entry": w.entry.entry_id, "line": A_EXAMPLE})), NOT_HERE),
    "Post to channel": Case(lambda w: w.click(blocks.ACTION_POST, w.entry.entry_id), NOT_HERE),
    "Wrong error?": Case(lambda w: w.click(blocks.ACTION_OVERFLOW, None, option=blocks.menu_value(
        w.entry.entry_id, blocks.OPTION_WRONG_ERROR)), NOT_HERE),
    "Suggest a fix, from the menu": Case(lambda w: w.click(blocks.ACTION_OVERFLOW, None, option=blocks.menu_value(
        w.entry.entry_id, blocks.OPTION_SUGGEST_FIX)), NOT_HERE),
    "Suggest a fix": Case(lambda w: w.click(blocks.ACTION_SUGGEST_FIX, w.entry.entry_id), NOT_HERE),
    "Translate A's fix": Case(lambda w: w.click(blocks.ACTION_TRANSLATE_FIX,
                                                blocks.vote_value(NCCL_ID, w.fix.index)), NOT_HERE),
    "retire A's fix, by B's admin": Case(lambda w: w.click(
        blocks.ACTION_REVIEW_FIX, None, user="U_BADMIN",
        option=blocks.review_value(NCCL_ID, w.fix.index, "retire")), NOT_HERE),
    "verify A's fix, by a member": Case(lambda w: w.click(
        blocks.ACTION_REVIEW_FIX, None, option=blocks.review_value(NCCL_ID, w.fix.index, "verify")), NOT_HERE),
    "Add to errkb on A's line": Case(lambda w: w.click(blocks.ACTION_TEACH, json.dumps({"line": A_EXAMPLE}),
                                                       ephemeral=True)),
    # App Home's menu on a team entry, with A's entry id
    "retire A's entry, by B's admin": Case(home_review("retire"), NOT_HERE),
    "verify A's entry, by B's admin": Case(home_review("verify"), NOT_HERE),
    "edit A's entry, by B's admin": Case(home_review("edit"), NOT_HERE),
    "translate A's entry": Case(home_review("translate"), NOT_HERE),
    # modals submitted with A's ids in their private_metadata
    "edit A's entry, submitted by B's admin": Case(lambda w: w.submit(
        modals.CALLBACK_TEACH, teach_form(), json.dumps({"line": A_EXAMPLE, "locale": "en", "entry": w.entry.entry_id}),
        user="U_BADMIN"), "This team entry no longer exists."),
    "edit A's entry, submitted by a member": Case(lambda w: w.submit(
        modals.CALLBACK_TEACH, teach_form(), json.dumps({"line": A_EXAMPLE, "locale": "en", "entry": w.entry.entry_id})),
        "Only reviewers can edit"),
    "translate A's entry, submitted": Case(lambda w: w.submit(
        modals.CALLBACK_TRANSLATE, teach_form("QuuxWidgetError：B 的翻译"),
        json.dumps({"entry": w.entry.entry_id, "locale": "zh"})), "这个团队条目已不存在"),  # in the translator's language
    "a fix for A's entry, submitted": Case(lambda w: w.submit(
        CALLBACK, {FIX_BLOCK: {INPUT: "B's fix for A's entry."}}, Place(w.entry.entry_id, CHANNEL, w.a_thread).dump()),
        NOT_HERE),
    "a translation of A's fix, submitted": Case(lambda w: w.submit(
        TRANSLATE_CALLBACK, {FIX_BLOCK: {INPUT: "B 的翻译。"}}, Place(NCCL_ID, CHANNEL, None, w.fix.index).dump()),
        NOT_HERE),
    "Enter in the regex field of A's entry": Case(lambda w: _sent(w.h.send.form(regex_check(w)))),
    # events
    "a paste of A's error": Case(lambda w: w.event(p.message(TEAM_PASTE, user="U_B"))),
    "a paste of A's error, by A's user id": Case(lambda w: w.event(p.message(TEAM_PASTE, user="U_A2"))),
    "@errkb on A's error": Case(lambda w: w.event(p.app_mention(TEAM_PASTE, user="U_B"))),
    "an edit of A's message": Case(lambda w: w.event(p.edited(w.a_thread, TEAM_PASTE, "before", user="U_B"))),
    "👍 on A's answer": Case(lambda w: w.event(p.reaction("+1", w.a_ts, user="U_B"))),
    "👎 removed on A's answer, by A's voter's id": Case(lambda w: w.event(
        p.reaction("+1", w.a_ts, user="U_A", added=False))),
    "App Home": Case(lambda w: w.event(p.app_home_opened("U_B"))),
    "App Home as A's user id": Case(lambda w: w.event(p.app_home_opened("U_A"))),
    "Diagnose with errkb on A's error": Case(lambda w: _sent(w.h.send.form(as_team(p.message_shortcut(
        TEAM_PASTE, w.h.slack.response_url(f"b-{uuid.uuid4().hex[:8]}"), user="U_B"), B)))),
}


def _what_b_got(w: World, since: int, sent: list[Sent]) -> str:
    calls = w.h.slack.calls[since:]
    assert all(c.token != w.token_of_a for c in calls), "B's request made errkb call Slack as workspace A"
    return "\n".join([json.dumps(c.args, ensure_ascii=False) for c in calls] + [_readable(s.body) for s in sent])


def _readable(body: str) -> str:
    """An HTTP answer as a reader sees it (a JSON body's escapes undone)."""
    try:
        return json.dumps(json.loads(body), ensure_ascii=False)
    except ValueError:
        return body


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
async def test_workspace_b_neither_reads_nor_changes_workspace_as_data(world: World, case: str):
    since = len(world.h.slack.calls)
    sent = await CASES[case].send(world)
    assert all(s.status == 200 for s in sent), [(s.status, s.body) for s in sent]  # never a 5xx, nor a 4xx
    told = CASES[case].told
    if told is not None:
        assert await until(lambda: told in _what_b_got(world, since, sent), 10), _what_b_got(world, since, sent)
    await world.idle()
    got = _what_b_got(world, since, sent).lower()
    assert [word for word in SECRETS if word in got] == []  # nothing of A's was read…
    assert await world.rows_of_a() == world.before  # …or changed


async def test_b_uninstalling_deletes_nothing_of_as(world: World):
    assert (await world.event(p.envelope({"type": "app_uninstalled", "event_ts": p.new_ts()})))[0].status == 200
    installations = world.h.bot.app.oauth_flow.settings.installation_store
    await eventually(lambda: installations.async_find_bot(enterprise_id=None, team_id=B), lambda bot: bot is None)
    await world.idle()
    assert await world.rows_of_a() == world.before
    assert await installations.async_find_bot(enterprise_id=None, team_id=A) is not None
