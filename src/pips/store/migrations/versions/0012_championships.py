"""championships: a day and a set per round, a set per table, Swiss pairing, final
tables, tie-breaks, seeds, clubs and teams, the check-in list

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25 21:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("schedule", sa.JSON(), nullable=True))
        batch.add_column(
            sa.Column("pairing", sa.String(length=8), nullable=False, server_default="lot")
        )
        batch.add_column(sa.Column("tiebreaks", sa.JSON(), nullable=True))
        batch.add_column(
            sa.Column("check_in", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("counted", sa.Integer(), nullable=False, server_default="3"))
    with op.batch_alter_table("event_players") as batch:
        batch.add_column(sa.Column("seed", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("club", sa.String(length=80), nullable=False, server_default=""))
        batch.add_column(sa.Column("team", sa.String(length=80), nullable=False, server_default=""))
        batch.add_column(
            sa.Column("checked_in", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("event_rounds") as batch:
        batch.add_column(sa.Column("played_on", sa.Date(), nullable=True))
        batch.add_column(sa.Column("top", sa.Integer(), nullable=True))
        batch.add_column(
            sa.Column("method", sa.String(length=8), nullable=False, server_default="lot")
        )
    with op.batch_alter_table("event_tables") as batch:
        batch.add_column(sa.Column("top", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("event_tables") as batch:
        batch.drop_column("top")
    with op.batch_alter_table("event_rounds") as batch:
        for column in ("method", "top", "played_on"):
            batch.drop_column(column)
    with op.batch_alter_table("event_players") as batch:
        for column in ("checked_in", "team", "club", "seed"):
            batch.drop_column(column)
    with op.batch_alter_table("events") as batch:
        for column in ("counted", "check_in", "tiebreaks", "pairing", "schedule"):
            batch.drop_column(column)
