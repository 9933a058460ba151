"""The regex errkb proposes for a masked error line, and what it checks before a team may teach it."""

from __future__ import annotations

from bot.kb.entry import compile_regex
from bot.kb.propose import check, propose, sample

LINE = "WidgetError: widget <n> at <hex> is stuck in <name> on <host>"
CHAT = ("the widget is stuck again, lunch?", "tests: 412 passed, 0 failed")


def test_the_proposal_keeps_the_stable_words_and_accepts_other_values():
    pattern = propose(LINE)
    regex = compile_regex(pattern)
    assert regex.search("WidgetError: widget 913 at 0xbeef is stuck in 'blue-7' on db-2.acme.internal:5432")
    assert not regex.search("WidgetError: gadget 913 at 0xbeef is stuck in 'blue-7'")
    assert check(pattern, LINE, CHAT, [("pytorch/other", "RuntimeError: something else")]) == []


def test_a_log_prefix_before_the_error_is_left_out():
    pattern = propose("<n>-<n>-<n> <n>:<n>:<n> [<hex>] FooBarError: cannot frob <path>")
    assert pattern.startswith("FooBarError:") and compile_regex(pattern).search(
        "FooBarError: cannot frob /tmp/x.bin")


def test_each_problem_is_named():
    assert [i.kind for i in check("widget (stuck", LINE, CHAT, [])] == ["compile"]
    assert [i.kind for i in check("x|", LINE, CHAT, [])] == ["empty"]
    assert [i.kind for i in check("GadgetError", LINE, CHAT, [])] == ["example"]
    assert [(i.kind, i.detail) for i in check("(?i)widget", LINE, CHAT, [])] == [("chat", CHAT[0])]
    stolen = check(r"stuck in", LINE, (), [("a/one", "it is stuck in here"), ("a/one", "stuck in"), ("b/two", "x")])
    assert [(i.kind, i.detail) for i in stolen] == [("entry", "a/one")]
    assert sample("<n> at <hex>") == "42 at 0x7f3a9c"
