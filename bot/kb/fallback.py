"""When no regex hits: find the entry whose wording is nearest to the paste's error lines.

Only lines that announce an error (``…Error:``, ``FATAL``, ``panic:``, ``npm ERR!`` …) are queries,
so chat that merely talks about errors stays silent. A query line and each entry's signature,
aliases and the literal parts of its regex are reduced to words with numbers, hex, paths and URLs
masked; quoted names in a query count only when an entry has them, and quoted names in a
signature count only when the regex spells them out (``'NoneType'`` does, ``'data.csv'`` does not).
Words are weighted by how rare they are among entries (squared IDF), and the raw score is how
much of the entry's wording the line covers, times (less strongly) how much of the line it covers,
halved when the exception types differ, and lowered when another entry fits the line nearly as well.
``CALIBRATION`` turns that score into the share of answers that were right at that score on the
calibration run (``bench/calibrate_fallback.py``); an answer is given only at ``MIN_CONFIDENCE``.

A score can reach ``FLOOR`` only when the line holds most of an entry wording's weight, so looking
for confident answers alone reads each wording under its heaviest words only (a prefix filter, as
in similarity joins): at 50,000 entries a line with common words (``npm ERR!``) then scores tens
of wordings, not thousands, and finds exactly the answers the full search would.
"""

from __future__ import annotations

import bisect
import math
import re
from array import array
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.kb.entry import Entry
from bot.kb.literals import literal_words
from bot.kb.normalize import strip_log_prefix

# (lowest raw score of a band, share of right answers in that band and above it, made monotone),
# printed by bench/calibrate_fallback.py; an answer is given only where that share is ≥ 95%.
CALIBRATION: tuple[tuple[float, float], ...] = (
    (0.4, 0.095), (0.475, 0.129), (0.5, 0.186), (0.6, 0.231), (0.625, 0.454), (0.7, 0.542), (0.725, 0.6),
    (0.8, 0.787), (0.875, 0.875), (0.9, 0.887), (0.95, 0.956),
)
MIN_CONFIDENCE = 0.95
MIN_QUERY_WORDS = 3  # distinct words outside quotes a line needs before the fallback guesses from it
MAX_QUERY_LINES = 12
AMBIGUITY_MARGIN = 0.15  # a runner-up closer than this lowers the best score ...
AMBIGUITY_PENALTY = 2.0  # ... by this much per point of closeness
LINE_COVERAGE_WEIGHT = 0.3  # the line may say more than a signature (values, context): that counts less
UNKNOWN_WORD_WEIGHT = 0.3  # a word no entry has is often a value (a name, a host) ...
QUOTED_WORD_WEIGHT = 0.5
STOPWORD_SHARE = 0.3  # a word in more than this share of entries says nothing about which one
# The lowest raw score that can matter to a confident answer: one at MIN_CONFIDENCE, or a runner-up
# close enough to lower it. A little lower, so float rounding never drops a wording at the edge.
FLOOR = min(raw for raw, share in CALIBRATION if share >= MIN_CONFIDENCE) - AMBIGUITY_MARGIN - 0.01

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
_EXCEPTION_TYPE = re.compile(r"^(?:[A-Za-z_][\w]*\.)*([A-Z]\w*(?:Error|Exception|Warning|Fault|Exit|Interrupt))\b")
_MASK = re.compile(
    r"""https?://\S+
      | (?:[A-Za-z]:)?(?:[\\/][\w.@~+-]+){2,}[\\/]?
      | \b0x[0-9a-fA-F]+\b | \b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b
      | \d+""",
    re.VERBOSE,
)
_QUOTED = re.compile(r"'([^'\n]{1,80})'|\"([^\"\n]{1,80})\"|`([^`\n]{1,80})`|‘([^’\n]{1,80})’|“([^”\n]{1,80})”")
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_LATIN = re.compile(r"(?:(?![\u3400-\u9fff\uf900-\ufaff])[^\W\d])(?:(?![\u3400-\u9fff\uf900-\ufaff])\w)+")


@dataclass(frozen=True)
class Guess:
    """A fallback answer: an entry, the calibrated confidence, and the error line it came from."""

    entry_id: str
    confidence: float
    raw: float
    start: int  # offset of the line in the plain text
    line: str


def words(text: str) -> list[str]:
    """Lower-case words of ``text``; dotted names split; CJK runs as character bigrams."""
    masked = _MASK.sub(" ", text).lower()
    out = _LATIN.findall(masked)
    if not masked.isascii():
        for run in _CJK_RUN.findall(masked):
            out.extend(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    return out


def split_quoted(text: str) -> tuple[str, list[str]]:
    """``text`` with quoted spans removed, and the words inside them."""
    quoted = [w for m in _QUOTED.finditer(text) for w in words(next(g for g in m.groups() if g is not None))]
    return _QUOTED.sub(" ", text), quoted


def exception_type(line: str) -> str | None:
    m = _EXCEPTION_TYPE.match(line.strip())
    return m.group(1).lower() if m else None


def error_lines(text: str, after: int = 0) -> list[tuple[int, str]]:
    """(offset, line) of the lines that announce an error, the last ones first (the raised error)."""
    found: list[tuple[int, str]] = []
    offset = text.rfind("\n", 0, after) + 1 if after else 0
    for raw in text[offset:].split("\n"):
        line = strip_log_prefix(raw)
        if line and len(line) < 500 and _ERROR_LINE.match(line) and offset >= after:
            found.append((offset, line))
        offset += len(raw) + 1
    return found[::-1][:MAX_QUERY_LINES]


def confidence(raw: float) -> float:
    """The calibrated share of right answers at raw score ``raw`` (0 below the first band)."""
    i = bisect.bisect_right([x for x, _ in CALIBRATION], raw) - 1
    return CALIBRATION[i][1] if i >= 0 else 0.0


class Fallback:
    """An inverted index of every entry's wordings, weighted by squared IDF."""

    def __init__(self, entries: Mapping[str, Entry], regex_words: Sequence[str] | None = None) -> None:
        """``regex_words``: the literal words of each entry's regex, in order, when already known."""
        # Compact at any size: every doc's tokens in one array (CSR: doc d owns flat[start[d]:start[d+1]]).
        self._owner = array("I")  # doc -> entry index
        self._ids: list[str] = []
        self._types: list[str | None] = []  # doc -> exception type
        self._token: dict[str, int] = {}
        flat = array("I")
        start = array("I", [0])
        df: Counter[int] = Counter()
        for e_index, entry in enumerate(entries.values()):
            self._ids.append(entry.id)
            regex_text = regex_words[e_index] if regex_words is not None else literal_words(entry.regex)
            fixed = set(words(regex_text))
            texts = [(entry.signature, True), *((alias, False) for alias in entry.aliases), (regex_text, False)]
            seen: set[int] = set()
            for text, example in texts:
                if example:  # a signature's quoted names are examples unless the regex spells them out
                    bare, quoted = split_quoted(text)
                    tokens = [*words(bare), *(w for w in quoted if w in fixed or w.strip("_") in fixed)]
                else:
                    tokens = words(text)
                ids = sorted({self._token.setdefault(t, len(self._token)) for t in tokens})
                if not ids:
                    continue
                flat.extend(ids)
                start.append(len(flat))
                self._owner.append(e_index)
                self._types.append(exception_type(text))
                seen.update(ids)
            df.update(seen)
        n = max(1, len(self._ids))
        self._max_weight = math.log(1 + n) ** 2
        self._weight = array("d", [0.0]) * len(self._token)
        for t, owners in df.items():
            self._weight[t] = 0.0 if owners / n > STOPWORD_SHARE and n >= 40 else math.log(1 + n / owners) ** 2
        docs = len(start) - 1
        weight = self._weight
        self._doc_total = array("d", (sum(weight[t] for t in flat[start[d] : start[d + 1]]) for d in range(docs)))
        self._flat, self._start = flat, start
        # postings, also CSR: token t is in docs post[pstart[t]:pstart[t+1]]
        counts = array("I", [0]) * (len(self._token) + 1)
        for t in flat:
            counts[t + 1] += 1
        for i in range(1, len(counts)):
            counts[i] += counts[i - 1]
        self._pstart = array("I", counts)
        post = array("I", [0]) * len(flat)
        fill = array("I", counts)
        for d in range(docs):
            for t in flat[start[d] : start[d + 1]]:
                post[fill[t]] = d
                fill[t] += 1
        self._post = post
        self._rare = max(64, docs // 100)
        # A wording scores at most hit / its total, so one at FLOOR or above shares with the line at
        # least one of its heaviest words that weigh more than (1 - FLOOR) of it: index it under those.
        heads: list[tuple[int, int]] = []  # (token, doc)
        for d in range(docs):
            total, held = self._doc_total[d], 0.0
            for t in sorted(flat[start[d] : start[d + 1]], key=weight.__getitem__, reverse=True):
                if total <= 0 or held > (1 - FLOOR) * total:
                    break
                heads.append((t, d))
                held += weight[t]
        heads.sort()
        counts = array("I", [0]) * (len(self._token) + 1)  # CSR again: token t heads docs head[hstart[t]:hstart[t+1]]
        for t, _d in heads:
            counts[t + 1] += 1
        for i in range(1, len(counts)):
            counts[i] += counts[i - 1]
        self._hstart, self._head = counts, array("I", (d for _t, d in heads))

    def guess(self, text: str, exclude: str | None = None, after: int = 0, sure: bool = False) -> list[Guess]:
        """Entries for the error lines of ``text``, best first, however low their confidence.

        A line that two entries fit about equally well says little about either: the best one's
        score is lowered by how close the runner-up comes (``exclude`` leaves one entry out, as if
        the KB did not hold it); ``after`` skips the lines that start before that offset. ``sure``:
        only guesses that can reach ``MIN_CONFIDENCE`` are wanted (they come out the same, faster;
        others may be missing)."""
        best: dict[str, Guess] = {}
        for start, line in error_lines(text, after):
            scored = [(e, raw) for e, raw in self._score(line, keep=4, sure=sure) if e != exclude]
            for rank, (entry_id, raw) in enumerate(scored):
                runner_up = max((r for i, (_e, r) in enumerate(scored) if i != rank), default=0.0)
                raw = max(0.0, raw - AMBIGUITY_PENALTY * max(0.0, runner_up - raw + AMBIGUITY_MARGIN))
                found = Guess(entry_id, round(confidence(raw), 3), round(raw, 4), start, line)
                if entry_id not in best or found.raw > best[entry_id].raw:
                    best[entry_id] = found
        return sorted(best.values(), key=lambda g: (g.raw, g.start), reverse=True)

    def _score(self, line: str, keep: int = 3, sure: bool = False) -> list[tuple[str, float]]:
        bare, quoted = split_quoted(line)
        said = words(bare)
        if len(set(said)) < MIN_QUERY_WORDS:
            return []  # ``error: Compilation`` (a message cut off) says too little to name one error
        required = {self._token.get(w, -1 - i): w for i, w in enumerate(said)}
        optional = {self._token[w] for w in quoted if w in self._token} - set(required)
        query_total = sum(self._weight[t] if t >= 0 else self._max_weight * UNKNOWN_WORD_WEIGHT for t in required)
        # a quoted name the query has counts half against an entry that lacks it, fully for one that has it
        query_total += QUOTED_WORD_WEIGHT * sum(self._weight[t] for t in optional)
        pstart, weight = self._pstart, self._weight
        present = [t for t in (*required, *optional) if t >= 0 and weight[t] > 0]
        if not present:
            return []
        if sure:
            hstart = self._hstart
            docs = {d for t in present for d in self._head[hstart[t] : hstart[t + 1]]}
        else:
            size = {t: pstart[t + 1] - pstart[t] for t in present}
            rare = [t for t in present if size[t] <= self._rare]
            seeds = rare or [min(present, key=size.__getitem__)]
            docs = {d for t in seeds for d in self._post[pstart[t] : pstart[t + 1]]}
        wanted = {t: weight[t] for t in present}
        kind = exception_type(line)
        per_entry: dict[int, float] = {}
        for d in docs:
            hit = extra = 0.0
            for t in self._flat[self._start[d] : self._start[d + 1]]:
                if t in wanted:
                    hit += wanted[t]
                    if t in optional:
                        extra += (1 - QUOTED_WORD_WEIGHT) * wanted[t]
            q = query_total + extra
            if q <= 0 or self._doc_total[d] <= 0:
                continue
            raw = min(1.0, hit / q) ** LINE_COVERAGE_WEIGHT * min(1.0, hit / self._doc_total[d])
            if kind and self._types[d] and self._types[d] != kind:
                raw *= 0.5
            owner = self._owner[d]
            if raw > per_entry.get(owner, 0.0):
                per_entry[owner] = raw
        ranked = sorted(per_entry.items(), key=lambda item: item[1], reverse=True)[:keep]
        return [(self._ids[e], raw) for e, raw in ranked]
