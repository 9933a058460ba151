"""Right / wrong / silent on the blind sample (``bench/blind/``), per ecosystem and overall, in three styles.

Each paste of ``bench/blind/pastes.jsonl`` was collected without looking at the KB (see
``bench/blind/README.md``); ``bench/blind/labels.jsonl`` says which entries answer it rightly (none when
the KB has no entry for its error). Every paste goes through ``Knowledge.find``, the path ``errkb
diagnose`` takes, as:

* ``clean``: as collected;
* ``fence``: inside a Slack message, a line of our own chat and a code fence, Slack's ``&lt;`` escapes;
* ``ci``: buried in a generated GitHub Actions log (timestamps, groups, INFO and WARNING lines before
  and after it, the runner's closing ``##[error]Process completed with exit code 1.``).

An answer is right when it is one of the paste's labelled entries, wrong when it is any other entry
(including any answer to a paste whose error the KB lacks), silent when errkb says nothing. A baseline
runs on the same pastes in the same process: Python ``re`` looped over the entry regexes in seeds file
order, first match wins.

    .venv/bin/python -m bench.eval_blind [--sample 1-5] [--part holdout|tune|both] [--format text|json] [--failures]

``--sample 2`` measures the second sample (``bench/blind2/``), collected the same way and held out as a whole;
``--sample 3`` and ``--sample 4`` the third and fourth (``bench/blind3/``, ``bench/blind4/``), all for tuning;
``--sample 5`` the fifth (``bench/blind5/``), a fresh sample held out as a whole.

``--failures`` lists the tune part's misses; it is refused for the holdout part, which nobody tunes on.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from bench.eval_real import WARNINGS, Baseline
from bench.harness import REPO, SEEDS, chat_lines, make_parser
from bot.kb.knowledge import KnowledgeBase
from bot.service.knowledge import Knowledge

# the second and fifth samples are held out as a whole, the third and fourth are all for tuning
SAMPLES = {1: REPO / "bench" / "blind", 2: REPO / "bench" / "blind2", 3: REPO / "bench" / "blind3",
           4: REPO / "bench" / "blind4", 5: REPO / "bench" / "blind5"}
PARTS = {2: ["holdout"], 3: ["tune"], 4: ["tune"], 5: ["holdout"]}  # the only part of the later samples
STYLES = ("clean", "fence", "ci")
CHAT_AROUND = ["getting this since this morning, any idea?", "CI went red on main:", "anyone seen this before?",
               "after the upgrade I get", "跑的时候报了这个错，有人见过吗？"]
CI_BEFORE = ["Current runner version: '2.321.0'", "##[group]Run actions/checkout@v4", "Syncing repository: acme/app",
             "##[endgroup]", "##[group]Run ./scripts/build.sh", "INFO: resolving dependencies",
             "INFO: using cache key build-linux-x64-3f9c2e"]
CI_AFTER = ["##[endgroup]", "Post job cleanup.", "[command]/usr/bin/git version", "git version 2.47.1",
            "Cleaning up orphan processes", "##[error]Process completed with exit code 1."]


@dataclass(frozen=True)
class Paste:
    id: str
    ecosystem: str
    part: str
    source: str
    paste: str
    expected: frozenset[str]

    def styled(self, style: str) -> str:
        pick = int(hashlib.sha256(self.id.encode()).hexdigest(), 16)
        if style == "fence":
            escaped = self.paste.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            return f"{CHAT_AROUND[pick % len(CHAT_AROUND)]}\n```\n{escaped}\n```"
        if style == "ci":
            warning = WARNINGS[pick % len(WARNINGS)].replace("\n", " ")
            lines = [*CI_BEFORE, f"WARNING: {warning}", *self.paste.split("\n"), *CI_AFTER]
            return "\n".join(f"2026-11-30T08:{i // 60 % 60:02d}:{i % 60:02d}.{pick % 9_000_000 + i:07d}Z {line}"
                             for i, line in enumerate(lines))
        return self.paste


def load(sample: int = 1) -> list[Paste]:
    folder = SAMPLES[sample]
    labels: dict[str, frozenset[str]] = {}
    path = folder / "labels.jsonl"
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                labels[row["id"]] = frozenset(row.get("expected") or ())
    out = []
    for number, line in enumerate((folder / "pastes.jsonl").read_text(encoding="utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
            out.append(Paste(row["id"], row["ecosystem"], row["part"], row["source"], row["paste"],
                             labels.get(row["id"], frozenset())))
        except (json.JSONDecodeError, KeyError) as exc:
            raise SystemExit(f"bench/{folder.name}/pastes.jsonl:{number}: not a paste line ({exc})") from exc
    return out


@dataclass
class Tally:
    pastes: int = 0
    known: int = 0  # pastes whose error has an entry
    right: int = 0
    wrong: int = 0
    silent: int = 0
    misses: list[tuple[str, str | None]] = field(default_factory=list)

    def add(self, paste: Paste, got: str | None) -> None:
        self.pastes += 1
        self.known += bool(paste.expected)
        if got is None:
            self.silent += 1
            if paste.expected:
                self.misses.append((paste.id, None))
        elif got in paste.expected:
            self.right += 1
        else:
            self.wrong += 1
            self.misses.append((paste.id, got))

    def figures(self) -> dict[str, float | int]:
        n = self.pastes or 1
        return {"pastes": self.pastes, "known": self.known, "right": round(self.right / n, 3),
                "wrong": round(self.wrong / n, 3), "silent": round(self.silent / n, 3),
                "right_of_known": round(self.right / self.known, 3) if self.known else 0.0}


def evaluate(pastes: list[Paste], top: Callable[[str], str | None]) -> dict[str, dict[str, Tally]]:
    """style → (ecosystem | "all") → tally."""
    result: dict[str, dict[str, Tally]] = {s: defaultdict(Tally) for s in STYLES}
    for paste in pastes:
        for style in STYLES:
            got = top(paste.styled(style))
            result[style][paste.ecosystem].add(paste, got)
            result[style]["all"].add(paste, got)
    return result


def run(parts: list[str], sample: int = 1) -> dict:
    kb = KnowledgeBase.load(SEEDS)
    knowledge, baseline = Knowledge(kb), Baseline(kb)

    def errkb_top(text: str) -> str | None:
        found = knowledge.find(text, limit=1)
        return found[0].entry_id if found else None

    pastes = load(sample)
    report: dict = {"entries": len(kb.entries), "sample": sample, "parts": {}}
    for part in parts:
        mine = [p for p in pastes if p.part == part]
        report["parts"][part] = {"errkb": evaluate(mine, errkb_top), "baseline": evaluate(mine, baseline.top)}
    chat = chat_lines()
    report["chat"] = {"lines": len(chat), "answered": sum(errkb_top(line) is not None for line in chat)}
    return report


def print_text(report: dict) -> None:
    print(f"Sample {report['sample']}, KB: {report['entries']} entries. right / WRONG / silent, share of all pastes "
          "(known: pastes whose error has an entry)")
    for part, res in report["parts"].items():
        errkb, base = res["errkb"], res["baseline"]
        print(f"\n== {part} ==")
        print(f"{'ecosystem':20}{'n':>4}{'known':>6}  " + "  ".join(f"{s + ' r/W/s':>17}" for s in STYLES)
              + f"  {'baseline clean r/W/s':>22}")
        for eco in sorted(errkb["clean"], key=lambda e: (e == "all", e)):
            row = errkb["clean"][eco].figures()
            cells = []
            for style in STYLES:
                f = errkb[style][eco].figures()
                cells.append(f"{f['right']:5.0%}/{f['wrong']:4.0%}/{f['silent']:4.0%}")
            b = base["clean"][eco].figures()
            print(f"{eco:20}{row['pastes']:>4}{row['known']:>6}  " + "  ".join(f"{c:>17}" for c in cells)
                  + f"  {b['right']:5.0%}/{b['wrong']:4.0%}/{b['silent']:4.0%}".rjust(24))
    chat = report["chat"]
    print(f"\nchat lines answered (pastes/_chat): {chat['answered']} of {chat['lines']}")


def print_failures(report: dict, pastes: dict[str, Paste]) -> None:
    tally = report["parts"]["tune"]["errkb"]["clean"]["all"]
    for paste_id, got in tally.misses:
        p = pastes[paste_id]
        print(f"{paste_id}  expected {sorted(p.expected) or '-'}  got {got or 'nothing'}  {p.source}")


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__)
    parser.add_argument("--sample", type=int, choices=sorted(SAMPLES), default=1,
                        help="1: bench/blind (holdout and tune parts); 2: bench/blind2 (all held out); "
                             "3 and 4: bench/blind3 and bench/blind4 (all for tuning); 5: bench/blind5 (all held out)")
    parser.add_argument("--part", choices=["holdout", "tune", "both"], default="holdout")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--failures", action="store_true", help="list the tune part's misses")
    args = parser.parse_args(argv)
    tuning = args.sample in (3, 4) or (args.sample == 1 and args.part == "tune")
    if args.failures and not tuning:
        print("errkb: --failures lists a tune part only (--sample 1 --part tune, --sample 3 or 4); nobody tunes on "
              "the holdout", file=sys.stderr)
        return 2
    parts = ["holdout", "tune"] if args.part == "both" else [args.part]
    parts = PARTS.get(args.sample, parts)
    report = run(parts, args.sample)
    if args.failures:
        print_failures(report, {p.id: p for p in load(args.sample)})
        return 0
    if args.format == "json":
        print(json.dumps({"entries": report["entries"], "sample": report["sample"], "chat": report["chat"],
                          "parts": {part: {who: {s: {e: t.figures() for e, t in eco.items()} for s, eco in res.items()}
                                           for who, res in r.items()} for part, r in report["parts"].items()}},
                         indent=1))
    else:
        print_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
