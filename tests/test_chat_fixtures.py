"""The chat that must match nothing is plentiful, bilingual and without repeats (test_corpus checks silence)."""

from __future__ import annotations

import json
from collections import Counter

from tests.conftest import CHAT


def _lines() -> list[str]:
    return [m for path in sorted(CHAT.glob("*.json")) for m in json.loads(path.read_text("utf-8"))]


def test_chat_fixtures_hold_400_lines_in_both_languages_without_repeats():
    lines = _lines()
    chinese = [m for m in lines if any("\u4e00" <= ch <= "\u9fff" for ch in m)]
    assert len(lines) >= 400
    assert len(chinese) >= 100
    assert [m for m, n in Counter(lines).items() if n > 1] == []
