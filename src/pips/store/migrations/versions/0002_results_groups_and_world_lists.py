"""results of games, groups (clubs) and the published world lists

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 10:22:34.724442
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "world_lists",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=20), nullable=False),
        sa.Column("month", sa.String(length=7), nullable=False),
        sa.Column("cutoff", sa.DateTime(), nullable=False),
        sa.Column("computed_at", sa.DateTime(), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game", "month"),
    )
    op.create_table(
        "groups",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("slug", sa.String(length=60), nullable=False),
        sa.Column("representative_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["representative_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
        sa.UniqueConstraint("slug"),
    )
    op.create_table(
        "world_list_rows",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("last_played", sa.Date(), nullable=False),
        sa.Column("previous_place", sa.Integer(), nullable=True),
        sa.Column("previous_rating", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["list_id"],
            ["world_lists.id"],
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("list_id", "place", "name"),
    )
    op.create_index(
        "ix_world_list_rows_name_list", "world_list_rows", ["name", "list_id"], unique=False
    )
    op.create_table(
        "group_members",
        sa.Column("group_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["group_id"],
            ["groups.id"],
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("group_id", "user_id"),
    )
    op.create_index(op.f("ix_group_members_user_id"), "group_members", ["user_id"], unique=False)
    op.create_table(
        "results",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=20), nullable=False),
        sa.Column("played_on", sa.Date(), nullable=False),
        sa.Column("place", sa.String(length=80), nullable=False),
        sa.Column("set", sa.Integer(), nullable=False),
        sa.Column("divisor", sa.Integer(), nullable=True),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.Column("source", sa.String(length=8), nullable=False),
        sa.Column("table_id", sa.String(length=24), nullable=True),
        sa.Column("entered_by", sa.Integer(), nullable=True),
        sa.Column("entered_at", sa.DateTime(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["entered_by"],
            ["users.id"],
        ),
        sa.ForeignKeyConstraint(
            ["group_id"],
            ["groups.id"],
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["tables.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("fingerprint"),
    )
    op.create_index(op.f("ix_results_entered_at"), "results", ["entered_at"], unique=False)
    op.create_index(op.f("ix_results_game"), "results", ["game"], unique=False)
    op.create_index(op.f("ix_results_group_id"), "results", ["group_id"], unique=False)
    op.create_index(op.f("ix_results_played_on"), "results", ["played_on"], unique=False)
    op.create_index(op.f("ix_results_status"), "results", ["status"], unique=False)
    op.create_table(
        "result_players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("result_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("team", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("pips", sa.Integer(), nullable=False),
        sa.Column("out", sa.Boolean(), nullable=False),
        sa.Column("final", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["result_id"],
            ["results.id"],
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("result_id", "seat"),
    )
    op.create_index(op.f("ix_result_players_name"), "result_players", ["name"], unique=False)
    op.create_index(op.f("ix_result_players_user_id"), "result_players", ["user_id"], unique=False)
    op.create_table(
        "result_reviews",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("result_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=10), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["result_id"],
            ["results.id"],
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        op.f("ix_result_reviews_result_id"), "result_reviews", ["result_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_result_reviews_result_id"), table_name="result_reviews")
    op.drop_table("result_reviews")
    op.drop_index(op.f("ix_result_players_user_id"), table_name="result_players")
    op.drop_index(op.f("ix_result_players_name"), table_name="result_players")
    op.drop_table("result_players")
    op.drop_index(op.f("ix_results_status"), table_name="results")
    op.drop_index(op.f("ix_results_played_on"), table_name="results")
    op.drop_index(op.f("ix_results_group_id"), table_name="results")
    op.drop_index(op.f("ix_results_game"), table_name="results")
    op.drop_index(op.f("ix_results_entered_at"), table_name="results")
    op.drop_table("results")
    op.drop_index(op.f("ix_group_members_user_id"), table_name="group_members")
    op.drop_table("group_members")
    op.drop_index("ix_world_list_rows_name_list", table_name="world_list_rows")
    op.drop_table("world_list_rows")
    op.drop_table("groups")
    op.drop_table("world_lists")
