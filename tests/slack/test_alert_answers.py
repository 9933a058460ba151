"""Other bots' alerts answered over signed HTTP (issue 22, point 4): once per error and channel, in the alert's
thread; repeats counted on that answer in place; never where bots are off, never errkb's own messages."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.render.kit import ERRKB_EVENT
from tests.slack.conftest import NCCL_PASTE, Harness, command
from tests.support import payloads as p
from tests.support.alerts import SHAPES, alert_event, alertmanager, grafana
from tests.support.fake_slack import Call
from tests.support.waits import eventually


async def bots_on(h: Harness, channel: str = p.CHANNEL) -> None:
    h.slack.creators[(p.TEAM, channel)] = "U_EN"  # who may change the channel's settings
    await command(h, "channel bots on", channel=channel)


async def send(h: Harness, payload: dict[str, Any], retry: int | None = None) -> None:
    assert (await h.send.event(payload, retry=retry)).status == 200


def answers(h: Harness) -> list[Call]:
    return [c for c in h.slack.calls_to("chat.postMessage") if c.result.get("ok")]


async def first_answer(h: Harness, alert: dict[str, Any]) -> Call:
    (answer,) = await eventually(lambda: _async(answers(h)), timeout=30)
    assert answer["thread_ts"] == alert["event"]["ts"]  # in the alert's thread
    return answer


async def _async(value: Any) -> Any:
    return value


async def counted(h: Harness, answer: Call, times: int) -> Call:
    """The in-place update of ``answer`` that shows ``times`` alerts."""
    line = f"Seen {times} times in this channel today"

    async def shown() -> list[Call]:
        return [c for c in h.slack.calls_to("chat.update") if c.get("ts") == answer.ts and line in c.text_of_blocks]

    (*_earlier, update) = await eventually(shown, timeout=30)
    return update


def entry_of(call: Call) -> str:
    return next(json.loads(e["value"])["entry"] for b in call["blocks"] if b["type"] == "actions"
                for e in b["elements"] if e.get("action_id") == "errkb_vote_up")


@pytest.mark.parametrize("name", sorted(SHAPES))
async def test_each_integrations_alert_is_answered_once_in_its_thread_and_repeats_are_counted(harness, name):
    make, entry_id = SHAPES[name]
    await bots_on(harness)
    alert = alert_event(make())
    await send(harness, alert)
    answer = await first_answer(harness, alert)
    assert entry_of(answer) == entry_id
    assert answer["metadata"]["event_type"] == ERRKB_EVENT  # any errkb reading the channel knows it for errkb's
    assert "Seen" not in answer.text_of_blocks

    for times in (2, 3):
        await send(harness, alert_event(make()))
        update = await counted(harness, answer, times)
        assert update["metadata"]["event_type"] == ERRKB_EVENT
        assert entry_of(update) == entry_id  # the same answer, redrawn
    await harness.slack.settle()
    assert len(answers(harness)) == 1  # three alerts, one answer


async def test_a_retried_or_edited_alert_counts_once_and_a_vote_keeps_the_count(harness):
    await bots_on(harness)
    alert = alert_event(alertmanager())
    await send(harness, alert)
    answer = await first_answer(harness, alert)
    await send(harness, alert, retry=1)  # Slack's retry of the same event
    edited = dict(alert["event"], text="[RESOLVED] KubePodCrashLooping")  # Alertmanager editing its message
    edit = p.envelope({"type": "message", "subtype": "message_changed", "channel": p.CHANNEL, "hidden": True,
                       "ts": p.new_ts(), "message": edited, "previous_message": alert["event"]})
    await send(harness, edit)
    await send(harness, alert_event(alertmanager()))  # the second alert
    await counted(harness, answer, 2)
    await harness.slack.settle()
    assert not any("Seen 3 times" in c.text_of_blocks for c in harness.slack.calls_to("chat.update"))

    before = len(harness.slack.calls_to("chat.update"))
    await send(harness, p.reaction("+1", answer.ts))  # a vote redraws the answer: the count stays on it
    vote = await eventually(lambda: _async(harness.slack.calls_to("chat.update")[before:]), timeout=30)
    assert "Seen 2 times in this channel today" in vote[-1].text_of_blocks
    assert len(answers(harness)) == 1


async def test_the_same_error_in_another_channel_is_answered_there(harness):
    await bots_on(harness)
    await bots_on(harness, "C0OTHER")
    await send(harness, alert_event(grafana()))
    await eventually(lambda: _async(answers(harness)), timeout=30)
    elsewhere = alert_event(grafana(), channel="C0OTHER")
    await send(harness, elsewhere)
    posted = await eventually(lambda: _async(answers(harness)), predicate=lambda a: len(a) == 2, timeout=30)
    assert (posted[1]["channel"], posted[1]["thread_ts"]) == ("C0OTHER", elsewhere["event"]["ts"])


async def assert_silent(h: Harness, payload: dict[str, Any]) -> None:
    before = len(h.slack.calls_to("chat.postMessage", "chat.update"))
    await send(h, payload)
    await h.slack.settle()
    assert len(h.slack.calls_to("chat.postMessage", "chat.update")) == before


async def test_alerts_get_nothing_where_bots_are_off(harness):
    await assert_silent(harness, alert_event(alertmanager()))
    await bots_on(harness)
    await command(harness, "channel bots off")
    await assert_silent(harness, alert_event(grafana()))


async def test_messages_of_errkb_itself_or_of_another_errkb_are_never_answered(harness):
    await bots_on(harness)
    other_errkb = {"bot_id": "B0ERRKB2", "app_id": "A0ERRKB2", "user": "U0ERRKB2", "text": NCCL_PASTE,
                   "metadata": {"event_type": ERRKB_EVENT, "event_payload": {"app": "errkb"}}}
    await assert_silent(harness, alert_event(other_errkb))
    itself = {**alertmanager(), "bot_id": p.BOT_ID, "user": p.BOT_USER}
    await assert_silent(harness, alert_event(itself))


@pytest.mark.parametrize("fields", [
    {"attachments": "not a list", "blocks": {"type": "section"}},
    {"attachments": [None, 7, {"fields": "x", "title": ["t"], "blocks": [None, {"type": []}]}]},
    {"blocks": [{"type": "rich_text", "elements": [{"type": "rich_text_list", "elements": "x"}]}, "junk"]},
    {"text": {"nested": "object"}, "attachments": [{"text": 42, "fallback": None}]},
])
async def test_malformed_alerts_get_no_server_error_and_errkb_keeps_answering(harness, fields):
    await bots_on(harness)
    await assert_silent(harness, alert_event({"subtype": "bot_message", "bot_id": "B0BROKEN", **fields}))
    alert = alert_event(alertmanager())
    await send(harness, alert)
    await first_answer(harness, alert)
