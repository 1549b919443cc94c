"""a result's reasons kept as phrases (template and fields) beside their English text

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-03 10:00:00

Holds' reasons, and a result's flag and why it is not rated, were stored as English
only; their phrases let every reader get them in their own language (issue 50). Rows
from before keep their English text, which is shown where no phrase is kept.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("result_holds") as batch:
        batch.add_column(sa.Column("reason_phrase", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("lifted_phrase", sa.JSON(), nullable=True))
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("unrated_phrase", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("flag_phrase", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("flag_phrase")
        batch.drop_column("unrated_phrase")
    with op.batch_alter_table("result_holds") as batch:
        batch.drop_column("lifted_phrase")
        batch.drop_column("reason_phrase")
