"""Pastes in channels (issue 4, points 2 and 3): the threaded answer and its locale, silence,
snippets, edits, channel modes and @mentions."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from tests.slack.conftest import NCCL_ID, NCCL_PASTE, command, paste_and_wait
from tests.support import payloads as p
from tests.support.waits import eventually

ENGLISH = "*Cause*: "
CHINESE = "*原因*："


async def assert_silent(h, payload: dict) -> None:
    before = len(h.slack.calls_to("chat.postMessage"))
    assert (await h.send.event(payload)).status == 200
    await h.slack.settle()
    assert len(h.slack.calls_to("chat.postMessage")) == before


class TestThreadedAnswer:
    async def test_a_paste_is_answered_in_its_thread_with_one_compact_message(self, harness):
        answered = await paste_and_wait(harness)
        answer = answered.answer.text_of_blocks
        assert answer.startswith("*[torch.distributed] AllReduce timed out in rank …*")  # the error in plain words
        assert "> `RuntimeError: [torch.distributed] AllReduce timed out in rank 3 (timeout: 600)" in answer  # theirs
        assert ENGLISH in answer and "*Try first*: Check network connectivity" in answer  # cause, best fix
        assert "estimated ~85% (AI-drafted), no votes here yet" in answer
        assert "👍 or 👎 on this message votes for this fix." in answer
        for label in ("Worked", "Didn't work", "Other fixes (2)", "Why / what not to try", "中文"):
            assert label in answer
        assert "fails ~" not in answer and NCCL_ID not in answer  # dead ends and ids are one click away
        await harness.slack.settle()
        assert len(harness.slack.calls_to("chat.postMessage")) == 1
        thread = await eventually(lambda: harness.store.thread_messages(p.TEAM, p.CHANNEL, answered.thread_ts),
                                  predicate=lambda found: len(found) == 1)
        assert [(m.ts, m.entry_id, m.workaround, m.locale) for m in thread] == [(answered.answer.ts, NCCL_ID, 0,
                                                                                  "en")]
        stats = await eventually(harness.store.stats, predicate=lambda s: s.top_entries)  # counted in batches
        assert [(e.entry_id, e.hits) for e in stats.top_entries] == [(NCCL_ID, 1)]
        assert stats.hits_by_locale == {"en": 1}

    async def test_a_paste_in_a_thread_is_answered_in_that_thread(self, harness):
        root = p.new_ts()
        answered = await paste_and_wait(harness, thread_ts=root)
        assert answered.thread_ts == root

    async def test_the_same_error_again_in_one_thread_is_not_answered_twice(self, harness):
        answered = await paste_and_wait(harness)
        await assert_silent(harness, p.message(NCCL_PASTE, user="U_CN", thread_ts=answered.thread_ts))

    async def test_a_40000_character_paste_is_answered(self, harness):
        noise = "".join(f"[2026-01-01 00:00:{i % 60:02d}] INFO step {i} loss=0.{i:04d}\n" for i in range(1000))
        text = (noise * 2)[: 40_000 - len(NCCL_PASTE)] + NCCL_PASTE
        assert len(text) == 40_000
        answered = await paste_and_wait(harness, text=text)
        assert "AllReduce timed out" in answered.answer.text_of_blocks

    async def test_binary_junk_is_ignored_and_the_bot_keeps_answering(self, harness):
        junk = os.urandom(6000).decode("latin-1") + "\x00\x01\ufffd" * 100
        await assert_silent(harness, p.message(junk))
        await paste_and_wait(harness)

    async def test_a_long_paste_slack_turned_into_a_snippet_is_read_with_the_bot_token(self, harness):
        file = harness.slack.add_file("F0SNIP", NCCL_PASTE.encode(), name="traceback.txt")
        payload = p.file_share("training died again", [file], user="U_CN")
        assert (await harness.send.event(payload)).status == 200
        posts = await harness.slack.wait_for("chat.postMessage", 1)
        assert CHINESE in posts[0].text_of_blocks and posts[0]["thread_ts"] == payload["event"]["ts"]
        assert [c.token for c in harness.slack.calls_to("files.info", "files.download")] == ["xoxb-fake-token"] * 2

    async def test_a_binary_file_is_skipped(self, harness):
        file = harness.slack.add_file("F0BIN", b"\x7fELF\x00\x00" + NCCL_PASTE.encode(), name="core")
        await assert_silent(harness, p.file_share("core dump attached", [file]))


class TestLocale:
    @pytest.mark.parametrize(("user", "expected", "button"), [
        ("U_EN", ENGLISH, "中文"), ("U_CN", CHINESE, "English"), ("U_TW", CHINESE, "English"),
        ("U_JA", ENGLISH, "中文"),
    ])
    async def test_the_answer_speaks_the_posters_slack_language(self, harness, user, expected, button):
        answered = await paste_and_wait(harness, user=user)
        assert expected in answered.answer.text_of_blocks
        buttons = [e["text"]["text"] for b in answered.answer["blocks"] if b["type"] == "actions"
                   for e in b["elements"] if e["type"] == "button"]
        assert button in buttons
        info = harness.slack.calls_to("users.info")
        assert [(c["user"], str(c["include_locale"]).lower() in ("1", "true")) for c in info] == [(user, True)]

    async def test_a_taiwan_reader_reads_traditional_chinese_and_can_switch_to_hong_kong_phrasing(self, harness):
        text = (await paste_and_wait(harness, user="U_TW")).answer.text_of_blocks
        assert "集合通訊超時" in text and "超时" not in text  # the headline, with Taiwan's phrasing
        assert "`NCCL_SOCKET_IFNAME=eth0`" in text or "nccl-tests" in text  # commands as written
        (reply,) = await command(harness, "locale zh-HK", user="U_TW")
        assert "繁體中文（香港）" in reply.text_of_blocks, reply.text_of_blocks

    async def test_errkb_locale_overrides_slack_and_auto_follows_it_again(self, harness):
        await command(harness, "locale zh", user="U_EN")
        assert CHINESE in (await paste_and_wait(harness, user="U_EN")).answer.text_of_blocks
        await command(harness, "locale auto", user="U_EN")
        assert ENGLISH in (await paste_and_wait(harness, user="U_EN")).answer.text_of_blocks
        await command(harness, "locale en", user="U_CN")
        assert ENGLISH in (await paste_and_wait(harness, user="U_CN")).answer.text_of_blocks

    async def test_the_slack_locale_is_cached_for_a_day(self, harness):
        real_clock = harness.store.clock
        harness.store.clock = lambda: real_clock() - 2 * 86400  # cached two days ago
        locales = harness.bot.service.locales
        await paste_and_wait(harness, user="U_CN")
        harness.store.clock = real_clock
        locales.forget_all()  # what the process keeps expires within seconds; the store's day is the rule
        await paste_and_wait(harness, user="U_CN")  # stale: asked again, stamped now
        locales.forget_all()
        await paste_and_wait(harness, user="U_CN")  # fresh: from the store
        assert len(harness.slack.calls_to("users.info")) == 2

    async def test_when_users_info_fails_the_answer_still_comes_in_english(self, harness):
        harness.slack.fail_next(500, count=10, method="users.info")
        answered = await paste_and_wait(harness, user="U_CN")
        assert ENGLISH in answered.answer.text_of_blocks


class TestSilence:
    @pytest.mark.parametrize("text", ["good morning! anyone seen the build today?", "", "```\nls -la\n```",
                                      "<!channel> lunch is here"])
    async def test_chatter_gets_no_answer_and_costs_no_lookup(self, harness, text):
        await assert_silent(harness, p.message(text))
        assert harness.slack.calls_to("users.info") == []

    async def test_its_own_messages_are_never_answered(self, harness):
        await assert_silent(harness, p.own_message(NCCL_PASTE))
        own_edit = p.edited(p.new_ts(), NCCL_PASTE + "\n", NCCL_PASTE)
        own_edit["event"]["message"].update(user=p.BOT_USER, bot_id=p.BOT_ID)
        await assert_silent(harness, own_edit)

    async def test_other_bots_only_where_the_channel_opts_in(self, harness):
        harness.slack.creators[(p.TEAM, p.CHANNEL)] = "U_EN"  # who may change the channel's settings
        await assert_silent(harness, p.bot_message(NCCL_PASTE))
        await command(harness, "channel bots on")
        payload = p.bot_message(NCCL_PASTE)
        assert (await harness.send.event(payload)).status == 200
        posts = await harness.slack.wait_for("chat.postMessage", 1)
        assert posts[0]["thread_ts"] == payload["event"]["ts"]
        await command(harness, "channel bots off")
        await assert_silent(harness, p.bot_message(NCCL_PASTE))

    async def test_joins_and_deletions_are_not_pastes(self, harness):
        await assert_silent(harness, p.message(NCCL_PASTE, subtype="channel_join"))
        await assert_silent(harness, p.message(NCCL_PASTE, subtype="message_deleted"))


class TestEdits:
    async def test_chatter_edited_into_an_error_is_answered(self, harness):
        original = p.message("one sec, pasting the error")
        await assert_silent(harness, original)
        ts = original["event"]["ts"]
        assert (await harness.send.event(p.edited(ts, NCCL_PASTE, "one sec, pasting the error"))).status == 200
        posts = await harness.slack.wait_for("chat.postMessage", 1)
        assert posts[0]["thread_ts"] == ts

    async def test_an_edit_that_keeps_the_error_stays_quiet(self, harness):
        answered = await paste_and_wait(harness)
        edit = p.edited(answered.thread_ts, "full log:\n" + NCCL_PASTE, NCCL_PASTE)
        await assert_silent(harness, edit)
        await assert_silent(harness, p.edited(answered.thread_ts, NCCL_PASTE, NCCL_PASTE))  # an unfurl

    async def test_a_paste_and_its_quick_edit_are_answered_once(self, harness):
        original = p.message(NCCL_PASTE)
        ts = original["event"]["ts"]
        await asyncio.gather(harness.send.event(original),
                             harness.send.event(p.edited(ts, NCCL_PASTE + "\nany idea?", NCCL_PASTE)))
        await harness.slack.wait_for("chat.postMessage", 1)
        await harness.slack.settle()
        assert len(harness.slack.calls_to("chat.postMessage")) == 1

    async def test_an_edit_that_changes_the_error_gets_the_new_diagnosis(self, harness, other_paste):
        answered = await paste_and_wait(harness)
        text, entry_id = other_paste
        assert (await harness.send.event(p.edited(answered.thread_ts, text, NCCL_PASTE))).status == 200
        posts = await harness.slack.wait_for("chat.postMessage", 2)
        assert posts[1]["thread_ts"] == answered.thread_ts
        assert entry_id in json.dumps(posts[1]["blocks"])  # its buttons are about the new error


class TestChannelModesAndMentions:
    async def test_mention_mode_answers_only_when_mentioned(self, harness):
        harness.slack.creators[(p.TEAM, p.CHANNEL)] = "U_EN"  # who may change the channel's mode
        reply = await command(harness, "channel mention")
        assert "only when someone mentions me" in reply[0].text_of_blocks
        await assert_silent(harness, p.message(NCCL_PASTE))
        payload = p.app_mention(NCCL_PASTE)
        assert (await harness.send.event(payload)).status == 200
        posts = await harness.slack.wait_for("chat.postMessage", 1)
        assert posts[0]["thread_ts"] == payload["event"]["ts"]

    async def test_off_mode_ignores_mentions_too(self, harness):
        harness.slack.creators[(p.TEAM, p.CHANNEL)] = "U_EN"
        await command(harness, "channel off")
        await assert_silent(harness, p.message(NCCL_PASTE))
        await assert_silent(harness, p.app_mention(NCCL_PASTE))
        await command(harness, "channel auto")
        await paste_and_wait(harness)

    async def test_a_mention_in_a_thread_diagnoses_the_threads_first_message(self, harness):
        harness.slack.creators[(p.TEAM, p.CHANNEL)] = "U_EN"
        await command(harness, "channel mention")
        root = p.message(NCCL_PASTE, user="U_CN")
        await assert_silent(harness, root)
        root_ts = root["event"]["ts"]
        harness.slack.add_thread(p.CHANNEL, root_ts, {**root["event"]})
        assert (await harness.send.event(p.app_mention("what is this?", thread_ts=root_ts))).status == 200
        posts = await harness.slack.wait_for("chat.postMessage", 1)
        assert all(c["thread_ts"] == root_ts for c in posts)
        assert ENGLISH in posts[0].text_of_blocks  # in the language of whoever asked
        assert harness.slack.calls_to("conversations.replies")[0]["ts"] == root_ts

        assert (await harness.send.event(p.app_mention("and again?", thread_ts=root_ts))).status == 200
        note = await harness.slack.wait_for("chat.postMessage", 2)
        assert "already answered" in note[1].text_of_blocks

    async def test_a_mention_with_nothing_to_diagnose_says_so(self, harness):
        payload = p.app_mention("hello there", user="U_CN")
        assert (await harness.send.event(payload)).status == 200
        posts = await harness.slack.wait_for("chat.postMessage", 1)
        assert posts[0]["thread_ts"] == payload["event"]["ts"] and "没有" in posts[0].text_of_blocks

    async def test_a_paste_that_mentions_the_bot_is_answered_once(self, harness):
        message = p.message(f"<@{p.BOT_USER}> {NCCL_PASTE}")
        mention = p.app_mention(NCCL_PASTE)
        mention["event"]["ts"] = message["event"]["ts"]
        assert (await harness.send.event(message)).status == 200
        assert (await harness.send.event(mention)).status == 200
        await harness.slack.wait_for("chat.postMessage", 1)
        await harness.slack.settle()
        assert len(harness.slack.calls_to("chat.postMessage")) == 1


class TestEscaping:
    async def test_broadcasts_in_a_paste_are_shown_not_sent(self, harness):
        lines = NCCL_PASTE.rstrip("\n").split("\n")
        lines[-1] += " <!channel> <!here> <!everyone> <!subteam^S0ONCALL|@oncall> <@U_BOSS>"
        answered = await paste_and_wait(harness, text="\n".join(lines))
        for text in [answered.answer["text"], answered.answer.text_of_blocks]:
            assert "<!" not in text and "<@U_BOSS>" not in text
        assert "> `RuntimeError: [torch.distributed] AllReduce timed out in rank 3" in answered.answer.text_of_blocks
