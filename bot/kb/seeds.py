"""Load, validate and export a seeds directory (``<dir>/<domain>/<slug>.json``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from bot.kb.entry import Entry, Problem, dangling_links, validate_entry, validate_translations

TRANSLATIONS_DIR = "_translations"


class SeedError(Exception):
    """A seeds directory that failed validation; ``problems`` lists every reason."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def seed_files(directory: Path) -> list[Path]:
    """The entry files of a seeds directory, in a stable order."""
    return sorted(p for p in directory.glob("*/*.json") if p.is_file() and p.parent.name != TRANSLATIONS_DIR)


def read_seeds(directory: str | Path) -> tuple[dict[str, Entry], list[Problem]]:
    """Every valid entry by id, and every problem found (an invalid file yields no entry)."""
    root = Path(directory)
    entries: dict[str, Entry] = {}
    problems: list[Problem] = []
    if not root.is_dir():
        return entries, [Problem(str(root), "", "no such seeds directory")]
    for path in seed_files(root):
        name = str(path)
        try:
            raw = json.loads(path.read_bytes().decode("utf-8"))
        except UnicodeDecodeError as exc:
            problems.append(Problem(name, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})"))
            continue
        except json.JSONDecodeError as exc:
            problems.append(Problem(name, "", f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"))
            continue
        except RecursionError:
            problems.append(Problem(name, "", "nested too deeply to be an entry (an entry is a flat JSON object)"))
            continue
        found = validate_entry(raw, name, expected_id=f"{path.parent.name}/{path.stem}")
        if found:
            problems.extend(found)
            continue
        if raw["id"] in entries:
            problems.append(Problem(name, "id", f"duplicate id {raw['id']!r}, also in {entries[raw['id']].source}"))
            continue
        entries[raw["id"]] = Entry(raw=raw, source=name)
    problems.extend(dangling_links(entries))
    for path in sorted((root / TRANSLATIONS_DIR).glob("*/*.json")):
        entry_id = f"{path.parent.name}/{path.stem}"
        try:
            overlay = json.loads(path.read_bytes().decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
            reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            problems.append(Problem(str(path), "", f"malformed JSON: {reason}"))
            continue
        found = validate_translations(overlay, str(path), entries.get(entry_id))
        problems.extend(found)
        if not found:
            entry = entries[entry_id]
            entries[entry_id] = Entry(raw=entry.raw, source=entry.source, translations=overlay)
    return entries, problems


def load_seeds(directory: str | Path) -> dict[str, Entry]:
    """All entries of a valid seeds directory; raises :class:`SeedError` listing every problem."""
    entries, problems = read_seeds(directory)
    if problems:
        raise SeedError(problems)
    if not entries:
        raise SeedError([Problem(str(directory), "", "contains no entries (expected <domain>/<slug>.json)")])
    return entries


def entry_json(raw: dict) -> str:
    """The canonical file text of one entry."""
    return json.dumps(raw, ensure_ascii=False, indent=2) + "\n"


def export_seeds(
    raws: Iterable[dict], directory: str | Path, translations: Mapping[str, dict] | None = None
) -> list[Path]:
    """Write each entry object to ``<directory>/<domain>/<slug>.json`` (and its translations file,
    if it has one); returns the entry paths written."""
    root = Path(directory)
    for entry_id, overlay in (translations or {}).items():
        path = root / TRANSLATIONS_DIR / f"{entry_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(entry_json(overlay), encoding="utf-8")
    written = []
    for raw in raws:
        domain, slug = raw["id"].split("/", 1)
        path = root / domain / f"{slug}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(entry_json(raw), encoding="utf-8")
        written.append(path)
    return written
