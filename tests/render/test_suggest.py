"""The suggestion modals: worded in the author's language, carrying what they are for through Slack."""

from __future__ import annotations

import json

from bot import i18n
from bot.render.suggest import CALLBACK, FIX_BLOCK, TRANSLATE_CALLBACK, Place, modal, translate_modal


def test_the_place_survives_the_round_trip_and_garbage_is_refused():
    place = Place("pytorch/cuda-out-of-memory", "C1", "1690000000.000100", 1_000_007)
    assert Place.load(place.dump()) == place
    assert Place.load(Place("a/b").dump()) == Place("a/b")
    for bad in ("", "null", "[1]", '{"channel": "C1"}', '{"entry": "a/b", "fix": "x"}'):
        assert Place.load(bad) is None


def test_the_form_speaks_the_authors_language_and_offers_the_other():
    with i18n.use_locale("zh"):
        view = modal(Place("a/b", "C1"), "torch.OutOfMemoryError: CUDA out of memory.")
    text = json.dumps(view, ensure_ascii=False)
    assert view["callback_id"] == CALLBACK and view["title"]["text"] == "建议修复方法"
    assert "English" in text and "CUDA out of memory" in text
    assert [b["block_id"] for b in view["blocks"] if b["type"] == "input"] == ["fix", "code", "other"]
    assert [b["optional"] for b in view["blocks"] if b["type"] == "input"] == [False, True, True]


def test_the_translation_form_quotes_the_fix_escaped_and_masked():
    with i18n.use_locale("en"):
        view = translate_modal(Place("a/b", index=1_000_001), "用 <b> 标签，密码 password=hunter2secret")
    quoted = view["blocks"][0]["text"]["text"]
    assert view["callback_id"] == TRANSLATE_CALLBACK and quoted.startswith("> 用 &lt;b&gt;")
    assert "hunter2secret" not in quoted
    assert view["blocks"][1]["block_id"] == FIX_BLOCK and "English" in view["blocks"][1]["label"]["text"]
