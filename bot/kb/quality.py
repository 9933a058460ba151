"""Quality gaps in the KB beyond validity: what ``errkb lint`` reports.

An entry can be valid and still not good enough: untranslated, undocumented, untested, or with a
regex that also fires on another entry's pastes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.kb import noise
from bot.kb.entry import Entry, Problem
from bot.kb.matcher import Matcher
from bot.kb.normalize import normalize

MIN_FIXTURES = 2
MIN_ACTIONS = 2


def fixture_files(fixtures_dir: Path, entry_id: str) -> list[Path]:
    """An entry's paste fixtures: ``<fixtures_dir>/<domain>/<slug>/*.txt``."""
    return sorted((fixtures_dir / entry_id).glob("*.txt"))


def read_fixture(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "replace")


@dataclass(frozen=True)
class FixtureResult:
    path: Path
    expected: str
    ranked: list[str]  # entry ids, best first

    @property
    def ok(self) -> bool:
        return bool(self.ranked) and self.ranked[0] == self.expected


def check_fixtures(entries: Mapping[str, Entry], matcher: Matcher, fixtures_dir: Path) -> list[FixtureResult]:
    """Every fixture paste, with the entries the matcher ranks for it."""
    results = []
    for entry_id in entries:
        for path in fixture_files(fixtures_dir, entry_id):
            ranked = [m.entry_id for m in matcher.match(normalize(read_fixture(path)), limit=10)]
            results.append(FixtureResult(path, entry_id, ranked))
    return results


def _placeholders(value: object, path: str = "") -> list[str]:
    """JSON paths of string values still starting with the scaffold's TODO."""
    if isinstance(value, str):
        return [path] if value.startswith("TODO") else []
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _placeholders(v, f"{path}.{k}" if path else k)]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _placeholders(v, f"{path}[{i}]")]
    return []


def lint(entries: Mapping[str, Entry], matcher: Matcher, fixtures_dir: Path,
         all_entries: Mapping[str, Entry] | None = None) -> list[Problem]:
    """Every quality gap, as ``file: field: problem`` lines (``all_entries``: the whole KB, when
    ``entries`` is only part of it)."""
    problems: list[Problem] = []
    for entry in entries.values():
        def gap(path: str, message: str, entry: Entry = entry) -> None:
            problems.append(Problem(entry.source or entry.id, path, message))

        for path in _placeholders(entry.raw):
            gap(path, "TODO placeholder left in (from `errkb new`)")
        for key in ("signature_zh", "root_cause_zh"):
            if not str(entry.translated(key) or "").strip():
                gap(key, "missing Chinese translation")
        for key, items in (("workarounds_zh", entry.workarounds), ("dead_ends_zh", entry.dead_ends)):
            for i, item in enumerate(items):
                if not item.text_zh:
                    gap(f"{key}[{i}]", "missing Chinese translation")
        if not entry.official_doc_url:
            gap("official_doc_url", "no link to the official docs")
        if len(entry.workarounds) < MIN_ACTIONS:
            gap("workarounds", f"has {len(entry.workarounds)}; at least {MIN_ACTIONS} expected")
        if len(entry.dead_ends) < MIN_ACTIONS:
            gap("dead_ends", f"has {len(entry.dead_ends)}; at least {MIN_ACTIONS} expected")
        count = len(fixture_files(fixtures_dir, entry.id))
        if count < MIN_FIXTURES:
            gap("fixtures", f"{count} paste fixtures under {fixtures_dir / entry.id}; at least {MIN_FIXTURES} expected")
    problems.extend(noise.warning_problems(entries, matcher, fixtures_dir, all_entries))
    for result in check_fixtures(entries, matcher, fixtures_dir):
        if not result.ranked:
            problems.append(Problem(str(result.path), "regex", f"matches no entry (expected {result.expected})"))
        elif not result.ok:
            stealer = entries[result.ranked[0]]
            problems.append(Problem(stealer.source or stealer.id, "regex",
                                    f"ranks first on {result.path}, a paste of {result.expected}"))
    return problems
