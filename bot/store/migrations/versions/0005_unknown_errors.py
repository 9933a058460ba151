"""Unknown errors (masked shape, digest, channel, count, first/last seen; never the paste) and
per-workspace settings (``/errkb unknown on|off``).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "unknown_errors",
        sa.Column("workspace", sa.String(64), primary_key=True),
        sa.Column("digest", sa.String(32), primary_key=True),
        sa.Column("shape", sa.String(300), nullable=False),
        sa.Column("error_type", sa.String(100)),
        sa.Column("channel", sa.String(64), nullable=False, server_default=""),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("first_seen", sa.Float(), nullable=False),
        sa.Column("last_seen", sa.Float(), nullable=False),
    )
    op.create_index("ix_unknown_errors_last_seen", "unknown_errors", ["last_seen"])
    op.create_table(
        "workspace_settings",
        sa.Column("workspace", sa.String(64), primary_key=True),
        sa.Column("unknown", sa.Boolean(), nullable=False, server_default=sa.true()),
    )


def downgrade() -> None:
    op.drop_table("workspace_settings")
    op.drop_index("ix_unknown_errors_last_seen", table_name="unknown_errors")
    op.drop_table("unknown_errors")
