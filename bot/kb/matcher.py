"""Find the KB entries a paste is about.

A paste is scanned once, case-folded, by one Aho-Corasick automaton holding every entry's required
literals (:mod:`bot.kb.literals`); only the entries whose literal occurred run their RE2 regex, so
the work per paste tracks what it contains, not how large the KB is, and memory stays bounded at
50,000 entries (each regex is compiled when it is first needed, within its own RE2 budget, and
kept in a bounded cache). Regexes without a usable literal are tried on every paste. A counted
repetition of one character class that no run in the paste can outgrow (``[^\\n]{1,300}`` on a
paste whose lines are shorter) is searched in its unbounded form, which matches the same and costs
a fraction to compile and search (``bot.kb.regexes.counted_bounds``). Hits are ordered by :mod:`bot.kb.ranking`.
When no regex hits, :mod:`bot.kb.fallback` may still name an
entry from the paste's error lines, with a calibrated confidence.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import ahocorasick
import re2

from bot.errors import SeedError
from bot.kb.announce import consequence, troubled, unexplained
from bot.kb.entry import Entry, Problem, compile_regex
from bot.kb.fallback import MIN_CONFIDENCE, Fallback, error_lines
from bot.kb.literals import MAX_ALTERNATIVES, Analysis, analyze
from bot.kb.normalize import Normalized, normalize
from bot.kb.ranking import SEVERITY_RANK, Hit, cause_map, on_quiet_line, on_warning_line, rank, severity_name
from bot.kb.regexes import Bound, RegexCache, counted_bounds, syntax_error
from bot.kb.versions import parse_constraints

# Compiled regexes are kept within this much (estimated) memory: the whole bundled KB fits, with room to grow.
# A hot set larger than the budget makes the least-recently-used cache recompile on every paste.
COMPILED_BUDGET = 192 << 20
# A regex validated within entry.REGEX_MAX_MEM may search with more: a counted repetition such as
# [\s\S]{0,400} needs a larger DFA cache, without which RE2 falls back to its NFA (100x slower).
# The DFA grows only as far as searches take it.
MATCH_MAX_MEM = 8 << 20
MAX_KEY = 20  # characters of a required literal the prefilter keys it by (its rarest such part)
MAX_OPTIONS = 3  # literal sets of one entry that must all occur before its regex runs
MAX_UNFILTERED = 2000  # regexes without a required literal that may be tried on every paste
_FRAME_LINE = re.compile(r'^\s+(?:File "[^"]*", line \d+|at [\w$.<>/]+\(|\d+: 0x[0-9a-f]+)')
_PY_FRAME = re.compile(r'^\s+File "[^"]*", line \d+')
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_WORD_START = re.compile(r"(?<=\W)\w")
_WORD_END = re.compile(r"\w\b")


class MatcherError(SeedError):
    """The KB's regexes cannot be made into a matcher; one problem names the file or the cause."""

    def __init__(self, file: str, message: str) -> None:
        super().__init__([Problem(file, "regex", message)])


@dataclass(frozen=True)
class Match:
    """One entry found in a paste."""

    entry_id: str
    how: str  # "regex" | "fuzzy" (the retrieval fallback)
    score: float  # 1.0 for a regex hit; the calibrated confidence for a fallback answer
    span: tuple[int, int]  # offsets into the paste as given
    line: str  # the plain-text line that matched
    in_frame: bool = False
    version_fits: bool = True  # False when the paste shows a version the entry does not apply to
    severity: str = "error"  # "warning" for a warning entry or an error logged at warning level; "info"
    fits: tuple[int, ...] = ()  # per workaround index, how its condition stands against the paste (kb.fit.Fit)


class Matcher:
    """Every entry's regex behind one literal prefilter; ``match`` ranks the entries a paste is about.

    A Matcher pickles without its entries or compiled regexes (what :mod:`bot.kb.knowledge`
    keeps in the KB snapshot); :meth:`attach` gives a loaded one its entries back."""

    def __init__(self, entries: Mapping[str, Entry], analyses: dict[str, Analysis] | None = None) -> None:
        """``analyses``: literal analyses by pattern from an earlier build, reused (analysing is most of
        the build); on return it holds this build's, so a KB snapshot re-analyses only edited regexes."""
        known = analyses if analyses is not None else {}
        self._ids: list[str] = []
        self._patterns: list[str] = []
        self._unfiltered: list[int] = []
        self._severity: list[float] = []
        self._constraints: dict[int, tuple] = {}
        self._bounds: dict[int, tuple[Bound, ...]] = {}  # the entries whose regex has bounds to lift
        links: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        found_list: list[Analysis] = []
        for index, entry in enumerate(entries.values()):  # one pass: a packed entry is read once
            regex = entry.regex
            if (reason := syntax_error(regex)) is not None:
                raise MatcherError(entry.source or entry.id, f"RE2 cannot compile it ({reason})")
            self._ids.append(entry.id)
            self._patterns.append(regex)
            self._severity.append(SEVERITY_RANK[entry.severity])
            if versions := entry.versions:
                self._constraints[index] = tuple(parse_constraints(versions))
            if lifted := counted_bounds(regex):
                self._bounds[index] = lifted
            links[entry.id] = (entry.links("leads_to"), entry.links("preceded_by"))
            found = known.get(regex)
            found_list.append(found if isinstance(found, Analysis) else analyze(regex))
        # Filter each regex on its rarest literal set: the fewer entries share a literal, the fewer
        # regexes one occurrence makes the matcher run.
        if analyses is not None:
            analyses.clear()
            analyses.update(zip(self._patterns, found_list, strict=True))
        shared = Counter(lit for a in found_list for lit in {lit for option in (*a.options, *_branch_sets(a))
                                                              for lit in option})
        # Each literal set alone is required, so a regex can match only where all of them occur:
        # up to MAX_OPTIONS of an entry's rarest sets are checked together (the entry's bit mask).
        automaton = ahocorasick.Automaton()
        self._full: list[int] = []
        # a long literal is keyed by its MAX_KEY characters that the fewest entries' literals also hold
        windows = {lit: _windows(lit) for lit in shared if len(lit) > MAX_KEY}
        held: Counter[str] = Counter()
        for lit, found_windows in windows.items():
            for window in found_windows:
                held[window] += shared[lit]
        keys = {lit: min(found_windows, key=lambda w: held[w]) for lit, found_windows in windows.items()}

        def rarity(option: frozenset[str]) -> tuple[int, int]:
            return sum(shared[lit] for lit in option), -min(map(len, option))

        for index, analysis in enumerate(found_list):
            joined = frozenset(lit for sets in analysis.branches for lit in min(sets, key=rarity))
            extra = (joined,) if analysis.branches and len(joined) <= MAX_ALTERNATIVES else ()
            options = sorted(dict.fromkeys((*analysis.options, *extra)), key=rarity)
            self._full.append((1 << min(len(options), MAX_OPTIONS)) - 1)
            if not options:
                self._unfiltered.append(index)
                continue
            for bit, option in enumerate(options[:MAX_OPTIONS]):
                # any part of a required literal is required too: the automaton keeps MAX_KEY characters
                # of it, which tell entries apart as well and cost a fraction of the memory
                for literal in {keys.get(lit, lit) for lit in option}:
                    owners = automaton.get(literal, ())
                    code = index * 8 + bit
                    if code not in owners:
                        automaton.add_word(literal, (*owners, code))
        if len(self._unfiltered) > MAX_UNFILTERED:
            raise MatcherError("seeds", f"{len(self._unfiltered)} regexes have no literal of 4 or more characters to "
                                        f"filter on (at most {MAX_UNFILTERED} can be tried on every paste)")
        if len(automaton):
            automaton.make_automaton()
        self._automaton = automaton
        self._severity_of = dict(zip(self._ids, self._severity, strict=True))
        self._causes = cause_map(links)
        self._words = [a.words for a in found_list]  # the fallback's index reads them
        self._init()
        self.attach(entries)

    def _init(self) -> None:
        self.unusable: set[str] = set()  # entries whose regex could not be compiled when needed
        self._compiled = RegexCache(self._compile, COMPILED_BUDGET)
        self._ahead = 0  # the regexes before this one were compiled ahead of need (warm)
        self._entries: Mapping[str, Entry] | None = None
        self._fallback_index: Fallback | None = None
        self._fallback_cache: Callable[[Callable[[], Fallback]], Fallback] | None = None
        self._index_of: dict[str, int] | None = None  # entry id → index, built when a warning is weighed

    def attach(self, entries: Mapping[str, Entry],
               fallback_cache: Callable[[Callable[[], Fallback]], Fallback] | None = None) -> None:
        """The entries this matcher was built from, for the fallback's index (built on first use;
        ``fallback_cache(build)`` may return a kept one instead of building it)."""
        self._entries = entries
        self._fallback_cache = fallback_cache

    def __getstate__(self) -> dict[str, Any]:
        keep = ("_ids", "_patterns", "_unfiltered", "_severity", "_constraints", "_bounds", "_full", "_automaton",
                "_severity_of", "_causes", "_words")
        return {name: self.__dict__[name] for name in keep}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init()

    def __len__(self) -> int:
        return len(self._ids)

    def cache_info(self) -> dict[str, int]:
        """The compiled-regex cache: regexes and estimated bytes kept, the budget, compiles and evictions."""
        return self._compiled.info()

    def _compile(self, key: tuple[int, int]) -> re2._Regexp | None:
        """The entry's regex with the bounds in the ``key``'s mask lifted, or None when it does not
        compile within its budget (validation reports that entry; the matcher goes on without it)."""
        index, lifted = key
        pattern = self._patterns[index]
        for bit, bound in reversed(list(enumerate(self._bounds.get(index, ())))):
            if lifted >> bit & 1:
                pattern = f"{pattern[:bound.span[0]]}{{{bound.low},}}{pattern[bound.span[1]:]}"
        try:
            return compile_regex(pattern, MATCH_MAX_MEM)
        except re2.error:
            self.unusable.add(self._ids[index])
            return None

    def warm(self, count: int = 20) -> bool:
        """Compile up to ``count`` more regexes ahead of need, in KB order, as pastes will want them (bounds
        kept, and lifted); True once all are, or the cache holds half its budget (what is left is kept for
        the regexes pastes ask for)."""
        for _ in range(count):
            if self._ahead >= len(self._ids) or self._compiled.bytes >= self._compiled.budget // 2:
                return True
            index = self._ahead
            self._ahead += 1
            self._compiled((index, 0))
            if bounds := self._bounds.get(index):
                self._compiled((index, (1 << len(bounds)) - 1))
        return self._ahead >= len(self._ids)

    def candidates(self, text: str) -> list[int]:
        """Indices of the entries whose required literal occurs in ``text`` (plus the unfiltered)."""
        found: set[int] = set(self._unfiltered)
        if len(self._automaton):
            seen: set[tuple[int, ...]] = set()
            met: dict[int, int] = {}
            for _end, owners in self._automaton.iter(text.casefold()):
                if owners not in seen:
                    seen.add(owners)
                    for code in owners:
                        met[code >> 3] = met.get(code >> 3, 0) | 1 << (code & 7)
            found.update(index for index, mask in met.items() if mask == self._full[index])
        return sorted(found)

    def match(self, paste: str | Normalized, limit: int = 5) -> list[Match]:
        """The entries ``paste`` is about, best first.

        Regex hits and confident fallback answers are ranked together; a fallback answer is only
        looked for on error lines after the last regex hit (or anywhere when no regex hit is an
        error), never on a line that only reports a failure (``error: command 'clang' failed with exit
        code 1`` resembles every wrapper), and it never beats a regex hit of the same incident."""
        plain = paste if isinstance(paste, Normalized) else normalize(paste)
        hits = self._hits(plain)
        after = max((h.end for h in hits if h.severity >= SEVERITY_RANK["error"]), default=0)
        found = {h.entry_id for h in hits}
        guesses = self.fallback.guess(plain.text, after=after, sure=True) if error_lines(plain.text, after) else []
        for guess in guesses:
            if guess.confidence < MIN_CONFIDENCE:
                break
            if guess.entry_id not in found and not consequence(guess.line):  # a report names no error to resemble
                found.add(guess.entry_id)
                end = guess.start + len(plain.line_at(guess.start))
                hits.append(Hit(guess.entry_id, guess.start, end, False, True, self._severity_of[guess.entry_id],
                                guess.confidence))
        ranked = rank(hits, plain.text, self._causes, lambda hit: self._reports(hit, plain))
        if ranked and self._unknown_error(ranked, plain):
            return []
        return [self._as_match(h, plain) for h in ranked[:limit]]

    def _unknown_error(self, ranked: list[Hit], plain: Normalized) -> bool:
        """Whether the best hit would answer the wrong thing (unknown means unknown, ``bot.kb.announce``): a
        line that only reports an earlier failure while the paste holds an error line no hit explains, or a
        warning entry while another line of the paste says something went wrong, or an error entry on a line the
        paste logs at info or debug level."""
        top = ranked[0]
        error = SEVERITY_RANK["error"]
        if self._reports(top, plain):
            regexes = [r for r in map(self._regex_of, (h.entry_id for h in ranked)) if r is not None]
            return unexplained(plain.text, [(h.start, h.end, h.severity >= error and self._severity_of[h.entry_id]
                                             >= error and not self._reports(h, plain))
                                            for h in ranked],
                               lambda line: any(r.search(line) for r in regexes)) is not None
        if self._severity_of[top.entry_id] >= error:
            # an error entry on a line the paste logs at info or debug level: the program says nothing failed there
            return on_quiet_line(plain.text, top.start)
        warnings = [h for h in ranked if self._severity_of[h.entry_id] < error]
        regexes = [r for r in map(self._regex_of, (h.entry_id for h in warnings)) if r is not None]
        return troubled(plain.text, [(h.start, h.end) for h in warnings],
                        lambda line: any(r.search(line) for r in regexes)) is not None

    @staticmethod
    def _reports(hit: Hit, plain: Normalized) -> bool:
        """Whether ``hit`` only reports an earlier failure: words of its line that say so reach into it."""
        start = plain.text.rfind("\n", 0, hit.start) + 1
        return consequence(plain.line_at(hit.start), hit.start - start)

    def _regex_of(self, entry_id: str) -> re2._Regexp | None:
        if self._index_of is None:
            self._index_of = {entry: index for index, entry in enumerate(self._ids)}
        index = self._index_of.get(entry_id)
        return None if index is None else self._compiled((index, 0))

    def regex_hits(self, paste: str | Normalized) -> list[Match]:
        """The regex hits alone, ranked (what the fallback is calibrated against)."""
        plain = paste if isinstance(paste, Normalized) else normalize(paste)
        return [self._as_match(h, plain) for h in rank(self._hits(plain), plain.text, self._causes)]

    def _as_match(self, hit: Hit, plain: Normalized) -> Match:
        how = "regex" if hit.confidence is None else "fuzzy"
        return Match(hit.entry_id, how, 1.0 if hit.confidence is None else hit.confidence,
                     plain.original_span(hit.start, hit.end), plain.line_at(hit.start), hit.in_frame,
                     hit.version_fits, severity_name(hit.severity))

    def _hits(self, plain: Normalized) -> list[Hit]:
        if not self._ids or not plain.text:
            return []
        hits: list[Hit] = []
        # RE2 searches UTF-8 bytes far faster than str (no per-call encoding and offset mapping)
        data = plain.text.encode("utf-8")
        chars = _CharOffsets(plain.text)
        runs: tuple[int, int] | None = None  # (longest line, whole text) in characters: what bounds a run
        for index in self.candidates(plain.text):
            lifted = 0
            if bounds := self._bounds.get(index):
                if runs is None:
                    runs = (max(map(len, plain.text.split("\n"))), len(plain.text))
                for bit, bound in enumerate(bounds):
                    if bound.high >= runs[0 if bound.in_line else 1]:
                        lifted |= 1 << bit
            regex = self._compiled((index, lifted))
            best = _best_occurrence(regex, data, plain.text, chars) if regex is not None else None
            if best is None:
                continue
            start, end, in_frame = best
            hits.append(Hit(self._ids[index], start, end, in_frame, True, self._severity[index],
                            constraints=self._constraints.get(index, ())))
        return hits

    @property
    def fallback(self) -> Fallback:
        """The retrieval fallback (its index is built on first use)."""
        if self._fallback_index is None:
            assert self._entries is not None, "a loaded Matcher needs attach(entries) first"
            entries, words = self._entries, self._words

            def build() -> Fallback:
                return Fallback(entries, words)

            self._fallback_index = self._fallback_cache(build) if self._fallback_cache else build()
        return self._fallback_index


def _windows(literal: str) -> list[str]:
    """``MAX_KEY`` characters of a longer literal from each place a word starts and up to each place one
    ends, in order (variants of one message often differ only past their first words, or in a suffix)."""
    last = len(literal) - MAX_KEY
    starts = [0, *(m.start() for m in _WORD_START.finditer(literal)),
              *(m.end() - MAX_KEY for m in _WORD_END.finditer(literal)), last]
    return list(dict.fromkeys(literal[i : i + MAX_KEY] for i in starts if 0 <= i <= last))


def _branch_sets(analysis: Analysis) -> list[frozenset[str]]:
    return [option for sets in analysis.branches for option in sets]


class _CharOffsets:
    """Character offsets of a text's UTF-8 byte offsets (the identity for ASCII text)."""

    def __init__(self, text: str) -> None:
        self._bytes: list[int] = []  # byte offset just past each non-ASCII character
        self._extra: list[int] = []  # extra bytes up to and including it
        extra = 0
        for m in _NON_ASCII.finditer(text):
            extra += len(m.group().encode("utf-8")) - 1
            self._bytes.append(m.start() + extra + 1)
            self._extra.append(extra)

    def __call__(self, byte: int) -> int:
        i = bisect.bisect_right(self._bytes, byte) - 1
        return byte - (self._extra[i] if i >= 0 else 0)


def _best_occurrence(regex: re2._Regexp, data: bytes, text: str, chars: _CharOffsets
                     ) -> tuple[int, int, bool] | None:
    """The occurrence that best stands for the entry: off a stack frame and warning lines, longest, latest."""
    best: tuple[bool, bool, int, int, int, int] | None = None
    for m in regex.finditer(data):
        start, end = chars(m.start()), chars(m.end())
        # A hit that runs on past the frames into the raised error's line is not "in a frame".
        in_frame = _in_frame(text, start) and _in_frame(text, max(start, end - 1))
        key = (not in_frame, not on_warning_line(text, start), end - start, start, start, end)
        if best is None or key > best:
            best = key
        if end == start:
            break
    if best is None:
        return None
    return best[4], best[5], not best[0]


_BARE_RAISE = re.compile(r"^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)\s*$")


def _in_frame(text: str, pos: int) -> bool:
    """Whether ``pos`` lies in a stack frame line (or the source line Python prints under one)."""
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    line = text[start : end if end != -1 else len(text)]
    if _FRAME_LINE.match(line):
        return True
    if start >= 1 and line.startswith("    "):
        prev_start = text.rfind("\n", 0, start - 1) + 1
        previous = text[prev_start : start - 1]
        # the source line Python prints under a frame is indented deeper than the frame; under the last frame,
        # above an exception raised without a message (a failed ``assert``), it is the error's only words
        source = bool(_PY_FRAME.match(previous)) and _indent(line) > _indent(previous)
        stop = text.find("\n", end + 1)
        following = "" if end == -1 else text[end + 1 : stop if stop != -1 else len(text)]
        return source and not _BARE_RAISE.match(following)
    return False


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())
