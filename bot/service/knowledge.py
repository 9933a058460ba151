"""Knowledge: a paste (or a query, or an id) and a reader → cards in the reader's locale.

The read side every surface shares (Slack, the CLI): find, explain, show, search and usage. The
reader's locale is the current ``bot.i18n`` locale, set by the caller once per request
(``bot.service.conversation``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from bot.i18n import current_locale, fold, script
from bot.kb import feedback, fit
from bot.kb.entry import GRAPH_LINKS, Entry
from bot.kb.feedback import EntryFeedback as Feedback
from bot.kb.knowledge import KnowledgeBase
from bot.kb.mask import mask
from bot.kb.matcher import Match
from bot.kb.normalize import normalize
from bot.kb.team_entry import is_team_id

if TYPE_CHECKING:
    from bot.store.records import Stats
from bot.cards import (
    DeadEndCard,
    Diagnosis,
    EntryCard,
    MatchCard,
    RelatedCard,
    SearchResultCard,
    TopEntryCard,
    TrustedWorkaroundCard,
    UsageCard,
    WorkaroundCard,
)

# A paste longer than this is cut before matching (the error is nearly always near the end of a
# traceback, so the tail is kept): it bounds the work one message can cause.
MAX_PASTE_CHARS = 200_000


class FeedbackSource(Protocol):
    """What knowledge reads of the store: live numbers, hits and usage."""

    async def feedback(self, entry_ids: Iterable[str], workspace: str | None = None) -> dict[str, Feedback]: ...

    async def record_hit(self, entry_id: str, locale: str, day: dt.date | None = None) -> None: ...

    async def hit_counts(self, workspace: str | None = None) -> dict[str, int]: ...

    async def stats(self, limit: int = 10, workspace: str | None = None) -> Stats: ...


class TeamSource(Protocol):
    """Team-written entries (``bot.service.team``): the ones loaded in process, and any by id, each only for
    the workspace that wrote it."""

    def entry(self, entry_id: str, workspace: str | None) -> Entry | None: ...

    async def fetch(self, workspace: str, entry_id: str) -> Entry | None: ...


class Knowledge:
    """Diagnose, show and search, with live crowd numbers when a store is attached, and a workspace's
    team-written entries when ``team`` is given (the CLI knows the KB only)."""

    def __init__(self, kb: KnowledgeBase, store: FeedbackSource | None = None, team: TeamSource | None = None) -> None:
        self.kb = kb
        self.store = store
        self.team = team

    def _entry(self, entry_id: str, workspace: str | None) -> Entry:
        found = self.kb.entries.get(entry_id) or (self.team.entry(entry_id, workspace) if self.team is not None
                                                  else None)
        if found is None:
            raise KeyError(entry_id)
        return found

    async def entry(self, entry_id: str, workspace: str | None = None) -> Entry | None:
        """A KB entry, or ``workspace``'s team entry still answering (read from the store when not loaded
        here). Another workspace's team entry is not found, whatever its id says."""
        found = self.kb.entries.get(entry_id)
        if found is None and self.team is not None and workspace is not None:
            found = await self.team.fetch(workspace, entry_id)
        return found

    def find(self, paste: str, limit: int = 3) -> list[Match]:
        """The entries ``paste`` is about, best first, with spans into ``paste`` as given, and how each fix's
        condition stands against the paste (no I/O)."""
        offset = max(0, len(paste) - MAX_PASTE_CHARS)
        text = normalize(paste[offset:])
        matches = [self._fitted(m, text.text) for m in self.kb.matcher.match(text, limit=limit)]
        return [replace(m, span=(m.span[0] + offset, m.span[1] + offset)) for m in matches] if offset else matches

    def _fitted(self, match: Match, text: str) -> Match:
        entry = self.kb.entries.get(match.entry_id)
        if entry is None or not any(w.applies for w in entry.workarounds):
            return match
        read = fit.Paste.read(text, fit.named(match.line, entry.regex))
        return replace(match, fits=tuple(fit.fit(w.applies, read) for w in entry.workarounds))

    async def explain(self, matches: list[Match], record: bool = True, live: dict[str, Feedback] | None = None,
                      workspace: str | None = None) -> Diagnosis:
        """Views of ``matches`` in the current locale, with live numbers (read now, with ``workspace``'s
        suggested fixes, unless given as ``live``); counts the best as a hit when ``record``."""
        if live is None:
            live = await self._feedback([m.entry_id for m in matches], workspace)
        cards = [
            MatchCard(self._entry_card(self._entry(m.entry_id, workspace), live.get(m.entry_id), m.fits),
                      m.how, m.score, m.span,
                      mask(m.line))  # the reader's own line: masked here, once, for every surface
            for m in matches
        ]
        if record and self.store is not None and cards:
            await self.store.record_hit(cards[0].entry.id, current_locale())
        return Diagnosis(current_locale(), cards)

    async def diagnose(self, paste: str, limit: int = 3, record: bool = True) -> Diagnosis:
        """The entries ``paste`` is about, best first, in the current locale."""
        return await self.explain(self.find(paste, limit), record)

    async def card(self, entry_id: str, live: Feedback | None, workspace: str | None = None) -> EntryCard | None:
        """``entry_id`` as ``workspace`` sees it, in the current locale with the crowd numbers ``live`` (already
        read)."""
        entry = await self.entry(entry_id, workspace)
        return None if entry is None else self._entry_card(entry, live)

    async def show(self, entry_id: str, workspace: str | None = None) -> EntryCard | None:
        """``entry_id`` with live numbers; with ``workspace``, with the fixes its members suggested too, and
        its own team entries (never another workspace's: None, as for an id that does not exist)."""
        entry = await self.entry(entry_id, workspace)
        if entry is None:
            return None
        live = await self._feedback([entry_id], workspace)
        return self._entry_card(entry, live.get(entry_id))

    async def search(self, query: str, limit: int = 5, workspace: str | None = None) -> list[SearchResultCard]:
        """Entries for ``query``, in the current locale; entries this workspace (or, without one, anyone)
        matches often rank higher. A Traditional Chinese query finds what its Simplified form finds."""
        zh = current_locale() == "zh"
        hits = await self.store.hit_counts(workspace) if self.store is not None else {}
        results = []
        # the first search loads the index, or waits for its build (seconds at 50,000 entries): not on the event loop
        index = self.kb.index if self.kb.index_loaded else await asyncio.to_thread(lambda: self.kb.index)
        for hit in index.search(fold(query), limit=limit, hits=hits):
            entry = self.kb.entries[hit.entry_id]
            signature = script((entry.signature_zh if zh else "") or entry.signature)
            results.append(SearchResultCard(entry.id, hit.score, signature, entry.domain, hit.reasons))
        return results

    async def usage(self, limit: int = 5, workspace: str | None = None) -> UsageCard:
        """The most matched entries and most trusted workarounds, in the current locale; with ``workspace``,
        only that workspace's matches and votes."""
        if self.store is None:
            return UsageCard(len(self.kb.entries), [], [])
        stats = await self.store.stats(limit=max(4 * limit, 20), workspace=workspace)
        ids = dict.fromkeys([e.entry_id for e in stats.top_entries[:limit]]
                            + [w.entry_id for w in stats.top_workarounds])
        live = await self._feedback([i for i in ids if i in self.kb.entries], workspace)
        cards = {i: self._entry_card(self.kb.entries[i], live.get(i)) for i in ids if i in self.kb.entries}
        top = [TopEntryCard(e.entry_id, cards[e.entry_id].signature, e.hits)
               for e in stats.top_entries[:limit] if e.entry_id in cards]
        trusted = []
        for w in stats.top_workarounds:
            entry = cards.get(w.entry_id)
            card = entry.workaround(w.workaround) if entry else None
            if entry and card and card.votes_up > 0:
                trusted.append(TrustedWorkaroundCard(entry.id, entry.signature, card))
        trusted.sort(key=lambda t: (t.workaround.success_rate, t.workaround.votes_up), reverse=True)
        return UsageCard(len(self.kb.entries), top, trusted[:limit], stats.totals)

    async def _feedback(self, entry_ids: list[str], workspace: str | None = None) -> dict[str, Feedback]:
        if self.store is None or not entry_ids:
            return {}
        return await self.store.feedback(entry_ids, workspace)

    def _entry_card(self, entry: Entry, live: Feedback | None, fits: tuple[int, ...] = ()) -> EntryCard:
        """The card of ``entry`` in the current locale. Curated text (the KB's seeds) reaches the reader as
        written; what a reader or a team wrote (a team entry, a suggested fix) is credential-masked. With
        ``fits`` (a paste's verdict on each fix's condition), fixes that fit the paste come first and fixes
        it rules out last; votes order the fixes within each."""
        live = live or Feedback()
        zh = current_locale() == "zh"
        written = _team_text if is_team_id(entry.id) else script
        # plain fields in Chinese (a team entry written in Chinese): untranslated for an English reader
        source = "zh" if entry.raw.get("locale") == "zh" else "en"
        confidence = entry.confidence
        ranked = []
        for w in entry.workarounds:
            tally = live.workarounds.get(w.index, feedback.Tally())
            rate = feedback.success_rate(w.prior, confidence, tally)
            bound = feedback.rate_lower_bound(w.prior, confidence, tally)
            text, untranslated = _localized(w.action, w.text_zh, zh, source)
            condition, cond_untranslated = _localized(w.condition, w.condition_zh, zh) if w.condition else ("", False)
            text, condition = written(text), written(condition)
            verdict = fits[w.index] if w.index < len(fits) else fit.Fit.UNKNOWN
            card = WorkaroundCard(w.index, text, rate, tally.up, tally.down, untranslated, condition, w.prior,
                                  cond_untranslated, fit=verdict)
            ranked.append((verdict, bound, -w.index, card))
        for s in live.suggested:
            tally = live.workarounds.get(s.index, feedback.Tally())
            if (s.locale == "zh") == zh or not s.text_other:  # the author's language, or all there is
                text, untranslated = s.text, (s.locale == "zh") != zh
            else:
                text, untranslated = s.text_other, False
            card = WorkaroundCard(s.index, _team_text(text), feedback.suggested_rate(tally), tally.up, tally.down,
                                  untranslated, author=s.author, verified=s.verified)
            ranked.append((fit.Fit.UNKNOWN, feedback.suggested_lower_bound(tally), -s.index, card))
        ranked.sort(key=lambda item: (item[0], item[1], item[2]), reverse=True)
        workarounds = [card for _fit, _bound, _i, card in ranked]
        dead_ends = []
        for d in entry.dead_ends:
            english = f"{d.action} — {d.why_fails}" if d.action and d.why_fails else (d.action or d.why_fails)
            text, untranslated = _localized(english, d.text_zh, zh, source)
            text = written(text)
            action, why = (d.action, d.why_fails) if not zh or untranslated else _split_dead_end(text)
            action, why = written(action), written(why)
            condition, cond_untranslated = _localized(d.condition, d.condition_zh, zh) if d.condition else ("", False)
            dead_ends.append(DeadEndCard(text, d.fail_rate, untranslated, action, why, condition, cond_untranslated))
        dead_ends.sort(key=lambda d: d.fail_rate, reverse=True)
        signature = _localized(entry.signature, entry.signature_zh, zh, source)[0]
        root_cause, rc_untranslated = _localized(entry.root_cause, entry.root_cause_zh, zh, source)
        signature, root_cause = written(signature), written(root_cause)
        seed_confirmed = _parse_date(entry.raw.get("last_confirmed"))
        confirmed = max(filter(None, (seed_confirmed, live.last_confirmed)), default=None)
        return EntryCard(
            id=entry.id,
            domain=entry.domain,
            signature=signature,
            root_cause=root_cause,
            dead_ends=dead_ends,
            workarounds=workarounds,
            versions=list(entry.versions),
            official_doc_url=entry.official_doc_url,
            verification_tier=entry.verification_tier,
            confidence=confidence,
            evidence_count=feedback.evidence_count(entry.evidence_count, live.distinct_voters),
            fix_success_rate=feedback.fix_success_rate(
                entry.fix_estimate, confidence, (live.workarounds.get(w.index, feedback.Tally())
                                                 for w in entry.workarounds)),
            resolvable=entry.resolvable,
            last_confirmed=confirmed,
            root_cause_untranslated=rc_untranslated,
            related={k: [self._related(i, zh) for i in entry.links(k) if i in self.kb.entries]
                     for k in GRAPH_LINKS if entry.links(k)},
            voters=live.distinct_voters,
            regex=entry.regex,
            team_author=entry.raw.get("team_author") if isinstance(entry.raw.get("team_author"), str) else None,
            team_reviewer=entry.raw.get("team_reviewer") if isinstance(entry.raw.get("team_reviewer"), str) else None,
            values_text=tuple(script(t) for t in entry.values_text(zh)),
        )

    def _related(self, entry_id: str, zh: bool) -> RelatedCard:
        entry = self.kb.entries[entry_id]
        return RelatedCard(entry_id, script(_localized(entry.signature, entry.signature_zh, zh)[0]))


def _team_text(text: str) -> str:
    """What a member wrote, as a reader sees it: credential-masked, in their script."""
    return script(mask(text))


def _localized(english: str, chinese: str | None, zh: bool, source: str = "en") -> tuple[str, bool]:
    """The text for the reader, and whether it stands in for a missing translation (``english``: the
    plain field, in ``source``'s language)."""
    if not zh:
        if not english.strip() and chinese and chinese.strip():  # written in Chinese only, English still to come
            return chinese, True
        return english, source != "en"
    if chinese and chinese.strip():
        return chinese, False
    return english, True


def _split_dead_end(text: str) -> tuple[str, str]:
    """A Chinese dead end written as "what people try：why it fails" → its two parts."""
    action, colon, why = text.partition("：")
    return (action.strip(), why.strip()) if colon and action.strip() and why.strip() else ("", text)


def _parse_date(value: object) -> dt.date | None:
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return None
    return None
