"""The gateway against the fake Slack over HTTP: per-channel pacing, 429 blocks, permanent failures."""

from __future__ import annotations

import time

from slack_sdk.web.async_client import AsyncWebClient

from bot.render import blocks
from bot.service.plans import OpenView, Plan, Post, Thread
from bot.service.ports import Via
from bot.slack.gateway import Gateway
from tests.support.fake_slack import TOKEN


def thread(channel: str, n: int) -> Plan:
    return Plan([Thread("T1", channel, "1.0", [Post(blocks.notice(f"message {i}")) for i in range(n)])])


async def test_posts_to_one_channel_are_paced_and_other_channels_are_not_held_up(fake_slack):
    gateway = Gateway(AsyncWebClient(token=TOKEN, base_url=fake_slack.api_url, retry_handlers=[]), pace=10.0, burst=2)
    via = Via(gateway.client)
    began = time.monotonic()
    report = await gateway.send(thread("C1", 6), via)
    paced = time.monotonic() - began
    began = time.monotonic()
    await gateway.send(thread("C2", 2), via)
    assert report.ok and len(report.sent) == 6
    assert paced >= 0.35  # a burst of 2, then 4 more at 10 per second
    assert time.monotonic() - began < 0.3


async def test_a_permanent_error_is_not_retried_and_says_so(fake_slack):
    gateway = Gateway(AsyncWebClient(token=TOKEN, base_url=fake_slack.api_url, retry_handlers=[]))
    fake_slack.fail_next(method="chat.postMessage", error="channel_not_found")
    report = await gateway.send(thread("C1", 3), Via(gateway.client))
    assert not report.sent and report.failures[0].permanent and report.failures[0].reason == "channel_not_found"
    assert len(fake_slack.calls_to("chat.postMessage")) == 1


async def test_a_modal_is_opened_with_the_clicks_trigger(fake_slack):
    gateway = Gateway(AsyncWebClient(token=TOKEN, base_url=fake_slack.api_url, retry_handlers=[]))
    view = {"type": "modal", "title": {"type": "plain_text", "text": "Suggest a fix"}, "blocks": []}
    assert (await gateway.send(Plan([OpenView("trigger.1", view)]), Via(gateway.client))).ok
    (opened,) = fake_slack.calls_to("views.open")
    assert opened["trigger_id"] == "trigger.1" and opened["view"]["title"]["text"] == "Suggest a fix"
    failed = await gateway.send(Plan([OpenView("", view)]), Via(gateway.client))
    assert failed.failures[0].permanent and failed.failures[0].reason == "invalid_trigger_id"


async def test_pacing_state_stays_bounded_across_many_channels(fake_slack, monkeypatch):
    monkeypatch.setattr("bot.slack.gateway.TIDY_AT", 40)
    gateway = Gateway(AsyncWebClient(token=TOKEN, base_url=fake_slack.api_url, retry_handlers=[]), pace=1000.0,
                      burst=1)
    via = Via(gateway.client)
    for i in range(200):
        assert (await gateway.send(thread(f"C{i}", 1), via)).ok
    assert 0 < len(gateway._paces) <= 80  # idle channels' buckets are forgotten, not kept for the process's life
