"""events: players, rounds, tables and their results (issue 22)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24 18:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("key", sa.String(length=24), nullable=False, unique=True),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("game", sa.String(length=20), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("played_on", sa.Date(), nullable=False, index=True),
        sa.Column("place", sa.String(length=80), nullable=False),
        sa.Column("group_id", sa.Integer(), sa.ForeignKey("groups.id"), nullable=True),
        sa.Column("organiser_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("scoring", sa.String(length=12), nullable=False),
        sa.Column("online", sa.Boolean(), nullable=False),
        sa.Column("bots", sa.Boolean(), nullable=False),
        sa.Column("fixed_pairs", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=8), nullable=False, index=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("closed_at", sa.DateTime(), nullable=True),
    )
    op.create_table(
        "event_players",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id"), nullable=False, index=True),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=160), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("first_round", sa.Integer(), nullable=False),
        sa.Column("withdrawn_from", sa.Integer(), nullable=True),
        sa.Column("pair", sa.Integer(), nullable=True),
        sa.UniqueConstraint("event_id", "name_key"),
    )
    op.create_table(
        "event_rounds",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("event_id", sa.Integer(), sa.ForeignKey("events.id"), nullable=False, index=True),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(length=20), nullable=False),
        sa.Column("byes", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("drawn_at", sa.DateTime(), nullable=False),
        sa.Column("closed_at", sa.DateTime(), nullable=True),
        sa.UniqueConstraint("event_id", "number"),
    )
    op.create_table(
        "event_tables",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "round_id", sa.Integer(), sa.ForeignKey("event_rounds.id"), nullable=False, index=True
        ),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("table_id", sa.String(length=24), sa.ForeignKey("tables.id"), nullable=True),
        sa.UniqueConstraint("round_id", "number"),
    )
    op.create_table(
        "event_scores",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "table_id", sa.Integer(), sa.ForeignKey("event_tables.id"), nullable=False, index=True
        ),
        sa.Column("lines", sa.JSON(), nullable=False),
        sa.Column("target", sa.Integer(), nullable=True),
        sa.Column("source", sa.String(length=8), nullable=False),
        sa.Column("entered_by", sa.Integer(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("entered_at", sa.DateTime(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
    )
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("event_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_results_event_id", "events", ["event_id"], ["id"])
        batch.create_index("ix_results_event_id", ["event_id"])


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_index("ix_results_event_id")
        batch.drop_constraint("fk_results_event_id", type_="foreignkey")
        batch.drop_column("event_id")
    for table in ("event_scores", "event_tables", "event_rounds", "event_players", "events"):
        op.drop_table(table)
