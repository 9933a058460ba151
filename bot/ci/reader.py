"""Stream a CI log and select the windows worth matching, at the speed of a grep.

The log is read in chunks of bytes (decoded as UTF-8 with replacement one line at a time, only where a
line is looked at). One RE2 scan over each chunk finds the lines that may announce an error and the CI's
step markers; only those lines are decoded, stripped of ANSI and of the CI's timestamps, and checked
precisely (:func:`bot.kb.announce.announcements`; a line that only reports an earlier failure, such as the
runner's ``Process completed with exit code 2``, never opens a window). Each announcing line gets a window of
``BEFORE`` lines before and ``AFTER`` after, taken from the chunk in hand and the ``BEFORE`` lines kept of the
previous one (a bounded ring), so memory stays a few chunks whatever the log's size.

Steps: GitHub Actions' ``##[group]Run …`` opens a step (its ``##[endgroup]`` closes only the header of the
command, whose output follows), ``Post job cleanup.`` another; GitLab's ``section_start:<ts>:<name>`` and
``section_end:<ts>:<name>`` nest.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import re2

from bot.kb.announce import announcements, consequence

CHUNK = 4 << 20  # bytes read at a time
BEFORE = 40  # lines of context kept before an announcing line
AFTER = 10  # … and after it
MAX_WINDOW = 400  # lines one window may grow to by merging neighbours before it is cut
MAX_LINE_BYTES = 4000  # a longer line is data: it is never a candidate
MAX_SEEN = 100_000  # distinct announcing lines remembered (a repeated line opens no second window)

# Cheap and broad: every line the precise check could accept contains one of these, and so does every
# step marker. Case-insensitive words; RE2 runs it as one DFA over the chunk's bytes.
_PREFILTER = re2.compile(
    rb"(?i:error|fatal|exception|traceback|fail|panic|critical|severe|interrupt|fault|caused by|npm err"
    rb"|exit|killed|denied|refused|not found|no such file|cannot|could not|unable to|out of memory|segmentation"
    rb"|##\[(?:end)?group\]|section_(?:start|end):|post job cleanup)"
    rb"|\bE\d{4}|\bE[:\]]"
)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# GitHub: ``2024-05-01T12:00:00.1234567Z ``; GitLab's own timestamps add a stream tag (``00O ``, ``00E+``).
_TIMESTAMP = re.compile(r"^\ufeff?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\s?(?:[0-9a-f]{2}[OE]\+?\s)?")
_GH_STEP = re.compile(r"^##\[group\](Run .+)$")
_GH_POST = re.compile(r"^Post job cleanup\.?$")
_GL_SECTION = re.compile(r"section_(start|end):\d+:([\w.-]+)")
# Phrases of trouble that no announcement pattern catches but a KB entry often does (a killed process,
# a missing file); a candidate still needs the KB to match before it is reported.
_TROUBLE = re.compile(
    r"^Killed\b|Segmentation fault|out of memory|Permission denied|No such file or directory|command not found"
    r"|\bcannot\b|\bcould not\b|\bunable to\b|\bconnection refused\b",
    re.IGNORECASE,
)


def plain(raw: bytes) -> str:
    """A log line decoded, without ANSI or the CI's timestamp (a GitLab section marker still in it)."""
    text = raw.decode("utf-8", "replace")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return _TIMESTAMP.sub("", text, count=1)


def clean(raw: bytes) -> str:
    """A log line as a reader sees it: :func:`plain`, without a carriage return's overwritten part."""
    return visible(plain(raw))


def visible(text: str) -> str:
    if "\r" in text:
        parts = [p for p in text.split("\r") if p.strip()]
        text = parts[-1] if parts else ""
    return text


def announces(line: str) -> bool:
    """Whether a cleaned line announces an error of its own (not a wrapper reporting an earlier one)."""
    if not line.strip() or consequence(line):
        return False
    return bool(announcements(line)) or _TROUBLE.search(line) is not None


@dataclass(frozen=True)
class Window:
    """Lines around one or more announcing lines (cleaned), with their numbers and steps."""

    first: int  # 1-based line number of ``lines[0]``
    lines: list[str]
    steps: list[tuple[int, str | None]]  # (from line number, step), ascending; the first covers ``first``
    candidates: list[int]  # line numbers of the announcing lines

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def step_at(self, line: int) -> str | None:
        step = self.steps[0][1] if self.steps else None
        for start, name in self.steps:
            if start > line:
                break
            step = name
        return step


class _Steps:
    """The current step, and the last changes of it by line number (a bounded history)."""

    def __init__(self) -> None:
        self.sections: list[str] = []
        self.github: str | None = None
        self.changes: deque[tuple[int, str | None]] = deque(maxlen=256)
        self.base: str | None = None  # the step before the first change kept

    @property
    def current(self) -> str | None:
        return self.sections[-1] if self.sections else self.github

    def marker(self, number: int, line: str) -> bool:
        """Take ``line`` (number ``number``) as a step marker if it is one."""
        before = self.current
        stripped = line.strip()
        if found := _GL_SECTION.search(line):
            kind, name = found.groups()
            if kind == "start":
                self.sections.append(name)
            elif name in self.sections:
                while self.sections and self.sections.pop() != name:
                    pass
        elif found := _GH_STEP.match(stripped):
            self.github = found.group(1).strip()
        elif _GH_POST.match(stripped):
            self.github = "Post job cleanup"
        else:
            return False
        if self.current != before:
            if len(self.changes) == self.changes.maxlen:
                self.base = self.changes[0][1]  # the step before the oldest change kept
            self.changes.append((number, self.current))
        return True

    def between(self, first: int, last: int) -> list[tuple[int, str | None]]:
        """The steps of lines ``first``..``last``: the one in force at ``first``, then each change."""
        at_first = self.base
        later = []
        for number, name in self.changes:
            if number <= first:
                at_first = name
            elif number <= last:
                later.append((number, name))
        return [(first, at_first), *later]


class _Pending:
    def __init__(self, start: int, end: int, candidate: int) -> None:
        self.start, self.end = start, end
        self.candidates = [candidate]
        self.lines: list[str] = []  # cleaned, from ``start`` on
        self.next = start  # the next line number to take


class _Buffer:
    """Complete lines of the log in hand: the ring (the last ``BEFORE`` lines of the previous chunk) and the
    chunk's, numbered from ``base``; a line is found by walking from a known line start (never split whole)."""

    def __init__(self, data: bytes, base: int, last: int) -> None:
        self.data, self.base, self.last = data, base, last
        self.anchor = (0, base)  # a known line start and its number

    def start_of(self, number: int) -> int:
        pos, at = self.anchor if abs(self.anchor[1] - number) < number - self.base else (0, self.base)
        data = self.data
        while at < number:
            pos = data.find(b"\n", pos) + 1
            at += 1
        while at > number:
            pos = data.rfind(b"\n", 0, pos - 1) + 1
            at -= 1
        return pos

    def lines(self, first: int, last: int) -> list[bytes]:
        """Lines ``first``..``last`` (clamped to what is in hand)."""
        first, last = max(first, self.base), min(last, self.last)
        if first > last:
            return []
        start = self.start_of(first)
        stop = start
        for _ in range(last - first + 1):
            stop = self.data.find(b"\n", stop) + 1
        return self.data[start : stop - 1].split(b"\n")

    def tail(self, count: int) -> tuple[bytes, int]:
        """The last ``count`` lines (fewer if there are not so many) and how many they are."""
        pos, n = len(self.data), 0
        while n < count and pos > 0:
            pos = self.data.rfind(b"\n", 0, pos - 1) + 1
            n += 1
        return self.data[pos:], n


def windows(stream: BinaryIO, chunk_size: int = CHUNK) -> Iterator[Window]:
    """The windows of the log in ``stream``, in order. Reads every byte once."""
    steps = _Steps()
    seen: set[str] = set()
    carry = b""
    ring, ring_lines = b"", 0  # the last BEFORE lines of the previous chunk
    first = 1  # line number of the first line of the current chunk (after the ring)
    pending: _Pending | None = None

    def take(p: _Pending, buffer: _Buffer) -> None:
        """Copy into ``p`` its lines that ``buffer`` holds."""
        stop = min(p.end, buffer.last)
        if p.next > stop:
            return
        p.next = max(p.next, buffer.base)
        p.lines.extend(clean(raw) for raw in buffer.lines(p.next, stop))
        p.next = stop + 1

    def finish(p: _Pending) -> Window:
        last = p.start + len(p.lines) - 1
        return Window(p.start, p.lines, steps.between(p.start, last), p.candidates)

    while True:
        data = stream.read(chunk_size)
        block = carry + data if carry else data
        if data:
            cut = block.rfind(b"\n") + 1
            body, carry = block[:cut], block[cut:]
            if len(carry) > chunk_size:  # one endless line: only its length matters (it is data)
                carry = carry[-(MAX_LINE_BYTES + 1):]
        else:
            body, carry = (block + b"\n" if block else b""), b""
        count = body.count(b"\n")
        buffer = _Buffer(ring + body, first - ring_lines, first + count - 1)
        offset = len(ring)
        # a window still open from the previous chunk takes its lines from this one
        if pending is not None:
            take(pending, buffer)
            if pending.next > pending.end:
                yield finish(pending)
                pending = None
        cursor, number, line_end = 0, first, -1
        for hit in _PREFILTER.finditer(body):
            at = hit.start()
            if at <= line_end:
                continue  # another hit on a line already looked at
            number += body.count(b"\n", cursor, at)
            cursor = at
            line_start = body.rfind(b"\n", 0, at) + 1
            line_end = body.find(b"\n", at)
            if line_end - line_start > MAX_LINE_BYTES:
                continue
            buffer.anchor = (offset + line_start, number)
            text = plain(body[line_start:line_end])
            if steps.marker(number, text):
                continue
            line = visible(text)
            if not announces(line):
                continue
            key = line.strip()
            if pending is not None and number - BEFORE <= pending.end + 1 \
                    and number + AFTER - pending.start < MAX_WINDOW:
                pending.end = number + AFTER  # the same incident: the window grows
                pending.candidates.append(number)
                continue
            if key in seen:
                continue  # the same line again, far from the last: its first window stands for it
            if len(seen) < MAX_SEEN:
                seen.add(key)
            if pending is not None:
                take(pending, buffer)
                yield finish(pending)
            pending = _Pending(max(1, number - BEFORE, buffer.base), number + AFTER, number)
        if pending is not None:
            take(pending, buffer)
            if pending.next > pending.end:
                yield finish(pending)
                pending = None
        first += count
        ring, ring_lines = buffer.tail(BEFORE)
        if not data:
            break
    if pending is not None and pending.lines:
        yield finish(pending)
