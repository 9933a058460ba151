"""What the matcher knows about an entry's regex before it runs it: whether RE2 parses it, the counted
repetitions it may lift on a paste (``counted_bounds``), and the cache of compiled regexes kept within a
memory budget."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable
from typing import NamedTuple

import re2

from bot.kb.entry import compile_regex

REGEX_BASE_BYTES = 4096  # an RE2 object, its reverse program and the first DFA states of a search
REGEX_BYTES_PER_INST = 160  # per program instruction, forward and reverse, and the DFA states searches build
# A counted repetition C{m,n} with n at least this compiles to n copies of C (thousands of instructions
# in UTF-8, and as many DFA states built per search): such bounds are lifted where the paste allows.
MIN_LIFTED = 32
_COUNTED = re.compile(r"\{(\d+),(\d+)\}")
_DOT_NL = re.compile(r"\(\?[imsU-]*s[imsU-]*[:)]")  # a flag group that may let '.' match a newline


class Bound(NamedTuple):
    """A counted repetition ``C{low,high}`` of one character class ``C`` in a pattern: ``span`` is
    where its ``{low,high}`` is. ``in_line``: ``C`` cannot match a newline, so no run of it is longer
    than the paste's longest line (else than the paste)."""

    span: tuple[int, int]
    low: int
    high: int
    in_line: bool


class RegexCache:
    """Compiled regexes, the least recently used dropped once their estimated memory passes ``budget``.

    An RE2 object's memory is its programs plus the DFA states a search builds, so its cost is
    estimated from its program size; ``info()`` shows the size and the evictions (flat on a
    long run when the hot set fits). A key is an entry's index and which of its bounds are lifted."""

    def __init__(self, compile_one: Callable[[tuple[int, int]], re2._Regexp | None], budget: int) -> None:
        self._compile = compile_one
        self._items: OrderedDict[tuple[int, int], tuple[re2._Regexp | None, int]] = OrderedDict()
        self.budget = budget
        self.bytes = 0
        self.compiled = 0
        self.evictions = 0

    def __call__(self, key: tuple[int, int]) -> re2._Regexp | None:
        item = self._items.get(key)
        if item is not None:
            self._items.move_to_end(key)
            return item[0]
        regex = self._compile(key)
        self.compiled += 1
        cost = REGEX_BASE_BYTES + (REGEX_BYTES_PER_INST * regex.programsize if regex is not None else 0)
        self._items[key] = (regex, cost)
        self.bytes += cost
        while self.bytes > self.budget and len(self._items) > 1:
            _, (_, dropped) = self._items.popitem(last=False)
            self.bytes -= dropped
            self.evictions += 1
        return regex

    def info(self) -> dict[str, int]:
        return {"regexes": len(self._items), "bytes": self.bytes, "budget": self.budget,
                "compiled": self.compiled, "evictions": self.evictions}


def syntax_error(pattern: str) -> str | None:
    """RE2's parse error for ``pattern`` (parsing only: cheap, nothing is kept)."""
    options = re2.Options()
    options.log_errors = False
    try:
        re2.Set.SearchSet(options).Add(pattern)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else str(exc)
        return reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
    return None


def counted_bounds(pattern: str) -> tuple[Bound, ...]:
    """The counted repetitions ``C{m,n}`` (n ≥ MIN_LIFTED) of one character class ``C`` in ``pattern``.

    Lifting such a bound (``C{m,}``) changes no match on a text with no run of ``C`` longer than
    ``n``: every way the regex can match there repeats ``C`` at most ``n`` times, so both forms have
    the same matches, preferred in the same order (greedy: more repeats first; lazy: fewer).
    An escape whose reach is unclear (octal, ``\\Q…\\E``, ``\\C``) leaves the pattern as it is."""
    if not any(int(m.group(2)) >= MIN_LIFTED for m in _COUNTED.finditer(pattern)):
        return ()
    found: list[Bound] = []
    atom: tuple[int, int] | None = None  # the single-character item just read
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            nxt = pattern[i + 1 : i + 2]
            if nxt in ("p", "P", "x"):
                braced = pattern[i + 2 : i + 3] == "{"
                end = pattern.find("}", i) + 1 if braced else i + (3 if nxt in "pP" else 4)
            elif nxt.isalnum() and nxt not in "dDsSwWntrfvabBAz":
                return ()
            else:
                end = i + 2
            atom = None if nxt in ("b", "B", "A", "z") else (i, end)
            i = end
        elif c == "[":
            end = _class_end(pattern, i)
            if end < 0:
                return ()
            atom, i = (i, end), end
        elif c == "{" and (m := _COUNTED.match(pattern, i)) is not None and atom is not None and atom[1] == i:
            low, high = int(m.group(1)), int(m.group(2))
            if high >= MIN_LIFTED:
                found.append(Bound(m.span(), low, high, not _may_match_newline(pattern, pattern[atom[0] : atom[1]])))
            atom, i = None, m.end()
        else:
            atom = None if c in "()|*+?^${}" else (i, i + 1)
            i += 1
    return tuple(found)


def _class_end(pattern: str, start: int) -> int:
    """The offset just past the character class opening at ``start`` (-1 when it does not close)."""
    i = start + 1
    if pattern[i : i + 1] == "^":
        i += 1
    if pattern[i : i + 1] == "]":  # a leading ']' is a literal
        i += 1
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
        elif pattern.startswith("[:", i):
            close = pattern.find(":]", i + 2)
            i = close + 2 if close >= 0 else i + 1
        elif pattern[i] == "]":
            return i + 1
        else:
            i += 1
    return -1


def _may_match_newline(pattern: str, atom: str) -> bool:
    if atom == "." and _DOT_NL.search(pattern):
        return True
    try:
        return compile_regex(atom).search("\n") is not None
    except re2.error:
        return True
