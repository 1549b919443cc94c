"""sign-in failures per name, shared by every server process

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sign_in_failures",
        sa.Column("name_key", sa.String(length=160), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False, index=True),
    )


def downgrade() -> None:
    op.drop_table("sign_in_failures")
