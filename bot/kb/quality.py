"""Quality gaps in the KB beyond validity: what ``errkb lint`` reports.

An entry can be valid and still not good enough: untranslated, undocumented, untested, or with a
regex that also fires on another entry's pastes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from bot.kb import noise
from bot.kb.entry import DeadEnd, Entry, Problem, Workaround
from bot.kb.matcher import Matcher
from bot.kb.normalize import normalize

MIN_FIXTURES = 2
MIN_ACTIONS = 2
# A code span as Markdown reads it: a run of backticks, then the text up to the next run of the same
# length (so ``SELECT `order` FROM t`` is one span holding MySQL's own backticks).
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def code_spans(text: str) -> list[str]:
    """The contents of the code spans in ``text``, in order, without repeats."""
    return list(dict.fromkeys(body.strip() for _ticks, body in _CODE_SPAN.findall(text) if body.strip()))


def lost_code_spans(english: str, chinese: str) -> list[str]:
    """Code spans of the English text that the Chinese text does not carry verbatim."""
    return [span for span in code_spans(english) if span not in chinese]


CHAT_DIR = "_chat"  # inside the pastes folder: chat that must match nothing (names starting with _ are not pastes)


def paste_files(pastes_dir: Path) -> list[Path]:
    """Every paste fixture: ``<pastes_dir>/<domain>/<slug>/*.txt``, skipping folders named ``_…`` (``_chat``)."""
    return sorted(p for p in pastes_dir.glob("*/*/*.txt")
                  if not any(part.startswith("_") for part in p.relative_to(pastes_dir).parts))


def chat_messages(chat_dir: Path) -> tuple[str, ...]:
    """Every message of the chat fixtures (``<chat_dir>/*.json``, lists of strings): chat that must match nothing."""
    return tuple(m for path in sorted(chat_dir.glob("*.json"))
                 for m in json.loads(path.read_text(encoding="utf-8")) if isinstance(m, str))


@lru_cache(maxsize=4)
def chat_hits(matcher: Matcher, messages: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """For each entry that matches some chat message, those messages (cached: lint asks once per entry)."""
    hits: dict[str, list[str]] = {}
    for message in messages:
        for match in matcher.match(normalize(message), limit=50):
            hits.setdefault(match.entry_id, []).append(message)
    return {entry_id: tuple(found) for entry_id, found in hits.items()}


def chat_problems(entries: Mapping[str, Entry], matcher: Matcher, fixtures_dir: Path) -> list[Problem]:
    """A regex that matches chat (``_chat/`` inside ``fixtures_dir``) would answer people who only talk."""
    hits = chat_hits(matcher, chat_messages(fixtures_dir / CHAT_DIR))
    return [Problem(entries[i].source or i, "regex", f"matches chat that must match nothing: {_shorten(m)!r}")
            for i in entries if i in hits for m in hits[i]]


def _shorten(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def translation_gaps(entry: Entry) -> Iterable[tuple[str, str]]:
    """(JSON path, problem) for each Chinese text that is missing or dropped a command the English has."""
    for key in ("signature_zh", "root_cause_zh"):
        if not str(entry.translated(key) or "").strip():
            yield key, "missing Chinese translation"
    items: list[tuple[str, int, Workaround | DeadEnd, str]] = [
        ("workarounds", i, w, f"{w.action} {w.how}") for i, w in enumerate(entry.workarounds)]
    items += [("dead_ends", i, d, f"{d.action} {d.why_fails}") for i, d in enumerate(entry.dead_ends)]
    for i, w in enumerate(entry.workarounds):
        if not w.action.strip():
            yield f"workarounds[{i}].action", "missing English translation (written in Chinese only, in workarounds_zh)"
    for base, i, item, english in items:
        if not item.text_zh:
            yield f"{base}_zh[{i}]", "missing Chinese translation"
        elif lost := lost_code_spans(english, item.text_zh):
            yield f"{base}_zh[{i}]", "drops code the English has: " + ", ".join(f"`{s}`" for s in lost)
        if item.condition.strip() and not item.condition_zh:
            yield f"{base}[{i}].condition_zh", f"missing Chinese translation of the condition {item.condition!r}"


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
    ``entries`` is only part of it).

    Chat that must match nothing is read from ``_chat/`` inside ``fixtures_dir`` (``pastes/_chat``).
    """
    problems = chat_problems(entries, matcher, fixtures_dir)
    for entry in entries.values():
        def gap(path: str, message: str, entry: Entry = entry) -> None:
            problems.append(Problem(entry.source or entry.id, path, message))

        for path in _placeholders(entry.raw):
            gap(path, "TODO placeholder left in (from `errkb new`)")
        for path, message in translation_gaps(entry):
            gap(path, message)
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
