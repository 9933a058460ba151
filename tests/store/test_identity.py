"""How a seeded workaround finds the stored identity (and votes) it continues."""

from __future__ import annotations

from bot.store.identity import (
    Known,
    Wanted,
    identity_text,
    match,
    new_key,
    similarity,
)

CHECK = identity_text({"action": "Check network connectivity between all nodes using `nccl-tests` or `ping`."})
REDUCE = identity_text({"action": "Reduce the batch size or model size to lower communication volume."})
GLOO = identity_text({"action": "Switch to the Gloo backend if NCCL is problematic."})


def known(*texts: str) -> list[Known]:
    return [Known(f"k{i}", t, i) for i, t in enumerate(texts)]


def test_identity_text_ignores_whitespace_and_case_and_falls_back_to_how():
    assert identity_text({"action": "  Set  NCCL_DEBUG=INFO\n"}) == identity_text({"action": "set nccl_debug=info"})
    assert identity_text({"action": "", "how": "Run it again"}) == "run it again"


def test_same_texts_in_a_new_order_keep_their_identities():
    assert match(known(CHECK, REDUCE, GLOO), [Wanted(None, t) for t in (GLOO, CHECK, REDUCE)]) == ["k2", "k0", "k1"]


def test_a_lightly_edited_text_continues_its_workaround():
    edited = CHECK.replace("using `nccl-tests` or `ping`", "with `nccl-tests`")
    assert similarity(edited, CHECK) >= 0.6
    assert match(known(CHECK, REDUCE), [Wanted(None, REDUCE), Wanted(None, edited)]) == ["k1", "k0"]


def test_a_text_extended_with_more_detail_continues_its_workaround():
    longer = REDUCE + " or use gradient accumulation to decrease allreduce frequency."
    assert match(known(CHECK, REDUCE), [Wanted(None, longer)]) == ["k1"]


def test_an_unrelated_text_is_new_and_the_old_one_is_left_to_retire():
    assert similarity(GLOO, REDUCE) < 0.6
    assert match(known(REDUCE), [Wanted(None, GLOO)]) == [None]


def test_an_explicit_key_wins_over_any_text():
    stored = [Known("fix-net", CHECK, 0), Known("~abc", GLOO, 1)]
    # The keyed workaround was rewritten to read like the other one: the key still decides.
    assert match(stored, [Wanted("fix-net", GLOO), Wanted(None, "something else entirely")]) == ["fix-net", None]


def test_adding_a_key_to_an_unchanged_workaround_keeps_its_identity():
    assert match(known(CHECK), [Wanted("net", CHECK)]) == ["k0"]


def test_a_retired_workaround_restored_gets_its_identity_back():
    assert match([Known("old", GLOO, None)], [Wanted(None, GLOO)]) == ["old"]


def test_a_live_identity_is_preferred_to_a_retired_one_with_the_same_text():
    stored = [Known("retired", GLOO, None), Known("live", GLOO, 3)]
    assert match(stored, [Wanted(None, GLOO)]) == ["live"]


def test_duplicate_texts_pair_up_by_position():
    stored = [Known("a", GLOO, 0), Known("b", GLOO, 1)]
    assert match(stored, [Wanted(None, GLOO), Wanted(None, GLOO)]) == ["a", "b"]


def test_each_stored_identity_is_continued_at_most_once():
    assert match(known(CHECK), [Wanted(None, CHECK), Wanted(None, CHECK)]) == ["k0", None]


def test_new_keys_are_explicit_or_derived_and_unique():
    assert new_key(Wanted("mine", GLOO), set()) == "mine"
    first = new_key(Wanted(None, GLOO), set())
    assert first.startswith("~")
    assert new_key(Wanted(None, GLOO), {first}) == f"{first}-2"
