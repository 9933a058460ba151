"""What the Slack adapter remembers: its own messages, user locale preferences, channel modes,
and the event ids it has handled (so Slack's retries never produce a second reply)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.kb.feedback import Tally
from bot.kb.team_entry import is_team_id, team_domain
from bot.store.engine import insert
from bot.store.models import (
    CHANNEL_MODES,
    DIAGNOSIS,
    ChannelRow,
    EntryRow,
    PostedMessageRow,
    SlackEvent,
    Target,
    UserPrefsRow,
)
from bot.store.records import PostedMessage, PostedRow, UserPrefs

_P = PostedMessageRow.__table__
_T = Target.__table__
_E = EntryRow.__table__
_LIVE_TARGETS = (
    select(_T.c.id, _T.c.entry_id, _T.c.kind, _T.c.position).join(_E, _E.c.id == _T.c.entry_id)
    .where(_T.c.entry_id.in_(bindparam("eids", expanding=True)), _E.c.retired_at.is_(None))
)
REMEMBER = {
    name: build(_P).values(workspace=bindparam("w"), channel=bindparam("c"), ts=bindparam("ts"),
                           target_id=bindparam("t"), locale=bindparam("l"), thread_ts=bindparam("th"),
                           posted_at=bindparam("at"))
    for name, build in (("sqlite", sqlite_insert), ("postgresql", pg_insert))
}
REMEMBER = {name: stmt.on_conflict_do_update(
    index_elements=["workspace", "channel", "ts"],
    set_={"target_id": stmt.excluded.target_id, "locale": stmt.excluded.locale, "thread_ts": stmt.excluded.thread_ts,
          "posted_at": stmt.excluded.posted_at}) for name, stmt in REMEMBER.items()}


async def remember_messages(conn: AsyncConnection, rows: Sequence[PostedRow], now: float) -> list[PostedRow]:
    """Remember many posted messages at once; returns those whose entry or workaround is unknown (skipped)."""
    found = await conn.execute(_LIVE_TARGETS, {"eids": sorted({r.entry_id for r in rows})})
    values, unknown = remembered(rows, [(t.id, t.entry_id, t.kind, t.position) for t in found], now)
    if values:
        await conn.execute(REMEMBER[conn.dialect.name], values)
    return unknown


def remembered(rows: Sequence[PostedRow], targets: Iterable[Sequence[Any]], now: float
               ) -> tuple[list[dict[str, Any]], list[PostedRow]]:
    """The ``REMEMBER`` values of the posted messages whose target is live among ``targets`` ((id, entry id,
    kind, position) rows), and the messages whose entry or workaround is unknown (or another workspace's)."""
    live = {(entry_id, None if kind == DIAGNOSIS else position): target
            for target, entry_id, kind, position in targets if kind == DIAGNOSIS or position is not None}
    values, unknown = [], []
    for r in rows:
        target = live.get((r.entry_id, r.workaround))
        if is_team_id(r.entry_id) and r.entry_id.split("/", 1)[0] != team_domain(r.workspace):
            target = None  # another workspace's team entry: never one of this workspace's messages' targets
        if target is None:
            unknown.append(r)
        else:
            values.append({"w": r.workspace, "c": r.channel, "ts": r.ts, "t": target, "l": r.locale,
                           "th": r.thread_ts, "at": now})
    return values, unknown


async def message_target(conn: AsyncConnection, workspace: str, channel: str, ts: str) -> PostedMessage | None:
    """What a message is about now; None if it is not ours, or its workaround/entry was retired."""
    row = (await conn.execute(
        select(Target.entry_id, Target.kind, Target.position, Target.retired_at,
               EntryRow.retired_at.label("entry_retired_at"), PostedMessageRow.locale, PostedMessageRow.thread_ts)
        .join(Target, Target.id == PostedMessageRow.target_id)
        .join(EntryRow, EntryRow.id == Target.entry_id)
        .where(PostedMessageRow.workspace == workspace, PostedMessageRow.channel == channel,
               PostedMessageRow.ts == ts)
    )).one_or_none()
    if row is None or row.entry_retired_at is not None:
        return None
    if row.kind == DIAGNOSIS:
        return PostedMessage(row.entry_id, None, row.locale, row.thread_ts, ts)
    if row.position is None:
        return None
    return PostedMessage(row.entry_id, row.position, row.locale, row.thread_ts, ts)


async def thread_messages(conn: AsyncConnection, workspace: str, channel: str, thread_ts: str) -> list[PostedMessage]:
    """The bot's messages in one thread that still vote on something, oldest first."""
    rows = (await conn.execute(
        select(PostedMessageRow.ts, Target.entry_id, Target.kind, Target.position, PostedMessageRow.locale)
        .join(Target, Target.id == PostedMessageRow.target_id)
        .join(EntryRow, EntryRow.id == Target.entry_id)
        .where(PostedMessageRow.workspace == workspace, PostedMessageRow.channel == channel,
               PostedMessageRow.thread_ts == thread_ts, EntryRow.retired_at.is_(None))
    )).all()
    messages = [
        PostedMessage(row.entry_id, None if row.kind == DIAGNOSIS else row.position, row.locale, thread_ts, row.ts)
        for row in rows
        if row.kind == DIAGNOSIS or row.position is not None
    ]
    return sorted(messages, key=lambda m: _ts_key(m.ts or ""))


def _ts_key(ts: str) -> tuple[int, str]:
    seconds, _dot, fraction = ts.partition(".")
    return (int(seconds) if seconds.isdigit() else 0, fraction.ljust(6, "0"))


async def user_prefs(conn: AsyncConnection, workspace: str, user: str) -> UserPrefs:
    row = (await conn.execute(
        select(UserPrefsRow.locale_override, UserPrefsRow.slack_locale, UserPrefsRow.slack_locale_fetched_at)
        .where(UserPrefsRow.workspace == workspace, UserPrefsRow.user_id == user)
    )).one_or_none()
    if row is None:
        return UserPrefs()
    fetched = row.slack_locale_fetched_at
    return UserPrefs(row.locale_override, row.slack_locale,
                     dt.datetime.fromtimestamp(fetched, dt.UTC) if fetched is not None else None)


async def set_prefs(conn: AsyncConnection, workspace: str, user: str, **values: object) -> None:
    stmt = insert(conn, UserPrefsRow).values(workspace=workspace, user_id=user, **values)
    await conn.execute(stmt.on_conflict_do_update(index_elements=["workspace", "user_id"], set_=values))


async def claim_event(conn: AsyncConnection, event_id: str, ttl_seconds: int, now: float) -> bool:
    """True when ``event_id`` is new, or its earlier claim has lapsed (then it is taken over). Lapsed
    rows are deleted by the background prune (``retention.prune``), not on every claim."""
    stmt = insert(conn, SlackEvent).values(event_id=event_id, expires_at=now + ttl_seconds)
    stmt = stmt.on_conflict_do_update(index_elements=["event_id"], set_={"expires_at": stmt.excluded.expires_at},
                                      where=SlackEvent.expires_at <= now).returning(SlackEvent.event_id)
    return (await conn.execute(stmt)).first() is not None


async def channel_mode(conn: AsyncConnection, workspace: str, channel: str) -> str:
    mode = (await conn.execute(
        select(ChannelRow.mode).where(ChannelRow.workspace == workspace, ChannelRow.channel == channel)
    )).scalar_one_or_none()
    return mode or "auto"


async def set_channel_mode(conn: AsyncConnection, workspace: str, channel: str, mode: str) -> None:
    if mode not in CHANNEL_MODES:
        raise ValueError(f"channel mode must be one of {', '.join(CHANNEL_MODES)}, got {mode!r}")
    stmt = insert(conn, ChannelRow).values(workspace=workspace, channel=channel, mode=mode)
    await conn.execute(stmt.on_conflict_do_update(index_elements=["workspace", "channel"], set_={"mode": mode}))


async def channel_bots(conn: AsyncConnection, workspace: str, channel: str) -> bool:
    bots = (await conn.execute(
        select(ChannelRow.bots).where(ChannelRow.workspace == workspace, ChannelRow.channel == channel)
    )).scalar_one_or_none()
    return bool(bots)


async def set_channel_bots(conn: AsyncConnection, workspace: str, channel: str, bots: bool) -> None:
    stmt = insert(conn, ChannelRow).values(workspace=workspace, channel=channel, mode="auto", bots=bots)
    await conn.execute(stmt.on_conflict_do_update(index_elements=["workspace", "channel"], set_={"bots": bots}))


async def all_channel_settings(conn: AsyncConnection) -> dict[tuple[str, str], tuple[str, bool]]:
    """(workspace, channel) → (mode, bots) of every configured channel."""
    rows = await conn.execute(select(ChannelRow.workspace, ChannelRow.channel, ChannelRow.mode, ChannelRow.bots))
    return {(row.workspace, row.channel): (row.mode, bool(row.bots)) for row in rows}


_TALLY = (
    select(_T.c.up, _T.c.down).join(_P, _P.c.target_id == _T.c.id)
    .where(_P.c.workspace == bindparam("w"), _P.c.channel == bindparam("c"), _P.c.ts == bindparam("ts"))
)


async def message_tally(conn: AsyncConnection, workspace: str, channel: str, ts: str) -> Tally | None:
    row = (await conn.execute(_TALLY, {"w": workspace, "c": channel, "ts": ts})).one_or_none()
    return None if row is None else Tally(row.up, row.down)
