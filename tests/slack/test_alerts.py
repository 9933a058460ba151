"""Reading the error out of another bot's alert (issue 22, point 4): text, attachments and blocks, in process."""

from __future__ import annotations

import pytest

from bot.kb.knowledge import KnowledgeBase
from bot.kb.normalize import normalize
from bot.slack.alerts import MAX_CHARS, alert_text
from tests.support.alerts import SHAPES


def best(kb: KnowledgeBase, text: str) -> str | None:
    found = kb.matcher.match(normalize(text), limit=1)
    return found[0].entry_id if found else None


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_integrations_alert_reads_as_the_error_it_carries(kb, name):
    make, entry_id = SHAPES[name]
    alert = make()
    assert best(kb, alert_text(alert)) == entry_id
    assert best(kb, alert_text({**alert, "text": ""})) == entry_id  # its blocks or attachments tell it alone


def test_every_place_an_integration_puts_text_is_read_in_the_order_slack_shows_it():
    alert = {
        "text": "fallback text",
        "blocks": [
            {"type": "header", "text": {"type": "plain_text", "text": "Header <b>"}},
            {"type": "section", "text": {"type": "mrkdwn", "text": "*section* &lt;x&gt;"},
             "fields": [{"type": "mrkdwn", "text": "*Field:*\nvalue"}, {"type": "plain_text", "text": "plain"}]},
            {"type": "context", "elements": [{"type": "mrkdwn", "text": "ctx one"}, {"type": "image", "image_url": "x"},
                                             {"type": "plain_text", "text": "ctx two"}]},
            {"type": "rich_text", "elements": [
                {"type": "rich_text_section", "elements": [{"type": "text", "text": "rich "},
                                                           {"type": "link", "url": "https://x.test/a", "text": "link"},
                                                           {"type": "user", "user_id": "U1"}]},
                {"type": "rich_text_preformatted", "elements": [{"type": "text", "text": "a < b & c"}]},
                {"type": "rich_text_quote", "elements": [{"type": "text", "text": "quoted"}]},
                {"type": "rich_text_list", "elements": [
                    {"type": "rich_text_section", "elements": [{"type": "text", "text": "item 1"}]},
                    {"type": "rich_text_list", "elements": [
                        {"type": "rich_text_section", "elements": [{"type": "text", "text": "nested"}]}]}]}]},
            {"type": "divider"}, {"type": "actions", "elements": [{"type": "button", "text": {"text": "no"}}]},
        ],
        "attachments": [{"pretext": "pre", "title": "title", "text": "body",
                         "fields": [{"title": "env", "value": "prod"}, {"title": "", "value": "only value"}],
                         "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "inner"}}],
                         "fallback": "title"}],  # the same as the title: read once
    }
    assert alert_text(alert).split("\n") == [
        "fallback text", "Header &lt;b&gt;", "*section* &lt;x&gt;", "*Field:*", "value", "plain", "ctx one ctx two",
        "rich link", "a &lt; b &amp; c", "quoted", "item 1", "nested",
        "pre", "title", "body", "env: prod", "only value", "inner"]


@pytest.mark.parametrize("message", [
    None, "text", [], {"text": 5}, {"attachments": "nope"}, {"attachments": [None, 3, "x", {"fields": "x"}]},
    {"attachments": [{"fields": [None, {"title": 1, "value": ["v"]}], "title": {"a": 1}, "blocks": {"x": 1}}]},
    {"blocks": [None, {"type": "section", "text": "plain string", "fields": [1, None]}, {"type": 7}]},
    {"blocks": [{"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": "x"}, 5]}]},
    {"blocks": [{"type": "context", "elements": None}, {"type": "header", "text": {"type": "mrkdwn"}}]},
])
def test_malformed_parts_are_skipped_and_nothing_raises(message):
    assert alert_text(message) == ""


def test_a_list_nested_past_any_real_alert_stops_being_read():
    deep: dict = {"type": "rich_text_section", "elements": [{"type": "text", "text": "deepest"}]}
    for _ in range(50):
        deep = {"type": "rich_text_list", "elements": [deep]}
    assert alert_text({"blocks": [{"type": "rich_text", "elements": [deep]}]}) == ""


def test_a_huge_alert_is_read_up_to_what_a_paste_is_matched_on():
    alert = {"attachments": [{"text": f"line {i} " + "x" * 5000} for i in range(100)]}
    assert len(alert_text(alert)) == MAX_CHARS
