"""table leases: which server process owns a live table (issue 21)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24 23:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.String(length=24), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("owner", sa.String(length=32), nullable=False, index=True),
        sa.Column("until", sa.DateTime(), nullable=False, index=True),
    )


def downgrade() -> None:
    op.drop_table("table_leases")
