"""an event's setting for keeping club-mates apart in its draws

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-02 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Every event so far kept clubs apart as the draw did: "normal".
    with op.batch_alter_table("events") as batch:
        batch.add_column(
            sa.Column("clubs_apart", sa.String(8), nullable=False, server_default="normal")
        )


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("clubs_apart")
