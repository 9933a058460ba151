"""The Slack credentials in ``slack_installations``/``slack_bots`` are stored encrypted (``bot.store.secrets``):
their columns become ``Text``, as a Fernet token of a rotating token or a refresh token is longer than slack_sdk's
``String(200)``. The values themselves are encrypted at start-up (``errkb serve``) or by ``errkb db encrypt``: a
migration cannot know the key.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

# As bot.store.models.SEALED_COLUMNS when this revision was written.
COLUMNS = {
    "slack_installations": ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token",
                            "incoming_webhook_url"),
    "slack_bots": ("bot_token", "bot_refresh_token"),
}


def _retype(old: sa.types.TypeEngine, new: sa.types.TypeEngine) -> None:
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.alter_column(column, existing_type=old, type_=new, existing_nullable=True)


def upgrade() -> None:
    _retype(sa.String(200), sa.Text())


def downgrade() -> None:
    # Ciphertext longer than 200 characters would not fit back: run with the plain tokens only.
    _retype(sa.Text(), sa.String(200))
