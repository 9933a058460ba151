"""Error-code families: the official page for a code when no entry knows its error.

Some tools number their errors and document every number (rustc ``E0308``, ``NETSDK1045``, Prisma
``P1001``, MySQL ``1698``, a SQLSTATE, an errno name …). When a paste's decisive error line carries
such a code and no entry answers, errkb can still say honestly what the code family is and where
the official page for that exact code is, and that no fix is known yet: never a diagnosis.

The families are KB data (``seeds/_families.json``), checked by :func:`validate` (``errkb validate``).
Each family has the line patterns that carry its code and says how a code becomes an address:

- ``url``: a page per code (``{code}``, ``{code_lower}``), for every code or only those in ``pages``;
- ``symbols`` + ``anchor``: a code's anchor on its range's page (MySQL's ``#error_er_dup_entry``);
- ``ranges``: the page that lists a numeric code's range (Windows system error codes);
- ``list_url``: one page that lists every code of the family (PostgreSQL's SQLSTATE appendix);
- ``index_url``: the family's list, for a code without a page of its own (said so on the card).

A code the family cannot place on a page it has checked is not answered at all. Pure: no I/O but
:func:`load`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.errors import SeedError
from bot.kb.announce import announcements, consequence
from bot.kb.entry import Problem
from bot.kb.normalize import strip_log_prefix

FILE = "_families.json"  # beside the seeds' domain folders, so never read as an entry
MAX_LINE = 500
DETAIL_LINES = 8  # lines under an error line that may carry its code (a driver's ``code:``, an errno object)
# Lines that only sum up or detail an error printed with them (the error itself is the line to answer).
_SUMMARY = re.compile(
    r"^(?:error: aborting due to\b|error: could not compile\b|Found \d+ errors?\b|\d+ Error\(s\)|Build FAILED\b"
    r"|error: Recipe\b|For more information about this error\b"
    r"|npm (?:ERR!|error) (?:syscall|errno|path|dest|command|cwd|signal|A complete log|Log files)\b)"
)
_RANGE = re.compile(r"^([A-Z]*)(\d+)-\1(\d+)$")


@dataclass(frozen=True)
class Pattern:
    regex: re.Pattern[str]
    announces: bool  # the pattern alone makes its line an error line (``error CS0246:``, a VS Error List row)
    context: re.Pattern[str] | None = None  # must occur somewhere in the paste (``code: 'P2002'`` and ``prisma``)


@dataclass(frozen=True)
class Family:
    """One code family, as ``seeds/_families.json`` describes it."""

    id: str
    label: str
    label_zh: str
    about: str
    about_zh: str
    patterns: tuple[Pattern, ...]
    code: re.Pattern[str]
    prefix: str = ""  # added to a captured number (``TS`` + ``2786``)
    url: str | None = None
    pages: frozenset[str] | None = None  # the codes ``url`` has a page for (None: every code)
    page_names: dict[str, str] = field(default_factory=dict)  # a code whose page is named otherwise
    codes: frozenset[str] | None = None  # the family's only codes (others are not this family's)
    names: dict[str, str] = field(default_factory=dict)  # a code's condition name (SQLSTATE)
    symbols: dict[str, str] = field(default_factory=dict)
    anchor: str | None = None
    ranges: tuple[tuple[int, int, str], ...] = ()
    list_url: str | None = None
    index_url: str | None = None

    def page(self, code: str) -> tuple[str, str] | None:
        """(address, kind) of the official page for ``code``; None when no checked page can be named."""
        if self.codes is not None and code not in self.codes:
            return None
        named = self.page_names.get(code, code)
        if self.url and not self.symbols and (self.pages is None or code in self.pages):
            return self.url.format(code=named, code_lower=named.lower()), "code"
        if self.ranges and code.isdigit():
            for low, high, address in self.ranges:
                if low <= int(code) <= high:
                    symbol = self.symbols.get(code)
                    if symbol and self.anchor:
                        return f"{address}#{self.anchor.format(symbol_lower=symbol.lower())}", "code"
                    return address, "list"
            return None
        if self.list_url:
            return self.list_url, "list"
        if self.index_url:
            return self.index_url, "index"
        return None


@dataclass(frozen=True)
class FamilyHit:
    """A code of a known family on the decisive error line of a paste."""

    family: Family
    code: str
    url: str
    page: str  # "code" (a page about the code), "list" (a page listing it), "index" (no page of its own)
    line: str  # the decisive line, as pasted
    start: int  # its offset in the text searched
    code_line: str = ""  # the line the code is on: the decisive line, or one of its detail lines below it


class Families:
    """Every family, in the order they are tried on a line (the more specific first)."""

    def __init__(self, families: tuple[Family, ...] = ()) -> None:
        self.families = families
        self._announcing = [p.regex for f in families for p in f.patterns if p.announces]
        self._hint = _hint(self._announcing)

    def __len__(self) -> int:
        return len(self.families)

    def recognise(self, line: str, paste: str = "") -> FamilyHit | None:
        """The first family code on ``line`` that has a checked page (``paste``: for a pattern's context)."""
        for family in self.families:
            for pattern in family.patterns:
                if pattern.context is not None and not pattern.context.search(paste or line):
                    continue
                for m in pattern.regex.finditer(line):
                    code = _code(family, m)
                    if code is None:
                        continue
                    found = family.page(code)
                    if found is not None:
                        return FamilyHit(family, code, found[0], found[1], line, 0)
        return None

    def find(self, text: str) -> FamilyHit | None:
        """The family code of the decisive error of ``text``: on the last line that announces an error and is
        neither a report of an earlier failure nor a summary (else the last that announces one), or on the
        detail lines printed under it (``  code: 'P2002'``, ``{ errno: -111, code: 'ECONNREFUSED' }``). None
        when the error carries no code of a family, or there is no error line (a warning is never one)."""
        lines = self._error_lines(text)
        causes = [(o, line) for o, line in lines if not consequence(line) and not _SUMMARY.search(line)]
        for offset, line in (causes or lines)[-1:]:
            raw = _line_at(text, offset)
            # the line as the detector reads it, then as printed (``ERROR 1698 (28000):`` is not a log level)
            hit = self.recognise(line, text) or self.recognise(raw, text)
            if hit is None:
                hit = next(filter(None, (self.recognise(d, text) for d in _details(text, offset, lines))), None)
            if hit is not None:
                return FamilyHit(hit.family, hit.code, hit.url, hit.page, raw, offset, hit.line)
        return None

    def _error_lines(self, text: str) -> list[tuple[int, str]]:
        """The announcement detector's error lines, and the lines a family's own pattern marks as errors
        (``src/a.ts:3:5 - error TS2786:``, a Visual Studio Error List row), in order."""
        found = dict(announcements(text))
        offset = 0
        for raw in text.split("\n"):
            if offset not in found and len(raw) < MAX_LINE and (self._hint is None or self._hint.search(raw)):
                line = strip_log_prefix(raw)
                if line and any(r.search(line) or r.search(raw.strip()) for r in self._announcing):
                    found[offset] = line
            offset += len(raw) + 1
        return sorted(found.items())


def _line_at(text: str, offset: int) -> str:
    end = text.find("\n", offset)
    return text[offset : len(text) if end < 0 else end].strip()


def _details(text: str, offset: int, errors: list[tuple[int, str]]) -> list[str]:
    """The ``DETAIL_LINES`` lines printed under the error line at ``offset``, up to the next error line."""
    stop = next((o for o, _line in errors if o > offset), len(text))
    block = text[offset:stop].split("\n")[1 : 1 + DETAIL_LINES]
    return [line.strip() for line in block if line.strip()]


def _hint(patterns: list[re.Pattern[str]]) -> re.Pattern[str] | None:
    """One regex that finds, anywhere in a raw log line, what any of ``patterns`` would find in it once its log
    prefix is stripped (the patterns unanchored, their groups unnamed): lines without it are skipped unstripped.
    None when the patterns cannot be joined so (then every line is tried)."""
    if not patterns:
        return None
    parts = [re.sub(r"\(\?P<\w+>", "(", re.sub(r"(?<![\[\\])\^", "", p.pattern)) for p in patterns]
    try:
        return re.compile("|".join(f"(?:{part})" for part in parts))
    except re.error:
        return None


def _code(family: Family, m: re.Match[str]) -> str | None:
    groups = m.groupdict()
    if groups.get("hresult"):
        code = str(int(groups["hresult"][-4:], 16))  # 0x8007xxxx: the Win32 code in the low word
    else:
        code = family.prefix + (groups.get("code") or "").upper()
    return code if family.code.fullmatch(code) else None


def load(seeds_dir: str | Path) -> Families:
    """The families beside the seeds in ``seeds_dir`` (none when it has no ``_families.json``); raises
    ``SeedError`` with every problem of an invalid file."""
    path = Path(seeds_dir) / FILE
    if not path.is_file():
        return Families()
    families, problems = read(path)
    if problems:
        raise SeedError(problems)
    return families


def read(path: Path) -> tuple[Families, list[Problem]]:
    """The families in ``path`` and every problem with them (``file: field: problem``)."""
    name = str(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return Families(), [Problem(name, "", f"cannot read it as JSON ({exc})")]
    problems: list[Problem] = []
    items = raw.get("families") if isinstance(raw, dict) else None
    if not isinstance(items, list):
        return Families(), [Problem(name, "families", "must be a list of families")]
    built: list[Family] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        where = f"families[{index}]"
        found = _family(item, f"{name}", where, problems)
        if found is not None:
            if found.id in seen:
                problems.append(Problem(name, f"{where}.id", f"{found.id!r} is used twice"))
            seen.add(found.id)
            built.append(found)
    return Families(tuple(built)), problems


def validate(seeds_dir: str | Path) -> list[Problem]:
    """The problems of ``seeds_dir``'s ``_families.json`` (none when there is no such file)."""
    path = Path(seeds_dir) / FILE
    return read(path)[1] if path.is_file() else []


_TEXTS = ("id", "label", "label_zh", "about", "about_zh")
_URLS = ("url", "list_url", "index_url")


def _family(item: Any, file: str, where: str, problems: list[Problem]) -> Family | None:
    """One family from its JSON, or None (with its problems added) when it cannot be used."""
    before = len(problems)

    def problem(path: str, message: str) -> None:
        problems.append(Problem(file, f"{where}.{path}" if path else where, message))

    if not isinstance(item, dict):
        problem("", "must be an object")
        return None
    for key in _TEXTS:
        if not isinstance(item.get(key), str) or not item[key].strip():
            problem(key, "must be a non-empty string")
    for key in _URLS:
        value = item.get(key)
        if value is not None and (not isinstance(value, str) or not value.startswith("https://")):
            problem(key, "must be an https:// address")
    url = item.get("url")
    if isinstance(url, str) and "{code" not in url and not item.get("symbols"):
        problem("url", "must name the code ({code} or {code_lower})")
    code = _regex(item.get("code"), "code", problem)
    patterns: list[Pattern] = []
    raw_patterns = item.get("patterns")
    if not isinstance(raw_patterns, list) or not raw_patterns:
        problem("patterns", "must be a non-empty list")
        raw_patterns = []
    for n, raw in enumerate(raw_patterns):
        if not isinstance(raw, dict):
            problem(f"patterns[{n}]", "must be an object with regex and announces")
            continue
        regex = _regex(raw.get("regex"), f"patterns[{n}].regex", problem)
        if regex is not None and not ({"code", "hresult"} & set(regex.groupindex)):
            problem(f"patterns[{n}].regex", "must capture the code as (?P<code>…) or (?P<hresult>…)")
        if not isinstance(raw.get("announces"), bool):
            problem(f"patterns[{n}].announces", "must be true or false")
        context = _regex(raw["context"], f"patterns[{n}].context", problem) if "context" in raw else None
        if regex is not None:
            patterns.append(Pattern(regex, bool(raw.get("announces")), context))
    codes, names = _codes(item.get("codes"), problem)
    pages = _pages(item.get("pages"), problem) if "pages" in item else None
    ranges = _ranges(item.get("ranges"), problem) if "ranges" in item else ()
    symbols = item.get("symbols", {})
    if not isinstance(symbols, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in symbols.items()):
        problem("symbols", "must map codes to symbols")
        symbols = {}
    page_names = item.get("page_names", {})
    if not isinstance(page_names, dict):
        problem("page_names", "must map codes to page names")
        page_names = {}
    if symbols and not (ranges and isinstance(item.get("anchor"), str) and "{symbol_lower}" in item["anchor"]):
        problem("anchor", "symbols need ranges and an anchor naming {symbol_lower}")
    if not any(item.get(k) for k in (*_URLS, "ranges")):
        problem("", "names no page: give url, ranges, list_url or index_url")
    if len(problems) > before or code is None:
        return None
    return Family(
        id=item["id"], label=item["label"], label_zh=item["label_zh"], about=item["about"], about_zh=item["about_zh"],
        patterns=tuple(patterns), code=code, prefix=str(item.get("prefix", "")), url=url,
        pages=pages, page_names=dict(page_names), codes=codes, names=names, symbols=dict(symbols),
        anchor=item.get("anchor"), ranges=ranges, list_url=item.get("list_url"), index_url=item.get("index_url"),
    )


def _regex(value: Any, path: str, problem: Any) -> re.Pattern[str] | None:
    if not isinstance(value, str) or not value:
        problem(path, "must be a regular expression")
        return None
    try:
        return re.compile(value)
    except re.error as exc:
        problem(path, f"does not compile ({exc})")
        return None


def _codes(value: Any, problem: Any) -> tuple[frozenset[str] | None, dict[str, str]]:
    """``codes``: a list of codes, or codes mapped to their condition names."""
    if value is None:
        return None, {}
    if isinstance(value, list) and all(isinstance(c, str) for c in value):
        return frozenset(value), {}
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return frozenset(value), dict(value)
    problem("codes", "must be a list of codes or a map of codes to names")
    return None, {}


def _pages(value: Any, problem: Any) -> frozenset[str] | None:
    """``pages``: codes and ranges of codes (``MSB1001-MSB1028``)."""
    if not isinstance(value, list):
        problem("pages", "must be a list of codes and ranges")
        return None
    codes: set[str] = set()
    for n, spec in enumerate(value):
        found = _RANGE.match(spec) if isinstance(spec, str) else None
        if found:
            prefix, low, high = found.group(1), found.group(2), found.group(3)
            if int(high) < int(low):
                problem(f"pages[{n}]", f"{spec!r} runs backwards")
            codes.update(f"{prefix}{i:0{len(low)}d}" for i in range(int(low), int(high) + 1))
        elif isinstance(spec, str) and spec:
            codes.add(spec)
        else:
            problem(f"pages[{n}]", "must be a code or a range of codes")
    return frozenset(codes)


def _ranges(value: Any, problem: Any) -> tuple[tuple[int, int, str], ...]:
    if not isinstance(value, list):
        problem("ranges", "must be a list of {from, to, url}")
        return ()
    found = []
    for n, item in enumerate(value):
        if not (isinstance(item, dict) and isinstance(item.get("from"), int) and isinstance(item.get("to"), int)
                and isinstance(item.get("url"), str) and item["url"].startswith("https://")
                and item["from"] <= item["to"]):
            problem(f"ranges[{n}]", "must be {from, to, url} with from ≤ to and an https:// url")
            continue
        found.append((item["from"], item["to"], item["url"]))
    return tuple(found)
