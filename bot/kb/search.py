"""Rank entries for a free-text query, in English or Chinese.

English text is split into lower-case words; Chinese (CJK) runs into single characters and
overlapping pairs, so ``超时`` and ``显存不足`` find entries without a word segmenter. Each field
has a weight; scores are BM25 over those weighted fields. A query word of four or more letters
that the KB has never seen is corrected to the nearest known words (``ncll`` → ``nccl``).
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
_K1 = 1.2
_B = 0.5
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
        "domain": f"{entry.domain} {entry.raw.get('category') or ''}",
        "root_cause": f"{entry.root_cause} {entry.root_cause_zh}",
        "workaround": " ".join(f"{w.action} {w.text_zh or ''}" for w in entry.workarounds),
        "dead_end": " ".join(f"{d.action} {d.why_fails} {d.text_zh or ''}" for d in entry.dead_ends),
    }


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
        near = process.extract(term, self._vocabulary, scorer=Levenshtein.distance, limit=5, score_cutoff=cutoff)
        return [(word, 0.6) for word, _dist, _i in near]

    def search(self, query: str, limit: int = 10) -> list[SearchHit]:
        """Entries best matching ``query``, best first."""
        terms = list(dict.fromkeys(tokenize(query, query=True)))
        scores: Counter[str] = Counter()
        reasons: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for term in terms:
            for token, discount in self._expand(term):
                by_field = self._postings[token]
                docs = {doc for counts in by_field.values() for doc in counts}
                idf = math.log(1 + (self._count - len(docs) + 0.5) / (len(docs) + 0.5))
                for name, counts in by_field.items():
                    weight = FIELD_WEIGHTS[name] * discount
                    for doc, tf in counts.items():
                        norm = 1 - _B + _B * self._lengths[name][doc] / self._avg[name]
                        scores[doc] += weight * idf * tf * (_K1 + 1) / (tf + _K1 * norm)
                        if token not in reasons[doc][name]:
                            reasons[doc][name].append(token)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        return [SearchHit(doc, round(score, 4), {k: v for k, v in reasons[doc].items()}) for doc, score in ranked]
