"""Load, validate and export a seeds directory (``<dir>/<domain>/<slug>.json``).

Loading validates every entry once and keeps a snapshot of the result, keyed by a hash of every
seed file's path and bytes (and of the validating code): the next load of unchanged seeds reads
the snapshot instead of validating again; any edited, added or removed file makes a new one. The
snapshot is plain JSON in ``$ERRKB_CACHE`` (default ``~/.cache/errkb``; ``off`` disables it).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from bot.kb import entry as entry_module
from bot.kb.entry import Entry, Problem, dangling_links, validate_entry, validate_translations

TRANSLATIONS_DIR = "_translations"
CACHE_ENV = "ERRKB_CACHE"
SNAPSHOT_FORMAT = "1"


class Seeds(dict[str, Entry]):
    """Entries by id that passed validation as a whole (what :func:`load_seeds` returns)."""


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


def load_seeds(directory: str | Path) -> Seeds:
    """All entries of a valid seeds directory; raises :class:`SeedError` listing every problem."""
    digest = _fingerprint(Path(directory))
    cached = _read_snapshot(digest) if digest else None
    if cached is not None:
        return cached
    entries, problems = read_seeds(directory)
    if problems:
        raise SeedError(problems)
    if not entries:
        raise SeedError([Problem(str(directory), "", "contains no entries (expected <domain>/<slug>.json)")])
    if digest:
        _write_snapshot(digest, entries)
    return Seeds(entries)


def _cache_dir() -> Path | None:
    configured = os.environ.get(CACHE_ENV)
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "errkb"


def _fingerprint(root: Path) -> str | None:
    """A hash of every file the entries come from (path and bytes) and of the code that validates them."""
    if _cache_dir() is None or not root.is_dir():
        return None
    digest = hashlib.sha256(f"{SNAPSHOT_FORMAT}\0{root.resolve()}\0".encode())
    for module in (entry_module.__file__, __file__):
        digest.update(Path(module).read_bytes())
    schema = root / "entry.schema.json"
    files = [*seed_files(root), *sorted((root / TRANSLATIONS_DIR).glob("*/*.json"))]
    for path in ([schema] if schema.is_file() else []) + files:
        try:
            data = path.read_bytes()
        except OSError:
            return None
        digest.update(f"{path.relative_to(root)}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def _snapshot_path(digest: str) -> Path | None:
    cache = _cache_dir()
    return cache / f"seeds-{digest[:32]}.json" if cache is not None else None


def _read_snapshot(digest: str) -> Seeds | None:
    path = _snapshot_path(digest)
    try:
        if path is None or not path.is_file():
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("digest") != digest:
            return None
        return Seeds({raw["id"]: Entry(raw=raw, source=source, translations=translations or {})
                      for raw, source, translations in data["entries"]})
    except (OSError, ValueError, KeyError, TypeError):
        return None  # unreadable or from another version: validate again


def _write_snapshot(digest: str, entries: Mapping[str, Entry]) -> None:
    path = _snapshot_path(digest)
    if path is None:
        return
    data = {"digest": digest, "entries": [[e.raw, e.source, e.translations] for e in entries.values()]}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        for old in path.parent.glob("seeds-*.json"):
            if old != path:
                old.unlink(missing_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp") as f:
            json.dump(data, f, ensure_ascii=False)
        os.replace(f.name, path)
    except OSError:
        pass  # a read-only cache only costs the next load its validation


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
