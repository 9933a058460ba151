"""The verify-first front of POST /slack/events: nothing unsigned is parsed, logged or answered with a 5xx."""

from __future__ import annotations

import json
import logging

import pytest

from tests.slack.conftest import NCCL_PASTE, paste_and_wait
from tests.support import payloads as p
from tests.support.signing import sign

DEEP = "[" * 100_000 + "]" * 100_000


def _signed(body: str | bytes, **kw) -> dict[str, str]:
    text = body.decode("utf-8", "surrogateescape") if isinstance(body, bytes) else body
    return sign(text, **kw)


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ("{x", "application/json"),
        (DEEP, "application/json"),
        ("payload=" + "%5B" * 50_000, "application/x-www-form-urlencoded"),
        ('{"type": "event_callback"}', "application/json"),
    ],
    ids=["broken-json", "deep-json", "deep-form-payload", "well-formed"],
)
async def test_an_unsigned_request_is_401_whatever_its_body(harness, body, content_type, caplog):
    caplog.set_level(logging.INFO)
    sent = await harness.send.post_raw(body, content_type, {})
    assert sent.status == 401
    refused = [r.getMessage() for r in caplog.records if r.name == "bot.slack.front"]
    assert len(refused) == 1 and len(refused[0]) < 200
    assert refused[0].startswith("refused POST /slack/events: ") and "missing or malformed signature headers" in refused[0]
    assert "event_callback" not in " ".join(r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        ("{x", "application/json", "malformed JSON"),
        (DEEP, "application/json", "JSON nested too deeply"),
        ("[1, 2]", "application/json", "JSON payload is not an object"),
        ("payload=%7Bx", "application/x-www-form-urlencoded", "malformed JSON"),
        ("hello", "text/plain", "unsupported content type 'text/plain'"),
    ],
)
async def test_a_signed_but_unparseable_body_is_400(harness, body, content_type, reason):
    sent = await harness.send.post_raw(body, content_type)
    assert sent.status == 400 and sent.json() == {"ok": False, "error": reason}


async def test_invalid_utf8_is_400_when_signed_and_401_when_not(harness):
    body = b'{"type": "event_callback", "text": "\xff\xfe"}'
    signed = sign(body)  # bytes as sent, not valid UTF-8
    url = f"{harness.send.base_url}/slack/events"
    headers = {"Content-Type": "application/json", "X-Slack-Request-Timestamp": signed["X-Slack-Request-Timestamp"]}
    signature = signed["X-Slack-Signature"]
    async with harness.send.session.post(url, data=body, headers=headers | {"X-Slack-Signature": signature}) as r:
        assert r.status == 400
    async with harness.send.session.post(url, data=body, headers=headers | {"X-Slack-Signature": "v0=00"}) as r:
        assert r.status == 401


@pytest.mark.parametrize("timestamp", ["abc", "", "1e9", "-5", "99999999999999999999"])
async def test_a_malformed_or_far_timestamp_is_401(harness, timestamp):
    body = json.dumps(p.message(NCCL_PASTE))
    headers = sign(body) | {"X-Slack-Request-Timestamp": timestamp}
    assert (await harness.send.post_raw(body, "application/json", headers)).status == 401


async def test_a_body_larger_than_slack_ever_sends_is_413(harness):
    body = json.dumps(p.message("x" * 3_000_000))
    assert (await harness.send.post_raw(body, "application/json")).status == 413


async def test_after_all_that_the_next_real_paste_is_answered(harness):
    for body in ("{x", DEEP, "[" * 10):
        await harness.send.post_raw(body, "application/json", {})
        await harness.send.post_raw(body, "application/json")
    answered = await paste_and_wait(harness)
    assert answered.answer["thread_ts"] == answered.thread_ts
