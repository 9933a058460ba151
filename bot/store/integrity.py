"""``errkb db check`` / ``db repair``: recompute every counter from the vote rows.

The vote rows are the truth: each row's ``vote`` (and ``up_at``) must be what its reaction
ledger adds up to, and each target's ``up``/``down`` must count the rows voting that way, plus the anonymous votes kept
from deleted workspaces (``kept_up``/``kept_down``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.kb.feedback import confirmed_at, vote_of
from bot.store import targets
from bot.store.models import Target, Vote
from bot.store.votes import load_ledger


@dataclass(frozen=True)
class Fix:
    """One difference, in words, and the row values that mend it."""

    message: str
    table: Any
    where: tuple[Any, ...]
    values: dict[str, Any]


async def audit(conn: AsyncConnection) -> list[Fix]:
    """Every difference between the stored counters/votes and what the vote rows say."""
    names = {
        row.id: targets.label(row.entry_id, row.kind, row.position, row.key)
        for row in await conn.execute(select(Target.id, Target.entry_id, Target.kind, Target.position, Target.key))
    }
    fixes: list[Fix] = []
    ups: Counter[int] = Counter()
    downs: Counter[int] = Counter()
    votes = await conn.execute(
        select(Vote.workspace, Vote.user_id, Vote.target_id, Vote.ledger, Vote.vote, Vote.up_at)
        .order_by(Vote.target_id, Vote.workspace, Vote.user_id)
    )
    for row in votes:
        ledger = load_ledger(row.ledger)
        vote, up_at = vote_of(ledger), confirmed_at(ledger)
        ups[row.target_id] += vote > 0
        downs[row.target_id] += vote < 0
        if (row.vote, row.up_at) != (vote, up_at):
            fixes.append(Fix(
                f"{names[row.target_id]}: the vote of {row.workspace}/{row.user_id} is stored as {row.vote:+d} "
                f"but their reactions say {vote:+d}" if row.vote != vote else
                f"{names[row.target_id]}: the 👍 time of {row.workspace}/{row.user_id} is stored as {row.up_at} "
                f"but their reactions say {up_at}",
                Vote,
                (Vote.workspace == row.workspace, Vote.user_id == row.user_id, Vote.target_id == row.target_id),
                {"vote": vote, "up_at": up_at},
            ))
    for row in await conn.execute(select(Target.id, Target.up, Target.down, Target.kept_up, Target.kept_down)
                                  .order_by(Target.id)):
        up, down = ups[row.id] + row.kept_up, downs[row.id] + row.kept_down
        if (row.up, row.down) != (up, down):
            fixes.append(Fix(
                f"{names[row.id]}: counters say {row.up} up / {row.down} down, "
                f"the vote rows say {up} up / {down} down",
                Target, (Target.id == row.id,), {"up": up, "down": down},
            ))
    return fixes


async def check(conn: AsyncConnection) -> list[str]:
    return [fix.message for fix in await audit(conn)]


async def repair(conn: AsyncConnection) -> int:
    """Apply every fix; returns how many rows changed."""
    if conn.dialect.name == "postgresql":
        # Keep voters out while counting (votes before targets: the order a vote takes them in).
        await conn.execute(text("LOCK TABLE votes, targets IN EXCLUSIVE MODE"))
    fixes = await audit(conn)
    for fix in fixes:
        await conn.execute(update(fix.table).where(*fix.where).values(**fix.values))
    return len(fixes)
