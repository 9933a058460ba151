"""Keeping data bounded and owned: expiring old rows, and removing one workspace's data.

What errkb stores about a workspace is ids, hashes and counts (never message text), plus the entries
and fixes its members wrote. Posted-message rows (which of our messages a reaction votes on) and
finished answers (which threads were answered) expire after ``posted_days``, finished notes after an
hour (``bot.store.decisions.NOTE_KEEP``); hit counts, unknown errors' masked shapes and the counts of other
bots' alerts after ``hits_days``; Slack event ids and OAuth states when they lapse. Deleting a workspace
removes every row keyed by it (its team-written entries and suggested fixes too) and its installation; its votes on KB
entries are folded into the targets' anonymous counters (``kept_up``/``kept_down``), so the KB's rates
stay.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field

from sqlalchemy import Integer, case, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.config import Retention
from bot.store import decisions, team_entries, team_fixes
from bot.store.models import (
    SLACK_BOTS,
    SLACK_INSTALLATIONS,
    SLACK_OAUTH_STATES,
    AlertRow,
    ChannelRow,
    DecisionRow,
    Hit,
    PostedMessageRow,
    SlackEvent,
    Target,
    UnknownErrorRow,
    UserPrefsRow,
    Vote,
    WorkspaceSettingsRow,
)


@dataclass
class Removed:
    """Rows removed, by table."""

    rows: dict[str, int] = field(default_factory=dict)

    def add(self, table: str, count: int) -> None:
        if count:
            self.rows[table] = self.rows.get(table, 0) + count

    @property
    def total(self) -> int:
        return sum(self.rows.values())


async def prune(conn: AsyncConnection, retention: Retention, now: float) -> Removed:
    """Delete rows older than ``retention`` allows (at Unix time ``now``)."""
    removed = Removed()
    cutoff = now - retention.posted_days * 86400
    if retention.posted_days > 0:
        removed.add("posted_messages",
                    (await conn.execute(delete(PostedMessageRow).where(PostedMessageRow.posted_at < cutoff))).rowcount)
    removed.add("decisions", await decisions.prune(conn, now, cutoff if retention.posted_days > 0 else 0.0))
    if retention.hits_days > 0:
        first_day = dt.datetime.fromtimestamp(now, dt.UTC).date() - dt.timedelta(days=retention.hits_days)
        removed.add("hits", (await conn.execute(delete(Hit).where(Hit.day < first_day))).rowcount)
        removed.add("unknown_errors", (await conn.execute(delete(UnknownErrorRow).where(
            UnknownErrorRow.last_seen < now - retention.hits_days * 86400))).rowcount)
        removed.add("alerts", (await conn.execute(delete(AlertRow).where(
            AlertRow.last_seen < now - retention.hits_days * 86400))).rowcount)
    removed.add("slack_events", (await conn.execute(delete(SlackEvent).where(SlackEvent.expires_at < now))).rowcount)
    lapsed = dt.datetime.fromtimestamp(now, dt.UTC).replace(tzinfo=None)
    removed.add("slack_oauth_states", (await conn.execute(
        delete(SLACK_OAUTH_STATES).where(SLACK_OAUTH_STATES.c.expire_at < lapsed))).rowcount)
    return removed


async def delete_workspace(conn: AsyncConnection, team_id: str) -> Removed:
    """Remove everything stored about workspace ``team_id``; its votes stay only as anonymous counts."""
    removed = Removed()
    counted = (select(Vote.target_id,
                      func.sum(case((Vote.vote == 1, 1), else_=0)).cast(Integer).label("up"),
                      func.sum(case((Vote.vote == -1, 1), else_=0)).cast(Integer).label("down"))
               .where(Vote.workspace == team_id).group_by(Vote.target_id))
    for target_id, up, down in (await conn.execute(counted)).all():
        if up or down:
            await conn.execute(update(Target).where(Target.id == target_id)
                               .values(kept_up=Target.kept_up + up, kept_down=Target.kept_down + down))
    for name, table, column in (
        ("votes", Vote.__table__, Vote.workspace),
        ("posted_messages", PostedMessageRow.__table__, PostedMessageRow.workspace),
        ("decisions", DecisionRow.__table__, DecisionRow.workspace),
        ("user_prefs", UserPrefsRow.__table__, UserPrefsRow.workspace),
        ("channels", ChannelRow.__table__, ChannelRow.workspace),
        ("hits", Hit.__table__, Hit.workspace),
        ("unknown_errors", UnknownErrorRow.__table__, UnknownErrorRow.workspace),
        ("alerts", AlertRow.__table__, AlertRow.workspace),
        ("workspace_settings", WorkspaceSettingsRow.__table__, WorkspaceSettingsRow.workspace),
        ("slack_installations", SLACK_INSTALLATIONS, SLACK_INSTALLATIONS.c.team_id),
        ("slack_bots", SLACK_BOTS, SLACK_BOTS.c.team_id),
    ):
        removed.add(name, (await conn.execute(delete(table).where(column == team_id))).rowcount)
    await team_fixes.retire_workspace(conn, team_id, time.time())  # their KB entries' targets stop taking votes
    for name, count in (await team_entries.delete_workspace(conn, team_id)).items():
        removed.add(name, count)
    return removed
