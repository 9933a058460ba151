"""Calibrate the code families: how often the page errkb names is the right page for the code pasted.

Runs the family recognisers (``bot.kb.families``, data in ``seeds/_families.json``) over real pastes that
carry codes: the KB's paste fixtures (``pastes/``), the tune part of ``bench/realpastes/`` and the tune part
of the blind sample (``bench/blind/pastes.jsonl``; the holdout part is skipped unread, as its README asks).
Every paste is read whole, as a family answer would read it, whether or not an entry also answers it.

A named page is **right** when

- the code it names is the code on the pasted line, as that family prints it (``error[E0308]``,
  ``ERROR 1698 (28000)``, ``0x80070005`` → Windows error 5 …), and
- the address follows the family's official scheme, restated here from the documentation checked by hand
  (not read from the data file, so a slip in the data shows): a per-code page names that code; a range page
  (Windows, MySQL) covers it; a list page (PostgreSQL's SQLSTATE appendix, errno(3)) or an index
  (TypeScript's message list, a .NET SDK code without a page) is the family's own.

Chat (``pastes/_chat``) must get no family answer at all. It prints, per family and overall, the pastes
answered and the share right, the chat answered, and how many pastes would get the family answer in Slack
(no entry answers them).

    .venv/bin/python -m bench.calibrate_families [--show N]
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator

from bench.harness import REPO, SEEDS, chat_lines, fixture_paths, make_parser
from bot.kb.families import FamilyHit
from bot.kb.knowledge import KnowledgeBase
from bot.kb.normalize import normalize

REAL_TUNE = REPO / "bench" / "realpastes" / "tune.jsonl"
BLIND = REPO / "bench" / "blind" / "pastes.jsonl"
MS = re.escape("https://learn.microsoft.com/en-us")
MYSQL = re.escape("https://dev.mysql.com/doc/mysql-errors/8.0/en/")
# The official schemes, as checked against the documentation (docs/kb.md, "Error codes with no entry").
SCHEMES: dict[str, re.Pattern[str]] = {
    "rustc": re.compile(r"https://doc\.rust-lang\.org/error_codes/(?P<code>E\d{4})\.html"),
    "typescript": re.compile(re.escape("https://github.com/microsoft/TypeScript/blob/main/src/compiler/"
                                       "diagnosticMessages.json")),
    "csharp": re.compile(r"https://msdn\.microsoft\.com/query/roslyn\.query\?appId=roslyn&k=k\((?P<code>CS\d{4})\)"),
    "netsdk": re.compile(MS + r"/dotnet/core/tools/sdk-errors/(?:(?P<code>netsdk\d{4}))?"),
    "msbuild": re.compile(MS + r"/visualstudio/msbuild/errors/(?P<code>msb\d{4})"),
    "nuget": re.compile(MS + r"/nuget/reference/errors-and-warnings(?:/(?P<code>nu\d{4})(?:-nu(?P<to>\d{4}))?)?"),
    "prisma": re.compile(r"https://www\.prisma\.io/docs/orm/reference/error-reference#(?P<code>p\d{4})"),
    "mysql": re.compile(MYSQL + r"(?P<side>server|client)-error-reference\.html(?:#error_(?:er|cr|warn)_[a-z0-9_]+)?"),
    "sqlstate": re.compile(re.escape("https://www.postgresql.org/docs/current/errcodes-appendix.html")),
    "windows": re.compile(MS + r"/windows/win32/debug/system-error-codes--(?P<low>\d+)-(?P<high>\d+)-"),
    "errno": re.compile(re.escape("https://man7.org/linux/man-pages/man3/errno.3.html")),
}


def pastes() -> Iterator[tuple[str, str, str]]:
    """(source, name, paste) of every paste measured."""
    for path in fixture_paths():
        yield "fixtures", str(path.relative_to(REPO)), path.read_text("utf-8", errors="replace")
    for n, line in enumerate(REAL_TUNE.read_text("utf-8").splitlines()):
        yield "realpastes-tune", f"realpastes/tune#{n + 1}", json.loads(line)["paste"]
    for line in BLIND.read_text("utf-8").splitlines():
        row = json.loads(line)
        if row["part"] == "tune":  # the holdout part is never looked at
            yield "blind-tune", f"blind/{row['id']}", row["paste"]


def right(hit: FamilyHit) -> str | None:
    """None when the page is the right one for the code on the line, else why not."""
    scheme = SCHEMES.get(hit.family.id)
    if scheme is None:
        return "no checked scheme for this family"
    m = scheme.fullmatch(hit.url)
    if m is None:
        return f"address off the official scheme: {hit.url}"
    line = hit.code_line or hit.line
    if hit.family.id == "windows":
        number = int(hit.code)
        on_line = re.search(rf"(?<![\d.]){number}(?!\d)", line) or f"0x8007{number:04x}" in line.lower()
        if not on_line:
            return f"{number} is not on the line"
        return None if int(m["low"]) <= number <= int(m["high"]) else f"{number} is outside the page's range"
    if hit.family.id == "mysql":
        if not re.search(rf"(?<!\d){hit.code}(?!\d)", line):
            return f"{hit.code} is not on the line"
        client = 2000 <= int(hit.code) <= 2999
        return None if (m["side"] == "client") == client else "server/client page swapped"
    if hit.code not in line.upper() and hit.code.removeprefix("TS") not in line:
        return f"{hit.code} is not on the line"
    named = m.groupdict().get("code")
    if named is not None and m.groupdict().get("to"):  # one page for a run of codes (NU1901-NU1904)
        low, high, number = int(named[2:]), int(m["to"]), int(hit.code[2:])
        return None if low <= number <= high else f"{hit.code} is outside {named}-{m['to']}"
    if named is not None and named.upper() != hit.code:
        return f"the page names {named}, the line {hit.code}"
    if hit.page == "code" and "code" in scheme.groupindex and named is None:
        return "a per-code page that names no code"
    return None


def main() -> int:
    parser = make_parser(__doc__ or "")
    parser.add_argument("--show", type=int, default=0, help="print the first N answers of each family")
    args = parser.parse_args()
    kb = KnowledgeBase.load(SEEDS)
    families = kb.families
    hits: dict[str, list[tuple[str, FamilyHit, str | None]]] = defaultdict(list)
    seen: Counter[str] = Counter()
    unanswered: Counter[str] = Counter()
    for source, name, paste in pastes():
        seen[source] += 1
        text = normalize(paste).text
        hit = families.find(text)
        if hit is None:
            continue
        hits[hit.family.id].append((name, hit, right(hit)))
        if not kb.matcher.match(text, limit=1):
            unanswered[source] += 1
    chat = [line for line in chat_lines() if families.find(normalize(line).text) is not None]

    total = sum(len(v) for v in hits.values())
    wrong = sum(1 for v in hits.values() for _n, _h, why in v if why)
    print("pastes read: " + ", ".join(f"{k} {v}" for k, v in seen.items()))
    print(f"{'family':<12} {'answered':>8} {'right':>6} {'wrong':>6}  pages (code/list/index)")
    for family in sorted(hits):
        rows = hits[family]
        kinds = Counter(h.page for _n, h, _w in rows)
        bad = sum(1 for _n, _h, why in rows if why)
        print(f"{family:<12} {len(rows):>8} {len(rows) - bad:>6} {bad:>6}  "
              f"{kinds['code']}/{kinds['list']}/{kinds['index']}")
    share = (total - wrong) / total if total else 1.0
    print(f"{'all':<12} {total:>8} {total - wrong:>6} {wrong:>6}  right page: {share:.1%}")
    print(f"chat lines with a family answer: {len(chat)} of {len(chat_lines())}")
    print("pastes no entry answers that get the family answer instead: "
          + ", ".join(f"{k} {unanswered[k]}" for k in seen))
    for family in sorted(hits):
        for name, hit, _why in hits[family][: args.show]:
            print(f"  {family} {hit.code} [{hit.page}] {name}: {hit.line[:110]}")
        for name, hit, why in hits[family]:
            if why:
                print(f"  WRONG {family} {hit.code} {name}: {why} | {hit.line[:100]}")
    for line in chat:
        print(f"  CHAT {line[:100]}")
    return 0 if share >= 0.99 and not chat else 1


if __name__ == "__main__":
    raise SystemExit(main())
