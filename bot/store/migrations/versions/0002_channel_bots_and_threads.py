"""Channels can opt in to answering other bots' messages; posted messages are found by thread.

Revision ID: 0002
Revises: 0001
Create Date: 2025-01-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("channels", sa.Column("bots", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_index("ix_posted_messages_thread", "posted_messages", ["workspace", "channel", "thread_ts"])


def downgrade() -> None:
    op.drop_index("ix_posted_messages_thread", table_name="posted_messages")
    with op.batch_alter_table("channels") as batch:
        batch.drop_column("bots")
