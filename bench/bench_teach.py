"""Teaching errkb: what a taught regex's live check costs, and what a workspace's team entries add to a paste.

Printed: the corpus load (chat fixtures + every KB paste fixture, once per process), the check of a proposed
regex against it (median of --rounds, several regexes), and the per-paste cost of matching against a
workspace with --entries team entries (their own small matcher, regex hits only) next to the KB's own
match of the same pastes in the same run, with the ratio. Medians; the machine is shared and noisy.

    .venv/bin/python -m bench.bench_teach [--entries 50] [--rounds 5]
"""

from __future__ import annotations

import statistics
import time

from bench.harness import PASTES, SEEDS, make_parser
from bot.kb.knowledge import KnowledgeBase
from bot.kb.matcher import Matcher
from bot.kb.normalize import normalize
from bot.kb.propose import check, propose, sample
from bot.kb.team_entry import team_entry
from bot.service.team import Corpus

LINES = ["WidgetError: widget <n> at <hex> is stuck in <name> on <host>",
         "AcmeWidgetError: frobnicator <name> rejected shard <n> from <path> on <host>",
         "psycopg.errors.ZorbViolation: relation <name> violates zorb <n>",
         "E<n> FluxCapacitorError: flux <n> GW exceeded at <path>"]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--entries", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    corpus = Corpus(PASTES)
    start = time.perf_counter()
    chat, pastes = corpus.chat, corpus.pastes
    print(f"corpus load: {ms(time.perf_counter() - start)} ({len(chat)} chat messages, {len(pastes)} pastes, "
          f"{sum(len(p) for _, p in pastes):,} chars)")

    for line in LINES:
        pattern = propose(line)
        times = []
        for _ in range(args.rounds):
            t = time.perf_counter()
            issues = check(pattern, line, chat, pastes)
            times.append(time.perf_counter() - t)
        print(f"check {pattern[:48]!r}: median {ms(statistics.median(times))}, issues {[i.kind for i in issues]}")

    entries = {}
    for i in range(args.entries):
        line = LINES[i % len(LINES)].replace("Error", f"Error{i}", 1)
        entry = team_entry(f"team-tbench/{i}", "en", {"title": line, "root_cause": "x", "workarounds": ["y"]},
                           propose(line))
        entries[entry.id] = entry
    team = Matcher(entries)
    kb = KnowledgeBase.load(SEEDS)
    texts = [p for _, p in pastes[:400]] + [sample(LINES[1])] * 20
    kb.matcher.match(normalize(texts[0]))  # built before timing
    for label, run in (("KB match", lambda t: kb.matcher.match(normalize(t), limit=1)),
                       (f"team match ({args.entries} entries)", lambda t: team.regex_hits(normalize(t))[:1])):
        per = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            for text in texts:
                run(text)
            per.append((time.perf_counter() - t0) / len(texts))
        print(f"{label}: median {ms(statistics.median(per))} per paste")
        if label == "KB match":
            base = statistics.median(per)
        else:
            print(f"team / KB per paste: {statistics.median(per) / base:.3f}")


if __name__ == "__main__":
    main()
