"""Teaching errkb a new error: a regex proposed from its masked line, and the checks a regex must pass.

The line is what ``bot.kb.shape`` keeps of an unknown error (values masked as ``<n>``, ``<path>`` …).
:func:`propose` turns it into an RE2 pattern that keeps the stable words and accepts any value where a
placeholder stood, starting at the first stable word (a log prefix is dropped). :func:`check` says
what is wrong with a pattern: it must compile in RE2, not match the empty string, match the example
line (its placeholders filled with typical values, :func:`sample`), and match none of the chat that
must stay unanswered nor any other entry's pastes. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import islice

from bot.kb.entry import compile_regex, regex_error
from bot.kb.normalize import normalize

# placeholder → (what a value there may look like, a typical value for checking the example)
PLACEHOLDERS: dict[str, tuple[str, str]] = {
    "<n>": (r"\d+(?:\.\d+)*", "42"),
    "<hex>": (r"[0-9a-fA-Fx-]+", "0x7f3a9c"),
    "<path>": (r"\S+", "/srv/app/main.py"),
    "<name>": (r"""(?:'[^']*'|"[^"]*"|`[^`]*`|‘[^’]*’|“[^”]*”)""", "'widget'"),
    "<host>": (r"\S+", "10.0.0.7:8080"),
    "<email>": (r"\S+@\S+", "dev@example.com"),
    "<url>": (r"\S+", "https://example.com/a"),
    "<user>": (r"\S+", "alice"),
    "<secret>": (r"\S+", "s3cr3tvalue"),
}
_PLACEHOLDER = re.compile("|".join(re.escape(p) for p in PLACEHOLDERS))
_STABLE_WORD = re.compile(r"[A-Za-z\u4e00-\u9fff]{2,}")
MAX_PATTERN = 600


@dataclass(frozen=True)
class Issue:
    """What is wrong with a regex: ``kind`` is compile | empty | example | chat | entry; ``detail`` the RE2
    reason, the chat message or the entry id it matched."""

    kind: str
    detail: str = ""


def sample(line: str) -> str:
    """``line`` with each placeholder replaced by a typical value: a line like the pastes it stands for."""
    return _PLACEHOLDER.sub(lambda m: PLACEHOLDERS[m.group(0)][1], line)


def _literal(text: str) -> str:
    return r"\s+".join(re.escape(word) for word in text.split(" "))


def propose(line: str) -> str:
    """An RE2 pattern for the masked ``line``: its stable words, any value in place of each placeholder."""
    pieces = _PLACEHOLDER.split(line.strip())
    holders = _PLACEHOLDER.findall(line.strip())
    first = next((i for i, piece in enumerate(pieces) if _STABLE_WORD.search(piece)), None)
    if first is None:
        return _literal(line.strip())
    start = _STABLE_WORD.search(pieces[first])
    assert start is not None
    out = [_literal(pieces[first][start.start():])]
    for holder, piece in zip(holders[first:], pieces[first + 1:], strict=True):
        out.append(PLACEHOLDERS[holder][0])
        out.append(_literal(piece))
    pattern = "".join(out)
    while pattern.endswith((r"\s+", r"\S+")) and len(pattern) > 3:  # a trailing "any value" adds nothing
        pattern = pattern[:-3]
    return pattern[:MAX_PATTERN]


def check(pattern: str, example: str, chat: Iterable[str], pastes: Iterable[tuple[str, str]],
          limit: int = 3) -> list[Issue]:
    """Every reason ``pattern`` cannot teach errkb ``example`` (a masked line); [] when it can.

    ``chat``: messages that must match nothing; ``pastes``: (entry id, paste) of the entries it must not steal;
    both as the matcher sees them (``normalize``d). At most ``limit`` chat messages and entries are named."""
    if not pattern.strip():
        return [Issue("empty")]
    if (reason := regex_error(pattern)) is not None:
        return [Issue("compile", reason)]
    regex = compile_regex(pattern)
    if regex.search("") is not None:
        return [Issue("empty")]
    issues = []
    if regex.search(normalize(sample(example)).text) is None and regex.search(example) is None:
        issues.append(Issue("example"))
    issues += [Issue("chat", m) for m in islice((m for m in chat if regex.search(m)), limit)]
    stolen: list[str] = []
    for entry_id, paste in pastes:
        if entry_id not in stolen and regex.search(paste):
            stolen.append(entry_id)
            if len(stolen) == limit:
                break
    return issues + [Issue("entry", e) for e in stolen]

