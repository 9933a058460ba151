"""``GET /metrics``: the counters an operator watches move with what the bot really does, and the
one log line per event names its type, outcome and entry but never the pasted text."""

from __future__ import annotations

import logging

from prometheus_client.parser import text_string_to_metric_families

from tests.slack.conftest import NCCL_ID, NCCL_PASTE, paste_and_wait
from tests.support import payloads as p
from tests.support.waits import eventually


async def scrape(h) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    sent = await h.send.get("/metrics")
    assert sent.status == 200
    values = {}
    for family in text_string_to_metric_families(sent.body):
        for sample in family.samples:
            values[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return values


def value(snapshot, name: str, **labels: str) -> float:
    return snapshot.get((name, tuple(sorted(labels.items()))), 0.0)


def moved(before, after, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


class TestMetrics:
    async def test_an_answered_paste_a_resent_event_and_chat_are_counted(self, harness, caplog):
        caplog.set_level(logging.INFO, logger="errkb.events")
        before = await scrape(harness)
        payload = p.message(NCCL_PASTE)
        assert (await harness.send.event(payload)).status == 200
        await harness.slack.wait_for("chat.postMessage", 1)
        assert (await harness.send.event(payload, retry=1)).status == 200  # Slack's retry of the same event
        assert (await harness.send.event(p.message("lunch at noon?"))).status == 200
        after = await eventually(lambda: scrape(harness),
                                 lambda s: moved(before, s, "errkb_first_reply_seconds_count") >= 1)

        assert moved(before, after, "errkb_events_total", type="message", outcome="answered") == 1
        assert moved(before, after, "errkb_events_total", type="message", outcome="duplicate") == 1
        assert moved(before, after, "errkb_events_total", type="message", outcome="silent") == 1
        assert moved(before, after, "errkb_matches_total", how="regex") == 2
        assert moved(before, after, "errkb_matches_total", how="none") == 1
        assert moved(before, after, "errkb_slack_api_calls_total", method="chat.postMessage", result="ok") == 1
        assert moved(before, after, "errkb_answers_total", result="posted") == 1
        assert moved(before, after, "errkb_ack_seconds_count", type="message") == 3
        assert moved(before, after, "errkb_match_seconds_count") == 3
        assert ("errkb_pending_decisions", ()) in after

        lines = [r.getMessage() for r in caplog.records if r.name == "errkb.events"]
        assert any("outcome=answered" in line and NCCL_ID in line for line in lines)
        assert all("lunch" not in line and "NCCL" not in line for line in lines)

    async def test_429s_and_retries_are_counted_by_method(self, harness):
        before = await scrape(harness)
        harness.slack.fail_next(429, method="chat.postMessage", retry_after=0)
        harness.slack.fail_next(500, method="chat.postMessage")
        await paste_and_wait(harness)
        after = await scrape(harness)
        assert moved(before, after, "errkb_slack_api_calls_total", method="chat.postMessage", result="429") == 1
        assert moved(before, after, "errkb_slack_api_calls_total", method="chat.postMessage", result="5xx") == 1
        assert moved(before, after, "errkb_slack_api_retries_total", method="chat.postMessage", reason="429") == 1
        assert moved(before, after, "errkb_slack_api_retries_total", method="chat.postMessage", reason="5xx") == 1

    async def test_votes_on_an_answer_are_counted(self, harness):
        answered = await paste_and_wait(harness)
        before = await scrape(harness)
        assert (await harness.send.event(p.reaction("+1", answered.answer.ts))).status == 200
        after = await eventually(lambda: scrape(harness),
                                 lambda s: moved(before, s, "errkb_votes_total", kind="reaction", changed="true") >= 1)
        assert moved(before, after, "errkb_events_total", type="reaction_added", outcome="answered") == 1

    async def test_a_forged_request_is_counted_as_dropped(self, harness):
        before = await scrape(harness)
        sent = await harness.send.post_raw('{"type": "event_callback", "event": {"type": "message"}}',
                                           "application/json", {"X-Slack-Signature": "v0=forged",
                                                                "X-Slack-Request-Timestamp": "1"})
        assert sent.status == 401
        after = await scrape(harness)
        # refused before anything parses its body: its type is not read from what it claims
        assert moved(before, after, "errkb_events_total", type="unverified", outcome="dropped") == 1
        assert moved(before, after, "errkb_events_total", type="message", outcome="dropped") == 0


async def test_the_grafana_dashboard_charts_metrics_the_bot_exports(harness):
    import json
    import re

    from tests.slack.conftest import REPO

    dashboard = json.loads((REPO / "docs" / "grafana-dashboard.json").read_text(encoding="utf-8"))
    charted = {re.sub(r"_(bucket|total)$", "", name) for panel in dashboard["panels"] for target in panel["targets"]
               for name in re.findall(r"errkb_\w+", target["expr"])}
    sent = await harness.send.get("/metrics")
    exported = {family.name for family in text_string_to_metric_families(sent.body)}
    assert charted and charted <= exported, charted - exported


async def test_made_up_request_types_cannot_grow_the_label_sets(harness):
    from bot import metrics

    for k in range(metrics.TYPE_LIMIT + 10):
        await harness.send.event(p.envelope({"type": f"made_up_{k}", "text": "x"}))
    await harness.send.event(p.envelope({"type": "Not A Slack Type: hello there"}))
    types = {labels["type"] for (name, labels) in
             ((name, dict(labels)) for name, labels in await scrape(harness)) if name == "errkb_events_total"}
    assert len(types - {"unverified", "malformed"}) <= metrics.TYPE_LIMIT + 1 and "other" in types  # front: 2 more
    assert not any(" " in t for t in types)
