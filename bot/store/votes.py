"""Recording reactions and button clicks, and reading the crowd's feedback on entries.

A vote row and its target's counter change in one transaction, so they can only move together.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.kb.feedback import EntryFeedback, Ledger, Mark, Tally, confirmed_at, vote_of
from bot.store import targets
from bot.store.engine import insert
from bot.store.models import DIAGNOSIS, WORKAROUND, Target, Vote
from bot.store.views import VoteResult

Change = Callable[[Ledger], dict[str, Mark]]
CHUNK = 500


def load_ledger(data: dict[str, Any] | None) -> dict[str, Mark]:
    return {token: Mark(bool(value[0]), float(value[1])) for token, value in (data or {}).items()}


def dump_ledger(ledger: Ledger) -> dict[str, list[Any]]:
    return {token: [mark.present, mark.at] for token, mark in sorted(ledger.items())}


async def apply(
    conn: AsyncConnection, workspace: str, user: str, entry_id: str, workaround: int | None, change: Change
) -> VoteResult:
    """Apply one reaction/button event to a user's vote on a target, and its counter."""
    target_id = await targets.resolve(conn, entry_id, workaround)
    key = and_(Vote.workspace == workspace, Vote.user_id == user, Vote.target_id == target_id)
    await conn.execute(
        insert(conn, Vote)
        .values(workspace=workspace, user_id=user, target_id=target_id, entry_id=entry_id,
                ledger={}, vote=0, up_at=None, updated_at=0.0)
        .on_conflict_do_nothing(index_elements=["workspace", "user_id", "target_id"])
    )
    # The row lock (PostgreSQL; SQLite's write lock is already held) makes this user's events
    # on this target take turns.
    row = (await conn.execute(select(Vote.ledger, Vote.vote).where(key).with_for_update())).one()
    before = load_ledger(row.ledger)
    after = change(before)
    vote = vote_of(after)
    if after != before or vote != row.vote:
        await conn.execute(update(Vote).where(key).values(
            ledger=dump_ledger(after), vote=vote, up_at=confirmed_at(after),
            updated_at=max((m.at for m in after.values()), default=0.0)))
    if vote == row.vote:
        return VoteResult(False, await targets.tally(conn, target_id))
    return VoteResult(True, await _bump(conn, target_id, row.vote, vote))


async def _bump(conn: AsyncConnection, target_id: int, before: int, after: int) -> Tally:
    """Move a target's counters from one user's old vote to their new one."""
    moved = Tally().moved(before, after)
    row = (await conn.execute(
        update(Target).where(Target.id == target_id)
        .values(up=Target.up + moved.up, down=Target.down + moved.down)
        .returning(Target.up, Target.down)
    )).one()
    return Tally(row.up, row.down)


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


async def _feedback_chunk(conn: AsyncConnection, ids: list[str], parts: dict[str, dict[str, Any]]) -> None:
    rows = await conn.execute(
        select(Target.entry_id, Target.kind, Target.position, Target.up, Target.down)
        .where(Target.entry_id.in_(ids), or_(Target.kind == DIAGNOSIS, Target.position.is_not(None)))
    )
    for row in rows:
        if row.kind == DIAGNOSIS:
            parts[row.entry_id]["diagnosis"] = Tally(row.up, row.down)
        else:
            parts[row.entry_id]["workarounds"][row.position] = Tally(row.up, row.down)
    # A voter is evidence for an entry when they vote on one of its workarounds either way, or
    # confirm its diagnosis; saying "wrong entry" is not evidence for it.
    voters = (
        select(Vote.entry_id, Vote.workspace, Vote.user_id)
        .join(Target, Target.id == Vote.target_id)
        .where(Vote.entry_id.in_(ids), or_(Vote.vote == 1, and_(Vote.vote == -1, Target.kind == WORKAROUND)))
        .distinct()
        .subquery()
    )
    for entry_id, count in await conn.execute(select(voters.c.entry_id, func.count()).group_by(voters.c.entry_id)):
        parts[entry_id]["distinct_voters"] = count
    latest = select(Vote.entry_id, func.max(Vote.up_at)).where(Vote.entry_id.in_(ids), Vote.vote == 1)
    for entry_id, at in await conn.execute(latest.group_by(Vote.entry_id)):
        if at is not None:
            parts[entry_id]["last_confirmed"] = dt.datetime.fromtimestamp(at, dt.UTC).date()
