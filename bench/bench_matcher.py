"""Benchmark the matcher: compile time, memory, and per-paste latency, against a simple baseline.

The baseline is what the ancestor project did: loop Python's ``re`` over every entry's regex.
Both run in this process on the same pastes; the script prints figures and the ratio.

    .venv/bin/python -m bench.bench_matcher [--synthetic 50000] [--rounds 3]
"""

from __future__ import annotations

import copy
import re
import statistics
import time

from bench.harness import SEEDS, chat_lines, fixture_pastes, make_parser, rss_mib, spread
from bot.kb.entry import Entry
from bot.kb.knowledge import KnowledgeBase
from bot.kb.matcher import Matcher
from bot.kb.normalize import normalize


def synthetic(entries: dict[str, Entry], count: int) -> dict[str, Entry]:
    """``count`` extra entries whose regexes look like real ones (literal head, variable tail)."""
    base = next(iter(entries.values())).raw
    out = dict(entries)
    for i in range(count):
        raw = copy.deepcopy(base)
        raw["id"] = f"synthetic/e{i}"
        raw["domain"] = "synthetic"
        raw["regex"] = rf"SynthError{i}: failed to (?:open|read) \S+ after \d+ tries \(code {i % 97}\)"
        raw["signature"] = f"SynthError{i}: failed to open /x after 3 tries (code {i % 97})"
        raw["aliases"] = []
        out[raw["id"]] = Entry(raw)
    return out


def pastes() -> list[str]:
    texts, chat = fixture_pastes(), chat_lines()
    big = ("INFO step ok loss=0.123\n" * 1700) + (texts[0] if texts else "")
    return texts + chat + [big]


def time_each(fn, items: list[str], rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        for item in items:
            start = time.perf_counter()
            fn(item)
            samples.append(time.perf_counter() - start)
    return samples


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--synthetic", type=int, default=0, help="extra synthetic entries (e.g. 50000)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    kb = KnowledgeBase.load(SEEDS)
    entries = synthetic(kb.entries, args.synthetic) if args.synthetic else kb.entries
    items = pastes()
    print(f"entries: {len(entries)}   pastes: {len(items)} (incl. one of {len(items[-1]):,} chars)")

    before = rss_mib()
    start = time.perf_counter()
    matcher = Matcher(entries)
    compile_s = time.perf_counter() - start
    matcher_mib = rss_mib() - before

    before = rss_mib()
    start = time.perf_counter()
    baseline = []
    for e in entries.values():
        try:
            baseline.append((e.id, re.compile(e.regex)))
        except re.error:
            continue  # a few RE2-only forms; the baseline skips them
    baseline_compile_s = time.perf_counter() - start
    baseline_mib = rss_mib() - before

    def ours(text: str):
        return matcher.match(normalize(text))

    def loop(text: str):
        plain = normalize(text).text
        return [(eid, m.span()) for eid, rx in baseline if (m := rx.search(plain))]

    ours(items[0])
    loop(items[0])
    ours_samples = time_each(ours, items, args.rounds)
    base_samples = time_each(loop, items, args.rounds)

    print(f"build: matcher {compile_s:.3f} s, {matcher_mib:.1f} MiB   |   baseline re loop "
          f"{baseline_compile_s:.3f} s, {baseline_mib:.1f} MiB")
    print(spread("errkb (literal filter + RE2)", ours_samples, width=28, digits=3))
    print(spread("baseline (re over entries)", base_samples, width=28, digits=3))
    ratio = statistics.median(base_samples) / statistics.median(ours_samples)
    total = sum(base_samples) / sum(ours_samples)
    print(f"speed-up vs baseline: median {ratio:.1f}x, total {total:.1f}x")


if __name__ == "__main__":
    main()
