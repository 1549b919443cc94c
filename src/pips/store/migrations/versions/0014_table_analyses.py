"""a finished game's analysis kept with its record (issue 51)

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("analysis", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("analysis")
