"""trust (issue 32): members by consent, claims that block nobody, holds with their
causes, why a server game is not rated, wrong passwords per name and address, and the
confusable skeleton of every name, and private tables published by their players

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 16:00:00
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def _skeleton(name: str) -> str:
    """As :func:`pips.text.skeleton` computed it when this migration was written."""
    import icu

    checker = icu.SpoofChecker()
    written = " ".join(unicodedata.normalize("NFKC", name).split())
    shape = str(checker.getSkeleton(0, written))
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", shape).casefold())
    return unicodedata.normalize("NFC", str(checker.getSkeleton(0, " ".join(folded.split()))))


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("skeleton", sa.String(length=200), nullable=True))
        batch.create_index("ix_users_skeleton", ["skeleton"])
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("skeleton", sa.String(length=200), nullable=True))
        batch.create_index("ix_sessions_skeleton", ["skeleton"])
    connection = op.get_bind()
    for table in ("users", "sessions"):
        rows = connection.execute(sa.text(f"SELECT DISTINCT name FROM {table}")).all()
        for (name,) in rows:
            connection.execute(
                sa.text(f"UPDATE {table} SET skeleton = :s WHERE name = :n"),
                {"s": _skeleton(name), "n": name},
            )

    # Wrong passwords counted per name and address: the old runs per name are dropped
    # (they only make someone wait).
    op.drop_table("sign_in_failures")
    op.create_table(
        "sign_in_failures",
        sa.Column("name_key", sa.String(length=160), primary_key=True),
        sa.Column("address", sa.String(length=64), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False, index=True),
    )

    with op.batch_alter_table("group_members") as batch:
        batch.add_column(
            sa.Column("status", sa.String(length=8), nullable=False, server_default="member")
        )

    op.create_table(
        "player_claims",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("decided_at", sa.DateTime(), nullable=True),
        sa.Column("decided_by", sa.Integer(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("approved", sa.Boolean(), nullable=True),
    )
    op.create_index("ix_player_claims_player_id", "player_claims", ["player_id"])
    op.create_index("ix_player_claims_user_id", "player_claims", ["user_id"])
    connection.execute(
        sa.text(
            "INSERT INTO player_claims (player_id, user_id, created_at) "
            "SELECT id, claim_user_id, COALESCE(claimed_at, created_at) FROM players "
            "WHERE claim_user_id IS NOT NULL"
        )
    )
    with op.batch_alter_table("players") as batch:
        batch.drop_column("claim_user_id")
        batch.drop_column("claimed_at")

    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("unrated", sa.String(length=300), nullable=True))

    op.create_table(
        "result_holds",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("result_id", sa.Integer(), sa.ForeignKey("results.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("reason", sa.String(length=300), nullable=False),
        sa.Column("held_at", sa.DateTime(), nullable=False),
        sa.Column("lifted_at", sa.DateTime(), nullable=True),
        sa.Column("lifted_because", sa.String(length=300), nullable=True),
    )
    op.create_index("ix_result_holds_result_id", "result_holds", ["result_id"])
    op.create_index("ix_result_holds_lifted_at", "result_holds", ["lifted_at"])
    # Holds made before causes were kept: one open hold each, of no player.
    connection.execute(
        sa.text(
            "INSERT INTO result_holds (result_id, player_id, day, kind, reason, held_at) "
            "SELECT id, NULL, played_on, 'table', flag, entered_at FROM results "
            "WHERE flag IS NOT NULL AND flag_cleared_by IS NULL"
        )
    )

    with op.batch_alter_table("world_lists") as batch:
        batch.add_column(sa.Column("held", sa.Integer(), nullable=False, server_default="0"))

    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("publish_asks", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("published_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("published_at")
        batch.drop_column("publish_asks")
    with op.batch_alter_table("world_lists") as batch:
        batch.drop_column("held")
    op.drop_table("result_holds")
    with op.batch_alter_table("results") as batch:
        batch.drop_column("unrated")
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("claim_user_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("claimed_at", sa.DateTime(), nullable=True))
    op.drop_table("player_claims")
    with op.batch_alter_table("group_members") as batch:
        batch.drop_column("status")
    op.drop_table("sign_in_failures")
    op.create_table(
        "sign_in_failures",
        sa.Column("name_key", sa.String(length=160), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False, index=True),
    )
    for table in ("sessions", "users"):
        with op.batch_alter_table(table) as batch:
            batch.drop_index(f"ix_{table}_skeleton")
            batch.drop_column("skeleton")
