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

import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

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
    """An in-memory inverted index over every entry's fields."""

    def __init__(self, entries: Mapping[str, Entry]) -> None:
        self._postings: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
        self._lengths: dict[str, dict[str, int]] = defaultdict(dict)
        self._titles = {e.id: e.signature.lower() for e in entries.values()}
        self._entries = entries
        for entry in entries.values():
            for name, text in _entry_fields(entry).items():
                tokens = tokenize(text)
                self._lengths[name][entry.id] = len(tokens)
                for token in tokens:
                    self._postings[token][name][entry.id] += 1
        self._count = max(len(entries), 1)
        self._avg = {name: (sum(v.values()) / len(v) if v else 1.0) or 1.0 for name, v in self._lengths.items()}
        self._vocabulary = [t for t in self._postings if t.isascii() and len(t) >= 3]

    def _expand(self, term: str) -> list[tuple[str, float]]:
        """The term itself when known, else close spellings from the vocabulary (discounted)."""
        if term in self._postings:
            return [(term, 1.0)]
        if not term.isascii() or len(term) < 4:
            return []
        cutoff = 1 if len(term) < 7 else 2
        near = process.extract(term, self._vocabulary, scorer=Levenshtein.distance, limit=20, score_cutoff=cutoff)
        if not near:
            return []
        best = min((dist, -_common_prefix(term, word)) for word, dist, _i in near)
        return [(word, 0.6) for word, dist, _i in near if (dist, -_common_prefix(term, word)) == best]

    def search(self, query: str, limit: int = 10, hits: Mapping[str, int] | None = None) -> list[SearchHit]:
        """Entries best matching ``query``, best first; ``hits`` counts how often each entry was matched."""
        words = list(dict.fromkeys(tokenize(query, query=True)))
        phrases = [ABBREVIATIONS[w] for w in words if w in ABBREVIATIONS]
        terms = list(dict.fromkeys(words + [t for p in phrases for t in tokenize(p)]))
        scores: Counter[str] = Counter()
        reasons: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for term in terms:
            for token, discount in self._expand(term):
                by_field = self._postings[token]
                docs = {doc for counts in by_field.values() for doc in counts}
                idf = math.log(1 + (self._count - len(docs) + 0.5) / (len(docs) + 0.5))
                combined: Counter[str] = Counter()
                for name, counts in by_field.items():
                    for doc, tf in counts.items():
                        norm = 1 - _B + _B * self._lengths[name][doc] / self._avg[name]
                        combined[doc] += FIELD_WEIGHTS[name] * tf / norm
                        if token not in reasons[doc][name]:
                            reasons[doc][name].append(token)
                for doc, tf in combined.items():
                    scores[doc] += discount * idf * tf * (_K1 + 1) / (tf + _K1)
        for doc in scores:
            bonus = sum(_PHRASE_BONUS for phrase in phrases if phrase in self._titles[doc])
            popularity = prior(self._entries[doc], (hits or {}).get(doc, 0))
            scores[doc] *= (1 + bonus) * (1 + _PRIOR * math.log1p(popularity))
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        return [SearchHit(doc, round(score, 4), {k: v for k, v in reasons[doc].items()}) for doc, score in ranked]


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
