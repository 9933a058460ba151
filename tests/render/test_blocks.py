"""Slack Block Kit rendering: limits, escaping, buttons, locale."""

from __future__ import annotations

import json

import pytest

from bot import i18n
from bot.diagnose import ErrkbService
from bot.render import blocks
from tests.conftest import NCCL_ID

PASTE = "```RuntimeError: [torch.distributed] AllReduce timed out in rank 0 (timeout: 600) <!channel>```"


@pytest.fixture
async def match(kb):
    with i18n.use_locale("en"):
        return (await ErrkbService(kb).diagnose(PASTE)).best


def all_texts(message: dict) -> list[str]:
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "text" and isinstance(value, str):
                    found.append(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(message["blocks"])
    return found


async def test_a_diagnosis_is_one_message_then_one_per_top_workaround(match):
    with i18n.use_locale("en"):
        messages = blocks.diagnosis_messages(match)
    assert len(messages) == 1 + 3
    header = messages[0]["blocks"][0]
    assert header["type"] == "header" and header["text"]["text"].startswith("RuntimeError: [torch.distributed]")
    first = messages[1]
    actions = next(b for b in first["blocks"] if b["type"] == "actions")["elements"]
    assert [a["action_id"] for a in actions] == [blocks.ACTION_VOTE_UP, blocks.ACTION_VOTE_DOWN]
    assert json.loads(actions[0]["value"]) == {"entry": NCCL_ID, "workaround": 0}
    assert "works in 85% of reports" in " ".join(all_texts(first))


async def test_pasted_text_is_escaped_and_cannot_broadcast(match):
    with i18n.use_locale("en"):
        texts = " ".join(all_texts(blocks.diagnosis_messages(match)[0]))
    assert "<!channel>" not in texts


async def test_every_message_stays_within_slacks_limits(kb):
    with i18n.use_locale("zh"):
        view = await ErrkbService(kb).show(NCCL_ID)
        long_entry = type(view)(**{**view.__dict__, "root_cause": "很长的原因。" * 2000})
        for message in blocks.entry_messages(long_entry):
            assert len(message["blocks"]) <= blocks.MAX_BLOCKS
            for block in message["blocks"]:
                if block["type"] == "section":
                    assert len(block["text"]["text"]) <= blocks.SECTION_LIMIT
                if block["type"] == "header":
                    assert len(block["text"]["text"]) <= blocks.HEADER_LIMIT


async def test_chinese_reader_sees_chinese_labels_and_the_english_toggle(bare_kb):
    with i18n.use_locale("zh-CN"):
        view = await ErrkbService(bare_kb).show(NCCL_ID)
        message = blocks.diagnosis_message(view)
    texts = " ".join(all_texts(message))
    assert "根本原因" in texts and "（未翻译）" in texts
    toggle = message["blocks"][-1]["elements"][0]
    assert toggle["action_id"] == blocks.ACTION_TRANSLATE and toggle["text"]["text"] == "English"


async def test_a_more_button_offers_the_rest(kb, match):
    with i18n.use_locale("en"):
        messages = blocks.diagnosis_messages(match, top=2)
    last_actions = next(b for b in messages[-1]["blocks"] if b["type"] == "actions")["elements"]
    assert last_actions[-1]["action_id"] == blocks.ACTION_MORE
    assert last_actions[-1]["text"]["text"] == "Show 1 more workaround"
