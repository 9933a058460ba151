"""``/errkb`` (issue 4, point 5): every sub-command answers privately, in the caller's language."""

from __future__ import annotations

import pytest

from bot.render import blocks
from tests.slack.conftest import NCCL_ID, NCCL_PASTE, command, paste_and_wait
from tests.support import payloads as p
from tests.support.waits import eventually


def post_buttons(answer) -> list[str]:
    return [b["accessory"]["value"] for b in answer["blocks"] if b.get("accessory", {}).get("action_id")
            == blocks.ACTION_POST]


class TestSubcommands:
    @pytest.mark.parametrize("text", ["", "help", "HELP"])
    async def test_help_lists_every_subcommand(self, harness, text):
        answer = (await command(harness, text))[0]
        assert answer["response_type"] == "ephemeral"
        for sub in ("search", "show", "locale", "channel auto|mention|off", "channel bots", "stats", "help"):
            assert f"/errkb {sub}" in answer.text_of_blocks

    async def test_an_unknown_subcommand_gets_help(self, harness):
        answer = (await command(harness, "frobnicate"))[0]
        assert "frobnicate" in answer.text_of_blocks and "/errkb search" in answer.text_of_blocks

    async def test_search_shows_the_top_five_with_buttons_to_post_them(self, harness):
        answer = (await command(harness, "search nccl"))[0]
        ids = post_buttons(answer)
        assert len(ids) == 5 and all("nccl" in i for i in ids)  # the KB has more NCCL entries than that
        assert answer["response_type"] == "ephemeral" and "Post to channel" in answer.text_of_blocks
        assert NCCL_ID in post_buttons((await command(harness, "search nccl allreduce timeout"))[0])

    async def test_search_in_chinese_for_a_chinese_reader(self, harness):
        answer = (await command(harness, "search 超时", user="U_CN"))[0]
        assert NCCL_ID in post_buttons(answer)
        assert "发到频道" in answer.text_of_blocks or "频道" in answer.text_of_blocks

    async def test_search_without_words_shows_its_usage(self, harness):
        answer = (await command(harness, "search"))[0]
        assert "/errkb search &lt;words&gt;" in answer.text_of_blocks

    async def test_show_gives_the_entry_with_live_numbers(self, harness):
        answers = await command(harness, f"show {NCCL_ID}", user="U_CN")
        assert "*原因*：" in answers[0].text_of_blocks and "AllReduce" in answers[0].text_of_blocks
        assert all(a["response_type"] == "ephemeral" for a in answers)

    async def test_show_an_unknown_id_says_so_escaped(self, harness):
        answer = (await command(harness, "show <!channel>"))[0]
        assert "&lt;!channel&gt;" in answer.text_of_blocks and "<!channel>" not in answer.text_of_blocks

    async def test_locale_sets_and_confirms_in_the_new_language(self, harness):
        assert "中文" in (await command(harness, "locale zh"))[0].text_of_blocks
        assert (await harness.store.user_prefs(p.TEAM, "U_EN")).override == "zh"
        assert "English" in (await command(harness, "locale en"))[0].text_of_blocks
        auto = (await command(harness, "locale auto", user="U_CN"))[0]
        assert (await harness.store.user_prefs(p.TEAM, "U_CN")).override is None and "中文" in auto.text_of_blocks
        assert "/errkb locale en|zh|zh-TW|zh-HK|auto" in (await command(harness, "locale klingon"))[0].text_of_blocks

    @pytest.mark.parametrize("mode", ["auto", "mention", "off"])
    async def test_channel_sets_the_mode_of_that_channel(self, harness, mode):
        harness.slack.creators[(p.TEAM, "C0OTHER")] = "U_EN"  # conversations.info: U_EN created it
        await command(harness, f"channel {mode}", channel="C0OTHER")
        assert await harness.store.channel_mode(p.TEAM, "C0OTHER") == mode
        assert await harness.store.channel_mode(p.TEAM, p.CHANNEL) == "auto"

    async def test_only_the_channels_creator_an_admin_or_a_reviewer_changes_its_settings(self, harness):
        harness.slack.creators[(p.TEAM, p.CHANNEL)] = "U_CN"
        for sub in ("channel off", "channel bots on"):
            [refused] = await command(harness, sub, user="U_EN")  # a member: told who can, privately
            assert "Only this channel's creator, a workspace admin or a reviewer" in refused.text_of_blocks
        assert await harness.store.channel_mode(p.TEAM, p.CHANNEL) == "auto"
        assert not await harness.store.channel_bots(p.TEAM, p.CHANNEL)
        harness.slack.locales["U_ZH"] = "zh-CN"  # told in their language
        assert "只有本频道的创建者" in (await command(harness, "channel off", user="U_ZH"))[0].text_of_blocks

        await command(harness, "channel mention", user="U_CN")  # its creator
        assert await harness.store.channel_mode(p.TEAM, p.CHANNEL) == "mention"
        harness.slack.admins.add("U_ADMIN")
        await command(harness, "channel off", user="U_ADMIN")  # a workspace admin
        assert await harness.store.channel_mode(p.TEAM, p.CHANNEL) == "off"
        harness.slack.groups["S0REVIEW"] = {"U_JA"}  # ERRKB_REVIEWERS=S0REVIEW
        harness.bot.service.teaching.reviewers = ("S0REVIEW",)
        await command(harness, "channel bots on", user="U_JA")  # a reviewer
        assert await harness.store.channel_bots(p.TEAM, p.CHANNEL)
        assert "/errkb channel auto|mention|off" in (await command(harness, "channel loud"))[0].text_of_blocks

    async def test_channel_with_a_bad_mode_shows_its_usage(self, harness):
        answer = (await command(harness, "channel loud"))[0]
        assert "/errkb channel auto|mention|off" in answer.text_of_blocks

    async def test_stats_shows_frequent_errors_and_trusted_workarounds(self, harness):
        answered = await paste_and_wait(harness)
        assert (await harness.send.event(p.reaction("+1", answered.answer.ts))).status == 200
        await harness.slack.wait_for("chat.update")
        text = (await command(harness, "stats"))[0].text_of_blocks
        assert "Most frequent errors" in text and "AllReduce timed out" in text and "1 match" in text
        assert "Most trusted workarounds" in text and "Check network connectivity" in text and "1 vote up" in text
        assert "worked for 1 of 1 person here" in text

    async def test_a_pasted_error_is_diagnosed_privately(self, harness):
        answers = await command(harness, NCCL_PASTE, user="U_TW")
        assert "*原因*：" in answers[0].text_of_blocks and "就是给这个方案投票" not in answers[0].text_of_blocks and "AllReduce" in answers[0].text_of_blocks
        assert all(a["response_type"] == "ephemeral" for a in answers)
        assert harness.slack.calls_to("chat.postMessage") == []
        stats = await eventually(harness.store.stats, predicate=lambda s: s.hits_by_locale)  # counted in batches
        assert stats.hits_by_locale == {"zh": 1}

    async def test_a_paste_that_matches_nothing_says_so_with_help(self, harness):
        answer = (await command(harness, "my build is slow today, any ideas?"))[0]
        assert "no known error" in answer.text_of_blocks and "/errkb search" in answer.text_of_blocks

    async def test_broadcasts_in_the_text_are_never_echoed_live(self, harness):
        text = (await command(harness, "search <!here> <!subteam^S123|@oncall> nccl"))[0].text_of_blocks
        assert "<!here>" not in text and "<!subteam" not in text and "&lt;!here&gt;" in text
