"""Recorded decisions to answer (durable before Slack's ack); vote tokens spell their polarity.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

SLACK_ID = sa.String(64)
# The reaction aliases ledgers held before tokens started with their sign (frozen here on purpose).
LEGACY = {"thumbsup": "+1", "thumbs_up": "+1", "thumbsdown": "-1", "thumbs_down": "-1"}


def _respell(token: str) -> str:
    name, at, place = token.partition("@")
    base, sep, tone = name.partition("::")
    return f"{LEGACY.get(base, base)}{sep}{tone}{at}{place}"


def upgrade() -> None:
    op.create_table(
        "decisions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("workspace", SLACK_ID, nullable=False),
        sa.Column("channel", SLACK_ID, nullable=False),
        sa.Column("thread_ts", sa.String(32), nullable=False),
        sa.Column("message_ts", sa.String(32), nullable=False),
        sa.Column("user_id", SLACK_ID, nullable=True),
        sa.Column("entry_id", sa.String(200), nullable=True),
        sa.Column("files", sa.JSON(), nullable=True),
        sa.Column("done", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("lease_until", sa.Float(), nullable=False),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_decisions"),
        sa.UniqueConstraint("key", name="uq_decisions_key"),
    )
    op.create_index("ix_decisions_done_lease_until", "decisions", ["done", "lease_until"])
    votes = sa.table("votes", sa.column("workspace"), sa.column("user_id"), sa.column("target_id"),
                     sa.column("ledger", sa.JSON()))
    conn = op.get_bind()
    for row in conn.execute(sa.select(votes.c.workspace, votes.c.user_id, votes.c.target_id, votes.c.ledger)):
        ledger = row.ledger if isinstance(row.ledger, dict) else json.loads(row.ledger or "{}")
        respelled = {_respell(token): mark for token, mark in ledger.items()}
        if respelled != ledger:
            conn.execute(votes.update().where(votes.c.workspace == row.workspace, votes.c.user_id == row.user_id,
                                              votes.c.target_id == row.target_id).values(ledger=respelled))


def downgrade() -> None:
    op.drop_index("ix_decisions_done_lease_until", table_name="decisions")
    op.drop_table("decisions")
