"""authority (issue 49): when a player's group answered for the player, and an
administrator's sanction of an event

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("group_agreed_at", sa.DateTime(), nullable=True))
    # Every player of a group so far was made there by the group's own side (or moved
    # there by an evening, which pips no longer does): the group answered for it when
    # it was made.
    op.execute("UPDATE players SET group_agreed_at = created_at WHERE group_id IS NOT NULL")
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("sanctioned_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("sanctioned_by", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_events_sanctioned_by", "users", ["sanctioned_by"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_constraint("fk_events_sanctioned_by", type_="foreignkey")
        batch.drop_column("sanctioned_by")
        batch.drop_column("sanctioned_at")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("group_agreed_at")
