"""The shape of an error errkb could not answer: its decisive line with every value masked.

Only this shape is kept about an unknown error (never the paste): numbers, hex, paths, URLs,
e-mail addresses, user names, hosts, quoted names and anything that looks like a secret become
placeholders, so the same error from different runs, machines and people has one shape and one
digest. Pure functions, no I/O.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from bot.kb.fallback import error_lines
from bot.kb.mask import mask

MAX_SHAPE = 300  # characters kept of a masked line

# (pattern, placeholder) in order: secrets first (via ``mask``), then the wider values before their parts.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"•+"), "<secret>"),
    (re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b(?::[^\s'\"]+)?"), "<email>"),
    (re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+"), "<url>"),
    (re.compile(r"'[^'\n]{1,200}'|\"[^\"\n]{1,200}\"|`[^`\n]{1,200}`|‘[^’\n]{1,200}’|“[^”\n]{1,200}”"), "<name>"),
    (re.compile(r"(?:\b[A-Za-z]:|~|\.{1,2})?(?:[\\/][\w.@~+$-]+)+[\\/]?|\b[\w.-]+(?:[\\/][\w.@+$-]+){2,}[\\/]?"),
     "<path>"),
    (re.compile(r"(?i)\b((?:user|username|login|role|owner|account)\s*[=:]?\s*)(?!<)[\w.-]+"), r"\1<user>"),
    # an IPv6 literal has two colons at least: ``[E0308]`` (rustc's code) is not a host
    (re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b|\[(?=[0-9a-fA-F]*:[0-9a-fA-F]*:)[0-9a-fA-F:]{3,}\](?::\d+)?"),
     "<host>"),
    (re.compile(r"(?i)\b(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|local|internal|cloud|ai|cn|svc|cluster)(?::\d+)?\b"),
     "<host>"),
    (re.compile(r"\b[a-z0-9][a-z0-9-]*:\d{2,5}\b"), "<host>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b|\b(?=[0-9a-fA-F-]*\d)(?=[0-9a-fA-F-]*[a-fA-F])[0-9a-fA-F-]{8,}\b"), "<hex>"),
    (re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}"), "<secret>"),
    (re.compile(r"\b\d+(?:\.\d+)*\b"), "<n>"),
)
_SPACES = re.compile(r"\s+")
_TYPE = re.compile(r"^(?:[A-Za-z_]\w*\.)*([A-Z]\w*(?:Error|Exception|Warning|Fault|Exit|Interrupt))\b")


@dataclass(frozen=True)
class Shape:
    """An unknown error as errkb keeps it."""

    line: str  # the decisive line, masked
    error_type: str | None  # e.g. ``ValueError``, when the line names one
    digest: str  # sha256 of ``line`` (hex, 32 characters): the same shape, the same digest


def masked(line: str) -> str:
    """``line`` with every value that varies between runs, machines or people replaced by a placeholder."""
    text = mask(line)
    for pattern, placeholder in _RULES:
        text = pattern.sub(placeholder, text)
    text = _SPACES.sub(" ", text).strip()
    return text[:MAX_SHAPE]


def shape(text: str) -> Shape | None:
    """The shape of the decisive error line of ``text`` (the last one raised), or None when none announces an error."""
    lines = error_lines(text)
    if not lines:
        return None
    _offset, line = lines[0]
    line = masked(line)
    if not line:
        return None
    found = _TYPE.match(line)
    return Shape(line, found.group(1) if found else None, hashlib.sha256(line.encode()).hexdigest()[:32])


_FRAME = re.compile(r'^\s*File "([^"\n]+)", line (\d+)(?:, in (\S+))?', re.MULTILINE)
_LIBRARY = re.compile(r"(?i)[\\/](?:site-packages|dist-packages|lib[\\/]python\d[\d.]*|node_modules|<frozen |\.venv)"
                      r"|^<")


def own_frame(text: str) -> str | None:
    """The deepest traceback frame in the reader's own code (not a library's): ``file:line in function``."""
    own = [m for m in _FRAME.finditer(text) if not _LIBRARY.search(m.group(1))]
    if not own:
        return None
    path, line, function = own[-1].groups()
    name = re.split(r"[\\/]", path)[-1]
    return f"{name}:{line}" + (f" in {function}" if function else "")
