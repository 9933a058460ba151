"""Recording reactions and button clicks, and reading the crowd's feedback on entries.

A vote row and its target's counter change in one transaction, so they can only move together.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import BindParameter, and_, bindparam, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.kb.feedback import (
    EntryFeedback,
    Ledger,
    Mark,
    Tally,
    apply_event,
    choose_button,
    confirmed_at,
    is_suggested,
    token_polarity,
    vote_of,
)
from bot.kb.team_entry import is_team_id
from bot.store import team_fixes
from bot.store.models import DIAGNOSIS, WORKAROUND, EntryRow, PostedMessageRow, Target, TeamEntryRow, Vote
from bot.store.records import PostedMessage, VoteEvent, VoteOutcome

Change = Callable[[Ledger], dict[str, Mark]]
CHUNK = 500


def load_ledger(data: dict[str, Any] | None) -> dict[str, Mark]:
    return {token: Mark(bool(value[0]), float(value[1])) for token, value in (data or {}).items()}


def dump_ledger(ledger: Ledger) -> dict[str, list[Any]]:
    return {token: [mark.present, mark.at] for token, mark in sorted(ledger.items())}


def _token_change(token: str, present: bool, at: float) -> Change:
    return lambda ledger: apply_event(ledger, token, present, at)


def _button_change(vote: int, at: float) -> Change:
    return lambda ledger: choose_button(ledger, vote, at)


_T = Target.__table__
_V = Vote.__table__
_P = PostedMessageRow.__table__
_E = EntryRow.__table__
_POSTED = (
    select(_P.c.workspace, _P.c.channel, _P.c.ts, _P.c.target_id, _P.c.locale, _P.c.thread_ts, _T.c.entry_id,
           _T.c.kind, _T.c.position, _T.c.retired_at, _E.c.retired_at.label("entry_retired_at"))
    .join(_T, _T.c.id == _P.c.target_id).join(_E, _E.c.id == _T.c.entry_id)
    .where(_P.c.ts.in_(bindparam("tss", expanding=True)))
)
_TARGETS = (
    select(_T.c.id, _T.c.entry_id, _T.c.kind, _T.c.position).join(_E, _E.c.id == _T.c.entry_id)
    .where(_T.c.entry_id.in_(bindparam("eids", expanding=True)), _E.c.retired_at.is_(None))
)
_VOTE_ROWS = (
    select(_V.c.workspace, _V.c.user_id, _V.c.target_id, _V.c.ledger, _V.c.vote)
    .where(_V.c.target_id.in_(bindparam("tids", expanding=True)), _V.c.user_id.in_(bindparam("uids", expanding=True)))
    .order_by(_V.c.target_id, _V.c.workspace, _V.c.user_id)
    .with_for_update()
)
_NEW_VOTE = {
    name: build(_V).values(workspace=bindparam("w"), user_id=bindparam("u"), target_id=bindparam("t"),
                           entry_id=bindparam("e"), ledger=bindparam("l"), vote=0, up_at=None, updated_at=0.0)
    .on_conflict_do_nothing(index_elements=["workspace", "user_id", "target_id"])
    for name, build in (("sqlite", sqlite_insert), ("postgresql", pg_insert))
}
_SET_VOTE = (
    update(_V).where(_V.c.workspace == bindparam("w"), _V.c.user_id == bindparam("u"), _V.c.target_id == bindparam("t"))
    .values(ledger=bindparam("l"), vote=bindparam("v"), up_at=bindparam("up"), updated_at=bindparam("at"))
)
_BUMP = update(_T).where(_T.c.id == bindparam("t")).values(up=_T.c.up + bindparam("du"),
                                                            down=_T.c.down + bindparam("dd"))
_TALLIES = select(_T.c.id, _T.c.up, _T.c.down).where(_T.c.id.in_(bindparam("tids", expanding=True)))


async def _bump(conn: AsyncConnection, moved: dict[int, Tally]) -> None:
    """Move each target's counters by the votes that changed (in id order: no deadlock between processes)."""
    await conn.execute(_BUMP, [{"t": t, "du": m.up, "dd": m.down} for t, m in sorted(moved.items())])


def _posted_of(row: Any) -> PostedMessage | None:
    """What a posted message votes on now; None once its entry or workaround was retired."""
    if row.entry_retired_at is not None or (row.kind != DIAGNOSIS and row.position is None):
        return None
    workaround = None if row.kind == DIAGNOSIS else row.position
    return PostedMessage(row.entry_id, workaround, row.locale, row.thread_ts, row.ts)


async def _visibility(conn: AsyncConnection, events: Sequence[VoteEvent]) -> Callable[[VoteEvent], bool]:
    """Whether an event's workspace may vote on the entry and workaround it names: a team entry, and a
    suggested fix, belong to the workspace that wrote them; the KB's entries and fixes to everyone."""
    team_ids = sorted({e.entry_id for e in events if e.entry_id and is_team_id(e.entry_id)})
    entry_owner: dict[str, str] = {}
    if team_ids:
        rows = await conn.execute(select(TeamEntryRow.entry_id, TeamEntryRow.workspace)
                                  .where(TeamEntryRow.entry_id.in_(team_ids)))
        entry_owner = {row.entry_id: row.workspace for row in rows}
    fix_owner = await team_fixes.owners(conn, [e.workaround for e in events if e.workaround is not None])

    def visible(e: VoteEvent) -> bool:
        if entry_owner.get(e.entry_id or "", e.workspace) != e.workspace:
            return False
        return e.workaround is None or not is_suggested(e.workaround) or fix_owner.get(e.workaround) == e.workspace

    return visible


async def apply_batch(conn: AsyncConnection, events: Sequence[VoteEvent]) -> list[VoteOutcome]:
    """Apply vote events in order, in one transaction: vote rows and counters move together.

    A reaction counts on the message it was added to (the target that message shows, if it is
    ours); a button on a workaround message votes for that workaround, any other button (and an
    event without a message) for the ``entry_id``/``workaround`` it names."""
    posted: dict[tuple[str, str, str], tuple[PostedMessage | None, int]] = {}
    tss = sorted({e.ts for e in events if e.ts and e.channel})
    if tss:
        for row in await conn.execute(_POSTED, {"tss": tss}):
            posted[(row.workspace, row.channel, row.ts)] = (_posted_of(row), row.target_id)
    wanted = sorted({e.entry_id for e in events if e.entry_id})
    by_position: dict[tuple[str, int | None], int] = {}
    if wanted:
        for row in await conn.execute(_TARGETS, {"eids": wanted}):
            if row.kind == DIAGNOSIS or row.position is not None:
                by_position[(row.entry_id, None if row.kind == DIAGNOSIS else row.position)] = row.id
    visible = await _visibility(conn, events)
    plans: list[tuple[PostedMessage | None, int | None, str | None, Change | None]] = []
    for e in events:
        message, target = posted.get((e.workspace, e.channel or "", e.ts or ""), (None, None))
        entry_id = message.entry_id if message is not None else None
        if message is not None and (not e.button or message.workaround is not None):
            pass  # a reaction, or a button on a workaround message: the target the message shows
        elif e.button or e.ts is None:  # a button elsewhere, or a vote named by entry: what it names, if the
            # voter's workspace may see it (never another workspace's team entry or suggested fix)
            entry_id, target = e.entry_id, by_position.get((e.entry_id or "", e.workaround)) if visible(e) else None
        else:  # a reaction on a message that is not ours (or no longer votes on anything)
            target = None
        if e.button:
            change: Change | None = _button_change(e.button, e.at)
        elif e.token is not None and token_polarity(e.token) != 0:
            change = _token_change(e.token, e.present, e.at)
        else:
            change = None
        plans.append((message, target, entry_id, change))
    keys = sorted({(e.workspace, e.user, t) for e, (_m, t, _i, c) in zip(events, plans, strict=True)
                   if t is not None and c is not None})
    entry_of = {t: i for _m, t, i, _c in plans if t is not None}
    rows: dict[tuple[str, str, int], tuple[dict[str, Mark], int]] = {}
    if keys:
        await conn.execute(_NEW_VOTE[conn.dialect.name],
                           [{"w": w, "u": u, "t": t, "e": entry_of[t], "l": {}} for w, u, t in keys])
        wanted_keys = set(keys)
        for row in await conn.execute(_VOTE_ROWS, {"tids": sorted({t for _w, _u, t in keys}),
                                                   "uids": sorted({u for _w, u, _t in keys})}):
            key = (row.workspace, row.user_id, row.target_id)
            if key in wanted_keys:
                rows[key] = (load_ledger(row.ledger), row.vote)
    stored = dict(rows)
    steps: list[tuple[bool, int | None]] = []
    for e, (_message, target, _entry, change) in zip(events, plans, strict=True):
        if target is None or change is None:
            steps.append((False, target))
            continue
        key = (e.workspace, e.user, target)
        ledger, vote = rows[key]
        after = change(ledger)
        new_vote = vote_of(after)
        rows[key] = (after, new_vote)
        steps.append((new_vote != vote, target))
    changed_rows = []
    moved: dict[int, Tally] = {}
    for (w, u, t), (ledger, vote) in rows.items():
        before_ledger, before = stored[(w, u, t)]
        if ledger == before_ledger and vote == before:
            continue
        changed_rows.append({"w": w, "u": u, "t": t, "l": dump_ledger(ledger), "v": vote, "up": confirmed_at(ledger),
                             "at": max((m.at for m in ledger.values()), default=0.0)})
        if vote != before:
            moved[t] = moved.get(t, Tally()).moved(before, vote)
    if changed_rows:
        await conn.execute(_SET_VOTE, changed_rows)
    if moved:
        await _bump(conn, moved)
    touched = sorted({t for _c, t in steps if t is not None})
    tallies = {}
    if touched:
        tallies = {row.id: Tally(row.up, row.down) for row in await conn.execute(_TALLIES, {"tids": touched})}
    return [VoteOutcome(message, changed, tallies.get(target) if target is not None else None)
            for (message, _t, _i, _c), (changed, target) in zip(plans, steps, strict=True)]


async def feedback(conn: AsyncConnection, entry_ids: Sequence[str]) -> dict[str, EntryFeedback]:
    """Votes per entry: tallies by current workaround index, the diagnosis tally, voters, last 👍."""
    parts: dict[str, dict[str, Any]] = {
        i: {"workarounds": {}, "diagnosis": Tally(), "distinct_voters": 0, "last_confirmed": None}
        for i in entry_ids
    }
    ids = list(parts)
    for start in range(0, len(ids), CHUNK):
        await _feedback_chunk(conn, ids[start:start + CHUNK], parts)
    return {entry_id: EntryFeedback(**values) for entry_id, values in parts.items()}


# Built once: a statement built per call costs more Python than the query itself (an answer reads one).
_IDS: BindParameter[list[str]] = bindparam("ids", expanding=True)  # entry ids
_ENTRY_TALLIES = (select(Target.entry_id, Target.kind, Target.position, Target.up, Target.down)
            .where(Target.entry_id.in_(_IDS), or_(Target.kind == DIAGNOSIS, Target.position.is_not(None))))
# A voter is evidence for an entry when they vote on one of its workarounds either way, or
# confirm its diagnosis; saying "wrong entry" is not evidence for it.
_VOTERS = (select(Vote.entry_id, Vote.workspace, Vote.user_id)
           .join(Target, Target.id == Vote.target_id)
           .where(Vote.entry_id.in_(_IDS), or_(Vote.vote == 1, and_(Vote.vote == -1, Target.kind == WORKAROUND)))
           .distinct()
           .subquery())
_VOTER_COUNTS = select(_VOTERS.c.entry_id, func.count()).group_by(_VOTERS.c.entry_id)
_LATEST_UP = (select(Vote.entry_id, func.max(Vote.up_at)).where(Vote.entry_id.in_(_IDS), Vote.vote == 1)
              .group_by(Vote.entry_id))


async def _feedback_chunk(conn: AsyncConnection, ids: list[str], parts: dict[str, dict[str, Any]]) -> None:
    for row in await conn.execute(_ENTRY_TALLIES, {"ids": ids}):
        if row.kind == DIAGNOSIS:
            parts[row.entry_id]["diagnosis"] = Tally(row.up, row.down)
        else:
            parts[row.entry_id]["workarounds"][row.position] = Tally(row.up, row.down)
    for entry_id, count in await conn.execute(_VOTER_COUNTS, {"ids": ids}):
        parts[entry_id]["distinct_voters"] = count
    for entry_id, at in await conn.execute(_LATEST_UP, {"ids": ids}):
        if at is not None:
            parts[entry_id]["last_confirmed"] = dt.datetime.fromtimestamp(at, dt.UTC).date()
