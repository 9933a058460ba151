"""The KB at scale: 10,000 and 50,000 entries cloned from the real ones, as whole processes.

Each clone keeps a real entry's regex, signature and aliases, with one word in each top-level
alternative of the regex (and the same words in its texts) made unique, so the clones read like
distinct messages that share the real ones' shape and common words. Per size, the clones are
written as a seeds directory and timed as a user meets them, each a fresh process: ``errkb seed``
into a new SQLite file; ``errkb diagnose`` with an empty cache (cold: validate, analyse every
regex, write the snapshot) and again with the snapshot (warm: what every later start costs), with
their peak RSS; ``errkb serve`` (``bot.slack.app.start`` as it runs it, with made-up Slack
credentials) on the store ``errkb seed`` filled: the KB and matcher from the snapshot, the store
opened and synced, HTTP listening, until it could take its first event; then its first search
(which loads the search index from the snapshot, or waits for the index's build in the background
when the snapshot lacks it: the first start). Then one process loads the KB from the snapshot and
matches the fixture pastes, chat and one 40,000-character log (all rounds, and the last round
alone), against a baseline in the same process: Python's ``re`` looped over every regex, on a
sample of the pastes. Last, the bundled KB's ``errkb diagnose`` (warm and with ``ERRKB_CACHE=off``).

    .venv/bin/python -m bench.bench_kbscale [--sizes 10000 50000] [--rounds 2] [--baseline-pastes 60] [--runs 3]
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import (
    REPO,
    SEEDS,
    chat_lines,
    fixture_pastes,
    make_parser,
    module_command,
    peak_mib,
    rss_mib,
    spread_ms,
)
from bot.kb.entry import Entry
from bot.kb.knowledge import KnowledgeBase
from bot.kb.normalize import normalize
from bot.kb.seeds import export_seeds, load_seeds

_WORD = re.compile(r"[A-Za-z]{4,}")


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
    """``pattern`` with a word every match needs made unique: the first plain word outside any group and
    class that no quantifier makes optional, or else a unique word put in front. A word inside an
    optional group (``(?:error )?TS2322``) would leave the clone matching every paste of the original:
    a near-duplicate entry, which no real KB holds (46 to 230 of them answered one paste)."""
    depth, in_class, j, starts_word = 0, False, 0, True
    while j < len(pattern):
        c = pattern[j]
        if c == "\\":  # an escape (\b, \d, \.) is never part of a plain word
            j, starts_word = j + 2, True
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0 and c.isalpha() and starts_word:
            m = _WORD.match(pattern, j)
            if m and (m.end() == len(pattern) or pattern[m.end()] not in "?*{"):
                return pattern[: m.end()] + suffix + pattern[m.end() :], m.group()
        starts_word = not c.isalnum()
        j += 1
    return f"Errkb{suffix}\\b.*" + pattern, None


def _unique(pattern: str, i: int) -> tuple[str, list[str]]:
    """``pattern`` with one word in each top-level alternative made unique, and the words changed."""
    suffix = _suffix(i)
    parts, words = [], []
    for branch in _branches(pattern):
        changed, word = _unique_branch(branch, suffix)
        parts.append(changed)
        if word:
            words.append(word)
    return "|".join(parts), words


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
    texts = fixture_pastes() + chat_lines()
    log = "".join(f"2026-11-30 03:{i // 60 % 60:02d}:{i % 60:02d} INFO step {i} loss=0.{i % 997:03d}\n"
                  for i in range(800))
    texts.append((log * 2)[:38_000] + texts[0])
    return texts


def child(seeds_dir: str, rounds: int, baseline_pastes: int) -> dict:
    """In one process: the KB loaded from its snapshot, then every paste matched, and the baseline."""
    base_rss = rss_mib()
    start = time.perf_counter()
    kb = KnowledgeBase.load(seeds_dir)
    matcher = kb.matcher
    matcher.fallback  # noqa: B018 - loaded before matching, as errkb serve does
    load_s = time.perf_counter() - start
    gc.collect()
    gc.freeze()  # as errkb serve does after start: full collections then skip the KB's objects
    entries = kb.entries
    items = pastes()
    loaded_rss = rss_mib()
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
    slowest = sorted(range(len(items)), key=lambda i: warm[i], reverse=True)[:3]
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
        "size": len(entries), "pastes": len(items), "answered": found // rounds, "load_s": load_s,
        "kb_mib": loaded_rss - base_rss, "rss_mib": matched_rss, "peak_mib": peak_mib(),
        "match": spread_ms(samples), "warm": spread_ms(warm), "cache": matcher.cache_info(),
        "slowest": [(f"{len(items[i])} chars: {items[i].strip().splitlines()[-1][:60]!r}", warm[i] * 1e3)
                    for i in slowest],
        "baseline_build_s": baseline_build_s,
        "baseline": spread_ms(base_samples), "ours_on_sample": spread_ms(ours_on_sample),
        "sample": len(sample),
    }


def serve_start(seeds_dir: str, spawned: float) -> dict:
    """``errkb serve`` in this process (with made-up Slack credentials: nothing calls Slack) until it
    can take its first event, then its first search; seconds since ``spawned`` and peak RSS at each."""
    import asyncio
    from dataclasses import replace

    from bot import memory
    from bot.config import Settings
    from bot.slack.app import start

    memory.configure()  # as errkb serve does
    settings = replace(Settings.from_env(), bot_token="xoxb-bench", signing_secret="bench",
                       api_url="http://127.0.0.1:9/api/", seeds_dir=Path(seeds_dir))

    async def run() -> dict:
        running = await start(settings, host="127.0.0.1", port=0)
        ready = {"ready_s": time.time() - spawned, "ready_mib": peak_mib()}
        t0 = time.perf_counter()
        found = running.kb.index.search("cuda out of memory", limit=5)
        searched = {"search_s": time.perf_counter() - t0, "search_mib": peak_mib(), "found": len(found)}
        await running.stop(grace=0.1)
        return {**ready, **searched}

    return asyncio.run(run())


def timed(argv: list[str], env: dict[str, str], stdin: bytes = b"") -> tuple[float, float, int]:
    """(seconds, peak RSS in MiB, exit code) of one whole process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv[1:3])} failed: {err.decode(errors='replace').strip()[-300:]}")
    return time.perf_counter() - t0, usage.ru_maxrss / 1024, proc.returncode


def started(env: dict[str, str], store: Path, seeds: Path) -> dict:
    """One ``errkb serve`` start on the seeded ``store`` as a fresh process (see :func:`serve_start`)."""
    argv = module_command("bench_kbscale", "--start", str(seeds), "--spawned", repr(time.time()))
    out = subprocess.run(argv, env={**env, "DATABASE_URL": f"sqlite+aiosqlite:///{store}", "LOG_LEVEL": "WARNING"},
                         cwd=REPO, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"errkb serve failed: {out.stderr.strip()[-300:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def errkb(*args: str) -> list[str]:
    return [sys.executable, "-m", "bot.cli", *args]


def median_run(runs: int, argv: list[str], env: dict[str, str], stdin: bytes = b"") -> tuple[float, float]:
    results = [timed(argv, env, stdin) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def write(directory: Path, size: int) -> None:
    entries = clone(load_seeds(SEEDS), size)
    export_seeds([e.raw for e in entries.values()], directory,
                 {e.id: e.translations for e in entries.values() if e.translations})
    shutil.copy(SEEDS / "entry.schema.json", directory)


def scale(size: int, args: argparse.Namespace, paste: bytes) -> None:
    work = Path(tempfile.mkdtemp(prefix="errkb-kbscale-"))
    try:
        t0 = time.perf_counter()
        # in a child: a child process's peak RSS counts its parent's at the fork, so this one stays small
        subprocess.run(module_command("bench_kbscale", "--write", str(work / "seeds"), "--sizes", str(size)),
                       cwd=REPO, check=True)
        wrote = time.perf_counter() - t0
        env = {**os.environ, "ERRKB_SEEDS": str(work / "seeds"), "DATABASE_URL": f"sqlite+aiosqlite:///{work}/kb.db",
               "ERRKB_CACHE": str(work / "seed-cache"), "PYTHONPATH": str(REPO)}
        seed_s, seed_mib, _ = timed(errkb("seed"), env)
        env["DATABASE_URL"] = f"sqlite+aiosqlite:///{work}/absent.db"  # diagnose as CI runs it: no store
        env["ERRKB_CACHE"] = str(work / "cache")
        cold_s, cold_mib, _ = timed(errkb("diagnose", "-"), env, paste)
        warm_s, warm_mib = median_run(args.runs, errkb("diagnose", "-"), env, paste)
        serve = [started(env, work / "kb.db", work / "seeds") for _ in range(args.runs + 1)]
        out = subprocess.run(module_command("bench_kbscale", "--child", str(work / "seeds"), "--rounds",
                                            str(args.rounds), "--baseline-pastes", str(args.baseline_pastes)),
                             cwd=REPO, capture_output=True, text=True, env=env)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if out.returncode:
        print(f"{size:>6} entries: the child failed: {(out.stderr.strip().splitlines() or ['?'])[-1]}")
        return
    r = json.loads(out.stdout)
    m, b, o, c = r["match"], r["baseline"], r["ours_on_sample"], r["cache"]
    print(f"{size:>6} entries (seed files written in {wrote:.0f} s):")
    print(f"        errkb seed into a new SQLite file: {seed_s:.1f} s, peak RSS {seed_mib:.0f} MiB")
    print(f"        errkb diagnose, whole process: cold (no snapshot) {cold_s:.1f} s, peak {cold_mib:.0f} MiB; "
          f"warm (snapshot, median of {args.runs}) {warm_s:.2f} s, peak {warm_mib:.0f} MiB "
          f"-> {cold_s / warm_s:.1f}x faster with the snapshot")
    cold, warm = serve[0], {key: statistics.median(run[key] for run in serve[1:]) for key in serve[0]}
    print(f"        errkb serve on the seeded store, whole process until it can take its first event (KB, matcher "
          f"and fallback index from the snapshot, store opened and synced, HTTP up), median of {args.runs}: "
          f"{warm['ready_s']:.2f} s, peak {warm['ready_mib']:.0f} MiB; its first search (loads the search index from "
          f"the snapshot) {warm['search_s']:.2f} s, peak then {warm['search_mib']:.0f} MiB. The first start (the "
          f"matcher in the snapshot from errkb diagnose, the fallback and search indexes not yet): ready in "
          f"{cold['ready_s']:.2f} s, first search {cold['search_s']:.1f} s (waits for the search index built in "
          f"the background), peak {cold['search_mib']:.0f} MiB")
    print(f"        one process: KB and matcher loaded in {r['load_s']:.2f} s (+{r['kb_mib']:.0f} MiB); after matching "
          f"RSS {r['rss_mib']:.0f} MiB, peak {r['peak_mib']:.0f} MiB; compiled-regex cache {c['regexes']} regexes, "
          f"{c['bytes'] / 2**20:.0f} of {c['budget'] / 2**20:.0f} MiB, {c['evictions']} evictions")
    print(f"        match over {r['pastes']} pastes x {args.rounds}: p50 {m['p50']:.3f} ms  p99 {m['p99']:.3f} ms  "
          f"max {m['max']:.1f} ms   ({r['answered']} answered); last round alone (regexes compiled, "
          f"fallback index loaded): p50 {r['warm']['p50']:.3f} ms  p99 {r['warm']['p99']:.3f} ms")
    print("        slowest in the last round: " + "; ".join(f"{ms:.1f} ms ({what})" for what, ms in r["slowest"]))
    print(f"        baseline (Python re over every regex, built in {r['baseline_build_s']:.1f} s) on {r['sample']} "
          f"of them: p50 {b['p50']:.2f} ms  p99 {b['p99']:.2f} ms; errkb on the same: p50 {o['p50']:.3f} ms "
          f" -> {b['p50'] / o['p50']:.0f}x faster at the median")


def bundled(args: argparse.Namespace, paste: bytes) -> None:
    work = Path(tempfile.mkdtemp(prefix="errkb-kbscale-"))
    try:
        env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{work}/absent.db", "ERRKB_CACHE": str(work),
               "PYTHONPATH": str(REPO)}
        env.pop("ERRKB_SEEDS", None)
        timed(errkb("diagnose", "-"), env, paste)  # writes the snapshot
        warm_s, warm_mib = median_run(max(5, args.runs), errkb("diagnose", "-"), env, paste)
        off_s, _ = median_run(args.runs, errkb("diagnose", "-"), {**env, "ERRKB_CACHE": "off"}, paste)
        bare_s, _ = median_run(max(5, args.runs), [sys.executable, "-c", "pass"], env)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"bundled KB: errkb diagnose, whole process: {warm_s:.2f} s with the snapshot (peak {warm_mib:.0f} MiB), "
          f"{off_s:.2f} s with ERRKB_CACHE=off ({off_s / warm_s:.1f}x); a bare `python -c pass` {bare_s:.2f} s")


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 50_000])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--baseline-pastes", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3, help="warm whole-process runs (the median is printed)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--write", help=argparse.SUPPRESS)
    parser.add_argument("--start", help=argparse.SUPPRESS)
    parser.add_argument("--spawned", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        write(Path(args.write), args.sizes[0])
        return
    if args.start:
        print(json.dumps(serve_start(args.start, args.spawned)))
        return
    if args.child:
        print(json.dumps(child(args.child, args.rounds, args.baseline_pastes)))
        return
    paste = (REPO / "bot" / "samples" / "nccl_traceback.txt").read_bytes()
    bundled(args, paste)
    for size in args.sizes:
        scale(size, args, paste)


if __name__ == "__main__":
    main()
