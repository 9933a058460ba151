"""Fixes teammates suggested from Slack: rows of one workspace, each voted on through its own target.

A suggestion is a ``team_fixes`` row (the author's text, in their language) and a workaround target on
its entry (KB or team-written) keyed ``team-fix-<id>`` at index ``SUGGESTED_BASE + id``
(``bot.kb.feedback``), so reactions, buttons and *Other fixes* treat it like any workaround and
``errkb db check`` counts it like any other. ``errkb seed`` leaves these targets alone unless a seed
workaround claims one by that key (an exported suggestion sent upstream): it then becomes that
KB workaround, votes and all, and stops being listed as a suggestion.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import and_, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.kb.feedback import (
    SUGGESTED_BASE,
    SUGGESTED_KEY_PREFIX,
    WEAK_PRIOR,
    Suggested,
    suggested_index,
    suggested_key,
)
from bot.store import identity
from bot.store.models import WORKAROUND, EntryRow, Target, TeamEntryRow, TeamFixRow

KEY_PREFIX = SUGGESTED_KEY_PREFIX
LIVE, VERIFIED, RETIRED = "live", "verified", "retired"
SHOWN = (LIVE, VERIFIED)  # a retired suggestion stops showing and ranking; its votes stay as counts
_F = TeamFixRow.__table__
_LISTED = (
    select(_F.c.id, _F.c.entry_id, _F.c.author, _F.c.locale, _F.c.text, _F.c.text_other, _F.c.status)
    .join(Target, and_(Target.entry_id == _F.c.entry_id, Target.kind == WORKAROUND,
                       Target.position == _F.c.id + SUGGESTED_BASE))
    .where(_F.c.status.in_(SHOWN))
    .order_by(_F.c.id)
)
_MINE = _LISTED.where(_F.c.workspace == bindparam("workspace"))
_MINE_FOR = _MINE.where(_F.c.entry_id.in_(bindparam("ids", expanding=True)))  # built once: an answer reads it


def key_of(fix_id: int) -> str:
    """The vote target's key (also the ``key`` an exported seed workaround carries)."""
    return suggested_key(suggested_index(fix_id))


async def add(conn: AsyncConnection, workspace: str, entry_id: str, author: str, locale: str, text: str,
              text_other: str | None, now: float) -> Suggested | None:
    """Store a fix for ``entry_id`` in ``workspace``; None when that entry is not (or no longer) live, or is
    another workspace's team entry."""
    live = (await conn.execute(select(EntryRow.id).where(EntryRow.id == entry_id,
                                                         EntryRow.retired_at.is_(None)))).first()
    if live is None:
        return None
    theirs = (await conn.execute(select(TeamEntryRow.id).where(TeamEntryRow.entry_id == entry_id,
                                                               TeamEntryRow.workspace != workspace))).first()
    if theirs is not None:
        return None
    fix_id = (await conn.execute(_F.insert().values(
        workspace=workspace, entry_id=entry_id, author=author, locale=locale, text=text, text_other=text_other,
        status=LIVE, created_at=now).returning(_F.c.id))).scalar_one()
    identity_text = identity.identity_text({"action": text})
    await conn.execute(Target.__table__.insert().values(
        entry_id=entry_id, kind=WORKAROUND, key=key_of(fix_id), position=suggested_index(fix_id),
        text=identity_text, text_hash=identity.text_hash(identity_text), prior=WEAK_PRIOR, up=0, down=0))
    return Suggested(suggested_index(fix_id), author, locale, text, text_other)


async def owners(conn: AsyncConnection, indexes: Sequence[int]) -> dict[int, str]:
    """The workspace of each suggestion among ``indexes`` (vote indexes) that exists."""
    ids = sorted({i - SUGGESTED_BASE for i in indexes if i >= SUGGESTED_BASE})
    if not ids:
        return {}
    rows = await conn.execute(select(_F.c.id, _F.c.workspace).where(_F.c.id.in_(ids)))
    return {suggested_index(row.id): row.workspace for row in rows}


async def suggested(conn: AsyncConnection, workspace: str,
                    entry_ids: Sequence[str] | None = None) -> dict[str, tuple[Suggested, ...]]:
    """The live suggestions of ``workspace`` by entry (of ``entry_ids``, or all), oldest first."""
    query, params = (_MINE, {"workspace": workspace}) if entry_ids is None else \
        (_MINE_FOR, {"workspace": workspace, "ids": list(entry_ids)})
    found: dict[str, list[Suggested]] = {}
    for row in await conn.execute(query, params):
        found.setdefault(row.entry_id, []).append(
            Suggested(suggested_index(row.id), row.author, row.locale, row.text, row.text_other,
                      row.status == VERIFIED))
    return {entry_id: tuple(fixes) for entry_id, fixes in found.items()}


async def retire_workspace(conn: AsyncConnection, workspace: str, now: float) -> None:
    """Retire the vote targets of ``workspace``'s suggestions (before its rows are deleted)."""
    ids = list((await conn.execute(select(_F.c.id).where(_F.c.workspace == workspace))).scalars())
    if ids:
        await conn.execute(update(Target).where(Target.key.in_([key_of(i) for i in ids]))
                           .values(position=None, retired_at=now))


async def translate(conn: AsyncConnection, workspace: str, index: int, text: str) -> bool:
    """Give ``workspace``'s suggestion at ``index`` its text in the other language, once; False when it has one
    already (or there is no such suggestion)."""
    done = await conn.execute(update(TeamFixRow).where(
        TeamFixRow.id == index - SUGGESTED_BASE, TeamFixRow.workspace == workspace, TeamFixRow.status.in_(SHOWN),
        TeamFixRow.text_other.is_(None)).values(text_other=text))
    return bool(done.rowcount)


async def review(conn: AsyncConnection, workspace: str, index: int, status: str, now: float) -> bool:
    """Mark ``workspace``'s suggestion at ``index`` verified, or retire it (its target leaves the ranking, its
    votes stay as counts); False when there is no such suggestion showing."""
    fix_id = index - SUGGESTED_BASE
    done = await conn.execute(update(TeamFixRow).where(
        TeamFixRow.id == fix_id, TeamFixRow.workspace == workspace, TeamFixRow.status.in_(SHOWN)).values(status=status))
    if done.rowcount and status == RETIRED:
        await conn.execute(update(Target).where(Target.key == key_of(fix_id), Target.kind == WORKAROUND)
                           .values(position=None, retired_at=now))
    return bool(done.rowcount)
