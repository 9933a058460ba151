"""Team-written entries in the store: per workspace, each also kept as an ordinary entry with vote targets.

Adding or editing a team entry writes its seed form (``bot.kb.team_entry.team_raw``) to ``entries`` in
the same transaction (``bot.store.sync.put_entry``), so votes on its workarounds work as on any KB
entry; retiring it retires that entry too. ``errkb seed`` leaves team entries alone.

Every read and write of one entry names the workspace asking: another workspace's entry is simply not
found (its id says whose it is, but ids are sequential, so an id alone is never trusted).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import bindparam, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.kb.team_entry import clean_body, team_entry, team_entry_id
from bot.store.models import EntryRow, Target, TeamEntryRow, TeamFixRow, UnknownErrorRow
from bot.store.records import TeamEntry, TeamVersion
from bot.store.sync import put_entry

STATUSES = ("live", "verified", "retired")
ANSWERING = ("live", "verified")
_T = TeamEntryRow.__table__
_COLUMNS = (_T.c.entry_id, _T.c.workspace, _T.c.author, _T.c.locale, _T.c.body, _T.c.regex, _T.c.example,
            _T.c.status, _T.c.reviewer, _T.c.created_at, _T.c.updated_at)


def _view(row: Any) -> TeamEntry:
    return TeamEntry(row.entry_id, row.workspace, row.author, row.locale, json.loads(row.body), row.regex,
                     row.example, row.status, row.reviewer, row.created_at, row.updated_at)


def _dump(body: dict[str, Any]) -> str:
    return json.dumps(clean_body(body), ensure_ascii=False, sort_keys=True)


async def get(conn: AsyncConnection, workspace: str, entry_id: str) -> TeamEntry | None:
    """``workspace``'s team entry ``entry_id``; None when there is none, or it is another workspace's."""
    row = (await conn.execute(select(*_COLUMNS).where(_T.c.entry_id == entry_id, _T.c.workspace == workspace))).first()
    return None if row is None else _view(row)


_FOREIGN = select(_T.c.entry_id).where(_T.c.entry_id.in_(bindparam("ids", expanding=True)),
                                       _T.c.workspace != bindparam("w"))


async def foreign(conn: AsyncConnection, workspace: str, entry_ids: Sequence[str]) -> set[str]:
    """Which of ``entry_ids`` are other workspaces' team entries (``workspace`` cannot see, vote on or add to them)."""
    if not entry_ids:
        return set()
    return set((await conn.execute(_FOREIGN, {"ids": sorted(set(entry_ids)), "w": workspace})).scalars())


async def add(conn: AsyncConnection, workspace: str, author: str, locale: str, body: dict[str, Any], regex: str,
              example: str, now: float) -> TeamEntry:
    """Store a new team entry (live); its id is ``team-<workspace>/<row id>``. The unknown error it was written
    for is known now: its shape leaves the workspace's list."""
    placeholder = f"pending/{uuid.uuid4().hex}"
    row_id = (await conn.execute(_T.insert().values(
        workspace=workspace, entry_id=placeholder, author=author, locale=locale, body=_dump(body), regex=regex,
        example=example[:300], status="live", created_at=now, updated_at=now).returning(_T.c.id))).scalar_one()
    entry_id = team_entry_id(workspace, row_id)
    await conn.execute(update(TeamEntryRow).where(TeamEntryRow.id == row_id).values(entry_id=entry_id))
    await put_entry(conn, team_entry(entry_id, locale, body, regex, author=author), now)
    await conn.execute(delete(UnknownErrorRow).where(UnknownErrorRow.workspace == workspace,
                                                     UnknownErrorRow.shape == example[:300]))
    found = await get(conn, workspace, entry_id)
    assert found is not None
    return found


async def edit(conn: AsyncConnection, workspace: str, entry_id: str, body: dict[str, Any], regex: str,
               example: str | None, now: float, editor: str | None = None) -> TeamEntry | None:
    """New texts and regex for ``workspace``'s team entry (``editor``: the reviewer who edited it); None if it
    has none by that id."""
    found = await get(conn, workspace, entry_id)
    if found is None:
        return None
    values: dict[str, Any] = {"body": _dump(body), "regex": regex, "updated_at": max(now, found.updated_at + 1e-6)}
    if example is not None:
        values["example"] = example[:300]
    if editor is not None:
        values["reviewer"] = editor
    await conn.execute(update(TeamEntryRow).where(TeamEntryRow.entry_id == entry_id,
                                                  TeamEntryRow.workspace == workspace).values(**values))
    await put_entry(conn, team_entry(entry_id, found.locale, body, regex, found.status, found.author), now,
                    retired=found.status == "retired")
    return await get(conn, workspace, entry_id)


async def set_status(conn: AsyncConnection, workspace: str, entry_id: str, status: str, reviewer: str | None,
                     now: float) -> TeamEntry | None:
    """Mark ``workspace``'s team entry live, verified or retired (a retired one stops answering and taking votes);
    None if it has none by that id."""
    if status not in STATUSES:
        raise ValueError(f"a team entry's status is one of {', '.join(STATUSES)}, got {status!r}")
    found = await get(conn, workspace, entry_id)
    if found is None:
        return None
    await conn.execute(update(TeamEntryRow).where(TeamEntryRow.entry_id == entry_id,
                                                  TeamEntryRow.workspace == workspace).values(
        status=status, reviewer=reviewer, updated_at=max(now, found.updated_at + 1e-6)))
    await put_entry(conn, team_entry(entry_id, found.locale, found.body, found.regex, status, found.author), now,
                    retired=status == "retired")
    return await get(conn, workspace, entry_id)


async def listed(conn: AsyncConnection, workspace: str | None, statuses: tuple[str, ...]) -> list[TeamEntry]:
    """Team entries with one of ``statuses``: of ``workspace``, or of all (None); oldest first."""
    query = select(*_COLUMNS).where(_T.c.status.in_(statuses)).order_by(_T.c.id)
    if workspace is not None:
        query = query.where(_T.c.workspace == workspace)
    return [_view(row) for row in (await conn.execute(query)).all()]


async def version(conn: AsyncConnection, workspace: str) -> TeamVersion:
    """The newest change and the row count of ``workspace``'s team entries (one indexed read)."""
    row = (await conn.execute(select(func.max(_T.c.updated_at), func.count())
                              .where(_T.c.workspace == workspace))).one()
    return TeamVersion(float(row[0] or 0.0), int(row[1]))


async def delete_workspace(conn: AsyncConnection, workspace: str) -> dict[str, int]:
    """Remove ``workspace``'s team entries with their seed forms and targets, and its suggested fixes.

    Run after the workspace's votes and posted messages are gone (nothing else refers to those targets)."""
    ids = list((await conn.execute(select(_T.c.entry_id).where(_T.c.workspace == workspace))).scalars())
    removed = {"team_fixes": (await conn.execute(delete(TeamFixRow).where(TeamFixRow.workspace == workspace))).rowcount}
    if ids:
        await conn.execute(delete(Target).where(Target.entry_id.in_(ids)))
        await conn.execute(delete(EntryRow).where(EntryRow.id.in_(ids)))
    removed["team_entries"] = (await conn.execute(_T.delete().where(_T.c.workspace == workspace))).rowcount
    return removed
