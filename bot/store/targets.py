"""Finding the vote target (an entry's diagnosis, or its workaround at an index) a call is about."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.errors import ErrkbError
from bot.kb.feedback import Tally
from bot.store.models import DIAGNOSIS, WORKAROUND, EntryRow, Target


class UnknownTarget(ErrkbError, LookupError):
    """The entry is not in the store (or retired), or has no workaround at that index."""

    def __init__(self, entry_id: str, workaround: int | None) -> None:
        self.entry_id = entry_id
        self.workaround = workaround
        where = "its diagnosis" if workaround is None else f"workarounds[{workaround}]"
        super().__init__(f"{entry_id} {where} is not in the store; has `errkb seed` run?")


async def resolve(conn: AsyncConnection, entry_id: str, workaround: int | None) -> int:
    """The id of the live target for ``(entry_id, workaround)``; raises :class:`UnknownTarget`."""
    stmt = (
        select(Target.id)
        .join(EntryRow, EntryRow.id == Target.entry_id)
        .where(Target.entry_id == entry_id, EntryRow.retired_at.is_(None))
    )
    if workaround is None:
        stmt = stmt.where(Target.kind == DIAGNOSIS)
    else:
        stmt = stmt.where(Target.kind == WORKAROUND, Target.position == workaround)
    target_id = (await conn.execute(stmt)).scalar_one_or_none()
    if target_id is None:
        raise UnknownTarget(entry_id, workaround)
    return target_id


async def tally(conn: AsyncConnection, target_id: int) -> Tally:
    row = (await conn.execute(select(Target.up, Target.down).where(Target.id == target_id))).one()
    return Tally(row.up, row.down)


def label(entry_id: str, kind: str, position: int | None, key: str) -> str:
    """How a target is named in messages: ``id diagnosis``, ``id workarounds[2]``, or a retired key."""
    if kind == DIAGNOSIS:
        return f"{entry_id} diagnosis"
    if position is None:
        return f"{entry_id} retired workaround {key}"
    return f"{entry_id} workarounds[{position}]"
