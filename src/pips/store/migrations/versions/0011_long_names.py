"""names of people at real tables up to 80 characters (double names)

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25 21:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

TABLES = ("players", "result_players", "event_players")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.alter_column("name", type_=sa.String(length=80), existing_nullable=False)
            if table != "result_players":
                batch.alter_column("name_key", type_=sa.String(length=320), existing_nullable=False)


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.alter_column("name", type_=sa.String(length=40), existing_nullable=False)
            if table != "result_players":
                batch.alter_column("name_key", type_=sa.String(length=160), existing_nullable=False)
