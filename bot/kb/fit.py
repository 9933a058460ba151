"""Whether a workaround's condition holds for one paste: the checkable part of its ``condition``.

A workaround may say, beside its ``condition`` in words, what a paste shows when the fix is for it
(``applies``)::

    "applies": {
      "paste": "reserved by PyTorch but unallocated",   # RE2: shown → the fix fits
      "not_paste": "manifest unknown",                   # RE2: shown → the fix does not fit
      "values": {"registry": "^(?:docker\\.io|registry-1\\.docker\\.io)$"},  # a named group's value
      "os": ["linux", "macos"],                          # the paste's OS, when it shows one
      "versions": ["torch>=2.1"]                         # what the paste says it ran
    }

Each test says *fits*, *does not fit* or nothing (the paste does not show). A fix fits when some test
says so and none says it does not; a paste that contradicts any test rules the fix out. Fixes that fit
rise above the others, fixes ruled out drop below them (the service orders them; votes decide within).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass

from bot.kb.entry import compile_regex, regex_error
from bot.kb.versions import parse_constraints, revealed_versions

OS_NAMES = ("linux", "macos", "windows")

# What shows a paste came from one OS (a path, a prompt, a library suffix, a tool's own words).
_OS_MARKERS = {
    "windows": re.compile(r"(?i)(?:\b[A-Z]:\\(?:Users|Program Files|Windows|src|work|projects?)\b|\bPS [A-Z]:\\|"
                          r"\.exe\b|\.dll\b|\bWinError\b|\bcmd\.exe\b|\bpowershell\b|\\AppData\\)"),
    "macos": re.compile(r"(?:/Users/[^/\s]+/|\bdarwin\b|\bmacOS\b|\.dylib\b|/opt/homebrew/|\bXcode\b|"
                        r"/Library/Frameworks/)"),
    "linux": re.compile(r"(?:/home/[^/\s]+/|/usr/lib/|/usr/local/lib/python|\.so(?:\.\d+)*\b|\bUbuntu\b|"
                        r"\bDebian\b|\bglibc\b|/proc/|\bsystemd\b|/var/lib/)"),
}


class Fit(enum.IntEnum):
    """How a fix's condition stands against a paste; orders fixes (higher first)."""

    RULED_OUT = 0
    UNKNOWN = 1
    FITS = 2


@dataclass(frozen=True)
class Paste:
    """What the checks read of one paste: its text, the values the entry's regex named, its OS."""

    text: str
    values: Mapping[str, str]
    systems: frozenset[str]

    @classmethod
    def read(cls, text: str, values: Mapping[str, str] | None = None) -> Paste:
        return cls(text, dict(values or {}), frozenset(os for os, marker in _OS_MARKERS.items() if marker.search(text)))


def named(line: str, regex: str) -> dict[str, str]:
    """The values ``regex`` names (``(?P<name>…)``) in ``line``."""
    hit = compile_regex(regex).search(line) if regex else None
    return {k: v for k, v in hit.groupdict().items() if v} if hit else {}


def fit(applies: Mapping[str, object] | None, paste: Paste) -> Fit:
    """The verdict of ``applies`` (a workaround's checkable condition) on ``paste``."""
    if not applies:
        return Fit.UNKNOWN
    said = [v for v in _verdicts(applies, paste) if v is not None]
    if False in said:
        return Fit.RULED_OUT
    return Fit.FITS if said else Fit.UNKNOWN


def _verdicts(applies: Mapping[str, object], paste: Paste) -> list[bool | None]:
    out: list[bool | None] = []
    if isinstance(shown := applies.get("paste"), str):
        out.append(True if compile_regex(shown).search(paste.text) else None)
    if isinstance(hidden := applies.get("not_paste"), str):
        out.append(False if compile_regex(hidden).search(paste.text) else None)
    if isinstance(wanted := applies.get("values"), Mapping):
        for name, pattern in wanted.items():
            value = paste.values.get(name)
            out.append(None if value is None else bool(compile_regex(str(pattern)).search(value)))
    if isinstance(systems := applies.get("os"), list) and paste.systems:
        out.append(bool(paste.systems & set(systems)) if len(paste.systems) == 1 else None)  # mixed: no word
    if isinstance(specs := applies.get("versions"), list):
        revealed = revealed_versions(paste.text)
        for c in parse_constraints(str(s) for s in specs):
            out.append(c.allows(revealed[c.package]) if c.package in revealed else None)
    return out


def problems(applies: object) -> list[tuple[str, str]]:
    """(field, problem) for an ``applies`` object that cannot be checked as written."""
    if not isinstance(applies, dict):
        return [("", "expected an object")]
    found: list[tuple[str, str]] = []
    for key, value in applies.items():
        if key in ("paste", "not_paste"):
            if not isinstance(value, str) or not value:
                found.append((key, "expected an RE2 pattern"))
            elif reason := regex_error(value):
                found.append((key, reason))
        elif key == "values":
            if not isinstance(value, dict) or not all(isinstance(p, str) for p in value.values()):
                found.append((key, "expected {group name: RE2 pattern}"))
            else:
                found += [(f"{key}.{name}", reason) for name, p in value.items() if (reason := regex_error(p))]
        elif key == "os":
            if not isinstance(value, list) or not value or not set(value) <= set(OS_NAMES):
                found.append((key, f"expected a list of {', '.join(OS_NAMES)}"))
        elif key == "versions":
            if not isinstance(value, list) or len(parse_constraints(str(s) for s in value)) < len(value):
                found.append((key, "expected constraints such as \"torch>=2.1\""))
        else:
            found.append((key, "unknown check; expected paste, not_paste, values, os or versions"))
    return found
