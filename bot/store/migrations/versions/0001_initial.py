"""The first schema: entries, vote targets, votes, hits, and the Slack-side state.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

ENTRY_ID = sa.String(200)
SLACK_ID = sa.String(64)
LOCALE = sa.String(35)


def upgrade() -> None:
    op.create_table(
        "entries",
        sa.Column("id", ENTRY_ID, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("seeded_at", sa.Float(), nullable=False),
        sa.Column("retired_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_entries"),
    )
    op.create_table(
        "targets",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("entry_id", ENTRY_ID, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("key", sa.String(100), nullable=False),
        sa.Column("position", sa.Integer(), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("text_hash", sa.String(64), nullable=False),
        sa.Column("prior", sa.Float(), nullable=False),
        sa.Column("up", sa.Integer(), nullable=False),
        sa.Column("down", sa.Integer(), nullable=False),
        sa.Column("retired_at", sa.Float(), nullable=True),
        sa.CheckConstraint("kind IN ('diagnosis', 'workaround')", name="ck_targets_kind"),
        sa.CheckConstraint("up >= 0 AND down >= 0", name="ck_targets_counts"),
        sa.ForeignKeyConstraint(["entry_id"], ["entries.id"], name="fk_targets_entry_id_entries"),
        sa.PrimaryKeyConstraint("id", name="pk_targets"),
        sa.UniqueConstraint("entry_id", "key", name="uq_targets_entry_id_key"),
        sa.UniqueConstraint("entry_id", "position", name="uq_targets_entry_id_position"),
    )
    op.create_table(
        "votes",
        sa.Column("workspace", SLACK_ID, nullable=False),
        sa.Column("user_id", SLACK_ID, nullable=False),
        sa.Column("target_id", sa.Integer(), nullable=False),
        sa.Column("entry_id", ENTRY_ID, nullable=False),
        sa.Column("ledger", sa.JSON(), nullable=False),
        sa.Column("vote", sa.SmallInteger(), nullable=False),
        sa.Column("up_at", sa.Float(), nullable=True),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.CheckConstraint("vote IN (-1, 0, 1)", name="ck_votes_vote"),
        sa.ForeignKeyConstraint(["entry_id"], ["entries.id"], name="fk_votes_entry_id_entries"),
        sa.ForeignKeyConstraint(["target_id"], ["targets.id"], name="fk_votes_target_id_targets"),
        sa.PrimaryKeyConstraint("workspace", "user_id", "target_id", name="pk_votes"),
    )
    op.create_index("ix_votes_target_id_vote", "votes", ["target_id", "vote"])
    op.create_index("ix_votes_entry_id", "votes", ["entry_id"])
    op.create_table(
        "hits",
        sa.Column("entry_id", ENTRY_ID, nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("locale", LOCALE, nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("entry_id", "day", "locale", name="pk_hits"),
    )
    op.create_table(
        "posted_messages",
        sa.Column("workspace", SLACK_ID, nullable=False),
        sa.Column("channel", SLACK_ID, nullable=False),
        sa.Column("ts", sa.String(32), nullable=False),
        sa.Column("target_id", sa.Integer(), nullable=False),
        sa.Column("locale", LOCALE, nullable=False),
        sa.Column("thread_ts", sa.String(32), nullable=True),
        sa.Column("posted_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["target_id"], ["targets.id"], name="fk_posted_messages_target_id_targets"),
        sa.PrimaryKeyConstraint("workspace", "channel", "ts", name="pk_posted_messages"),
    )
    op.create_table(
        "user_prefs",
        sa.Column("workspace", SLACK_ID, nullable=False),
        sa.Column("user_id", SLACK_ID, nullable=False),
        sa.Column("locale_override", LOCALE, nullable=True),
        sa.Column("slack_locale", LOCALE, nullable=True),
        sa.Column("slack_locale_fetched_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("workspace", "user_id", name="pk_user_prefs"),
    )
    op.create_table(
        "channels",
        sa.Column("workspace", SLACK_ID, nullable=False),
        sa.Column("channel", SLACK_ID, nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.CheckConstraint("mode IN ('auto', 'mention', 'off')", name="ck_channels_mode"),
        sa.PrimaryKeyConstraint("workspace", "channel", name="pk_channels"),
    )
    op.create_table(
        "slack_events",
        sa.Column("event_id", sa.String(128), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("event_id", name="pk_slack_events"),
    )
    op.create_index("ix_slack_events_expires_at", "slack_events", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_slack_events_expires_at", table_name="slack_events")
    op.drop_table("slack_events")
    op.drop_table("channels")
    op.drop_table("user_prefs")
    op.drop_table("posted_messages")
    op.drop_table("hits")
    op.drop_index("ix_votes_entry_id", table_name="votes")
    op.drop_index("ix_votes_target_id_vote", table_name="votes")
    op.drop_table("votes")
    op.drop_table("targets")
    op.drop_table("entries")
