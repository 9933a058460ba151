"""Stream a CI log and select the windows worth matching, at the speed of a grep.

The log comes in pieces of bytes of any size (a file read 4 MiB at a time, a download as it arrives). Each
piece's complete lines are scanned where they lie, by one RE2 search over its bytes for the lines that may
announce an error and the CI's step markers: no per-line Python work on the lines it skips, no copy of the
piece (only a line split between two pieces is joined). Only the lines it picks are decoded (UTF-8 with
replacement), stripped of ANSI and of the CI's timestamps, and checked precisely
(:func:`bot.kb.announce.announcements`; a line that only reports an earlier failure, such as the runner's
``Process completed with exit code 2``, never opens a window). Each announcing line gets a window of
``BEFORE`` lines before and ``AFTER`` after; the ``BEFORE`` lines kept of the previous piece (a bounded ring)
and the windows still open are all that is kept, so memory stays a piece or two whatever the log's size.
The same windows as decoding and checking every line (``tests/ci/test_reader_same.py``), whatever the
pieces' sizes.

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
MAX_KEEP = 64 << 10  # bytes of a line kept for a window (a longer one is data: cut, so memory stays bounded)
MAX_SEEN = 100_000  # distinct announcing lines remembered (a repeated line opens no second window)

# Cheap and broad: every line the precise check could accept contains one of these, and so does every
# step marker. Case-insensitive words; RE2 runs it as one DFA over the chunk's bytes.
_PREFILTER = re2.compile(
    rb"(?i:error|fatal|exception|traceback|fail|panic|critical|severe|interrupt|fault|caused by|npm err"
    rb"|exit|killed|denied|refused|not found|no such file|cannot|could not|unable to|out of memory|segmentation"
    rb"|##\[(?:end)?group\]|section_(?:start|end):|post job cleanup)"
    rb"|\bE\d{4}|\bE[:\]]|\bERR\b"
    rb"|[A-Za-z]\x1b\[[0-9;]*m[A-Za-z]"  # a colour change inside a word (``Err\x1b[0mor``)
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
    if not line.strip() or not (announcements(line) or _TROUBLE.search(line)):
        return False
    return not consequence(line)  # the slowest check, last


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
    """A window being gathered: lines ``start``..``end`` once they are read, ``next`` the first not taken."""

    def __init__(self, start: int, end: int, candidate: int) -> None:
        self.start, self.end = start, end
        self.candidates = [candidate]
        self.lines: list[str] = []  # cleaned, from ``start`` on
        self.next = start
        self.at = 0  # the offset of line ``next`` in the part being read, when it is in it


class LogReader:
    """Push side of :func:`windows`: :meth:`feed` takes the log's bytes in pieces of any size and returns the
    windows complete so far; :meth:`close` the rest. The lines of each piece are scanned where they lie
    (no copy); only a line split between two pieces is joined."""

    def __init__(self) -> None:
        self.steps = _Steps()
        self.seen: set[str] = set()
        self.held: list[bytes] = []  # the start of a line whose newline is still to come
        self.held_bytes = 0
        self.tail: deque[bytes] = deque(maxlen=BEFORE)  # the lines just before line ``line``
        self.line = 1  # the number of the next line to read
        self.pending: _Pending | None = None  # the window a next announcing line may still join
        self.closing: list[_Pending] = []  # earlier windows, in order, still waiting for their last lines
        self.done: list[Window] = []

    def feed(self, data: bytes) -> list[Window]:
        start = 0
        if self.held:
            newline = data.find(b"\n")
            if newline < 0:
                self._hold(data)
                return self._flush()
            self._hold(data[:newline])
            joined = b"".join(self.held) + b"\n"
            self.held, self.held_bytes = [], 0
            self._lines(joined, 0, len(joined))
            start = newline + 1
        stop = data.rfind(b"\n", start) + 1
        if stop > start:
            self._lines(data, start, stop)
        else:
            stop = start
        if stop < len(data):
            self._hold(data[stop:])
        return self._flush()

    def close(self) -> list[Window]:
        """The last windows (the log's last line needs no newline)."""
        if self.held:
            joined = b"".join(self.held) + b"\n"
            self.held, self.held_bytes = [], 0
            self._lines(joined, 0, len(joined))
        if self.pending is not None:
            self.closing.append(self.pending)
            self.pending = None
        self.done.extend(self._finish(p) for p in self.closing)
        self.closing = []
        return self._flush()

    def _flush(self) -> list[Window]:
        done, self.done = self.done, []
        return done

    def _hold(self, piece: bytes) -> None:
        room = MAX_KEEP + 1 - self.held_bytes  # one byte more than kept: a cut line still reads as too long
        if room > 0 and piece:
            self.held.append(piece[:room])
            self.held_bytes += min(len(piece), room)

    def _lines(self, buf: bytes, start: int, stop: int) -> None:
        """Read the complete lines ``buf[start:stop]`` (it ends with a newline), numbered from ``self.line``."""
        first, pending = self.line, self.pending
        for waiting in (*self.closing, pending):
            if waiting is not None:
                waiting.at = start  # a window short of lines takes its next ones from here
        number, cursor, pos = first, start, start
        search = _PREFILTER.search
        while (hit := search(buf, pos, stop)) is not None:
            at = hit.start()
            number += buf.count(b"\n", cursor, at)
            cursor = at
            line_start = buf.rfind(b"\n", start, at) + 1 or start
            line_end = buf.find(b"\n", at, stop)
            pos = line_end + 1
            if line_end - line_start > MAX_LINE_BYTES:
                continue
            text = plain(buf[line_start:line_end])
            if self.steps.marker(number, text):
                continue
            line = visible(text)
            if not announces(line):
                continue
            if pending is not None and number - BEFORE <= pending.end + 1 \
                    and number + AFTER - pending.start < MAX_WINDOW:
                if pending.next < first:  # it had all its lines: the ones since are in the tail
                    self._catch_up(pending, first, start)
                pending.end = number + AFTER  # the same incident: the window grows
                pending.candidates.append(number)
                continue
            key = line.strip()
            if key in self.seen:
                continue  # the same line again, far from the last: its first window stands for it
            if len(self.seen) < MAX_SEEN:
                self.seen.add(key)
            if pending is not None:
                self._take(pending, buf, stop)
                self._close(pending)
            pending = self._open(number, buf, start, line_start, first)
        self.line = number + buf.count(b"\n", cursor, stop)
        for waiting in self.closing:
            self._take(waiting, buf, stop)
        if pending is not None:
            self._take(pending, buf, stop)
            if pending.next > pending.end and (self.line > pending.end + BEFORE + 1
                                               or self.line + AFTER - pending.start >= MAX_WINDOW):
                self._close(pending)  # no later line can join it
                pending = None
        self.pending = pending
        self._close(None)
        self._keep_tail(buf, start, stop)

    def _close(self, p: _Pending | None) -> None:
        """No more announcing lines join ``p``; the windows closed that have all their lines are done."""
        if p is not None:
            self.closing.append(p)
        while self.closing and self.closing[0].next > self.closing[0].end:
            self.done.append(self._finish(self.closing.pop(0)))

    def _open(self, number: int, buf: bytes, start: int, line_start: int, first: int) -> _Pending:
        """A window for the announcing line ``number`` (at ``line_start``): the lines before it that are at
        hand (this part's, then the tail's), and its own."""
        wanted = min(BEFORE, number - 1)
        before: list[bytes] = []
        pos = line_start
        while len(before) < wanted and pos > start:
            begin = buf.rfind(b"\n", start, pos - 1) + 1 or start
            before.append(buf[begin : pos - 1])
            pos = begin
        if len(before) < wanted and self.tail:
            before.extend(reversed(list(self.tail)[-(wanted - len(before)):]))
        pending = _Pending(number - len(before), number + AFTER, number)
        pending.lines = [clean(raw[:MAX_KEEP]) for raw in reversed(before)]
        pending.next, pending.at = number, line_start
        return pending

    @staticmethod
    def _take(p: _Pending, buf: bytes, stop: int) -> None:
        """Copy into ``p`` its lines that this part holds (up to offset ``stop``), from ``p.at`` on."""
        pos = p.at
        while p.next <= p.end and pos < stop:
            end = buf.find(b"\n", pos)
            p.lines.append(clean(buf[pos : min(end, pos + MAX_KEEP)]))
            pos = end + 1
            p.next += 1
        p.at = pos

    def _catch_up(self, p: _Pending, first: int, start: int) -> None:
        """Give ``p`` the lines from ``p.next`` to ``first - 1`` (the tail's last ones), so that it takes
        this part's lines from ``start`` on."""
        missing = first - p.next
        if missing > 0:
            p.lines.extend(clean(raw[:MAX_KEEP]) for raw in list(self.tail)[-missing:])
        p.next, p.at = first, start

    def _finish(self, p: _Pending) -> Window:
        last = p.start + len(p.lines) - 1
        return Window(p.start, p.lines, self.steps.between(p.start, last), p.candidates)

    def _keep_tail(self, buf: bytes, start: int, stop: int) -> None:
        """Keep the last ``BEFORE`` lines read (a window opened in the next part may begin among them)."""
        lines: list[bytes] = []
        pos = stop
        while len(lines) < BEFORE and pos > start:
            begin = buf.rfind(b"\n", start, pos - 1) + 1 or start
            lines.append(buf[begin : min(pos - 1, begin + MAX_KEEP)])
            pos = begin
        self.tail.extend(reversed(lines))


def windows(stream: BinaryIO, chunk_size: int = CHUNK) -> Iterator[Window]:
    """The windows of the log in ``stream``, in order. Reads every byte once, ``chunk_size`` at a time."""
    reader = LogReader()
    while data := stream.read(chunk_size):
        yield from reader.feed(data)
    yield from reader.close()
