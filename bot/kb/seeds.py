"""Load, validate and export a seeds directory (``<dir>/<domain>/<slug>.json``).

Loading validates every entry once and keeps a snapshot of the result, keyed by a hash of every
seed file's path and bytes (and of the KB code): the next load of unchanged seeds reads the
snapshot instead of validating again; any edited, added or removed file makes a new one. The
matcher built from them is kept the same way (:mod:`bot.kb.knowledge`). Snapshots are pickles of
our own data in ``$ERRKB_CACHE`` (default ``~/.cache/errkb``; ``off`` disables them), written
readable by the user only; one that is corrupt, from another version, or not the user's own
private file is ignored and rebuilt. The entries themselves (packed) are kept in a file of their own
beside it and read from there on demand, so a loaded KB holds little more than their ids in memory.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import ahocorasick

from bot.errors import SeedError
from bot.kb import entry as entry_module
from bot.kb.amend import amended
from bot.kb.entry import Entry, EntryFile, Problem, pack
from bot.kb.validate import dangling_links, validate_entry, validate_translations

TRANSLATIONS_DIR = "_translations"
CACHE_ENV = "ERRKB_CACHE"
SNAPSHOT_FORMAT = "3"


class Seeds(dict[str, Entry]):
    """Entries by id that passed validation as a whole (what :func:`load_seeds` returns);
    ``digest`` keys the snapshots made from them (None when snapshots are off)."""

    def __init__(self, entries: Mapping[str, Entry], digest: str | None = None) -> None:
        super().__init__(entries)
        self.digest = digest


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
        # kept packed: a large KB's parsed JSON would cost several times its files
        entries[raw["id"]] = Entry.packed(raw["id"], pack(raw), name)
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
            entries[entry_id] = Entry.packed(entry_id, entry.packed_raw, entry.source, overlay)
    return entries, problems


def load_seeds(directory: str | Path) -> Seeds:
    """All entries of a valid seeds directory; raises :class:`SeedError` listing every problem."""
    root = Path(directory)
    digest = _fingerprint(root)
    if digest and (stored := _stored(digest)) is not None:
        return stored
    entries, problems = read_seeds(root)
    if problems:
        raise SeedError(problems)
    if not entries:
        raise SeedError([Problem(str(directory), "", "contains no entries (expected <domain>/<slug>.json)")])
    if digest and _store(digest, entries) and (stored := _stored(digest)) is not None:
        return stored  # the entries' bytes from the file just written: out of memory from the first load on
    return Seeds(entries, digest=digest)


def _entries_file(cache: Path, digest: str) -> Path:
    return cache / f"entries-{digest[:32]}.bin"


def _header(digest: str) -> bytes:
    return f"errkb entries {digest}\n".encode()


def _store(digest: str, entries: Mapping[str, Entry]) -> bool:
    """Write the entries' file and the snapshot that says where each one is in it."""
    cache = _cache_dir()
    if cache is None:
        return False
    data, places = bytearray(_header(digest)), []
    for e in entries.values():
        packed = e.packed_raw
        places.append((e.id, e.source, len(data), len(packed), e.translations))
        data += packed
    path = _entries_file(cache, digest)
    if not _write_file(path, bytes(data)):
        return False
    for old in cache.glob("entries-*.bin"):
        if old != path:
            old.unlink(missing_ok=True)
    write_cached("seeds", digest, (len(data), places))
    return True


def _stored(digest: str) -> Seeds | None:
    """The entries of the snapshot of ``digest``, read from its entries' file on demand; None when
    either file is missing or does not belong with the other (the seeds are then validated again)."""
    cached = read_cached("seeds", digest)
    cache = _cache_dir()
    if cache is None or not isinstance(cached, tuple) or len(cached) != 2:
        return None
    size, places = cached
    try:
        file = EntryFile(_entries_file(cache, digest))
        st = file.stat()
        if st.st_uid != os.getuid() or st.st_mode & 0o022 or st.st_size != size:
            return None
        if file.read(0, len(_header(digest))) != _header(digest):
            return None
        return Seeds({entry_id: Entry.packed(entry_id, (file, at, length), source, translations or None)
                      for entry_id, source, at, length, translations in places}, digest=digest)
    except (OSError, TypeError, ValueError):
        return None


def _cache_dir() -> Path | None:
    configured = os.environ.get(CACHE_ENV)
    if configured == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "errkb"


def _code_digest() -> bytes:
    """What the snapshots depend on besides the seeds: the KB code and the libraries it pickles."""
    library = os.stat(ahocorasick.__file__)  # the automaton's pickled form is its own
    digest = hashlib.sha256(f"{SNAPSHOT_FORMAT}\0{sys.version}\0{library.st_size}\0{library.st_mtime_ns}\0".encode())
    for module in sorted(Path(entry_module.__file__).parent.glob("*.py")):
        digest.update(module.read_bytes())
    return digest.digest()


def code_digest() -> str:
    """A hash of the KB code (what keys data that depends on no seed, such as regex analyses)."""
    return _code_digest().hex()


def _listing(root: Path) -> list[tuple[str, os.stat_result]]:
    """(relative path, stat) of the schema, entry and translation files, in a stable order
    (``os.scandir``: at 50,000 files ``pathlib``'s glob alone takes seconds)."""
    found = []
    schema = root / "entry.schema.json"
    if schema.is_file():
        found.append(("entry.schema.json", schema.stat()))
    with os.scandir(root) as domains:
        folders = sorted(d.name for d in domains if d.is_dir() and d.name != TRANSLATIONS_DIR)
    for folder in [*folders, *(f"{TRANSLATIONS_DIR}/{d}" for d in _subfolders(root / TRANSLATIONS_DIR))]:
        with os.scandir(root / folder) as files:
            found.extend(sorted((f"{folder}/{f.name}", f.stat()) for f in files
                                if f.name.endswith(".json") and f.is_file()))
    return found


def _subfolders(path: Path) -> list[str]:
    if not path.is_dir():
        return []
    with os.scandir(path) as items:
        return sorted(d.name for d in items if d.is_dir())


def _fingerprint(root: Path) -> str | None:
    """A hash of every file the entries come from (path and bytes) and of the code that reads them.

    Reading 50,000 files to hash them takes seconds, so the hash is remembered with the files'
    sizes and modification times (``stamps.json``); while none of those changed it is reused."""
    cache = _cache_dir()
    if cache is None or not root.is_dir():
        return None
    code = _code_digest()
    where = str(root.resolve())
    try:
        files = _listing(root)
    except OSError:
        return None
    stamp = hashlib.sha256(code + where.encode())
    stamp.update("".join(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\0" for name, st in files).encode())
    stamps_file = cache / "stamps.json"
    try:
        stamps = json.loads(stamps_file.read_text(encoding="utf-8"))
        known = stamps.get(where)
        if isinstance(known, list) and known[0] == stamp.hexdigest() and isinstance(known[1], str):
            return known[1]
    except (OSError, ValueError, IndexError, AttributeError):
        stamps = {}
    digest = hashlib.sha256(code + where.encode())
    for name, _ in files:
        try:
            data = (root / name).read_bytes()
        except OSError:
            return None
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    stamps = stamps if isinstance(stamps, dict) else {}
    stamps[where] = [stamp.hexdigest(), digest.hexdigest()]
    _write_file(stamps_file, json.dumps(stamps).encode())
    return digest.hexdigest()


def read_cached(kind: str, digest: str) -> Any:
    """What :func:`write_cached` stored as ``kind`` for ``digest``, or None (absent, corrupt, from
    another version, or not safe to load: not the user's own file, or writable by others)."""
    cache = _cache_dir()
    if cache is None:
        return None
    path = _snapshot(cache, kind, digest)
    try:
        with path.open("rb") as f:
            st = os.fstat(f.fileno())
            if st.st_uid != os.getuid() or st.st_mode & 0o022:
                return None  # a pickle runs code as it loads: only our own, private files are read
            data = pickle.load(f)
        if isinstance(data, tuple) and len(data) == 2 and data[0] == digest:
            return data[1]
    except Exception:  # any unreadable snapshot only costs a rebuild
        return None
    return None


def has_cached(kind: str, digest: str) -> bool:
    """Whether there is a ``kind`` snapshot of ``digest`` (without reading it: it may still prove unusable)."""
    cache = _cache_dir()
    return cache is not None and _snapshot(cache, kind, digest).is_file()


def _snapshot(cache: Path, kind: str, digest: str) -> Path:
    return cache / f"{kind}-{digest[:32]}.pickle"


def write_cached(kind: str, digest: str, value: Any) -> None:
    """Keep ``value`` (our own data) as the ``kind`` snapshot of ``digest``, replacing older ones."""
    cache = _cache_dir()
    if cache is None:
        return
    path = _snapshot(cache, kind, digest)
    try:
        data = pickle.dumps((digest, value), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):
        return
    if _write_file(path, data):
        for old in [*cache.glob(f"{kind}-*.pickle"), *cache.glob(f"{kind}-*.json")]:  # .json: version 1's
            if old != path:
                old.unlink(missing_ok=True)


def _write_file(path: Path, data: bytes) -> bool:
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, delete=False, suffix=".tmp") as f:
            f.write(data)  # NamedTemporaryFile creates it readable by the user only
        os.replace(f.name, path)
        return True
    except OSError:
        return False  # a read-only cache only costs the next load its validation


def entry_json(raw: dict) -> str:
    """The canonical file text of one entry."""
    return json.dumps(raw, ensure_ascii=False, indent=2) + "\n"


def export_seeds(
    raws: Iterable[dict], directory: str | Path, translations: Mapping[str, dict] | None = None,
    originals: Mapping[str, Entry] | None = None,
) -> list[Path]:
    """Write each entry object to ``<directory>/<domain>/<slug>.json`` (and its translations file,
    if it has one); returns the entry paths written. An entry of ``originals`` (read from a seeds
    directory) keeps its file's text, edited only where the object grew (``bot.kb.amend``)."""
    root = Path(directory)
    originals = originals or {}
    for entry_id, overlay in (translations or {}).items():
        path = root / TRANSLATIONS_DIR / f"{entry_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        found = originals.get(entry_id)
        source = Path(found.source).parent.parent / TRANSLATIONS_DIR / f"{entry_id}.json" if found else None
        path.write_text(_kept(source, overlay), encoding="utf-8")
    written = []
    for raw in raws:
        domain, slug = raw["id"].split("/", 1)
        path = root / domain / f"{slug}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        found = originals.get(raw["id"])
        path.write_text(_kept(Path(found.source) if found and found.source else None, raw), encoding="utf-8")
        written.append(path)
    return written


def _kept(source: Path | None, value: dict) -> str:
    """``source``'s text amended to hold ``value``, or ``value`` written afresh when that cannot be done."""
    try:
        text = source.read_bytes().decode("utf-8") if source is not None and source.is_file() else None
    except (OSError, UnicodeDecodeError):
        text = None
    return (amended(text, value) if text is not None else None) or entry_json(value)
