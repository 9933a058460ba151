"""Match the windows of a CI log with the KB and keep each distinct failure once.

A failure is an entry the KB names for a window, with the log line its match is on and the step that line
belongs to. The same entry found again later in the log is the same failure: the first one stands.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO, Protocol

from bot.ci.reader import CHUNK, Window, windows
from bot.kb.matcher import Match

MAX_WINDOWS = 5000  # windows matched at most (a log made only of errors still ends in bounded time)


class Finder(Protocol):
    """What failures need of the service's ``Knowledge``."""

    def find(self, paste: str, limit: int = 3) -> list[Match]: ...


@dataclass(frozen=True)
class Failure:
    """One distinct failure: where it is (step, 1-based line) and the match (spans into its window)."""

    step: str | None
    line: int
    match: Match


def match_windows(found: Iterable[Window], knowledge: Finder) -> list[Failure]:
    """The distinct failures in ``found``, in the order they occur in the log."""
    failures: dict[str, Failure] = {}
    for count, window in enumerate(found):
        if count >= MAX_WINDOWS:
            break
        text = window.text
        for match in knowledge.find(text, limit=1):
            if match.entry_id in failures:
                continue
            line = window.first + text.count("\n", 0, match.span[0])
            failures[match.entry_id] = Failure(window.step_at(line), line, match)
    return list(failures.values())


def failures(stream: BinaryIO, knowledge: Finder, chunk_size: int = CHUNK) -> list[Failure]:
    """Every distinct failure the KB recognises in the log read from ``stream``."""
    return match_windows(windows(stream, chunk_size), knowledge)
