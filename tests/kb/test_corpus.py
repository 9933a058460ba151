"""The knowledge base itself: valid, bilingual, and every fixture paste matched by its own entry first."""

from __future__ import annotations

import json
from collections import Counter

import jsonschema
import pytest

from bot.kb.normalize import normalize
from bot.kb.quality import check_fixtures, lint, paste_files
from bot.kb.seeds import seed_files
from tests.conftest import CHAT as CHAT_DIR
from tests.conftest import PASTES, SEEDS

CHAT = sorted(CHAT_DIR.glob("*.json"))


def test_every_seed_file_matches_the_json_schema():
    schema = json.loads((SEEDS / "entry.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for path in seed_files(SEEDS):
        errors = [f"{path}: {'.'.join(map(str, e.path))}: {e.message}"
                  for e in validator.iter_errors(json.loads(path.read_text(encoding="utf-8")))]
        assert errors == []


def test_the_corpus_is_large_and_broad(kb):
    domains = Counter(e.domain for e in kb.entries.values())
    assert len(kb.entries) >= 200, len(kb.entries)
    assert len(domains) >= 15, domains


def test_every_fixture_is_matched_by_its_own_entry_first(kb):
    results = check_fixtures(kb.entries, kb.matcher, PASTES)
    assert len(results) >= 2 * len(kb.entries)
    wrong = [f"{r.path.relative_to(PASTES)}: got {r.ranked[:3]}" for r in results if not r.ok]
    assert wrong == []


def test_no_fixture_folder_is_orphaned(kb):
    folders = {f"{p.parent.parent.name}/{p.parent.name}" for p in paste_files(PASTES)}
    assert folders - set(kb.entries) == set()


def test_chat_fixtures_are_plentiful_and_match_nothing(kb):
    messages = [m for path in CHAT for m in json.loads(path.read_text(encoding="utf-8"))]
    assert len(messages) >= 100
    noisy = {m: [x.entry_id for x in kb.matcher.match(normalize(m))] for m in messages}
    assert {m: ids for m, ids in noisy.items() if ids} == {}


@pytest.mark.parametrize("path", seed_files(SEEDS), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_lint_finds_no_gap(kb, path):
    entry_id = f"{path.parent.name}/{path.stem}"
    gaps = [str(p) for p in lint({entry_id: kb.entries[entry_id]}, kb.matcher, PASTES)]
    assert gaps == []
