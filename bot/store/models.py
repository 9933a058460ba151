"""The tables. Every schema change goes through an Alembic migration in ``migrations/versions``.

Times are Unix seconds (floats, UTC) so that SQLite and PostgreSQL store them alike; Slack's own
timestamps (``event_ts``, ``action_ts``) arrive in that form. Pasted text is never stored.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, ClassVar

from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore
from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

DIAGNOSIS = "diagnosis"
WORKAROUND = "workaround"
CHANNEL_MODES = ("auto", "mention", "off")

ENTRY_ID = String(200)
SLACK_ID = String(64)
LOCALE = String(35)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    if TYPE_CHECKING:  # each model maps one Table (DeclarativeBase allows any FromClause, e.g. a select)
        __table__: ClassVar[Table]


class EntryRow(Base):
    """One KB entry as last seeded: its canonical JSON and that text's SHA-256."""

    __tablename__ = "entries"

    id: Mapped[str] = mapped_column(ENTRY_ID, primary_key=True)
    content_hash: Mapped[str] = mapped_column(String(64))
    content: Mapped[str] = mapped_column(Text)
    seeded_at: Mapped[float] = mapped_column(Float)
    retired_at: Mapped[float | None] = mapped_column(Float)


class Target(Base):
    """Something people vote on: an entry's diagnosis, or one of its workarounds.

    A workaround target keeps its identity (``key``) across seed edits; ``position`` is its
    current index in the entry's ``workarounds`` (None once retired). ``up``/``down`` are
    counters kept equal to the vote rows in the same transaction.
    """

    __tablename__ = "targets"
    __table_args__ = (
        UniqueConstraint("entry_id", "key"),
        UniqueConstraint("entry_id", "position"),
        CheckConstraint(f"kind IN ('{DIAGNOSIS}', '{WORKAROUND}')", name="kind"),
        CheckConstraint("up >= 0 AND down >= 0", name="counts"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    entry_id: Mapped[str] = mapped_column(ENTRY_ID, ForeignKey("entries.id"))
    kind: Mapped[str] = mapped_column(String(16))
    key: Mapped[str] = mapped_column(String(100))
    position: Mapped[int | None] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    text_hash: Mapped[str] = mapped_column(String(64))
    prior: Mapped[float] = mapped_column(Float)
    up: Mapped[int] = mapped_column(Integer, default=0)
    down: Mapped[int] = mapped_column(Integer, default=0)
    # Votes of deleted workspaces, kept only as numbers (their vote rows are gone); part of up/down.
    kept_up: Mapped[int] = mapped_column(Integer, server_default="0")
    kept_down: Mapped[int] = mapped_column(Integer, server_default="0")
    retired_at: Mapped[float | None] = mapped_column(Float)


class Vote(Base):
    """One user's reactions/buttons on one target, and the vote they add up to.

    ``ledger`` maps each reaction token to ``[present, event time]`` (see ``bot.kb.feedback``);
    ``vote`` and ``up_at`` (time of the latest 👍 while the vote is up) are derived from it.
    """

    __tablename__ = "votes"
    __table_args__ = (
        CheckConstraint("vote IN (-1, 0, 1)", name="vote"),
        Index("ix_votes_target_id_vote", "target_id", "vote"),
        Index("ix_votes_entry_id", "entry_id"),
    )

    workspace: Mapped[str] = mapped_column(SLACK_ID, primary_key=True)
    user_id: Mapped[str] = mapped_column(SLACK_ID, primary_key=True)
    target_id: Mapped[int] = mapped_column(Integer, ForeignKey("targets.id"), primary_key=True)
    entry_id: Mapped[str] = mapped_column(ENTRY_ID, ForeignKey("entries.id"))
    ledger: Mapped[dict[str, Any]] = mapped_column(JSON)
    vote: Mapped[int] = mapped_column(SmallInteger, default=0)
    up_at: Mapped[float | None] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)


class Hit(Base):
    """How many pastes matched an entry (as best match) on one day in one locale, in one workspace.

    No foreign key: a hit is counted even for an entry not yet seeded into this database.
    """

    __tablename__ = "hits"

    # The workspace the paste came from ("" for the command line, and for hits counted before 0004).
    workspace: Mapped[str] = mapped_column(SLACK_ID, primary_key=True, server_default="")
    entry_id: Mapped[str] = mapped_column(ENTRY_ID, primary_key=True)
    day: Mapped[dt.date] = mapped_column(Date, primary_key=True)
    locale: Mapped[str] = mapped_column(LOCALE, primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)


class PostedMessageRow(Base):
    """A message the bot posted, and the target its reactions vote on."""

    __tablename__ = "posted_messages"
    __table_args__ = (Index("ix_posted_messages_thread", "workspace", "channel", "thread_ts"),
                      Index("ix_posted_messages_posted_at", "posted_at"))

    workspace: Mapped[str] = mapped_column(SLACK_ID, primary_key=True)
    channel: Mapped[str] = mapped_column(SLACK_ID, primary_key=True)
    ts: Mapped[str] = mapped_column(String(32), primary_key=True)
    target_id: Mapped[int] = mapped_column(Integer, ForeignKey("targets.id"))
    locale: Mapped[str] = mapped_column(LOCALE)
    thread_ts: Mapped[str | None] = mapped_column(String(32))
    posted_at: Mapped[float] = mapped_column(Float)


class UserPrefsRow(Base):
    __tablename__ = "user_prefs"

    workspace: Mapped[str] = mapped_column(SLACK_ID, primary_key=True)
    user_id: Mapped[str] = mapped_column(SLACK_ID, primary_key=True)
    locale_override: Mapped[str | None] = mapped_column(LOCALE)
    slack_locale: Mapped[str | None] = mapped_column(LOCALE)
    slack_locale_fetched_at: Mapped[float | None] = mapped_column(Float)


class ChannelRow(Base):
    __tablename__ = "channels"
    __table_args__ = (CheckConstraint("mode IN ('auto', 'mention', 'off')", name="mode"),)

    workspace: Mapped[str] = mapped_column(SLACK_ID, primary_key=True)
    channel: Mapped[str] = mapped_column(SLACK_ID, primary_key=True)
    mode: Mapped[str] = mapped_column(String(8))
    # Whether other bots' messages are answered here too (``/errkb channel bots on``).
    bots: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class UnknownErrorRow(Base):
    """An error line errkb could not answer, as its masked shape only (``bot.kb.shape``); never the paste."""

    __tablename__ = "unknown_errors"
    __table_args__ = (Index("ix_unknown_errors_last_seen", "last_seen"),)

    workspace: Mapped[str] = mapped_column(SLACK_ID, primary_key=True)
    digest: Mapped[str] = mapped_column(String(32), primary_key=True)
    shape: Mapped[str] = mapped_column(String(300))
    error_type: Mapped[str | None] = mapped_column(String(100))
    channel: Mapped[str] = mapped_column(SLACK_ID, server_default="")  # where it was last seen
    count: Mapped[int] = mapped_column(Integer, default=0)
    first_seen: Mapped[float] = mapped_column(Float)
    last_seen: Mapped[float] = mapped_column(Float)


class AlertRow(Base):
    """An error other bots' alerts carried in one channel: how often within the window, and errkb's one
    answer to it (in the first alert's thread, so in this channel). Ids and counts only, never the alert."""

    __tablename__ = "alerts"
    __table_args__ = (Index("ix_alerts_answer", "workspace", "channel", "answer_ts"),
                      Index("ix_alerts_last_seen", "last_seen"))

    workspace: Mapped[str] = mapped_column(SLACK_ID, primary_key=True)
    channel: Mapped[str] = mapped_column(SLACK_ID, primary_key=True)
    key: Mapped[str] = mapped_column(ENTRY_ID, primary_key=True)  # the entry the alerts matched
    answer_ts: Mapped[str | None] = mapped_column(String(32))  # None until the answer is posted
    count: Mapped[int] = mapped_column(Integer)  # alerts since ``first_seen`` (the window's start)
    first_seen: Mapped[float] = mapped_column(Float)
    last_seen: Mapped[float] = mapped_column(Float)


class MetaRow(Base):
    """Facts about the store as a whole, by name (``seeds``: what the last seed sync left, ``bot.store.sync``)."""

    __tablename__ = "meta"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class WorkspaceSettingsRow(Base):
    """Per-workspace switches; a workspace without a row has the defaults."""

    __tablename__ = "workspace_settings"

    workspace: Mapped[str] = mapped_column(SLACK_ID, primary_key=True)
    # Whether unknown errors' shapes are remembered (``/errkb unknown on|off``).
    unknown: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())


class TeamEntryRow(Base):
    """An entry a team wrote in Slack (``bot.kb.team_entry``): the author's texts, never a paste.

    ``body`` is JSON of the texts; ``example`` the masked error line it was written for. Its seed form
    is also kept in ``entries`` (with vote targets) under ``entry_id``, so its workarounds take votes.
    """

    __tablename__ = "team_entries"
    __table_args__ = (Index("ix_team_entries_workspace_updated_at", "workspace", "updated_at"),
                      CheckConstraint("status IN ('live', 'verified', 'retired')", name="status"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    workspace: Mapped[str] = mapped_column(SLACK_ID)
    entry_id: Mapped[str] = mapped_column(ENTRY_ID, unique=True)
    author: Mapped[str] = mapped_column(SLACK_ID)
    locale: Mapped[str] = mapped_column(String(8))
    body: Mapped[str] = mapped_column(Text)
    regex: Mapped[str] = mapped_column(Text)
    example: Mapped[str] = mapped_column(String(300))
    status: Mapped[str] = mapped_column(String(16), server_default="live")
    reviewer: Mapped[str | None] = mapped_column(SLACK_ID)
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)


class TeamFixRow(Base):
    """A workaround a teammate suggested for an entry (KB or team-written), in their language."""

    __tablename__ = "team_fixes"
    __table_args__ = (Index("ix_team_fixes_entry_id", "entry_id"), Index("ix_team_fixes_workspace", "workspace"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    workspace: Mapped[str] = mapped_column(SLACK_ID)
    entry_id: Mapped[str] = mapped_column(ENTRY_ID)
    author: Mapped[str] = mapped_column(SLACK_ID)
    locale: Mapped[str] = mapped_column(String(8))
    text: Mapped[str] = mapped_column(Text)
    text_other: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), server_default="live")
    created_at: Mapped[float] = mapped_column(Float)


class SlackEvent(Base):
    """A Slack event id already handled, kept until ``expires_at`` to drop Slack's retries."""

    __tablename__ = "slack_events"

    event_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    expires_at: Mapped[float] = mapped_column(Float, index=True)


class DecisionRow(Base):
    """A decision to answer, recorded before Slack's ack (ids and entry only, never text).

    ``key`` makes it one decision (an answer per thread and entry; a note per mention), so a
    retried event, on any process, finds it taken. ``owner`` holds it until ``lease_until``; a
    decision whose lease ran out (its process died) is taken over by another. Finished decisions
    stay ``done`` so the same error in the same thread is not answered again; a decision that could
    not be carried out is deleted, leaving the thread answerable.
    """

    __tablename__ = "decisions"
    __table_args__ = (Index("ix_decisions_done_lease_until", "done", "lease_until"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    workspace: Mapped[str] = mapped_column(SLACK_ID)
    channel: Mapped[str] = mapped_column(SLACK_ID)
    thread_ts: Mapped[str] = mapped_column(String(32))
    message_ts: Mapped[str] = mapped_column(String(32))
    user_id: Mapped[str | None] = mapped_column(SLACK_ID)
    entry_id: Mapped[str | None] = mapped_column(ENTRY_ID)
    files: Mapped[list[str] | None] = mapped_column(JSON)
    done: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[float] = mapped_column(Float)
    lease_until: Mapped[float] = mapped_column(Float)
    owner: Mapped[str] = mapped_column(String(64))


# slack_sdk's OAuth tables (installations, bots, install states), in errkb's database and migrations;
# slack_sdk's own stores (``bot.slack.oauth``) read and write them.
SLACK_INSTALLATIONS = SQLAlchemyInstallationStore.build_installations_table(Base.metadata, "slack_installations")
SLACK_BOTS = SQLAlchemyInstallationStore.build_bots_table(Base.metadata, "slack_bots")
SLACK_OAUTH_STATES = SQLAlchemyOAuthStateStore.build_oauth_states_table(Base.metadata, "slack_oauth_states")
# Their credentials, stored encrypted (bot/store/secrets.py): Text, as ciphertext outgrows slack_sdk's String(200).
SEALED_COLUMNS: dict[str, tuple[str, ...]] = {
    "slack_installations": ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token",
                            "incoming_webhook_url"),
    "slack_bots": ("bot_token", "bot_refresh_token"),
}
for _table in (SLACK_INSTALLATIONS, SLACK_BOTS):
    for _name in SEALED_COLUMNS[_table.name]:
        _table.c[_name].type = Text()
