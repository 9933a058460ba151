"""Required literals: what every match of a regex must contain, never less."""

from __future__ import annotations

import pytest
import re2

from bot.kb.literals import literal_words, required_literals
from bot.kb.seeds import load_seeds
from tests.conftest import SEEDS


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"CUDA out of memory\. Tried to allocate \d+", {"cuda out of memory. tried to allocate "}),
        (r"(?:Error: )?listen EADDRINUSE(?:: address already in use)?", {"listen eaddrinuse"}),
        (r"No module named '(\w+)'|ImportError: cannot import", {"no module named '", "importerror: cannot import"}),
        (r"(?i)segmentation fault", {"segmentation fault"}),
        (r"[Ee]rror: disk full", {"error: disk full"}),
        (r"\d+ nodes? are", {" node are", " nodes are"}),
        (r"\d+/\d+ ok", None),  # nothing of 4+ characters every match must contain
        (r"\pL+ failed\p{Han}", {" failed"}),
        (r"(a)\1 backref", None),
    ],
)
def test_required_literals(pattern, expected):
    found = required_literals(pattern)
    assert (set(found) if found is not None else None) == expected


def test_every_match_of_every_real_entry_contains_one_of_its_literals():
    for entry in load_seeds(SEEDS).values():
        literals = required_literals(entry.regex)
        regex = re2.compile(entry.regex)
        for text in (entry.signature, *entry.aliases):
            if literals is not None and regex.search(text):
                assert any(lit in text.casefold() for lit in literals), (entry.id, text)


def test_literal_words_keep_the_fixed_text_of_every_branch():
    assert literal_words(r"'NoneType' object is not (?:subscriptable|iterable)") == \
        "'NoneType' object is not  subscriptable iterable"


def test_each_alternative_has_its_own_literal_sets_even_with_a_common_start():
    from bot.kb.literals import analyze

    # Python's parser moves the shared "E" out in front of the alternatives; each still has its own sets
    branches = analyze(r"E: Unable to locate package \S+|E: Package '[^']+' has no installation candidate|"
                       r"Errkb\b.*E: 无法定位软件包 \S+").branches
    assert [sorted(s for sets in b for s in sets) for b in branches] == [
        ["e: unable to locate package "], ["' has no installation candidate", "e: package '"],
        ["e: 无法定位软件包 ", "errkb"]]
    assert analyze(r"(?:error: )?package \w+ does not exist").branches == ()  # not an alternation


def test_any_set_from_each_alternative_joined_is_required_by_every_real_entry():
    from bot.kb.literals import analyze

    for entry in load_seeds(SEEDS).values():
        branches = analyze(entry.regex).branches
        if not branches:
            continue
        regex = re2.compile(entry.regex)
        for pick in (0, -1):
            joined = {lit for sets in branches for lit in sets[pick]}
            for text in (entry.signature, *entry.aliases):
                if regex.search(text):
                    assert any(lit in text.casefold() for lit in joined), (entry.id, text)
