"""an event player's acceptance: an online event seats only accounts that accepted

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-01 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # No player so far accepted anything: an online event's organiser seated accounts
    # without asking. Each account accepts for itself before its next online round;
    # the organiser's own account was added by the organiser, so it accepted then.
    with op.batch_alter_table("event_players") as batch:
        batch.add_column(
            sa.Column("accepted", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.execute(
        "UPDATE event_players SET accepted = TRUE WHERE user_id IS NOT NULL AND user_id = "
        "(SELECT organiser_id FROM events WHERE events.id = event_players.event_id)"
    )


def downgrade() -> None:
    with op.batch_alter_table("event_players") as batch:
        batch.drop_column("accepted")
