"""Turn a paste as Slack delivers it into the plain text a reader saw, with a map back.

Slack escapes ``& < >``, wraps links and mentions in ``<…>``, and people paste inside code
fences, with ANSI colours, CRLF line ends, invisible characters and a CI runner's timestamp on every line
(``2024-05-01T12:00:00.1234567Z ``, which would hide a message printed at the start of its line), or copy
Visual Studio's Error List (tab-separated rows, read as the compiler's ``error CS0246: …``). Matching runs on the plain
text; :meth:`Normalized.original_span` maps a match back to offsets in the input as given.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

_REWRITES = re.compile(
    r"""
    (?P<crlf>\r\n?)
  | (?P<ansi>\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_])
  | (?P<fence>```)
  | (?m:^)(?P<stamp>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z[ \t]?)  # a runner's (GitHub, Azure) line timestamp
  | (?m:^)(?P<ide>Error|Warning|错误|警告)\t(?P<ide_code>[A-Z]{1,8}\d{2,6})\t  # Visual Studio's Error List row
  | <(?P<link>(?:https?|mailto|ftp)://[^|>\s]+|mailto:[^|>\s]+)(?:\|(?P<link_label>[^>]*))?>
  | <(?P<mention>[@#!][^|>\s]*)(?:\|(?P<mention_label>[^>]*))?>
  | &(?P<entity>amp|lt|gt|quot|\#39|\#x27);
  | (?P<space>[\u00a0\u2007\u202f\u3000])
  | (?P<drop>[\u200b\u200c\u200d\u2060\ufeff\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f])
    """,
    re.VERBOSE,
)
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "#39": "'", "#x27": "'"}
_SPECIAL_MENTIONS = {"!here": "@here", "!channel": "@channel", "!everyone": "@everyone"}

_LOG_PREFIX = re.compile(
    r"""^\s*(?:
        \[?\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?  # ISO-ish
      | \[?\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\]?                                               # clock
      | [A-Z][a-z]{2}\s+\d{1,2}\s+\d{2}:\d{2}:\d{2}                                         # syslog
      | \[?(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL|E|W|I)\]?(?=[\s:\]])         # level
      | \[[^\]\n]{1,40}\]                                                                   # [worker-3]
      | [\w.-]{1,40}\[\d+\]:                                                                # proc[123]:
    )[\s:|-]*""",
    re.VERBOSE,
)


@dataclass(frozen=True)
class Normalized:
    """Plain text plus a piecewise map from its offsets to the original's."""

    text: str
    original: str
    _plain_starts: tuple[int, ...]
    _orig_starts: tuple[int, ...]
    _verbatim: tuple[bool, ...]
    _orig_ends: tuple[int, ...]

    def original_offset(self, pos: int, end: bool = False) -> int:
        """The offset in the original text of plain-text offset ``pos``."""
        if not self._plain_starts:
            return min(pos, len(self.original))
        i = bisect.bisect_right(self._plain_starts, pos - 1 if end and pos > 0 else pos) - 1
        i = max(i, 0)
        if self._verbatim[i]:
            return self._orig_starts[i] + (pos - self._plain_starts[i])
        return self._orig_ends[i] if end else self._orig_starts[i]

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that produced plain ``text[start:end]``."""
        if end <= start:
            o = self.original_offset(start)
            return o, o
        return self.original_offset(start), self.original_offset(end, end=True)

    def line_at(self, pos: int) -> str:
        """The whole plain-text line containing offset ``pos``."""
        start = self.text.rfind("\n", 0, pos) + 1
        stop = self.text.find("\n", pos)
        return self.text[start : stop if stop != -1 else len(self.text)]


def normalize(original: str) -> Normalized:
    """Decode Slack markup and strip terminal noise; keeps a map back to ``original``."""
    pieces: list[str] = []
    plain_starts: list[int] = []
    orig_starts: list[int] = []
    orig_ends: list[int] = []
    verbatim: list[bool] = []
    plain_len = 0

    def emit(text: str, o_start: int, o_end: int, copied: bool) -> None:
        nonlocal plain_len
        if not text:
            return
        pieces.append(text)
        plain_starts.append(plain_len)
        orig_starts.append(o_start)
        orig_ends.append(o_end)
        verbatim.append(copied)
        plain_len += len(text)

    cursor = 0
    for m in _REWRITES.finditer(original):
        emit(original[cursor : m.start()], cursor, m.start(), True)
        cursor = m.end()
        kind = m.lastgroup
        if kind in ("crlf", "fence"):
            emit("\n", m.start(), m.end(), False)
        elif kind == "ide_code":  # "Error\tCS0246\t…" as the compiler prints it: "error CS0246: …"
            level = "warning" if m["ide"] in ("Warning", "警告") else "error"
            emit(f"{level} {m['ide_code']}: ", m.start(), m.end(), False)
        elif kind == "space":
            emit(" ", m.start(), m.end(), False)
        elif kind == "entity":
            emit(_ENTITIES[m["entity"]], m.start(), m.end(), False)
        elif kind in ("link", "link_label"):
            label = m["link_label"]
            if label:
                emit(label, m.start("link_label"), m.end("link_label"), True)
            else:
                emit(m["link"], m.start("link"), m.end("link"), True)
        elif kind in ("mention", "mention_label"):
            emit(_mention_text(m["mention"], m["mention_label"]), m.start(), m.end(), False)
        # ansi, stamp and drop emit nothing
    emit(original[cursor:], cursor, len(original), True)
    text = "".join(pieces)
    return Normalized(text, original, tuple(plain_starts), tuple(orig_starts), tuple(verbatim), tuple(orig_ends))


def _mention_text(token: str, label: str | None) -> str:
    if token in _SPECIAL_MENTIONS:
        return _SPECIAL_MENTIONS[token]
    if label:
        return label if label[:1] in "@#" else token[0] + label
    if token.startswith("!subteam^"):
        return "@team"
    if token.startswith("!date^"):
        return ""
    return token


def strip_log_prefix(line: str) -> str:
    """A log line without its leading timestamps, levels and ``[component]`` tags."""
    previous = None
    while previous != line:
        previous = line
        line = _LOG_PREFIX.sub("", line, count=1)
    return line.strip()
