"""The team dashboard's numbers: one workspace's matches over time, its most frequent errors, the fixes it voted
on, the errors it is waiting to teach errkb and its team entries awaiting review. Every read takes the workspace."""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict

from bot.cards import (
    OTHER_ECOSYSTEM,
    TEAM_ECOSYSTEM,
    AwaitingReviewCard,
    DashboardCard,
    EcosystemSeriesCard,
    FixVotesCard,
    TopEntryCard,
    UnknownLineCard,
)
from bot.kb.team_entry import is_team_id
from bot.service.knowledge import Knowledge
from bot.service.unknowns import Unknowns
from bot.store import Store

WINDOW_DAYS = 30
TOP = 8  # entries, fixes, unknown errors, entries awaiting review: each plot's bars
ECOSYSTEMS = 8  # series in the time plot; the rest are summed as "other"


def ecosystem(entry_id: str) -> str:
    """An entry's ecosystem: its id's domain (``pytorch/…``), or ``TEAM_ECOSYSTEM`` for a team-written entry."""
    return TEAM_ECOSYSTEM if is_team_id(entry_id) else entry_id.partition("/")[0]


class Dashboard:
    def __init__(self, knowledge: Knowledge, store: Store, unknowns: Unknowns) -> None:
        self.knowledge = knowledge
        self.store = store
        self.unknowns = unknowns

    async def card(self, workspace: str, days: int = WINDOW_DAYS) -> DashboardCard:
        """``workspace``'s dashboard for the ``days`` up to today (UTC, by the store's clock), in the current locale."""
        now = self.store.clock()
        today = dt.datetime.fromtimestamp(now, dt.UTC).date()
        window = tuple(today - dt.timedelta(days=n) for n in range(days - 1, -1, -1))
        hits = await self.store.daily_hits(workspace, window[0])
        per_day: dict[str, Counter[dt.date]] = defaultdict(Counter)
        per_entry: Counter[str] = Counter()
        for row in hits:
            per_day[ecosystem(row.entry_id)][row.day] += row.hits
            per_entry[row.entry_id] += row.hits
        return DashboardCard(
            days=window,
            series=_series(per_day, window),
            top=tuple([TopEntryCard(entry_id, await self._signature(entry_id, workspace), n)
                       for entry_id, n in sorted(per_entry.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP]]),
            fixes=await self._fixes(workspace),
            unknown=tuple(UnknownLineCard(u.shape, u.error_type, u.count, u.last_seen)
                          for u in await self.store.unknown_errors(workspace, limit=TOP)),
            remembering=await self.unknowns.remembers(workspace),
            awaiting=tuple(sorted((AwaitingReviewCard(r.entry_id, r.body.get("title") or r.entry_id, r.author,
                                                      max(0, int((now - r.created_at) // 86400)))
                                   for r in await self.store.team_entries(workspace, statuses=("live",))),
                                  key=lambda a: (-a.waiting_days, a.entry_id))[:TOP]),
        )

    async def _signature(self, entry_id: str, workspace: str) -> str:
        card = await self.knowledge.card(entry_id, None, workspace)
        return card.signature if card is not None and card.signature else entry_id

    async def _fixes(self, workspace: str) -> tuple[FixVotesCard, ...]:
        """The fixes with the most of this workspace's votes, each with its own workspace's 👍 / 👎 only."""
        found = []
        for w in (await self.store.stats(limit=TOP * 2, workspace=workspace)).top_workarounds:
            entry = await self.knowledge.card(w.entry_id, None, workspace)
            fix = entry.workaround(w.workaround) if entry is not None else None
            if entry is not None and fix is not None:
                found.append(FixVotesCard(entry.id, entry.signature, fix.text, w.up, w.down))
        return tuple(found[:TOP])


def _series(per_day: dict[str, Counter[dt.date]], window: tuple[dt.date, ...]) -> tuple[EcosystemSeriesCard, ...]:
    """One series per ecosystem, most matched first; past ``ECOSYSTEMS`` the rest summed as ``other``."""
    ranked = sorted(per_day, key=lambda e: (-sum(per_day[e].values()), e))
    kept, rest = ranked[:ECOSYSTEMS], ranked[ECOSYSTEMS:]
    series = [EcosystemSeriesCard(e, tuple(per_day[e][d] for d in window)) for e in kept]
    if rest:
        series.append(EcosystemSeriesCard(OTHER_ECOSYSTEM, tuple(sum(per_day[e][d] for e in rest) for d in window)))
    return tuple(series)
