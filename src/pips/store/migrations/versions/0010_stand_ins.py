"""the bot that made a move for a person who was away; a finished table's rematch

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25 18:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("moves") as batch:
        batch.add_column(sa.Column("stand_in", sa.String(length=40), nullable=True))
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("rematch", sa.String(length=24), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("rematch")
    with op.batch_alter_table("moves") as batch:
        batch.drop_column("stand_in")
