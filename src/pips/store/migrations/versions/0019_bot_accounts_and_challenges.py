"""bot accounts and challenges (issue 52, the Bot API)

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-02 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("bot", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(length=16), primary_key=True),
        sa.Column("challenger_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("challenged_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("game", sa.String(length=20), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("turn_seconds", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("table_id", sa.String(length=24), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    for column in ("challenger_id", "challenged_id", "status", "created_at"):
        op.create_index(f"ix_challenges_{column}", "challenges", [column])


def downgrade() -> None:
    for column in ("challenger_id", "challenged_id", "status", "created_at"):
        op.drop_index(f"ix_challenges_{column}", "challenges")
    op.drop_table("challenges")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("bot")
