"""OAuth installations (slack_sdk's installation and state store tables); hit counts per workspace;
the anonymous votes a deleted workspace leaves (``targets.kept_up``/``kept_down``).

The three ``slack_*`` tables are slack_sdk's ``SQLAlchemyInstallationStore`` / ``…OAuthStateStore``
schema as of slack_sdk 3.48, frozen here. Hits counted before this revision keep workspace ``""``
(not attributable to one workspace).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

SLACK_ID = sa.String(64)


def _common() -> list[sa.Column]:
    return [
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("client_id", sa.String(32), nullable=False),
        sa.Column("app_id", sa.String(32), nullable=False),
        sa.Column("enterprise_id", sa.String(32)),
        sa.Column("enterprise_name", sa.String(200)),
    ]


def _bot() -> list[sa.Column]:
    return [
        sa.Column("team_id", sa.String(32)),
        sa.Column("team_name", sa.String(200)),
        sa.Column("bot_token", sa.String(200)),
        sa.Column("bot_id", sa.String(32)),
        sa.Column("bot_user_id", sa.String(32)),
        sa.Column("bot_scopes", sa.String(1000)),
        sa.Column("bot_refresh_token", sa.String(200)),
        sa.Column("bot_token_expires_at", sa.DateTime()),
    ]


def upgrade() -> None:
    op.create_table(
        "slack_installations",
        *_common(),
        sa.Column("enterprise_url", sa.String(200)),
        *_bot(),
        sa.Column("user_id", sa.String(32), nullable=False),
        sa.Column("user_token", sa.String(200)),
        sa.Column("user_scopes", sa.String(1000)),
        sa.Column("user_refresh_token", sa.String(200)),
        sa.Column("user_token_expires_at", sa.DateTime()),
        sa.Column("incoming_webhook_url", sa.String(200)),
        sa.Column("incoming_webhook_channel", sa.String(200)),
        sa.Column("incoming_webhook_channel_id", sa.String(200)),
        sa.Column("incoming_webhook_configuration_url", sa.String(200)),
        sa.Column("is_enterprise_install", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("token_type", sa.String(32)),
        sa.Column("installed_at", sa.DateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("slack_installations_idx", "slack_installations",
                    ["client_id", "enterprise_id", "team_id", "user_id", "installed_at"])
    op.create_table(
        "slack_bots",
        *_common(),
        *_bot(),
        sa.Column("is_enterprise_install", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("installed_at", sa.DateTime(), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("slack_bots_idx", "slack_bots", ["client_id", "enterprise_id", "team_id", "installed_at"])
    op.create_table(
        "slack_oauth_states",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("state", sa.String(200), nullable=False),
        sa.Column("expire_at", sa.DateTime(), nullable=False),
    )
    with op.batch_alter_table("hits", recreate="always") as batch:
        batch.add_column(sa.Column("workspace", SLACK_ID, nullable=False, server_default=""))
        batch.drop_constraint("pk_hits", type_="primary")
        batch.create_primary_key("pk_hits", ["workspace", "entry_id", "day", "locale"])
    op.create_index("ix_posted_messages_posted_at", "posted_messages", ["posted_at"])
    with op.batch_alter_table("targets") as batch:
        batch.add_column(sa.Column("kept_up", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("kept_down", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("targets") as batch:
        batch.drop_column("kept_down")
        batch.drop_column("kept_up")
    op.drop_index("ix_posted_messages_posted_at", "posted_messages")
    op.execute("DELETE FROM hits WHERE workspace <> ''")
    with op.batch_alter_table("hits", recreate="always") as batch:
        batch.drop_constraint("pk_hits", type_="primary")
        batch.drop_column("workspace")
        batch.create_primary_key("pk_hits", ["entry_id", "day", "locale"])
    op.drop_table("slack_oauth_states")
    op.drop_index("slack_bots_idx", "slack_bots")
    op.drop_table("slack_bots")
    op.drop_index("slack_installations_idx", "slack_installations")
    op.drop_table("slack_installations")
