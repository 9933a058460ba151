"""The matcher at KB scale: 10,000 and 50,000 entries cloned from the real ones.

Each clone keeps a real entry's regex, signature and aliases, with one word in each top-level
alternative of the regex (and the same words in its texts) made unique, so the clones read like
distinct messages that share the real ones' shape and common words. Every size runs in a fresh child
process so its memory is its
own. Printed per size: the time to build the matcher from loaded entries, its resident memory,
per-paste match p50/p99/max over the fixture pastes, chat and one 40,000-character log (all rounds,
and the last round alone: the first pays for compiling regexes and building the fallback index), and the
same for a simple baseline in the same child (Python's ``re`` looped over every regex, on a
sample of the pastes), with the ratio.

    .venv/bin/python bench/bench_kbscale.py [--sizes 10000 50000] [--rounds 2] [--baseline-pastes 60]
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bot.kb.entry import Entry  # noqa: E402
from bot.kb.matcher import Matcher  # noqa: E402
from bot.kb.normalize import normalize  # noqa: E402
from bot.kb.seeds import load_seeds  # noqa: E402

PASTES = REPO / "tests" / "fixtures" / "pastes"
CHAT = REPO / "tests" / "fixtures" / "chat"
_WORD = re.compile(r"[A-Za-z]{4,}")


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _suffix(i: int) -> str:
    return "".join(chr(97 + (i // 26**k) % 26) for k in range(4))


def _branches(pattern: str) -> list[str]:
    """``pattern`` split at its top-level ``|`` (outside groups and classes)."""
    out, depth, in_class, start, j = [], 0, False, 0, 0
    while j < len(pattern):
        c = pattern[j]
        if c == "\\":
            j += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(pattern[start:j])
            start = j + 1
        j += 1
    return [*out, pattern[start:]]


def _unique_branch(pattern: str, suffix: str) -> tuple[str, str | None]:
    """``pattern`` with its first plain word (outside classes, not a group name) made unique."""
    depth = 0
    j = 0
    while j < len(pattern):
        c = pattern[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            depth += 1
        elif c == "]" and depth:
            depth -= 1
        elif depth == 0 and c.isalpha():
            m = _WORD.match(pattern, j)
            if m and (j == 0 or pattern[j - 1] not in "?<"):
                return pattern[: m.end()] + suffix + pattern[m.end() :], m.group()
            if m:
                j = m.end()
                continue
        j += 1
    return pattern, None


def _unique(pattern: str, i: int) -> tuple[str, list[str]]:
    """``pattern`` with one word in each top-level alternative made unique, and the words changed."""
    suffix = _suffix(i)
    parts, words = [], []
    for branch in _branches(pattern):
        changed, word = _unique_branch(branch, suffix)
        parts.append(changed)
        if word:
            words.append(word)
    out = "|".join(parts)
    return (out if words else f"(?:{pattern})(?:#{i})?"), words


def clone(entries: dict[str, Entry], count: int) -> dict[str, Entry]:
    real = list(entries.values())
    out = dict(entries)
    i = 0
    while len(out) < count:
        base = real[i % len(real)]
        serial = i // len(real) + 1
        raw = copy.deepcopy(base.raw)
        raw["regex"], words = _unique(base.regex, serial * 7919 + i)
        suffix = _suffix(serial * 7919 + i)
        for word in words:
            raw["signature"] = raw["signature"].replace(word, word + suffix)
            raw["aliases"] = [a.replace(word, word + suffix) for a in raw["aliases"]]
        raw["id"] = f"{base.domain}/{base.id.split('/', 1)[1]}-c{serial}"
        out[raw["id"]] = Entry(raw)
        i += 1
    return out


def pastes() -> list[str]:
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(PASTES.glob("*/*/*.txt"))]
    for path in sorted(CHAT.glob("*.json")):
        texts.extend(json.loads(path.read_text(encoding="utf-8")))
    log = "".join(f"2026-11-30 03:{i // 60 % 60:02d}:{i % 60:02d} INFO step {i} loss=0.{i % 997:03d}\n"
                  for i in range(800))
    texts.append((log * 2)[:38_000] + texts[0])
    return texts


def percentiles(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    return {"p50": statistics.median(s) * 1e3, "p99": s[max(0, int(len(s) * 0.99) - 1)] * 1e3, "max": s[-1] * 1e3}


def child(size: int, rounds: int, baseline_pastes: int) -> dict:
    base_rss = rss_mib()
    entries = clone(load_seeds(REPO / "seeds"), size)
    items = pastes()
    loaded_rss = rss_mib()
    start = time.perf_counter()
    matcher = Matcher(entries)
    build_s = time.perf_counter() - start
    built_rss = rss_mib()
    samples = []
    warm: list[float] = []
    found = 0
    for round_ in range(rounds):
        warm = [] if round_ else warm
        for text in items:
            t0 = time.perf_counter()
            found += bool(matcher.match(normalize(text)))
            samples.append(time.perf_counter() - t0)
            warm.append(samples[-1])
    matched_rss = rss_mib()
    sample = items[:: max(1, len(items) // baseline_pastes)][:baseline_pastes]
    t0 = time.perf_counter()
    loop = []
    for e in entries.values():
        try:
            loop.append(re.compile(e.regex))
        except re.error:
            continue  # a few RE2-only forms; the baseline just skips them
    baseline_build_s = time.perf_counter() - t0
    base_samples = []
    for text in sample:
        plain = normalize(text).text
        t0 = time.perf_counter()
        [rx for rx in loop if rx.search(plain)]
        base_samples.append(time.perf_counter() - t0)
    ours_on_sample = []
    for text in sample:
        t0 = time.perf_counter()
        matcher.match(normalize(text))
        ours_on_sample.append(time.perf_counter() - t0)
    return {
        "size": len(entries), "pastes": len(items), "answered": found // rounds, "build_s": build_s,
        "kb_mib": loaded_rss - base_rss, "matcher_mib": built_rss - loaded_rss, "rss_mib": matched_rss,
        "peak_mib": peak_mib(), "match": percentiles(samples), "warm": percentiles(warm),
        "baseline_build_s": baseline_build_s,
        "baseline": percentiles(base_samples), "ours_on_sample": percentiles(ours_on_sample),
        "sample": len(sample),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--baseline-pastes", type=int, default=60)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.rounds, args.baseline_pastes)))
        return
    for size in args.sizes:
        out = subprocess.run([sys.executable, __file__, "--child", str(size), "--rounds", str(args.rounds),
                              "--baseline-pastes", str(args.baseline_pastes)], capture_output=True, text=True)
        if out.returncode:
            print(f"{size:>6} entries: the child failed: {(out.stderr.strip().splitlines() or ['?'])[-1]}")
            continue
        r = json.loads(out.stdout)
        m, b, o = r["match"], r["baseline"], r["ours_on_sample"]
        print(f"{r['size']:>6} entries: matcher built in {r['build_s']:.2f} s, +{r['matcher_mib']:.0f} MiB "
              f"(entries themselves {r['kb_mib']:.0f} MiB); process RSS {r['rss_mib']:.0f} MiB, "
              f"peak {r['peak_mib']:.0f} MiB")
        print(f"        match over {r['pastes']} pastes x {args.rounds}: p50 {m['p50']:.3f} ms  p99 {m['p99']:.3f} ms  "
              f"max {m['max']:.1f} ms   ({r['answered']} answered); last round alone (regexes compiled, "
              f"fallback index built): p50 {r['warm']['p50']:.3f} ms  p99 {r['warm']['p99']:.3f} ms")
        print(f"        baseline (Python re over every regex, built in {r['baseline_build_s']:.1f} s) on {r['sample']} "
              f"of them: p50 {b['p50']:.2f} ms  p99 {b['p99']:.2f} ms; errkb on the same: p50 {o['p50']:.3f} ms "
              f" -> {b['p50'] / o['p50']:.0f}x faster at the median")


if __name__ == "__main__":
    main()
