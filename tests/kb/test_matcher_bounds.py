"""Counted repetitions searched unbounded where the paste cannot outgrow them: the same hits, smaller regexes."""

from __future__ import annotations

import copy

import pytest

import bot.kb.regexes as regexes_module
from bot.kb.entry import Entry
from bot.kb.matcher import Matcher
from bot.kb.regexes import Bound, counted_bounds

TS2322 = (r"(?:error )?TS2322: Type [^\n]{1,300}? is not assignable to type [^\n]{1,300}|"
          r"Type ['\"][^\n]{1,200}['\"] is not assignable to type ['\"][^\n]{1,200}['\"]\.?\s*ts\(2322\)")
SPANNING = r"The read operation timed out[\s\S]{0,40}?ReadTimeoutError: \S{1,60}"


def test_bounds_are_counted_repetitions_of_one_character_class():
    assert counted_bounds(r"Type [^\n]{1,300}? is") == (Bound((10, 17), 1, 300, True),)
    assert counted_bounds(r"a.{0,50}b\s{0,60}") == (Bound((2, 8), 0, 50, True), Bound((11, 17), 0, 60, False))
    assert counted_bounds(r"(?s)a.{0,50}b")[0].in_line is False  # '.' may match a newline there
    assert [b.low for b in counted_bounds(r"[]x]{2,40}[^]\n]{0,99}\pL{1,40}\p{Greek}{1,40}\x{263a}{1,40}\\{1,64}")] == [
        2, 0, 1, 1, 1, 1]
    assert counted_bounds(r"[[:alpha:]]{1,64}") == (Bound((11, 17), 1, 64, True),)
    # small bounds, groups, exact counts and escapes whose reach is unclear are left alone
    for pattern in (r"\d{1,3}", r"(?:ab){1,40}", r"\pL{1000}", r"\Qa\E{1,40}", r"\012{0,50}", r"\b{1,40}", r"x{2,}"):
        assert counted_bounds(pattern) == (), pattern


def _entry(nccl_raw: dict, entry_id: str, regex: str) -> Entry:
    raw = copy.deepcopy(nccl_raw)
    raw.update(id=entry_id, domain=entry_id.split("/")[0], regex=regex, signature=entry_id, aliases=[])
    return Entry(raw)


def _matchers(nccl_raw: dict, monkeypatch: pytest.MonkeyPatch) -> tuple[Matcher, Matcher]:
    entries = {e.id: e for e in (_entry(nccl_raw, "typescript/ts2322", TS2322),
                                 _entry(nccl_raw, "pip/read-timeout", SPANNING))}
    lifting = Matcher(entries)
    monkeypatch.setattr(regexes_module, "MIN_LIFTED", 10**6)
    exact = Matcher(entries)
    monkeypatch.undo()
    return lifting, exact


PASTES = [
    "src/a.tsx:18:7 - error TS2322: Type 'string | undefined' is not assignable to type 'string'.\n  18  x\n",
    "src/a.tsx:18:7 - error TS2322: Type 'A' is not assignable to type 'B'. 类型不匹配 ✗\n",  # not ASCII
    "TS2322: Type " + "x" * 259 + " is not assignable to type y",  # a 300-character line: lifted
    "TS2322: Type " + "x" * 260 + " is not assignable to type y",  # 301: as written
    "TS2322: Type " + "x" * 301 + " is not assignable to type y",  # a run longer than the bound
    "TS2322: Type " + "é" * 299 + " is not assignable to type " + "z" * 400,
    "TS2322: Type a is not assignable to type " + "q" * 280 + "\n" + "w" * 500,  # another line is longer
    "Type 'A' is not assignable to type 'B'. ts(2322)\nType 'C' is not assignable to type 'D' ts(2322)",
    "The read operation timed out\n\nDuring handling...\nReadTimeoutError: HTTPSConnectionPool",
    "The read operation timed out" + "\n" * 41 + "ReadTimeoutError: HTTPSConnectionPool",  # too far apart
    "The read operation timed out" + "\n" * 40 + "ReadTimeoutError: HTTPSConnectionPool " + "-" * 80,
]


@pytest.mark.parametrize("paste", PASTES)
def test_lifted_bounds_find_the_same_hits(nccl_raw, monkeypatch, paste):
    lifting, exact = _matchers(nccl_raw, monkeypatch)
    assert lifting.regex_hits(paste) == exact.regex_hits(paste)


def test_a_paste_with_short_lines_compiles_the_small_form(nccl_raw, monkeypatch):
    lifting, exact = _matchers(nccl_raw, monkeypatch)
    for matcher in (lifting, exact):
        assert [m.entry_id for m in matcher.regex_hits(PASTES[0])] == ["typescript/ts2322"]
    assert lifting.cache_info()["bytes"] * 20 < exact.cache_info()["bytes"]
    lifting.regex_hits(PASTES[4])  # a run longer than the bound: the regex as written
    assert lifting.cache_info()["compiled"] == 2
