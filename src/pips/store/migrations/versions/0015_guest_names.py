"""when a guest first took a name: held against registration a day from then

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "guest_names",
        sa.Column("name_key", sa.String(length=160), primary_key=True),
        sa.Column("first_taken", sa.DateTime(), nullable=False, index=True),
    )
    # The names guests hold now, from when their sessions began (the earliest).
    op.execute(
        "INSERT INTO guest_names (name_key, first_taken) "
        "SELECT name_key, MIN(created_at) FROM sessions WHERE user_id IS NULL GROUP BY name_key"
    )


def downgrade() -> None:
    op.drop_table("guest_names")
