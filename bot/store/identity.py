"""Which stored workaround a seeded workaround continues, so votes follow it across edits.

Pure code. A workaround keeps its identity, in this order of evidence:

1. an explicit ``"key"`` on the workaround in the seed (``[A-Za-z0-9][A-Za-z0-9._-]*``), the same
   key as before — whatever its text says now;
2. the same text as before (action, else how; whitespace and case ignored);
3. the most similar old text, if at least ``FUZZY_THRESHOLD`` similar (an edited workaround);
4. otherwise it is new. An old workaround nothing continues is retired, votes and all.

Old workarounds already retired take part too, so a workaround removed and later restored
gets its history back. Ties go to a live workaround, then to the one at the same index.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz

FUZZY_THRESHOLD = 0.6
AUTO_KEY_PREFIX = "~"


@dataclass(frozen=True)
class Known:
    """A workaround identity already in the store."""

    key: str
    text: str  # as returned by identity_text
    position: int | None  # None when retired


@dataclass(frozen=True)
class Wanted:
    """A workaround in the seed being synced."""

    key: str | None  # the explicit key, if the seed gives one
    text: str  # as returned by identity_text


def identity_text(workaround: dict[str, Any]) -> str:
    """The text that identifies a seed workaround: action (else how), whitespace and case folded."""
    text = workaround.get("action") or workaround.get("how") or ""
    return " ".join(str(text).split()).casefold()


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def explicit_key(workaround: dict[str, Any]) -> str | None:
    key = workaround.get("key")
    return key if isinstance(key, str) and key else None


def similarity(a: str, b: str) -> float:
    """0..1: edit similarity, or (discounted) word-set overlap when one text extends the other."""
    return max(fuzz.ratio(a, b), 0.9 * fuzz.token_set_ratio(a, b)) / 100.0


def match(known: Sequence[Known], wanted: Sequence[Wanted]) -> list[str | None]:
    """For each wanted workaround, the key of the known identity it continues, or None if new."""
    result: list[str | None] = [None] * len(wanted)
    free = {k.key: k for k in known}

    def take(i: int, key: str) -> None:
        result[i] = key
        del free[key]

    for i, w in enumerate(wanted):
        if w.key is not None and w.key in free:
            take(i, w.key)
    for i, w in enumerate(wanted):
        if result[i] is None:
            same = [k for k in free.values() if k.text == w.text]
            if same:
                take(i, min(same, key=lambda k: _preference(k, i)).key)
    pairs = sorted(
        (-similarity(k.text, w.text), _preference(k, i), i, k.key)
        for i, w in enumerate(wanted)
        if result[i] is None
        for k in free.values()
    )
    for negative_score, _pref, i, key in pairs:
        if -negative_score < FUZZY_THRESHOLD:
            break
        if result[i] is None and key in free:
            take(i, key)
    return result


def _preference(known: Known, index: int) -> tuple[bool, int]:
    """Sort key among equally good candidates: live before retired, then nearest index."""
    if known.position is None:
        return (True, 0)
    return (False, abs(known.position - index))


def new_key(wanted: Wanted, taken: set[str]) -> str:
    """A key for a new identity: the explicit one, else one derived from its text, unique in ``taken``."""
    if wanted.key is not None:
        return wanted.key
    base = AUTO_KEY_PREFIX + text_hash(wanted.text)[:12]
    key, n = base, 1
    while key in taken:
        n += 1
        key = f"{base}-{n}"
    return key
