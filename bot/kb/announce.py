"""Which lines of a paste announce an error, which merely report one, and whether the answer explains it.

Unknown means unknown: when a paste holds an error line that no hit explains, a warning or notice
matched elsewhere in it is not the answer, and neither is a line that only reports that an earlier
step failed (``Command failed with exit code 1``, ``npm ERR! code ELIFECYCLE``, ``##[error]Process
completed with exit code 2.``). errkb then says nothing rather than explain the wrong thing.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from bot.kb.normalize import strip_log_prefix
from bot.kb.ranking import on_warning_line

# A line that announces an error (after its log prefix): a raised exception, a tool's "error:" line,
# an ERROR or FATAL log line. Broader than the fallback's query lines: here it only ever silences.
_ANNOUNCES = re.compile(
    r"""^(?:
        (?:\#\#\[error\]|::error\b)
      | \[?(?:ERROR|FATAL|CRITICAL|SEVERE|ERR|E)\]?(?:\s*\[[^\]]*\])?[:\s]
      | (?:[\w.$]+[.$])?[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Fault|Failure)\b(?:\s*\[[^\]]*\])?(?::|$|\s+at\b)
      | (?:error|fatal|panic|Error|Fatal|FAILED|Failed|FAILURE)(?:\[\w+\])?(?::|\s+\S.*:\s)
      | Exception\ in\ thread
      | Caused\ by:
      | Traceback\ \(most\ recent\ call\ last\)
      | npm\ (?:ERR!|error)\s
      | (?:\S+\.\w+):\d+(?::\d+)?:?\s+(?:fatal\ )?error\b
      | (?:\S+)\(\d+,\d+\):\s+error\b
      | \S.*:\s*error\s+[A-Z]{2,}\d{3,}\b
    )""",
    re.VERBOSE,
)

# A line that only reports that something earlier failed: it names no cause of its own.
_CONSEQUENCE = re.compile(
    r"""(?:
        Process\ completed\ with\ exit\ code\ \d+
      | ERROR:\ Job\ failed
      | Job\ failed:\ exit\ code\ \d+
      | Command\ failed\ with\ exit\ code\ \d+
      | \bELIFECYCLE\b
      | npm\ (?:ERR!|error)\ (?:errno|code\ ELIFECYCLE|Exit\ status|Failed\ at\ the|This\ is\ probably|
             A\ complete\ log|Lifecycle\ script|command\ failed|\s*$|\s*/|\s*[A-Z]:\\)
      | npm\ (?:ERR!|error)\ (?:path|command|cwd|workspace|location|signal|code\ \d+\b|An\ unknown\ git\ error)
      | npm\ (?:ERR!|error)\ \S+@\S+\ [\w:-]+:\s
      | \bError\ compiling\ objects\ for\ extension\b
      | \bninja:\ build\ stopped\b
      | \bexit(?:ed)?\ (?:with\ )?(?:code|status)\ [12]\b
      | returned\ non-zero\ exit\ status
      | returned\ a\ non-zero\ code:\ \d+
      | \bexecutor\ failed\ running\ \[
      | \bmake(?:\[\d+\])?:\ \*\*\*\ \[.*\]\ Error\ \d+
      | \bBUILD\ FAILED\b
      | \*\*\ [A-Z ]+\ FAILED\ \*\*
      | The\ following\ build\ commands\ failed:
      | Could\ not\ resolve\ package\ dependencies:\s*$
      | Command\ \w+\ failed\ with\ a\ nonzero\ exit\ code
      | \bis\ invalid\ because:\s*$
      | Configuring\ incomplete,\ errors\ occurred
      | \bBUILD\ FAILURE\b
      | \bCompilation\ failure\s*$
      | Compilation\ failed;\ see\ the\ compiler\ error\ output
      | \bcould\ not\ compile\ `[^`]+`.*\bdue\ to\ (?:\d+\ )?previous\ errors?
      | \bFailed\ building\ wheel\ for\b
      | \bCould\ not\ build\ wheels\ for\b
      | \bFailed\ to\ build\ installable\ wheels\b
      | \bfailed\ to\ run\ custom\ build\ command\ for\b
      | \bld\ returned\ \d+\ exit\ status
      | too\ many\ errors\ emitted
      | ^Failed\ to\ compile\.?\s*$
      | \bBuild\ failed\ with\ \d+\ errors?
      | ^Found\ \d+\ errors?\ in\ \d+\ files?
      | \bdid\ not\ complete\ successfully:\ exit\ code
      | Build\ did\ NOT\ complete\ successfully
      | \bTarget\ \S+\ failed\ to\ build
      | \bCommand\ failed:\s
      | \bCommand\ failed\ with\ signal\b
      | FAILURE:\ Build\ failed\ with\ an\ exception
      | \bExecution\ failed\ for\ task\b
      | \bcompilation\ terminated\b
      | \bError:\ Process\ completed\b
      | Sending\ process\ \d+\ closing\ signal\ SIG[A-Z]+
      | \bChildFailedError\b
      | \bsubprocess-exited-with-error\b
      | \bcommand\ '.*'\ failed\b
      | \bexited\ with\ (?:error|non-zero)
      | \bTraceback\ \(most\ recent\ call\ last\)
      | ^\s*(?:\#\#\[error\]|::error\b)\s*$
    )""",
    re.VERBOSE,
)
# A line that only heads the error lines after it (``Caused by:``, ``Error:``): it names nothing itself.
_HEADER = re.compile(r"^(?:caused by|errors?|exceptions?|fatal)\s*:?\s*$", re.IGNORECASE)
# An error level in a log line's prefix (``2026-… ERROR [worker] …``, ``FATAL:``, ``level=error``).
_ERROR_LEVEL = re.compile(r"(?:^|[\s\[|(])(?:ERROR|FATAL|CRITICAL|SEVERE|E\d{4}|level=(?:error|fatal))\b")
# Words that say something went wrong, in any line (a warning is the answer only where nothing did).
_TROUBLE = re.compile(
    r"(?:Error|Exception)\b|\b(?:errors?|exceptions?|fail(?:s|ed|ure|ing)?|fatal|panic(?:ked)?|traceback|denied|refused"
    r"|cannot|can't|could\ not|couldn't|unable|not\ found|not\ configured|no\ such|invalid|abort(?:ed|ing)?"
    r"|segmentation\ fault|killed|timed\ out|exit(?:ed)?\ (?:with\ )?(?:code|status)\ [1-9])\b",
    re.IGNORECASE,
)
# A line that names what went wrong without an error prefix (``Reason: …``, ``… is an invalid type``, ``Could not
# find …``): an error line too when it stands next to a wrapper. Bare "failed"/"error" words are left out: those lines
# mostly report a failure (``Failed to build foo``, ``Error building the application``).
_CAUSE = re.compile(
    r"\b(?:invalid|denied|refused|cannot|can't|could\ not|couldn't|unable\ to|not\ found|no\ such|not\ configured"
    r"|timed\ out|an\ exception\ occurred)\b|(?-i:\b[A-Z]\w*(?:Error|Exception))(?::|\s*$)"
    r"|^Failed\ to\ (?!build\b|compile\b|run\b|start\b|execute\b|install\b)\w+",
    re.IGNORECASE,
)
# npm relays git's and node-gyp's lines under its own prefix (``npm ERR! Warning: Permanently added …``)
_WARNING_LEVEL = re.compile(
    r"^(?:npm (?:ERR!|error) )?(?:\[?(?:WARN(?:ING)?|INFO|NOTICE|DEBUG|TRACE|W|I)\]?[:\s\[]|\w*Warning:)|\bwarning:"
)
# A stack trace's header or frame printed flush left (PHP: ``Stack trace:``, ``#0 /app/x.php(37): f()``, ``#1 {main}``;
# the ``#`` is often lost in a copy): the calls that led to the line above it, which name nothing new.
_FRAME = re.compile(r"^(?:Stack trace:\s*$|#?\d+\s+(?:\S+\(\d+\):\s|\[internal function\]|\{main\}))")
MAX_LINE = 500  # longer lines are data, not announcements
NEAR = 6  # lines from an error entry's hit within which an error line belongs to its incident
WARNING_BLOCK = 2  # lines before a warning's hit that may head its message (``console.error``, ``Uncaught …``)…
HEADER_CHARS = 32  # …when they are this short


def announcements(text: str) -> list[tuple[int, str]]:
    """(offset, line) of every line of ``text`` that announces an error, in order."""
    return _error_lines(text, named=False)


def causes(text: str) -> list[tuple[int, str]]:
    """(offset, line) of every line of ``text`` that announces an error, or names what went wrong without
    announcing it (not indented, not logged as a warning), in order."""
    return _error_lines(text, named=True)


def _error_lines(text: str, named: bool) -> list[tuple[int, str]]:
    found = []
    offset = 0
    for raw in text.split("\n"):
        stripped = strip_log_prefix(raw)
        line = stripped.strip()
        if line and len(line) < MAX_LINE and not _WARNING_LEVEL.search(line):
            prefix = raw[: len(raw) - len(stripped)] if raw.endswith(stripped) else ""
            if _ANNOUNCES.match(line) or _ERROR_LEVEL.search(prefix) or (
                    named and not raw[:1].isspace() and _CAUSE.search(line) and not on_warning_line(raw, len(raw))):
                found.append((offset, line))
        offset += len(raw) + 1
    return found


def troubled(text: str, spans: list[tuple[int, int]], same: Callable[[str], bool] = lambda _line: False) -> str | None:
    """A line of ``text`` that says something went wrong, apart from ``spans`` (the warnings' hits: their
    lines, the ``WARNING_BLOCK`` lines that head them and their indented continuation belong to them) and
    not itself a warning or info line, nor one ``same`` says the warnings print too (the same message for
    another library): then a warning is not what the paste is about. The stack trace printed under a warning's line
    belongs to it too (PHP's ``ErrorException`` trace names ``handleError`` in a frame). None when there is no
    such line."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    near: set[int] = set()
    for start, stop in spans:
        first = bisect.bisect_right(starts, start) - 1
        last = bisect.bisect_right(starts, max(start, stop - 1)) - 1
        while last + 1 < len(lines) and (lines[last + 1][:1].isspace() or _FRAME.match(lines[last + 1])):
            last += 1  # its indented continuation, and the stack trace printed under it
        near.update(range(first, last + 1))
        near.update(n for n in range(first - WARNING_BLOCK, first) if n >= 0 and len(lines[n].strip()) <= HEADER_CHARS)
    for number, raw in enumerate(lines):
        if number in near or not raw.strip() or len(raw) >= MAX_LINE:
            continue
        line = strip_log_prefix(raw).strip()
        if _TROUBLE.search(raw) and not _WARNING_LEVEL.search(line) and not on_warning_line(raw, len(raw)) \
                and not same(raw):
            return line
    return None


def consequence(line: str, at: int = 0) -> bool:
    """Whether ``line`` only reports that something earlier failed (a wrapper, an exit code), by words that end
    past ``at`` (a runtime's ``exit status 1, stderr: <the real error>`` reports nothing about that error)."""
    return any(found.end() > at for found in _CONSEQUENCE.finditer(line))


def unexplained(text: str, hits: list[tuple[int, int, bool]],
                same: Callable[[str], bool] = lambda _line: False) -> str | None:
    """An error line of ``text`` that names a cause of its own and that no hit explains; None when every
    such line is explained. ``hits`` are (start, end, is an error entry's) character ranges in ``text``.

    A hit explains the lines it touches and every line with the same text (a warning repeated); an
    error entry's hit also explains the error lines of its incident, within ``NEAR`` lines of it (the
    header and the detail of one traceback) unless it only reports an earlier failure. A warning explains
    only its own lines (and lines ``same`` says a hit's entry matches too, as a warning printed once per
    library): an unknown error right next to a known warning stays unknown."""
    found = causes(text)
    if not found:
        return None
    lines = [(offset, text.find("\n", offset)) for offset, _line in found]
    touched = {strip_log_prefix(line).strip() for start, stop, _error in hits
               for line in text[_line_around(text, start)[0] : _line_end(text, stop)].split("\n")}
    for (offset, line), (_, end) in zip(found, lines, strict=True):
        end = len(text) if end < 0 else end
        if consequence(line) or line in touched or _HEADER.match(line) or same(line):
            continue
        if any(start <= end and offset <= stop for start, stop, _error in hits):
            continue
        if any(error and _lines_between(text, offset, end, start, stop) <= NEAR for start, stop, error in hits):
            continue
        return line
    return None


def _line_around(text: str, pos: int) -> tuple[int, int]:
    return text.rfind("\n", 0, pos) + 1, text.find("\n", pos)


def _line_end(text: str, pos: int) -> int:
    """The end of the line holding the character before ``pos`` (a hit's last character)."""
    end = text.find("\n", max(0, pos - 1))
    return len(text) if end < 0 else end


def _lines_between(text: str, a_start: int, a_end: int, b_start: int, b_end: int) -> int:
    first_end, second_start = (a_end, b_start) if a_start <= b_start else (b_end, a_start)
    return text.count("\n", first_end, second_start) if first_end < second_start else 0
