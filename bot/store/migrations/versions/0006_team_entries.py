"""Team-written entries (``team_entries``) and suggested fixes (``team_fixes``), per workspace.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "team_entries",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("workspace", sa.String(64), nullable=False),
        sa.Column("entry_id", sa.String(200), nullable=False),
        sa.Column("author", sa.String(64), nullable=False),
        sa.Column("locale", sa.String(8), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("regex", sa.Text(), nullable=False),
        sa.Column("example", sa.String(300), nullable=False),
        sa.Column("status", sa.String(16), nullable=False, server_default="live"),
        sa.Column("reviewer", sa.String(64)),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.CheckConstraint("status IN ('live', 'verified', 'retired')", name="ck_team_entries_status"),
        sa.UniqueConstraint("entry_id", name="uq_team_entries_entry_id"),
    )
    op.create_index("ix_team_entries_workspace_updated_at", "team_entries", ["workspace", "updated_at"])
    op.create_table(
        "team_fixes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("workspace", sa.String(64), nullable=False),
        sa.Column("entry_id", sa.String(200), nullable=False),
        sa.Column("author", sa.String(64), nullable=False),
        sa.Column("locale", sa.String(8), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("text_other", sa.Text()),
        sa.Column("status", sa.String(16), nullable=False, server_default="live"),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_team_fixes_entry_id", "team_fixes", ["entry_id"])
    op.create_index("ix_team_fixes_workspace", "team_fixes", ["workspace"])


def downgrade() -> None:
    op.drop_index("ix_team_fixes_workspace", table_name="team_fixes")
    op.drop_index("ix_team_fixes_entry_id", table_name="team_fixes")
    op.drop_table("team_fixes")
    op.drop_index("ix_team_entries_workspace_updated_at", table_name="team_entries")
    op.drop_table("team_entries")
