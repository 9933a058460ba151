"""Calibrate the retrieval fallback: precision and recall at each raw-score threshold.

The fallback answers only when no regex hits, so every trial holds the regex out:

- **entry's regex off**: each paste fixture, as given and with its error lines mutated (numbers,
  quoted names and paths changed, a word dropped or added, "cannot"/"can't" swapped), with its own
  entry's regex ignored; trials where another regex still hits are skipped. Right = its own entry.
- **entry left out**: the same pastes, with the fallback's best guess among the *other* entries:
  every answer here is wrong (the KB does not hold the error).
- **chat** (``pastes/_chat``) and the tune part of the real pastes (``bench/realpastes/tune.jsonl``,
  whose answer is known; ``null`` means any answer is wrong), through the fallback alone.

It prints, per threshold, the share of answers that were right (precision) and the share of the
first kind of trial answered rightly (recall), the lowest threshold where precision is at least 95%,
and the (raw score, precision in that band) points that ``bot/kb/fallback.py`` keeps as CALIBRATION.

    .venv/bin/python -m bench.calibrate_fallback [--min-precision 0.95]
"""

from __future__ import annotations

import hashlib
import json
import re

from bench.harness import PASTES, REPO, SEEDS, chat_lines, make_parser
from bot.kb.fallback import CALIBRATION, MIN_CONFIDENCE, confidence, error_lines
from bot.kb.knowledge import KnowledgeBase
from bot.kb.normalize import normalize
from bot.kb.quality import fixture_files, read_fixture

TUNE = REPO / "bench" / "realpastes" / "tune.jsonl"

_NUMBER = re.compile(r"\d+")
_QUOTED = re.compile(r"'([A-Za-z_][\w.-]{0,40})'")
_PATH = re.compile(r"(/[\w.-]+){2,}")
_SWAPS = (("cannot", "can't"), ("can't", "cannot"), ("could not", "couldn't"), ("No such", "no such"),
          ("Failed to", "failed to"), ("is not", "isn't"))


def _pick(seed: str, n: int) -> int:
    return int(hashlib.sha1(seed.encode()).hexdigest()[:8], 16) % max(1, n)


def mutate(line: str, how: int) -> str:
    """A variant of an error line: other values, and one wording change."""
    out = _NUMBER.sub(lambda m: str(int(m.group()) + 7), line)
    out = _QUOTED.sub(lambda m: "'" + m.group(1)[::-1] + "_x'", out)
    out = _PATH.sub("/srv/other/place", out)
    words = out.split(" ")
    if how == 1 and len(words) > 4:
        del words[2 + _pick(out, len(words) - 2)]
    elif how == 2 and len(words) > 3:
        words.insert(2 + _pick(out, len(words) - 2), "unexpectedly")
    elif how == 3:
        for old, new in _SWAPS:
            if old in out:
                return out.replace(old, new, 1)
    return " ".join(words)


def variants(text: str) -> list[str]:
    plain = normalize(text).text
    lines = {line for _, line in error_lines(plain)}
    if not lines:
        return []
    out = [plain]
    for how in (0, 1, 2, 3):
        out.append("\n".join(mutate(x, how) if x.strip() in lines or _strip(x) in lines else x
                             for x in plain.split("\n")))
    return out


def _strip(line: str) -> str:
    from bot.kb.normalize import strip_log_prefix

    return strip_log_prefix(line)


def _monotone(points: list[tuple[float, float, int]]) -> tuple[tuple[float, float], ...]:
    """Pool adjacent bands until precision never falls as the raw score rises (isotonic fit)."""
    blocks = [[x, p * n, n] for x, p, n in points if n]
    merged: list[list[float]] = []
    for block in blocks:
        merged.append(block)
        while len(merged) > 1 and merged[-2][1] / merged[-2][2] > merged[-1][1] / merged[-1][2]:
            _x, right, n = merged.pop()
            merged[-1][1] += right
            merged[-1][2] += n
    return tuple((round(x, 3), round(right / n, 3)) for x, right, n in merged)


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--min-precision", type=float, default=0.95)
    args = parser.parse_args()
    kb = KnowledgeBase.load(SEEDS)
    matcher, fallback = kb.matcher, kb.matcher.fallback
    answers: list[tuple[float, bool]] = []  # (raw score of the answer, right?)
    positives = 0
    kinds = {"regex off": 0, "left out": 0, "chat": 0, "real": 0}
    for entry_id in kb.entries:
        for path in fixture_files(PASTES, entry_id):
            for text in variants(read_fixture(path)):
                plain = normalize(text)
                others = [m for m in matcher.regex_hits(plain) if m.entry_id != entry_id]
                if others:
                    continue
                guesses = fallback.guess(plain.text)
                positives += 1
                kinds["regex off"] += 1
                if guesses:
                    answers.append((guesses[0].raw, guesses[0].entry_id == entry_id))
                wrong = fallback.guess(plain.text, exclude=entry_id)
                kinds["left out"] += 1
                if wrong:
                    answers.append((wrong[0].raw, False))
    for message in chat_lines():
        kinds["chat"] += 1
        guesses = fallback.guess(normalize(message).text)
        if guesses:
            answers.append((guesses[0].raw, False))
    if TUNE.exists():
        for row in map(json.loads, TUNE.read_text(encoding="utf-8").splitlines()):
            plain = normalize(row["paste"])
            if matcher.regex_hits(plain):
                continue
            kinds["real"] += 1
            guesses = fallback.guess(plain.text)
            if guesses:
                answers.append((guesses[0].raw, guesses[0].entry_id == row.get("expected")))
    print("trials: " + ", ".join(f"{k} {v}" for k, v in kinds.items()) + f"   answers scored: {len(answers)}")
    print(f"{'raw ≥':>6} {'answers':>8} {'right':>6} {'precision':>9} {'recall':>7}   band precision")
    steps = [round(0.40 + 0.025 * i, 3) for i in range(25)]
    threshold = None
    points = []
    for i, t in enumerate(steps):
        above = [ok for raw, ok in answers if raw >= t]
        right = sum(above)
        precision = right / len(above) if above else 1.0
        hi = steps[i + 1] if i + 1 < len(steps) else 9
        band = [ok for raw, ok in answers if t <= raw < hi]
        band_p = sum(band) / len(band) if band else float("nan")
        points.append((t, band_p, len(band)))
        print(f"{t:6.3f} {len(above):8d} {right:6d} {precision:9.3f} {right / max(1, positives):7.3f}"
              f"   {band_p:6.3f} ({len(band)})")
        if threshold is None and precision >= args.min_precision:
            threshold = t
    print(f"lowest threshold with precision ≥ {args.min_precision:.0%}: raw {threshold}")
    print(f"CALIBRATION (band precision made monotone): {_monotone(points)}")
    print(f"in force: MIN_CONFIDENCE {MIN_CONFIDENCE}, CALIBRATION {CALIBRATION}")
    kept = [(raw, ok) for raw, ok in answers if confidence(raw) >= MIN_CONFIDENCE]
    right = sum(ok for _, ok in kept)
    print(f"with the calibration in force: {len(kept)} answers, precision {right / max(1, len(kept)):.3f}, "
          f"recall {right / max(1, positives):.3f}")


if __name__ == "__main__":
    main()
