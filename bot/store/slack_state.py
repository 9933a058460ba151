"""What the Slack adapter remembers: its own messages, user locale preferences, channel modes,
and the event ids it has handled (so Slack's retries never produce a second reply)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store import targets
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
from bot.store.views import PostedMessage, UserPrefs


async def remember_message(
    conn: AsyncConnection, workspace: str, channel: str, ts: str, entry_id: str,
    workaround: int | None, locale: str, thread_ts: str | None, now: float,
) -> None:
    # The message is tied to the target's identity, not its index: after a re-seed reorders the
    # workarounds, a reaction on an old reply still votes for the workaround that reply showed.
    target_id = await targets.resolve(conn, entry_id, workaround)
    values = {"target_id": target_id, "locale": locale, "thread_ts": thread_ts, "posted_at": now}
    stmt = insert(conn, PostedMessageRow).values(workspace=workspace, channel=channel, ts=ts, **values)
    await conn.execute(stmt.on_conflict_do_update(index_elements=["workspace", "channel", "ts"], set_=values))


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
    await conn.execute(delete(SlackEvent).where(SlackEvent.expires_at <= now))
    stmt = (
        insert(conn, SlackEvent).values(event_id=event_id, expires_at=now + ttl_seconds)
        .on_conflict_do_nothing(index_elements=["event_id"])
        .returning(SlackEvent.event_id)
    )
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
