"""The dashboard's numbers for one workspace: the 30-day window, ecosystems (past eight summed as "other", the
team's own entries as "team"), the most frequent errors, the fixes voted on here, unknown errors and team entries
awaiting review."""

from __future__ import annotations

import datetime as dt

from bot import i18n
from bot.cards import OTHER_ECOSYSTEM, TEAM_ECOSYSTEM, FixVotesCard
from bot.service.dashboard import ECOSYSTEMS, WINDOW_DAYS

NOW = 1_780_000_000.0  # 2026-05-28 20:26:40 UTC
TODAY = dt.datetime.fromtimestamp(NOW, dt.UTC).date()
NCCL = "pytorch/nccl-timeout-during-allreduce"
OOM = "pytorch/cuda-out-of-memory"
BODY = {"title": "WidgetError: widget stuck", "cause": "The widget daemon hangs.",
        "workarounds": ["Restart the widget daemon."]}


async def test_the_window_is_the_last_30_days_and_its_series_align_with_them(errkb):
    errkb.store.clock = lambda: NOW
    for back, n in ((0, 2), (WINDOW_DAYS - 1, 1), (WINDOW_DAYS, 5)):  # the last one is a day too old
        for _ in range(n):
            await errkb.store.record_hit(NCCL, "en", TODAY - dt.timedelta(days=back), workspace="T1")
    card = await errkb.service.dashboard.card("T1")
    assert card.days[0] == TODAY - dt.timedelta(days=WINDOW_DAYS - 1) and card.days[-1] == TODAY
    (pytorch,) = card.series
    assert pytorch.ecosystem == "pytorch" and len(pytorch.counts) == WINDOW_DAYS
    assert (pytorch.counts[0], pytorch.counts[-1], sum(pytorch.counts)) == (1, 2, 3) and card.matches == 3
    assert [(t.id, t.hits) for t in card.top] == [(NCCL, 3)]


async def test_ecosystems_past_the_first_eight_are_summed_as_other_and_team_entries_are_their_own(errkb):
    errkb.store.clock = lambda: NOW
    domains = sorted({e.split("/")[0] for e in errkb.service.knowledge.kb.entries})[:ECOSYSTEMS + 2]
    for rank, domain in enumerate(domains):
        entry_id = next(e for e in errkb.service.knowledge.kb.entries if e.startswith(f"{domain}/"))
        for _ in range(len(domains) - rank):
            await errkb.store.record_hit(entry_id, "en", TODAY, workspace="T1")
    mine = await errkb.store.add_team_entry("T1", "U1", "en", BODY, r"WidgetError: widget \w+ stuck", "x")
    await errkb.store.record_hit(mine.entry_id, "en", TODAY, workspace="T1")
    card = await errkb.service.dashboard.card("T1")
    names = [s.ecosystem for s in card.series]
    assert names[:ECOSYSTEMS] == domains[:ECOSYSTEMS] and names[-1] == OTHER_ECOSYSTEM
    assert card.series[-1].counts[-1] == 2 + 1 + 1  # the last two domains and the team's entry
    assert TEAM_ECOSYSTEM not in names[:ECOSYSTEMS] and card.matches == sum(range(1, len(domains) + 1)) + 1


async def test_fixes_count_only_this_workspaces_votes_and_unknowns_and_reviews_are_its_own(errkb):
    errkb.store.clock = lambda: NOW
    for user, vote in (("U1", 1), ("U2", 1), ("U3", -1)):
        await errkb.store.record_button("T1", user, OOM, 0, vote, NOW)
    await errkb.store.record_button("T2", "U9", OOM, 0, -1, NOW)
    await errkb.store.seen_unknown("T2", "C1", "d", "KafkaError: broker <n> down", "KafkaError")
    errkb.store.clock = lambda: NOW - 3 * 86400 - 60
    waiting = await errkb.store.add_team_entry("T1", "U1", "en", BODY, r"WidgetError: widget \w+ stuck", "x")
    verified = await errkb.store.add_team_entry("T1", "U1", "en", {**BODY, "title": "Checked"}, r"Checked \d", "y")
    errkb.store.clock = lambda: NOW
    await errkb.store.set_team_status("T1", verified.entry_id, "verified", "U2")
    with i18n.use_locale("en"):
        card = await errkb.service.dashboard.card("T1")
    (fix,) = card.fixes
    assert isinstance(fix, FixVotesCard) and (fix.entry_id, fix.worked, fix.failed) == (OOM, 2, 1)
    assert round(fix.rate, 3) == 0.667 and fix.text
    assert card.unknown == () and card.remembering
    assert [(a.entry_id, a.title, a.waiting_days) for a in card.awaiting] == [(waiting.entry_id, BODY["title"], 3)]
    other = await errkb.service.dashboard.card("T2")
    assert [(f.worked, f.failed) for f in other.fixes] == [(0, 1)] and [u.count for u in other.unknown] == [1]
    assert other.awaiting == () and other.matches == 0
