"""App Home (issue 4, point 6): the user's language (changeable there), frequent errors, trusted fixes."""

from __future__ import annotations

from bot.render import blocks
from tests.slack.conftest import click, paste_and_wait
from tests.support import payloads as p


def language_select(view: dict) -> dict:
    return next(b["accessory"] for b in view["blocks"] if b.get("accessory", {}).get("action_id")
                == blocks.ACTION_HOME_LOCALE)


async def test_opening_the_home_tab_publishes_it_in_the_users_language(harness):
    assert (await harness.send.event(p.app_home_opened("U_CN"))).status == 200
    published = (await harness.slack.wait_for("views.publish"))[0]
    assert published["user_id"] == "U_CN" and published["view"]["type"] == "home"
    assert language_select(published["view"])["initial_option"]["value"] == "auto"
    assert "你" in published.text_of_blocks or "中文" in published.text_of_blocks


async def test_it_lists_the_most_frequent_errors_and_most_trusted_workarounds(harness):
    answered = await paste_and_wait(harness)
    assert (await harness.send.event(p.reaction("+1", answered.answer.ts, user="U_JA"))).status == 200
    await harness.slack.wait_for("chat.update")
    assert (await harness.send.event(p.app_home_opened("U_EN"))).status == 200
    text = (await harness.slack.wait_for("views.publish"))[0].text_of_blocks
    assert "AllReduce timed out" in text and "1 match" in text
    assert "NCCL_SOCKET_IFNAME" in text and "1 vote up" in text


async def test_choosing_a_language_there_sets_it_and_republishes(harness):
    await click(harness, blocks.ACTION_HOME_LOCALE, None, user="U_EN", selected="zh")
    published = (await harness.slack.wait_for("views.publish"))[0]
    assert (await harness.store.user_prefs(p.TEAM, "U_EN")).override == "zh"
    assert language_select(published["view"])["initial_option"]["value"] == "zh"
    await click(harness, blocks.ACTION_HOME_LOCALE, None, user="U_EN", selected="auto")
    await harness.slack.wait_for("views.publish", 2)
    assert (await harness.store.user_prefs(p.TEAM, "U_EN")).override is None
