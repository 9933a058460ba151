"""Alerts from other bots: per workspace, channel and entry, how often within the window and errkb's one
answer (ids and counts, never the alert).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "alerts",
        sa.Column("workspace", sa.String(64), nullable=False),
        sa.Column("channel", sa.String(64), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("answer_ts", sa.String(32)),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("first_seen", sa.Float(), nullable=False),
        sa.Column("last_seen", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("workspace", "channel", "key", name="pk_alerts"),
    )
    op.create_index("ix_alerts_answer", "alerts", ["workspace", "channel", "answer_ts"])
    op.create_index("ix_alerts_last_seen", "alerts", ["last_seen"])


def downgrade() -> None:
    op.drop_index("ix_alerts_last_seen", table_name="alerts")
    op.drop_index("ix_alerts_answer", table_name="alerts")
    op.drop_table("alerts")
