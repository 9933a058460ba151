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
from dataclasses import dataclass

MIN_LITERAL = 4  # a literal shorter than this occurs in too many pastes to be worth filtering on
MAX_ALTERNATIVES = 48
MAX_LENGTH = 80
MAX_USEFUL = 16  # past this length a literal is rare enough: fewer alternatives count more

_RE2_ONLY = re.compile(
    r"\\[pP](?:\{[^}]*\}|\w)|\[:\^?[a-z]+:\]|\\x\{[0-9A-Fa-f]+\}|\\C|\\Q(.*?)(?:\\E|$)|\\z|\(\?<(?=\w)", re.S
)
_FLAGS = re.compile(r"(?<!\\)\(\?[imsU]+\)")
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

    # RE2 takes (?m) anywhere; Python only at the start. Flags change no literal (all are case-folded).
    return _FLAGS.sub("", _RE2_ONLY.sub(swap, pattern))


@dataclass(frozen=True)
class Analysis:
    """What one parse of a pattern tells: every set of literals a match must contain one of (each
    set alone is enough to filter on; the matcher picks the rarest), and its literal words.

    ``branches``: for a pattern that is one alternation (``A|B|C``), each alternative's own such sets.
    ``options`` can join only one set per alternative, chosen by length here; the matcher, which knows
    how many entries share each literal, joins each alternative's rarest instead (``A`` may end in
    `` does not exist`` like many messages, and name its package first, like none)."""

    options: tuple[frozenset[str], ...]
    words: str
    branches: tuple[tuple[frozenset[str], ...], ...] = ()


def analyze(pattern: str) -> Analysis:
    try:
        tree = list(sre_parse.parse(_to_python(pattern)))
    except (re.error, RecursionError, OverflowError, ValueError):
        return Analysis((), "")
    runs: list[str] = []
    _collect(tree, runs)
    words = " ".join(x for x in runs if x.strip())
    found: list[frozenset[str]] = []
    try:
        exact, required = _sequence(tree, found)
    except _Unsupported:
        return Analysis((), words)
    found.extend(s for s in (exact, required) if s)
    return Analysis(_usable(found), words, _branches(tree))


def _usable(found: list[frozenset[str]]) -> tuple[frozenset[str], ...]:
    options = []
    for option in dict.fromkeys(found):
        if "" in option or not all(map(_long_enough, option)):
            continue
        # a string that contains another alternative adds nothing: the shorter one occurs whenever it does
        options.append(frozenset(s for s in option if not any(o != s and o in s for o in option)))
    return tuple(dict.fromkeys(options))


def _branches(tree: list) -> tuple[tuple[frozenset[str], ...], ...]:
    """Each alternative's required sets when the whole pattern is one alternation (in a group or not);
    () otherwise, or when an alternative has none."""
    while len(tree) == 1 and tree[0][0] is sre_c.SUBPATTERN:
        tree = list(tree[0][1][-1])
    # Python's parser moves the alternatives' common first characters out in front of them
    prefix = tree[:-1]
    if not tree or tree[-1][0] is not sre_c.BRANCH or any(op is not sre_c.LITERAL for op, _av in prefix):
        return ()
    out = []
    for branch in tree[-1][1][1]:
        found: list[frozenset[str]] = []
        try:
            exact, required = _sequence([*prefix, *branch], found)
        except _Unsupported:
            return ()
        sets = _usable([*found, *(s for s in (exact, required) if s)])
        if not sets:
            return ()
        out.append(sets)
    return tuple(out)


def required_literals(pattern: str) -> frozenset[str] | None:
    """The best single set of case-folded strings one of which every match contains, or None."""
    options = analyze(pattern).options
    return max(options, key=_score) if options else None


def _long_enough(literal: str) -> bool:
    # two CJK characters are as telling as four Latin ones
    return len(literal) >= MIN_LITERAL or (len(literal) >= 2 and not literal.isascii())


def _score(s: frozenset[str]) -> tuple[int, int]:
    return (min(MAX_USEFUL, *(len(x) for x in s)), -len(s))


class _Unsupported(Exception):
    """A construct RE2 does not have (lookaround, backreference): do not filter on it."""


def _better(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    def score(s: frozenset[str] | None) -> tuple[int, int]:
        if not s or "" in s:
            return (-1, 0)
        return (min(MAX_USEFUL, *(len(x) for x in s)), -len(s))

    best = a if score(a) >= score(b) else b
    return best if best and "" not in best else None


def _cross(a: frozenset[str], b: frozenset[str]) -> frozenset[str] | None:
    if len(a) * len(b) > MAX_ALTERNATIVES:
        return None
    out = frozenset(x + y for x in a for y in b)
    return out if all(len(x) <= MAX_LENGTH for x in out) else None


def _sequence(items: list, found: list[frozenset[str]] | None = None) -> _Info:
    """(exact strings, best required set) of a sequence; ``found`` collects every required set seen."""
    run: frozenset[str] | None = frozenset({""})
    best: frozenset[str] | None = None
    whole_exact = True
    exact: frozenset[str] | None
    required: frozenset[str] | None
    for op, av in _runs(items):
        if op is _RUN:  # a run of plain text is required on its own, whatever it is joined to
            text: frozenset[str] = frozenset({av})
            exact, required = text, text
            best = _better(best, text)
            if found is not None:
                found.append(text)
        else:
            exact, required = _item(op, av)
        joined = _cross(run, exact) if run is not None and exact is not None else None
        if joined is not None:
            run = joined
            continue
        whole_exact = False
        best = _better(best, run)
        if found is not None:
            found.extend(s for s in (run, None if exact is not None else required) if s)
        if exact is not None:
            run = exact
        else:
            best = _better(best, required)
            run = frozenset({""})
    best = _better(best, run)
    if found is not None and run:
        found.append(run)
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


def literal_words(pattern: str) -> str:
    """The literal runs of ``pattern`` joined by spaces (for word-based retrieval)."""
    return analyze(pattern).words


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
