"""Find the KB entries a paste is about.

Every entry's regex goes into one RE2 set, so a paste is scanned once in linear time however many
entries there are; only the entries the set reports are searched again to locate their span.
When no regex matches but the paste clearly carries an error line, a fuzzy comparison of that
line against every signature and alias is tried instead.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import re2
from rapidfuzz import fuzz, process

from bot.kb.entry import Entry, compile_regex
from bot.kb.normalize import Normalized, normalize, strip_log_prefix
from bot.kb.ranking import SEVERITY_RANK, Hit, cause_map, rank
from bot.kb.versions import applies, parse_constraints, revealed_versions

# RE2's budget for the whole set; sized so 50,000 entry regexes compile and match without the DFA
# running out of memory (which RE2 would report as "no match").
SET_MAX_MEM = 2 << 30
FUZZY_THRESHOLD = 0.82
MAX_FUZZY_LINES = 12

# Lines that announce an error even when no regex knows it: they gate the fuzzy fallback, so chat
# that merely talks about errors stays silent.
_ERROR_LINE = re.compile(
    r"""^(?:
        (?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Fault|Failure)(?::\s|:$|$)
      | Exception\ in\ thread\x20
      | Caused\ by:\x20
      | FATAL(?:\ ERROR)?[:\]\s]
      | (?:fatal|error|panic)(?:\[E\d{4}\])?:\x20
      | npm\ (?:ERR!|error)\x20
      | .*\bld\ returned\ \d+\ exit\ status
      | .*\b(?:E|ERROR)\ \d{4}\b
    )""",
    re.VERBOSE,
)
_FRAME_LINE = re.compile(r'^\s+(?:File "[^"]*", line \d+|at [\w$.<>/]+\(|\d+: 0x[0-9a-f]+)')
_PY_FRAME = re.compile(r'^\s+File "[^"]*", line \d+')
_DIGITS = re.compile(r"\d+")


class MatcherError(Exception):
    """The KB's regexes could not be compiled into one set (names the entry)."""


@dataclass(frozen=True)
class Match:
    """One entry found in a paste."""

    entry_id: str
    how: str  # "regex" | "fuzzy"
    score: float
    span: tuple[int, int]  # offsets into the paste as given
    line: str  # the plain-text line that matched
    in_frame: bool = False
    version_fits: bool = True  # False when the paste shows a version the entry does not apply to


class Matcher:
    """All entry regexes compiled once; ``match`` ranks the entries a paste is about."""

    def __init__(self, entries: Mapping[str, Entry]) -> None:
        self._ids: list[str] = []
        self._patterns: list[str] = []
        options = re2.Options()
        options.log_errors = False
        options.max_mem = SET_MAX_MEM
        self._set = re2.Set.SearchSet(options)
        for entry in entries.values():
            try:
                index = self._set.Add(entry.regex)
            except re2.error as exc:
                raise MatcherError(f"{entry.source or entry.id}: regex: RE2 cannot compile it ({exc})") from exc
            if index != len(self._ids):
                raise MatcherError(f"{entry.id}: RE2 set index out of step")
            self._ids.append(entry.id)
            self._patterns.append(entry.regex)
        self._constraints = {e.id: parse_constraints(e.versions) for e in entries.values() if e.versions}
        self._severity = {e.id: SEVERITY_RANK[e.severity] for e in entries.values()}
        self._causes = cause_map({e.id: (e.links("leads_to"), e.links("preceded_by")) for e in entries.values()})
        if self._ids:
            try:
                self._set.Compile()
            except re2.error as exc:
                raise MatcherError(
                    f"RE2 could not compile the set of {len(self._ids)} regexes within its memory budget"
                ) from exc
        self._fuzzy_choices: list[str] = []
        self._fuzzy_owner: list[str] = []
        for entry in entries.values():
            for text in (entry.signature, *entry.aliases):
                if text.strip():
                    self._fuzzy_choices.append(_fuzzy_key(text))
                    self._fuzzy_owner.append(entry.id)
        self._compiled = lru_cache(maxsize=4096)(compile_regex)

    def __len__(self) -> int:
        return len(self._ids)

    def match(self, paste: str | Normalized, limit: int = 5) -> list[Match]:
        """The entries ``paste`` is about, best first: regex hits, else fuzzy ones, else []."""
        plain = paste if isinstance(paste, Normalized) else normalize(paste)
        hits = self._regex_hits(plain)
        if not hits:
            hits = self._fuzzy_hits(plain)
        return hits[:limit]

    def _regex_hits(self, plain: Normalized) -> list[Match]:
        if not self._ids or not plain.text:
            return []
        hits: list[Hit] = []
        revealed: dict | None = None
        for index in self._set.Match(plain.text) or ():
            best = self._best_occurrence(self._patterns[index], plain)
            if best is None:
                continue
            start, end, in_frame = best
            entry_id = self._ids[index]
            fits = True
            if entry_id in self._constraints:
                revealed = revealed_versions(plain.text) if revealed is None else revealed
                fits = applies(self._constraints[entry_id], revealed)
            hits.append(Hit(entry_id, start, end, in_frame, fits, self._severity[entry_id]))
        return [Match(h.entry_id, "regex", 1.0, plain.original_span(h.start, h.end), plain.line_at(h.start),
                      h.in_frame, h.version_fits) for h in rank(hits, plain.text, self._causes)]

    def _best_occurrence(self, pattern: str, plain: Normalized) -> tuple[int, int, bool] | None:
        best: tuple[bool, int, int, int, int] | None = None
        for m in self._compiled(pattern).finditer(plain.text):
            start, end = m.span()
            # A hit that runs on past the frames into the raised error's line is not "in a frame".
            in_frame = _in_frame(plain.text, start) and _in_frame(plain.text, max(start, end - 1))
            key = (not in_frame, end - start, start, start, end)
            if best is None or key > best:
                best = key
            if end == start:
                break
        if best is None:
            return None
        return best[3], best[4], not best[0]

    def _fuzzy_hits(self, plain: Normalized) -> list[Match]:
        if not self._fuzzy_choices:
            return []
        lines = _error_lines(plain.text)
        best: dict[str, Match] = {}
        for start, line in lines:
            query = _fuzzy_key(line)
            for _choice, score, index in process.extract(
                query, self._fuzzy_choices, scorer=_fuzzy_score, limit=3, score_cutoff=FUZZY_THRESHOLD * 100
            ):
                entry_id = self._fuzzy_owner[index]
                found = Match(entry_id, "fuzzy", round(score / 100, 3),
                              plain.original_span(start, start + len(plain.line_at(start))), plain.line_at(start))
                if entry_id not in best or found.score > best[entry_id].score:
                    best[entry_id] = found
        return sorted(best.values(), key=lambda m: (m.score, m.span[0]), reverse=True)


def _fuzzy_key(text: str) -> str:
    return _DIGITS.sub("0", text.strip().lower())[:300]


def _fuzzy_score(query: str, choice: str, score_cutoff: float = 0, **_: object) -> float:
    """Similarity of an error line to a signature: whole-string and word-order-free ratios agree."""
    whole = fuzz.ratio(query, choice)
    words = fuzz.token_sort_ratio(query, choice)
    score = (whole + words) / 2
    return score if score >= score_cutoff else 0.0


def _in_frame(text: str, pos: int) -> bool:
    """Whether ``pos`` lies in a stack frame line (or the source line Python prints under one)."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    line = text[start : end if end != -1 else len(text)]
    if _FRAME_LINE.match(line):
        return True
    if start >= 1 and line.startswith("    "):
        prev_start = text.rfind("\n", 0, start - 1) + 1
        return bool(_PY_FRAME.match(text[prev_start : start - 1]))
    return False


def _error_lines(text: str) -> list[tuple[int, str]]:
    """(offset, line) of the lines that announce an error, the last ones first (the raised error)."""
    found: list[tuple[int, str]] = []
    offset = 0
    for raw in text.split("\n"):
        line = strip_log_prefix(raw)
        if line and len(line) < 500 and _ERROR_LINE.match(line):
            found.append((offset, line))
        offset += len(raw) + 1
    return found[::-1][:MAX_FUZZY_LINES]
