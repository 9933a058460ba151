"""The literal text an RE2 pattern cannot match without: its required literals.

``required_literals(p)`` returns case-folded strings, at least one of which occurs (case-folded)
in every text ``p`` matches — or ``None`` when no such set is worth using (the pattern is then
always tried). The matcher scans a paste once for all entries' literals and runs only the
regexes whose literal occurred, which is what lets 50,000 entries compile in bounded memory.

The pattern is parsed with Python's own regex parser after rewriting the few RE2-only forms
(``\\pL``, ``[[:alpha:]]``, ``\\Q…\\E``, ``\\x{…}``) into ones that parse and match no less.
``literal_words`` gives the literal text of a pattern for the retrieval fallback.
"""

from __future__ import annotations

import re
import re._constants as sre_c
import re._parser as sre_parse

MIN_LITERAL = 4  # a literal shorter than this occurs in too many pastes to be worth filtering on
MAX_ALTERNATIVES = 48
MAX_LENGTH = 80

_RE2_ONLY = re.compile(
    r"\\[pP](?:\{[^}]*\}|\w)|\[:\^?[a-z]+:\]|\\x\{[0-9A-Fa-f]+\}|\\C|\\Q(.*?)(?:\\E|$)|\\z|\(\?<(?=\w)", re.S
)
_Info = tuple[frozenset[str] | None, frozenset[str] | None]  # (exact strings, required OR-set)


def _to_python(pattern: str) -> str:
    def swap(m: re.Match) -> str:
        text = m.group(0)
        if text.startswith("\\Q"):
            return re.escape(m.group(1) or "")
        if text == "\\z":
            return "\\Z"
        if text == "(?<":
            return "(?P<"
        if text == "\\C":
            return "."
        return "\\w"  # a class of characters: never a literal

    return _RE2_ONLY.sub(swap, pattern)


def required_literals(pattern: str) -> frozenset[str] | None:
    """Case-folded strings one of which every match of ``pattern`` contains, or None."""
    try:
        tree = sre_parse.parse(_to_python(pattern))
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    try:
        exact, required = _sequence(list(tree))
    except _Unsupported:
        return None
    best = _better(exact, required)
    if best is None or min(map(len, best)) < MIN_LITERAL:
        return None
    # a string that contains another alternative adds nothing: the shorter one occurs whenever it does
    return frozenset(s for s in best if not any(o != s and o in s for o in best))


class _Unsupported(Exception):
    """A construct RE2 does not have (lookaround, backreference): do not filter on it."""


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    def score(s: frozenset[str] | None) -> tuple[int, int]:
        if not s or "" in s:
            return (-1, 0)
        return (min(len(x) for x in s), -len(s))

    best = a if score(a) >= score(b) else b
    return best if best and "" not in best else None


def _cross(a: frozenset[str], b: frozenset[str]) -> frozenset[str] | None:
    if len(a) * len(b) > MAX_ALTERNATIVES:
        return None
    out = frozenset(x + y for x in a for y in b)
    return out if all(len(x) <= MAX_LENGTH for x in out) else None


def _sequence(items: list) -> _Info:
    run: frozenset[str] | None = frozenset({""})
    best: frozenset[str] | None = None
    whole_exact = True
    for op, av in _runs(items):
        exact, required = (frozenset({av}), frozenset({av})) if op is _RUN else _item(op, av)
        joined = _cross(run, exact) if run is not None and exact is not None else None
        if joined is not None:
            run = joined
            continue
        whole_exact = False
        best = _better(best, run)
        if exact is not None:
            run = exact
        else:
            best = _better(best, required)
            run = frozenset({""})
    best = _better(best, run)
    return (run if whole_exact else None), best


_RUN = object()  # a run of literal characters, already joined and case-folded


def _runs(items: list) -> list:
    out: list = []
    chars: list[str] = []
    for op, av in items:
        if op is sre_c.LITERAL:
            chars.append(chr(av))
            continue
        if chars:
            out.append((_RUN, "".join(chars).casefold()[:MAX_LENGTH]))
            chars = []
        out.append((op, av))
    if chars:
        out.append((_RUN, "".join(chars).casefold()[:MAX_LENGTH]))
    return out


def _item(op, av) -> _Info:
    if op is sre_c.LITERAL:
        char = chr(av).casefold()
        return frozenset({char}), frozenset({char})
    if op is sre_c.AT:
        return frozenset({""}), None
    if op is sre_c.SUBPATTERN:
        return _sequence(list(av[-1]))
    if op is sre_c.IN:
        chars = [chr(v).casefold() for kind, v in av if kind is sre_c.LITERAL]
        if len(chars) == len(av) and 0 < len(set(chars)) <= 4:
            return frozenset(chars), frozenset(chars)
        return None, None
    if op is sre_c.BRANCH:
        infos = [_sequence(list(branch)) for branch in av[1]]
        exact: frozenset[str] | None = frozenset()
        required: frozenset[str] | None = frozenset()
        for e, r in infos:
            exact = exact | e if exact is not None and e is not None else None
            choice = _better(e, r)
            required = required | choice if required is not None and choice is not None else None
        if exact is not None and len(exact) > MAX_ALTERNATIVES:
            exact = None
        if required is not None and len(required) > MAX_ALTERNATIVES:
            required = None
        return exact, required
    if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)):
        low, high, sub = av
        exact, required = _sequence(list(sub))
        if low == 0:
            if high == 1 and exact is not None and len(exact) < MAX_ALTERNATIVES:
                return exact | {""}, None
            return None, None
        if low == high == 1:
            return exact, required
        return None, _better(exact, required)
    if op in (sre_c.GROUPREF, sre_c.GROUPREF_EXISTS, sre_c.ASSERT, sre_c.ASSERT_NOT):
        raise _Unsupported
    return None, None  # ANY, NOT_LITERAL, CATEGORY, …


_WORD = re.compile(r"[^\W\d_]{2,}|[^\W_]*\d[^\W_]*", re.UNICODE)


def literal_words(pattern: str) -> str:
    """The literal runs of ``pattern`` joined by spaces (for word-based retrieval)."""
    try:
        tree = sre_parse.parse(_to_python(pattern))
    except (re.error, RecursionError, OverflowError, ValueError):
        return ""
    out: list[str] = []
    _collect(list(tree), out)
    return " ".join(x for x in out if x.strip())


def _collect(items: list, out: list[str]) -> None:
    run: list[str] = []
    for op, av in items:
        if op is sre_c.LITERAL:
            run.append(chr(av))
            continue
        out.append("".join(run))
        run = []
        if op is sre_c.SUBPATTERN:
            _collect(list(av[-1]), out)
        elif op is sre_c.BRANCH:
            for branch in av[1]:
                _collect(list(branch), out)
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            _collect(list(av[2]), out)
        elif op is sre_c.IN:
            out.append(" ")
    out.append("".join(run))
