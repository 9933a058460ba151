"""Curated text reaches the reader as written: every fix of every KB entry, in both languages and every
format (Slack blocks, the terminal, JSON), byte for byte — commands, pipes, braces, tokens' names and all."""

from __future__ import annotations

import html
import json

import pytest

from bot import i18n
from bot.render import blocks, text
from bot.render.json import entry_json
from bot.service.knowledge import Knowledge


def curated_fixes(entry) -> dict[str, list[str]]:
    """The seed's own fix texts by language (what the card must show unchanged)."""
    english = [w.action.strip() for w in entry.workarounds if w.action.strip()]
    chinese = [w.text_zh.strip() for w in entry.workarounds if w.text_zh and w.text_zh.strip()]
    return {"en": english, "zh": chinese}


@pytest.mark.parametrize("locale", ["en", "zh"])
async def test_every_fix_of_every_entry_renders_byte_for_byte_in_every_format(kb, locale):
    knowledge = Knowledge(kb)
    changed = []
    for entry in kb.entries.values():
        wanted = curated_fixes(entry)[locale]
        if not wanted:
            continue
        with i18n.use_locale(locale):
            card = await knowledge.show(entry.id)
            assert card is not None
            slack = html.unescape(json.dumps([blocks.fix_message(card, w, i + 1) for i, w in enumerate(card.workarounds)],
                                             ensure_ascii=False))
            terminal = text.render_entry(card, width=100_000)
            data = entry_json(card, locale)
        shown_json = {w["text"].strip() for w in data["workarounds"]}
        for fix in wanted:
            as_json = json.dumps(fix, ensure_ascii=False)[1:-1]  # as it stands inside the blocks' JSON
            if fix not in shown_json or as_json not in slack or fix not in terminal:
                changed.append(f"{entry.id}: {fix[:80]!r}")
    assert changed == []


async def test_what_a_reader_pasted_is_still_masked_in_the_quote(kb):
    paste = "psql: error: connection to server at \"db\" (10.0.0.5), port 5432 failed: FATAL:  password " \
            "authentication failed for user \"app\"\nDATABASE_URL=postgres://app:hunter2planted@db:5432/app"
    with i18n.use_locale("en"):
        diagnosis = await Knowledge(kb).diagnose(paste, limit=1, record=False)
    assert diagnosis.best is not None
    rendered = json.dumps([blocks.answer_message(diagnosis.best.entry, diagnosis.best),
                           text.render_diagnosis(diagnosis, width=10_000)], ensure_ascii=False)
    assert "hunter2planted" not in rendered
