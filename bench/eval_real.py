"""Recall@1 of errkb on real pastes from public issue threads, Q&A pages and committed logs.

Each line of ``bench/realpastes/{tune,holdout}.jsonl`` holds the decisive error lines of one real
paste, its source address and the KB entry that should answer it (``null`` when the KB has none).
The KB is loaded from ``seeds/`` and every paste goes through ``Knowledge.find``, the path
``errkb diagnose`` takes. Printed for each part: recall@1 per domain and overall on the clean
pastes, the same with one routine warning line put in front (every warning of ``WARNINGS`` in
turn), the no-answer and wrong-answer rates, and the false-positive rate on
``pastes/_chat``. With a warning in front, a reply about the warning instead of the error
is also counted on its own ("answered the warning"); it is a wrong answer only when the KB has an
entry for the error. Pastes whose answer is itself a warning entry are left out of the warning-in-front
figures (two warnings, no error to hide). A baseline runs on the same pastes in the same process: Python ``re`` looped
over the entry regexes in seeds file order, the first that matches the paste as given wins (no
ranking, no fallback), so the ratio is visible.

    .venv/bin/python -m bench.eval_real [--part tune|holdout|both] [--format text|json] [--failures]

``--failures`` lists the misses; it is refused for the holdout part, which nobody tunes on.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from bench.harness import REPO, SEEDS, chat_lines, make_parser
from bot.kb.knowledge import KnowledgeBase
from bot.kb.seeds import seed_files
from bot.service.knowledge import Knowledge

PASTES = REPO / "bench" / "realpastes"

# Routine lines that real logs carry before the error (as the tools print them).
WARNINGS = [
    "Some weights of BertForSequenceClassification were not initialized from the model checkpoint at "
    "bert-base-uncased and are newly initialized: ['classifier.bias', 'classifier.weight']",
    "/app/etl.py:41: SettingWithCopyWarning: \nA value is trying to be set on a copy of a slice from a DataFrame.\n"
    "Try using .loc[row_indexer,col_indexer] = value instead",
    "WARNING:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
    "installed. Falling back to cpu.",
    "2024-05-02 10:14:31.118230: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: "
    "Could not find TensorRT",
    "WARN[0000] /srv/app/docker-compose.yml: the attribute `version` is obsolete, it will be ignored, please "
    "remove it to avoid potential confusion",
    "WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with "
    "the system package manager. It is recommended to use a virtual environment instead: "
    "https://pip.pypa.io/warnings/venv",
    "/usr/lib/python3.11/site-packages/pkg_resources/__init__.py:121: DeprecationWarning: pkg_resources is "
    "deprecated as an API",
    "/opt/conda/lib/python3.10/site-packages/torch/utils/data/dataloader.py:557: UserWarning: This DataLoader "
    "will create 8 worker processes in total. Our suggested max number of worker in current system is 4, which "
    "is smaller than what this DataLoader is going to create.",
]

# Our own sentences, put around a paste marked ``"around": "zh"`` (people's prose is never stored).
ZH_AROUND = [
    "跑的时候报了这个错，有人见过吗？\n```\n{paste}\n```",
    "早上 CI 挂了：\n{paste}\n麻烦帮忙看一下",
    "升级之后一直这样\n```\n{paste}\n```\n重启也没用",
]


@dataclass(frozen=True)
class Paste:
    source: str
    domain: str
    paste: str
    expected: str | None
    note: str
    around: str = ""

    def text(self) -> str:
        if self.around == "zh":
            template = ZH_AROUND[int(hashlib.sha256(self.source.encode()).hexdigest(), 16) % len(ZH_AROUND)]
            return template.format(paste=self.paste)
        return self.paste


def load_part(name: str) -> list[Paste]:
    path = PASTES / f"{name}.jsonl"
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            out.append(Paste(row["source"], row["domain"], row["paste"], row["expected"], row.get("note", ""),
                             row.get("around", "")))
        except (json.JSONDecodeError, KeyError) as exc:
            raise SystemExit(f"{path}:{number}: not a paste line ({exc})") from exc
    return out


class Baseline:
    """Python ``re`` over every entry regex in seeds file order; the first that matches wins."""

    def __init__(self, kb: KnowledgeBase) -> None:
        order = {str(path): i for i, path in enumerate(seed_files(SEEDS))}
        self._regexes: list[tuple[str, re.Pattern[str]]] = []
        for entry in sorted(kb.entries.values(), key=lambda e: order.get(e.source or "", 1 << 30)):
            try:
                self._regexes.append((entry.id, re.compile(entry.regex)))
            except re.error:  # RE2-only syntax: the baseline simply lacks that entry
                continue

    def top(self, paste: str) -> str | None:
        for entry_id, regex in self._regexes:
            if regex.search(paste):
                return entry_id
        return None


@dataclass
class Tally:
    total: int = 0
    labelled: int = 0
    right: int = 0
    none: int = 0
    wrong: int = 0
    warning: int = 0

    def add(self, expected: str | None, got: str | None, warning_entry: str | None = None) -> None:
        """``warning_entry``: what the warning line put in front answers on its own (if anything)."""
        self.total += 1
        self.labelled += expected is not None
        if got is None:
            self.none += 1
        elif got == expected:
            self.right += 1
        elif got == warning_entry:
            # The reply is about the routine warning, not the error. For a paste whose error the KB
            # lacks that is not a wrong diagnosis, only an unhelpful one; it is counted apart.
            self.warning += 1
            self.wrong += expected is not None
        else:
            self.wrong += 1

    def figures(self) -> dict[str, float | int]:
        return {
            "pastes": self.total,
            "labelled": self.labelled,
            "recall@1": _rate(self.right, self.labelled),        # on pastes the KB should answer
            "recall@1_all": _rate(self.right, self.total),       # an unlabelled paste counts as a miss
            "no_answer": _rate(self.none, self.total),
            "wrong_answer": _rate(self.wrong, self.total),
            "answered_the_warning": _rate(self.warning, self.total),
        }


def _rate(n: int, d: int) -> float:
    return round(n / d, 3) if d else 0.0


WARNING_CATEGORIES = {"warning", "runtime_warning", "deprecation"}


def evaluate(pastes: list[Paste], top: Callable[[str], str | None], warning_ids: frozenset[str] = frozenset()) -> dict:
    """``warning_ids``: entries that are themselves routine warnings. A paste whose answer is one of them
    is left out of the warning-in-front figures: with a second warning in front there is no error line
    for the warning to hide, and either warning is a fair reply."""
    clean: dict[str, Tally] = defaultdict(Tally)
    warned = Tally()
    skipped = 0
    misses = []
    warned_misses = []
    warning_entries = [top(w) for w in WARNINGS]
    for p in pastes:
        got = top(p.text())
        for key in ("all", p.domain) + (("zh",) if p.around == "zh" or _has_cjk(p.paste) else ()):
            clean[key].add(p.expected, got)
        if got != p.expected:
            misses.append((p, got))
        if p.expected in warning_ids:
            skipped += 1
            continue
        for warning, warning_entry in zip(WARNINGS, warning_entries, strict=True):
            with_warning = top(warning + "\n" + p.text())
            warned.add(p.expected, with_warning, warning_entry)
            if p.expected is not None and got == p.expected and with_warning != p.expected:
                warned_misses.append((p, with_warning, warning))
    return {
        "clean": clean["all"].figures(),
        "warning_in_front": {**warned.figures(), "pastes_left_out": skipped},
        "chinese": clean["zh"].figures() if "zh" in clean else None,
        "domains": {d: t.figures() for d, t in sorted(clean.items()) if d not in ("all", "zh")},
        "_misses": misses,
        "_warned_misses": warned_misses,
    }


def _has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def false_positives(lines: list[str], top: Callable[[str], str | None]) -> dict:
    hits = [(line, got) for line in lines if (got := top(line)) is not None]
    return {"lines": len(lines), "false_positive": _rate(len(hits), len(lines)), "_hits": hits}


def run(parts: list[str]) -> dict:
    kb = KnowledgeBase.load(SEEDS)
    service = Knowledge(kb)
    baseline = Baseline(kb)

    def errkb_top(paste: str) -> str | None:
        found = service.find(paste, limit=1)
        return found[0].entry_id if found else None

    warning_ids = frozenset(eid for eid, entry in kb.entries.items()
                            if (entry.raw.get("category") or "") in WARNING_CATEGORIES)
    chat = chat_lines()
    report: dict = {"entries": len(kb.entries), "warnings": len(WARNINGS), "parts": {}}
    for part in parts:
        pastes = load_part(part)
        report["parts"][part] = {"errkb": evaluate(pastes, errkb_top, warning_ids),
                                 "baseline": evaluate(pastes, baseline.top, warning_ids)}
    report["chat"] = {"errkb": false_positives(chat, errkb_top), "baseline": false_positives(chat, baseline.top)}
    return report


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}×" if b else "n/a"


def print_text(report: dict) -> None:
    print(f"KB: {report['entries']} entries; warning-in-front figures average {report['warnings']} warning lines")
    print("errkb: Knowledge.find (the matcher of `errkb diagnose`); baseline: Python `re`, each entry regex in"
          " seeds file order, first match wins")
    for part, res in report["parts"].items():
        e, b = res["errkb"], res["baseline"]
        c = e["clean"]
        print(f"\n== {part}: {c['pastes']} pastes, {c['labelled']} with an entry that should answer ==")
        print(f"   (warning in front: left out {e['warning_in_front']['pastes_left_out']} pastes whose answer is itself"
              " a warning)")
        print(f"{'':26}{'errkb':>8}{'baseline':>10}{'ratio':>8}")
        for label, key, sub in (("recall@1 clean", "clean", "recall@1"),
                                ("recall@1 warning in front", "warning_in_front", "recall@1"),
                                ("recall@1 all pastes", "clean", "recall@1_all"),
                                ("no answer", "clean", "no_answer"),
                                ("wrong answer", "clean", "wrong_answer"),
                                ("no answer (warning)", "warning_in_front", "no_answer"),
                                ("wrong answer (warning)", "warning_in_front", "wrong_answer"),
                                ("answered the warning", "warning_in_front", "answered_the_warning")):
            x, y = e[key][sub], b[key][sub]
            print(f"{label:26}{x:>8.3f}{y:>10.3f}{_ratio(x, y):>8}")
        if e["chinese"]:
            z, zb = e["chinese"], b["chinese"]
            print(f"{'recall@1 with Chinese':26}{z['recall@1']:>8.3f}{zb['recall@1']:>10.3f}"
                  f"{_ratio(z['recall@1'], zb['recall@1']):>8}   ({z['pastes']} pastes)")
        print(f"\n{'domain':14}{'pastes':>7}{'labelled':>9}{'recall@1':>10}{'baseline':>10}{'no answer':>11}"
              f"{'wrong':>8}")
        for domain, fig in e["domains"].items():
            base = b["domains"][domain]
            recall = f"{fig['recall@1']:>10.3f}{base['recall@1']:>10.3f}" if fig["labelled"] else f"{'-':>10}{'-':>10}"
            print(f"{domain:14}{fig['pastes']:>7}{fig['labelled']:>9}{recall}{fig['no_answer']:>11.3f}"
                  f"{fig['wrong_answer']:>8.3f}")
    ce, cb = report["chat"]["errkb"], report["chat"]["baseline"]
    print(f"\nchat: {ce['lines']} lines; false positives errkb {ce['false_positive']:.3f}, "
          f"baseline {cb['false_positive']:.3f}")
    for line, got in ce["_hits"]:
        print(f"  chat hit {got}: {line[:100]!r}")


def print_failures(report: dict) -> None:
    misses = report["parts"]["tune"]["errkb"]["_misses"]
    print(f"\n== tune misses ({len(misses)}) ==")
    for p, got in sorted(misses, key=lambda m: (m[0].domain, m[0].expected or "")):
        print(f"\n[{p.domain}] expected {p.expected}, got {got}   ({p.note})\n  {p.source}")
        for line in p.paste.splitlines()[-6:]:
            print(f"    | {line[:160]}")
    warned = report["parts"]["tune"]["errkb"]["_warned_misses"]
    print(f"\n== tune pastes right alone but not with a warning in front ({len(warned)}) ==")
    for p, got, warning in sorted(warned, key=lambda m: (m[0].domain, m[0].source)):
        print(f"\n[{p.domain}] expected {p.expected}, got {got} after: {warning.splitlines()[0][:90]}\n  {p.source}")


def _public(value):
    if isinstance(value, dict):
        return {k: _public(v) for k, v in value.items() if not k.startswith("_")}
    return value


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__, whole_doc=False)
    parser.add_argument("--part", choices=("tune", "holdout", "both"), default="both")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--failures", action="store_true", help="list the misses (tune part only)")
    args = parser.parse_args(argv)
    if args.failures and args.part != "tune":
        print("eval_real: --failures is only allowed with --part tune (the holdout part is never tuned on)",
              file=sys.stderr)
        return 2
    parts = ["tune", "holdout"] if args.part == "both" else [args.part]
    report = run(parts)
    if args.format == "json":
        print(json.dumps(_public(report), indent=2, ensure_ascii=False))
    else:
        print_text(report)
    if args.failures:
        print_failures(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
