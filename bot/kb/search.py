"""Rank entries for a free-text query, in English or Chinese.

English text is split into lower-case words; Chinese (CJK) runs into single characters and
overlapping pairs, so ``超时`` and ``显存不足`` find entries without a word segmenter. Each field
has a weight; scores are BM25F over those weighted fields. A query word of four or more letters
that the KB has never seen is corrected to the nearest known words (``ncll`` → ``nccl``, not ``null``:
among equally close words the one sharing the longer prefix wins). Common abbreviations (``oom``,
``npe``, ``segfault``…) also look for the phrase they stand for, and favour the errors that print it.
A prior lifts entries that teams really hit: how often the store has matched them, and whether a
reader ever confirmed them.
"""

from __future__ import annotations

import heapq
import math
import re
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import accumulate
from operator import sub
from typing import Literal

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from bot.kb.entry import Entry

FIELD_WEIGHTS = {
    "id": 3.0,
    "signature": 3.0,
    "alias": 2.5,
    "tag": 2.5,
    "domain": 2.0,
    "root_cause": 1.0,
    "workaround": 0.7,
    "dead_end": 0.4,
}
# BM25F: a term's weighted frequencies over all fields are summed first and saturated once, so an
# entry that repeats a word in every field is not several times more "about" it than one that names
# it in its id and tags; ties between equally relevant entries are then broken by the prior.
FIELDS = tuple(FIELD_WEIGHTS)
_K1 = 2.0
_B = 0.5
# Abbreviations people type for an error, and the words the error itself prints.
ABBREVIATIONS = {
    "oom": "out of memory",
    "npe": "nullpointerexception",
    "segfault": "segmentation fault",
    "sigsegv": "segmentation fault",
    "k8s": "kubernetes",
    "hf": "huggingface",
    "tf": "tensorflow",
    "pg": "postgres",
    "gha": "github actions",
    "enospc": "no space left",
}
_PHRASE_BONUS = 0.3  # the signature prints the phrase an abbreviation stands for: +30%
_PRIOR = 0.15  # weight of log(1 + popularity) in the final score
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+#-]*[a-z0-9+#]|[a-z0-9]")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# (bytes, array code) a posting list's numbers are stored at
_WIDTHS: tuple[tuple[int, Literal["B", "H", "I"]], ...] = ((1, "B"), (2, "H"), (4, "I"))


def _width(largest: int) -> int:
    """The index into ``_WIDTHS`` of the narrowest item that holds ``largest``."""
    return 0 if largest < 1 << 8 else 1 if largest < 1 << 16 else 2


def _pad(blob: bytearray, size: int) -> None:
    blob.extend(bytes(-len(blob) % size))


def tokenize(text: str, query: bool = False) -> list[str]:
    """Words (and their dotted/underscored parts) plus CJK characters and character pairs.

    A query uses only the pairs of a longer CJK run, so one shared character is no match.
    """
    lowered = text.lower()
    tokens: list[str] = []
    for word in _WORD.findall(lowered):
        tokens.append(word)
        parts = [p for p in re.split(r"[._+#-]", word) if p]
        if len(parts) > 1:
            tokens.extend(parts)
    for run in _CJK_RUN.findall(lowered):
        if not query or len(run) == 1:
            tokens.extend(run)
        tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
    return tokens


def _entry_fields(entry: Entry) -> dict[str, str]:
    return {
        "id": entry.id.replace("/", " ").replace("-", " "),
        "signature": f"{entry.signature} {entry.signature_zh}",
        "alias": " ".join(entry.aliases),
        "tag": " ".join(entry.tags),
        "domain": " ".join([entry.domain, str(entry.raw.get("category") or ""), *_packages(entry.versions)]),
        "root_cause": f"{entry.root_cause} {entry.root_cause_zh}",
        "workaround": " ".join(f"{w.action} {w.text_zh or ''}" for w in entry.workarounds),
        "dead_end": " ".join(f"{d.action} {d.why_fails} {d.text_zh or ''}" for d in entry.dead_ends),
    }


def _packages(versions: tuple[str, ...]) -> list[str]:
    """The package names of version constraints (``nccl>=2.18.0`` → ``nccl``)."""
    return [re.split(r"[<>=!~ ]", v, maxsplit=1)[0] for v in versions]


def prior(entry: Entry, hits: int = 0) -> float:
    """How much teams are known to hit ``entry``: matches counted by the store, plus one for an entry
    a reader has confirmed (``last_confirmed`` set)."""
    return hits + (1.0 if entry.raw.get("last_confirmed") else 0.0)


@dataclass(frozen=True)
class SearchHit:
    """One ranked result with why it matched: ``reasons`` maps field → query terms found there."""

    entry_id: str
    score: float
    reasons: dict[str, list[str]] = field(default_factory=dict)


class SearchIndex:
    """An inverted index over every entry's fields, kept in a few flat buffers.

    Each term has one posting list: the entries (by number) that hold it, as the first number and
    the gaps to the next, and per entry its *shape* (which fields hold the term, how often: a
    number into a small shared table), each stored at the narrowest width that fits. An entry's
    BM25F weight for a term is worked out from the shape and the entry's field-length norms when a
    query asks for the term, summing its fields in the order the index first met them for that
    term (as the dict-of-dicts index this replaces did), so scores and reasons are the same to the
    last bit. It pickles as a handful of buffers and a vocabulary: the KB snapshot keeps it
    (:mod:`bot.kb.knowledge`).
    """

    def __init__(self, entries: Mapping[str, Entry]) -> None:
        self._ids = list(entries)
        self._terms: dict[str, int] = {}
        shapes: dict[tuple[tuple[int, int], ...], int] = {}
        docs: list[array[int]] = []
        doc_shapes: list[array[int]] = []
        orders: list[list[int]] = []
        lengths: list[list[int]] = [[] for _ in FIELDS]
        self._confirmed: set[int] = set()
        self._titled: dict[str, set[int]] = {phrase: set() for phrase in ABBREVIATIONS.values()}
        for doc, entry in enumerate(entries.values()):
            found: dict[int, list[tuple[int, int]]] = {}
            fields = _entry_fields(entry)
            for f, name in enumerate(FIELDS):
                tokens = tokenize(fields[name])
                lengths[f].append(len(tokens))
                for token, tf in Counter(tokens).items():
                    term = self._terms.setdefault(token, len(self._terms))
                    if term == len(docs):
                        docs.append(array("I"))
                        doc_shapes.append(array("I"))
                        orders.append([])
                    if f not in orders[term]:
                        orders[term].append(f)
                    found.setdefault(term, []).append((f, tf))
            for term, shape in found.items():
                docs[term].append(doc)
                doc_shapes[term].append(shapes.setdefault(tuple(shape), len(shapes)))
            if prior(entry):
                self._confirmed.add(doc)
            title = entry.signature.lower()
            for phrase, holders in self._titled.items():
                if phrase in title:
                    holders.add(doc)
        self._count = max(len(entries), 1)
        averages = [(sum(column) / len(column) if column else 1.0) or 1.0 for column in lengths]
        self._norms = [array("d", [1 - _B + _B * n / avg for n in column])
                       for column, avg in zip(lengths, averages, strict=True)]
        self._pack(docs, doc_shapes, orders, shapes)
        self._vocabulary: list[str] | None = None

    def _pack(self, docs: list[array[int]], doc_shapes: list[array[int]], orders: list[list[int]],
              shapes: dict[tuple[tuple[int, int], ...], int]) -> None:
        """Lay every term's posting list out in ``_blob`` (emptying ``docs`` and ``doc_shapes`` as it goes)."""
        # the commonest shapes get the smallest numbers, so that most lists store them in a byte
        by_use = Counter(s for column in doc_shapes for s in column)
        number = {old: new for new, (old, _n) in enumerate(by_use.most_common())}
        self._shapes = [dict(shape) for shape in sorted(shapes, key=lambda shape: number[shapes[shape]])]
        self._orders = list(dict.fromkeys(tuple(order) for order in orders))
        order_of = {order: i for i, order in enumerate(self._orders)}
        self._heads = array("Q")  # per term: where its list starts in _blob, its length, first doc…
        self._counts = array("I")
        self._firsts = array("I")
        self._layout = array("I")  # …and (order number << 4) | (shape width << 2) | gap width
        blob = bytearray()
        for term, found_in in enumerate(docs):
            gaps = array("I", map(sub, found_in[1:], found_in[:-1]))
            numbers = array("I", (number[s] for s in doc_shapes[term]))
            gap_width, shape_width = _width(max(gaps, default=0)), _width(max(numbers))
            _pad(blob, _WIDTHS[gap_width][0])
            self._heads.append(len(blob))
            blob += array(_WIDTHS[gap_width][1], gaps).tobytes()
            _pad(blob, _WIDTHS[shape_width][0])
            blob += array(_WIDTHS[shape_width][1], numbers).tobytes()
            self._counts.append(len(found_in))
            self._firsts.append(found_in[0])
            self._layout.append(order_of[tuple(orders[term])] << 4 | shape_width << 2 | gap_width)
            docs[term] = doc_shapes[term] = array("I")  # freed as it goes
        self._blob = bytes(blob)

    def __len__(self) -> int:
        return len(self._ids)

    def __getstate__(self) -> dict[str, object]:
        return {**self.__dict__, "_vocabulary": None}

    def _postings(self, term: int) -> tuple[list[int], memoryview, tuple[int, ...]]:
        """The docs holding ``term`` (ascending), their shape numbers, and the term's field order."""
        count, layout = self._counts[term], self._layout[term]
        gap_size, gap_code = _WIDTHS[layout & 3]
        shape_size, shape_code = _WIDTHS[layout >> 2 & 3]
        start = self._heads[term]
        end = start + (count - 1) * gap_size
        view = memoryview(self._blob)
        docs = list(accumulate(view[start:end].cast(gap_code), initial=self._firsts[term]))
        start = end + -end % shape_size
        return docs, view[start : start + count * shape_size].cast(shape_code), self._orders[layout >> 4]

    @property
    def vocabulary(self) -> list[str]:
        """The words a typo can be corrected to, in the order the index met them."""
        if self._vocabulary is None:
            self._vocabulary = [t for t in self._terms if t.isascii() and len(t) >= 3]
        return self._vocabulary

    def _expand(self, term: str) -> list[tuple[str, float]]:
        """The term itself when known, else close spellings from the vocabulary (discounted)."""
        if term in self._terms:
            return [(term, 1.0)]
        if not term.isascii() or len(term) < 4:
            return []
        cutoff = 1 if len(term) < 7 else 2
        near = process.extract(term, self.vocabulary, scorer=Levenshtein.distance, limit=20, score_cutoff=cutoff)
        if not near:
            return []
        best = min((dist, -_common_prefix(term, word)) for word, dist, _i in near)
        return [(word, 0.6) for word, dist, _i in near if (dist, -_common_prefix(term, word)) == best]

    def search(self, query: str, limit: int = 10, hits: Mapping[str, int] | None = None) -> list[SearchHit]:
        """Entries best matching ``query``, best first; ``hits`` counts how often each entry was matched."""
        words = list(dict.fromkeys(tokenize(query, query=True)))
        phrases = [ABBREVIATIONS[w] for w in words if w in ABBREVIATIONS]
        terms = list(dict.fromkeys(words + [t for p in phrases for t in tokenize(p)]))
        scores: dict[int, float] = {}
        found: list[tuple[str, list[int], memoryview, tuple[int, ...]]] = []
        for term in terms:
            for token, discount in self._expand(term):
                docs, numbers, order = self._postings(self._terms[token])
                found.append((token, docs, numbers, order))
                idf = math.log(1 + (self._count - len(docs) + 0.5) / (len(docs) + 0.5))
                scale = discount * idf
                weights: dict[int, list[tuple[float, array[float]]]] = {}  # shape → (weight × tf, norms) in order
                for doc, shape in zip(docs, numbers, strict=True):
                    parts = weights.get(shape)
                    if parts is None:
                        counts = self._shapes[shape]
                        parts = weights[shape] = [(FIELD_WEIGHTS[FIELDS[f]] * counts[f], self._norms[f])
                                                  for f in order if f in counts]
                    tf = 0.0
                    for weighted, norms in parts:
                        tf += weighted / norms[doc]
                    scores[doc] = scores.get(doc, 0.0) + scale * tf * (_K1 + 1) / (tf + _K1)
        hits = hits or {}
        lifted = self._confirmed.union(*(self._titled[p] for p in phrases))
        if hits:
            lifted.update(doc for doc, entry_id in enumerate(self._ids) if entry_id in hits)
        for doc in lifted & scores.keys():  # for every other doc the factor is exactly 1
            bonus = sum(_PHRASE_BONUS for phrase in phrases if doc in self._titled[phrase])
            popularity = hits.get(self._ids[doc], 0) + (1.0 if doc in self._confirmed else 0.0)
            scores[doc] *= (1 + bonus) * (1 + _PRIOR * math.log1p(popularity))
        ranked = heapq.nsmallest(limit, scores.items(), key=lambda kv: (-kv[1], self._ids[kv[0]]))
        return [SearchHit(self._ids[doc], round(score, 4), self._reasons(doc, found)) for doc, score in ranked]

    def _reasons(self, doc: int, found: list[tuple[str, list[int], memoryview, tuple[int, ...]]]
                 ) -> dict[str, list[str]]:
        """Field → the query's tokens found there, in the order the search met them."""
        reasons: dict[str, list[str]] = {}
        for token, docs, numbers, order in found:
            i = bisect_left(docs, doc)
            if i == len(docs) or docs[i] != doc:
                continue
            counts = self._shapes[numbers[i]]
            for f in order:
                if f in counts:
                    tokens = reasons.setdefault(FIELDS[f], [])
                    if token not in tokens:
                        tokens.append(token)
        return reasons


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
