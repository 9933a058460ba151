"""The real KB through the matcher: the user's entry and PyTorch's own wording, one incident."""

from __future__ import annotations

import json
from collections.abc import Callable

import re2

from bot.kb.normalize import normalize
from tests.conftest import NCCL_ID, PASTES, SEEDS, USER_SEED

WATCHDOG_ID = "pytorch/nccl-watchdog-collective-timeout"


def test_the_users_file_stays_byte_for_byte_and_its_overlay_links_the_watchdog_entry(kb):
    assert json.loads(USER_SEED.read_text(encoding="utf-8"))["transition_graph"]["frequently_confused_with"] == []
    assert WATCHDOG_ID in kb.entries[NCCL_ID].links("frequently_confused_with")
    assert NCCL_ID in kb.entries[WATCHDOG_ID].links("frequently_confused_with")


def test_a_paste_of_either_wording_names_the_same_incident(kb):
    for entry_id, other in ((NCCL_ID, WATCHDOG_ID), (WATCHDOG_ID, NCCL_ID)):
        for path in sorted((PASTES / entry_id).glob("*.txt")):
            best = kb.matcher.match(normalize(path.read_text(encoding="utf-8")))[0]
            assert best.entry_id == entry_id, path
            assert other in kb.entries[best.entry_id].links("frequently_confused_with")


def test_every_overlay_link_names_an_entry(kb):
    for path in sorted((SEEDS / "_translations").glob("*/*.json")):
        graph = json.loads(path.read_text(encoding="utf-8")).get("transition_graph", {})
        assert {t for ids in graph.values() for t in ids} <= set(kb.entries), path


def _every_match(patterns: list[str]) -> Callable[[bytes], set[int]]:
    """Which of ``patterns`` match a text, each searched in full: RE2 sets of 64 (one scan each), not one
    search per pattern, so the check covers every fixture in seconds."""
    options = re2.Options()
    options.log_errors, options.max_mem = False, 1 << 28
    sets = []
    for first in range(0, len(patterns), 64):
        chunk = re2.Set.SearchSet(options)
        for pattern in patterns[first : first + 64]:
            chunk.Add(pattern)
        chunk.Compile()
        sets.append((first, chunk))
    return lambda data: {first + i for first, chunk in sets for i in chunk.Match(data) or ()}


def test_the_literal_prefilter_never_hides_a_regex_that_matches(kb):
    from bot.kb.quality import paste_files
    from tests.conftest import CHAT

    ids = list(kb.entries)
    matching = _every_match([e.regex for e in kb.entries.values()])
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in paste_files(PASTES)]
    texts += [m for p in sorted(CHAT.glob("*.json")) for m in json.loads(p.read_text("utf-8"))]
    hidden, matched = [], 0
    for text in texts:
        plain = normalize(text).text
        found = matching(plain.encode())
        matched += bool(found)
        hidden += [(ids[i], plain[:60]) for i in found - set(kb.matcher.candidates(plain))]
    assert matched > len(texts) // 2 and hidden == []
