"""Editing a seed file's text in place: what is added shows up, every other byte stays."""

from __future__ import annotations

import json

from bot.kb.amend import amended


def test_items_and_keys_are_added_in_the_files_own_layout():
    text = '{\n    "a": [\n        1\n    ],\n    "b": [],\n    "c": "x"\n}'  # four spaces, no final newline
    new = {"a": [1, {"k": 2}], "b": ["y"], "c": "x", "d": ["z"]}
    assert amended(text, new) == (
        '{\n    "a": [\n        1,\n        {\n            "k": 2\n        }\n    ],\n    "b": [\n        "y"\n    ],\n'
        '    "c": "x",\n    "d": [\n        "z"\n    ]\n}')


def test_compact_json_stays_compact():
    assert amended('{"a": [1], "b": "x"}', {"a": [1, 2], "b": "x"}) == '{"a": [1, 2], "b": "x"}'


def test_anything_but_growth_is_refused():
    text = json.dumps({"a": [1, 2], "b": "x"})
    assert amended(text, {"a": [2, 1], "b": "x"}) is None  # reordered
    assert amended(text, {"a": [1, 2], "b": "y"}) is None  # changed
    assert amended(text, {"a": [1, 2]}) is None  # removed
    assert amended("not json", {"a": 1}) is None
