"""The reader's quoted line of each recent answer, kept in process so a vote can redraw the answer with it.

The store never holds what a reader pasted; this memory holds the masked, shortened decisive line of
the latest ``KEPT`` answers for a day. A vote on an older answer redraws it without its quoted line.
"""

from __future__ import annotations

from bot.cards import EntryCard, MatchCard
from bot.render import summary
from bot.service.runtime.caches import Expiring

TTL = 86_400.0  # seconds a posted answer's quoted line is kept
KEPT = 10_000  # answers (about 0.6 KiB each): a bounded few MiB that a busy bot fills in minutes and then holds

Key = tuple[str, str, str]  # (workspace, channel, ts) of a posted answer


class Quoted:
    def __init__(self) -> None:
        self._lines: Expiring[Key, tuple[str, float, str]] = Expiring(TTL, size=KEPT)

    def keep(self, key: Key, match: MatchCard) -> None:
        self._lines.put(key, (match.how, match.score, summary.quote(match.line, match.entry.regex)))

    def match(self, key: Key, entry: EntryCard) -> MatchCard | None:
        """The match a posted answer showed (its quoted line), while this process remembers it."""
        found, shown = self._lines.peek(key)
        if not found or shown is None:
            return None
        how, score, line = shown
        return MatchCard(entry, how, score, (0, 0), line)
