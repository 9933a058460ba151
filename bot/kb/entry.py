"""The KB entry model (the seed format); its validation is ``bot.kb.validate``.

An :class:`Entry` keeps the JSON object it was loaded from (``raw``) untouched, so unknown keys
and exact values survive load → export; typed properties read from it.
"""

from __future__ import annotations

import json
import os
import re
import sys
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import re2

ID_PATTERN = re.compile(r"^[a-z0-9._-]+/[a-z0-9._-]+$")
# An optional, stable name for a workaround, so its votes follow it through any rewording.
WORKAROUND_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
VERIFICATION_TIERS = ("ai_generated", "human_reviewed", "community_verified", "expert_verified")
RESOLVABLE_VALUES = (True, False, "true", "false", "partial")
SEVERITIES = ("error", "warning", "info")  # what a matched line is; warnings and info lines lose to errors
GRAPH_LINKS = ("leads_to", "preceded_by", "frequently_confused_with")
# An exported seed carries crowd-updated rates; these keys keep the authored priors beside them,
# so re-importing an export never counts the same votes twice.
SEED_PRIOR_KEY = "seed_success_rate"
SEED_FIX_KEY = "seed_fix_success_rate"
SEED_EVIDENCE_KEY = "seed_evidence_count"
# A workaround written only in Chinese (a suggestion from Slack): ``"needs_translation": "en"`` with an
# empty ``action`` and its text in ``workarounds_zh``; English readers see the Chinese, marked untranslated.
NEEDS_TRANSLATION_KEY = "needs_translation"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a seed file, located by file and JSON path."""

    file: str
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.path}: {self.message}" if self.path else f"{self.file}: {self.message}"


# What one entry's regex may cost: RE2 compiles it and builds its DFA within this much memory
# (past it, matching falls back to RE2's slower NFA; a regex too large to compile is invalid).
REGEX_MAX_MEM = 2 << 20


def pack(raw: dict[str, Any]) -> bytes:
    """An entry's JSON, compact and compressed (what :meth:`Entry.packed` keeps)."""
    return zlib.compress(json.dumps(raw, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 6)


class EntryFile:
    """A file of packed entries (the KB snapshot's), read on demand: a large KB's entries then stay on
    disk, not in the process's memory (``os.pread``, so nothing read counts in the RSS either).
    Snapshot files are only ever replaced, never rewritten, so an open one stays what was written."""

    __slots__ = ("_fd",)

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._fd = os.open(path, os.O_RDONLY)

    def stat(self) -> os.stat_result:
        return os.fstat(self._fd)

    def __reduce__(self) -> Any:
        raise TypeError("an open KB snapshot file is not copied or pickled (its entries are, as bytes)")

    def read(self, at: int, size: int) -> bytes:
        data = os.pread(self._fd, size, at)
        if len(data) != size:
            raise OSError(f"the KB snapshot ended early (wanted {size} bytes at {at})")
        return data

    def __del__(self) -> None:
        if (fd := getattr(self, "_fd", None)) is not None:  # None: the open itself failed
            os.close(fd)


# where a stored entry's packed bytes are: its file, offset and size
Stored = tuple[EntryFile, int, int]


@lru_cache(maxsize=256)
def _unpack(packed: bytes) -> dict[str, Any]:
    # the entries a paste matched are read several times while it is answered: keep a few parsed
    return json.loads(zlib.decompress(packed))


def compile_regex(pattern: str, max_mem: int = REGEX_MAX_MEM) -> re2._Regexp:
    """Compile ``pattern`` in RE2 (linear time); raises ``re2.error`` with RE2's reason."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = max_mem
    return re2.compile(pattern, options)


def regex_error(pattern: str) -> str | None:
    """RE2's reason why ``pattern`` does not compile, or None when it does."""
    try:
        compile_regex(pattern)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else str(exc)
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        budget = f" within its {REGEX_MAX_MEM >> 20} MiB budget" if "too large" in reason else ""
        return f"RE2 cannot compile it{budget}: {reason}"
    return None


@dataclass(frozen=True)
class DeadEnd:
    action: str
    why_fails: str
    fail_rate: float
    text_zh: str | None
    condition: str = ""
    condition_zh: str | None = None


@dataclass(frozen=True)
class Workaround:
    index: int
    action: str
    how: str
    condition: str
    success_rate: float | None  # as the seed says (an export: crowd-updated); None: unrated
    prior: float | None  # the KB authors' estimate before any vote; None: unrated
    text_zh: str | None
    sources: tuple[str, ...]
    condition_zh: str | None = None
    applies: dict | None = None  # the checkable part of ``condition`` (bot.kb.fit)


def _rate(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _condition_zh(item: dict, overlay: list, index: int) -> str | None:
    """The Chinese of an item's ``condition``: inline ``condition_zh``, else the overlay's aligned list."""
    value = item.get("condition_zh") or (overlay[index] if index < len(overlay) else None)
    return value if isinstance(value, str) and value.strip() else None


class Entry:
    """One error in the KB. ``raw`` is the seed JSON object exactly as loaded.

    A KB of tens of thousands of entries keeps each one packed (:meth:`packed`: its JSON,
    compressed) and reads it on access, a few recent ones kept parsed: a paste needs only the
    entries it matched, and a packed entry costs about a third of its file instead of several times it.
    Loaded from the KB snapshot, the packed bytes stay in its file (:class:`EntryFile`).
    """

    __slots__ = ("_ends", "_packed", "_raw", "_works", "id", "source", "translations")

    def __init__(self, raw: dict[str, Any], source: str = "", translations: dict[str, Any] | None = None) -> None:
        self._raw: dict[str, Any] | None = raw
        self._packed: bytes | Stored | None = None
        self.source = source
        # Chinese text kept beside an entry whose file must stay as its author wrote it
        # (seeds/_translations/<domain>/<slug>.json); ``raw`` never sees it.
        self.translations: dict[str, Any] = translations if translations is not None else {}
        value = raw.get("id")
        self.id: str = value if isinstance(value, str) else ""
        self._works: tuple[Workaround, ...] | None = None
        self._ends: tuple[DeadEnd, ...] | None = None

    @classmethod
    def packed(cls, entry_id: str, packed: bytes | Stored, source: str = "",
               translations: dict[str, Any] | None = None) -> Entry:
        """An entry kept as :func:`pack` made it (or where a file holds that), read when a field is wanted."""
        entry = cls.__new__(cls)
        entry._raw, entry._packed, entry.source = None, packed, source
        entry.translations = translations if translations is not None else {}
        entry.id = sys.intern(entry_id)
        entry._works = entry._ends = None
        return entry

    @property
    def raw(self) -> dict[str, Any]:
        return self._raw if self._raw is not None else _unpack(self.packed_raw)

    @property
    def packed_raw(self) -> bytes:
        """The entry's JSON as :func:`pack` made it (what a snapshot stores)."""
        packed = self._packed
        if isinstance(packed, tuple):
            file, at, size = packed
            return file.read(at, size)
        return packed if packed is not None else pack(self.raw)

    def __reduce_ex__(self, protocol: Any) -> Any:
        if isinstance(self._packed, tuple):  # copied or pickled with its bytes, not the open file
            return Entry.packed, (self.id, self.packed_raw, self.source, self.translations)
        return super().__reduce_ex__(protocol)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Entry):
            return NotImplemented
        return (self.raw, self.source, self.translations) == (other.raw, other.source, other.translations)

    __hash__ = None  # type: ignore[assignment]  # equal by content, which can change

    def __repr__(self) -> str:
        return f"Entry({self.id!r}, source={self.source!r})"

    @property
    def workarounds(self) -> tuple[Workaround, ...]:
        if self._works is not None:
            return self._works
        zh_w = self.translated("workarounds_zh") or []
        zh_wc = self.translations.get("conditions_zh") or []
        works = tuple(
            Workaround(
                index=i,
                action=w.get("action") or w.get("how") or "",
                how=w.get("how") or "",
                condition=w.get("condition") or "",
                success_rate=_rate(w.get("success_rate")),
                prior=_rate(w.get(SEED_PRIOR_KEY, w.get("success_rate"))),
                text_zh=zh_w[i] if i < len(zh_w) and zh_w[i] else None,
                sources=tuple(w.get("sources") or ()),
                condition_zh=_condition_zh(w, zh_wc, i),
                applies=w["applies"] if isinstance(w.get("applies"), dict) else None,
            )
            for i, w in enumerate(self.raw.get("workarounds") or [])
        )
        if self._raw is not None:  # a packed entry stays packed: it is built again when wanted
            self._works = works
        return works

    @property
    def dead_ends(self) -> tuple[DeadEnd, ...]:
        if self._ends is not None:
            return self._ends
        zh_d = self.translated("dead_ends_zh") or []
        zh_dc = self.translations.get("dead_end_conditions_zh") or []
        ends = tuple(
            DeadEnd(
                action=d.get("action") or "",
                why_fails=d.get("why_fails") or "",
                fail_rate=float(d.get("fail_rate") or 0.0),
                text_zh=zh_d[i] if i < len(zh_d) and zh_d[i] else None,
                condition=d.get("condition") or "",
                condition_zh=_condition_zh(d, zh_dc, i),
            )
            for i, d in enumerate(self.raw.get("dead_ends") or [])
        )
        if self._raw is not None:
            self._ends = ends
        return ends

    def translated(self, key: str) -> Any:
        """A ``*_zh`` field: the translations file's correction of it, else the entry's, else the file's
        (an entry that must stay byte for byte, like the user's own seed, is corrected in its overlay)."""
        corrected = (self.translations.get("corrections") or {}).get(key)
        return corrected or self.raw.get(key) or self.translations.get(key)

    def _str(self, key: str) -> str:
        value = self.raw.get(key)
        return value if isinstance(value, str) else ""

    @property
    def domain(self) -> str:
        return self._str("domain")

    @property
    def signature(self) -> str:
        return self._str("signature")

    @property
    def signature_zh(self) -> str:
        value = self.translated("signature_zh")
        return value if isinstance(value, str) else ""

    @property
    def regex(self) -> str:
        return self._str("regex")

    @property
    def root_cause(self) -> str:
        return self._str("root_cause")

    @property
    def root_cause_zh(self) -> str:
        value = self.translated("root_cause_zh")
        return value if isinstance(value, str) else ""

    def _texts(self, key: str) -> tuple[str, ...]:
        """A list of strings from the entry plus the ones its overlay adds."""
        values = [*(self.raw.get(key) or ()), *(self.translations.get(key) or ())]
        return tuple(dict.fromkeys(v for v in values if isinstance(v, str)))

    @property
    def aliases(self) -> tuple[str, ...]:
        return self._texts("aliases")

    @property
    def tags(self) -> tuple[str, ...]:
        return self._texts("tags")

    @property
    def severity(self) -> str:
        value = self.raw.get("severity")
        return value if value in SEVERITIES else "error"

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(v["version"] for v in self.raw.get("versions") or () if v.get("version"))

    @property
    def official_doc_url(self) -> str | None:
        return self.raw.get("official_doc_url") or None

    @property
    def verification_tier(self) -> str:
        return self._str("verification_tier") or "ai_generated"

    @property
    def confidence(self) -> float:
        value = self.raw.get("confidence")
        return float(value) if isinstance(value, int | float) else 0.5

    def values_text(self, zh: bool) -> list[str]:
        """Sentences that say the reader's values (``values_text`` / ``values_text_zh``: ``{name}`` is a
        named group of the regex), in the reader's language, the English when the Chinese is missing."""
        chosen = (self.raw.get("values_text_zh") if zh else None) or self.raw.get("values_text")
        return [t for t in chosen if isinstance(t, str)] if isinstance(chosen, list) else []

    @property
    def fix_estimate(self) -> float | None:
        """The authors' estimate of how often the entry's fixes fix the error (before any crowd votes)."""
        return _rate(self.raw.get(SEED_FIX_KEY, self.raw.get("fix_success_rate")))

    @property
    def evidence_count(self) -> int:
        """The real reports the seed records (before any crowd votes)."""
        value = self.raw.get(SEED_EVIDENCE_KEY, self.raw.get("evidence_count"))
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    @property
    def resolvable(self) -> str:
        value = self.raw.get("resolvable")
        if value is True:
            return "true"
        if value is False:
            return "false"
        return value if value in ("true", "false", "partial") else "partial"

    def links(self, kind: str) -> tuple[str, ...]:
        """Linked entry ids of one kind, the entry's own then those its overlay adds."""
        graph = self.raw.get("transition_graph") or {}
        extra = self.translations.get("transition_graph") or {}
        return tuple(dict.fromkeys([*(graph.get(kind) or ()), *(extra.get(kind) or ())]))


# --- validation -------------------------------------------------------------------------------
