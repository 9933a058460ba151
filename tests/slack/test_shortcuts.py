"""The message shortcut "Diagnose with errkb" (issue 4, point 5): any message, answered privately."""

from __future__ import annotations

from tests.slack.conftest import NCCL_PASTE
from tests.support import payloads as p


async def shortcut(h, text: str, user: str = "U_EN", **message_fields) -> str:
    key = "shortcut"
    sent = await h.send.form(p.message_shortcut(text, h.slack.response_url(key), user=user, **message_fields))
    assert sent.status == 200
    return key


async def test_a_message_is_diagnosed_privately_for_whoever_asked(harness):
    key = await shortcut(harness, NCCL_PASTE, user="U_CN")
    answers = await harness.slack.wait_for("response_url", 1, key=key)
    assert "*原因*：" in answers[0].text_of_blocks and "就是给这个方案投票" not in answers[0].text_of_blocks and all(a["response_type"] == "ephemeral" for a in answers)
    assert harness.slack.calls_to("chat.postMessage") == []


async def test_a_message_with_a_snippet_is_diagnosed_from_the_snippet(harness):
    file = harness.slack.add_file("F0SHORT", NCCL_PASTE.encode())
    key = await shortcut(harness, "see attached", files=[file])
    answers = await harness.slack.wait_for("response_url", 1, key=key)
    assert "*Cause*: " in answers[0].text_of_blocks


async def test_a_message_without_a_known_error_says_so(harness):
    key = await shortcut(harness, "lunch?")
    answer = (await harness.slack.wait_for("response_url", key=key))[0]
    assert "no known error" in answer.text_of_blocks
