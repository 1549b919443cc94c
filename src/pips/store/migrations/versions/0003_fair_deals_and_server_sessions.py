"""fair deals (a deal key per table, seeds only for practice), server-side sessions,
names unique by their folded key

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 16:40:00
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _key(name: str) -> str:
    # pips.core.names.name_key as of this revision (a migration never imports live code).
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.alter_column("seed", existing_type=sa.Integer(), nullable=True)
        batch.add_column(sa.Column("deal_key", sa.String(length=64), nullable=True))
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("name_key", sa.String(length=160), nullable=True))
    users = sa.table("users", sa.column("id", sa.Integer), sa.column("name"), sa.column("name_key"))
    connection = op.get_bind()
    taken: set[str] = set()
    for user_id, name in connection.execute(
        sa.select(users.c.id, users.c.name).order_by(users.c.id)
    ):
        # Names that fold alike were possible before: the oldest account keeps the
        # name's key, a later one a key of its own (it can still sign in by its name).
        key = _key(name)
        if key in taken:
            key = f"{key}#{user_id}"
        taken.add(key)
        connection.execute(users.update().where(users.c.id == user_id).values(name_key=key))
    with op.batch_alter_table("users") as batch:
        batch.alter_column("name_key", existing_type=sa.String(length=160), nullable=False)
        batch.create_unique_constraint("uq_users_name_key", ["name_key"])
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("guest", sa.String(length=40), nullable=True),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=160), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("seen_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_index("ix_sessions_name_key", "sessions", ["name_key"])
    op.create_index("ix_sessions_seen_at", "sessions", ["seen_at"])


def downgrade() -> None:
    op.drop_table("sessions")
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint("uq_users_name_key", type_="unique")
        batch.drop_column("name_key")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("deal_key")
        batch.alter_column("seed", existing_type=sa.Integer(), nullable=False)
