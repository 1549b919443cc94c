"""skeletons without separators: names that differ only by spaces, hyphens, dots or
apostrophes look alike (``Dominoclub Kiel`` beside ``Domino Club Kiel``), so every
account's and session's kept skeleton is taken again without them

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-29 10:00:00
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def _skeleton(name: str, separators: bool = False) -> str:
    """As :func:`pips.text.skeleton` computed it when this migration was written
    (``separators``: as it did before, with them)."""
    import icu

    checker = icu.SpoofChecker()
    written = " ".join(unicodedata.normalize("NFKC", name).split())
    shape = str(checker.getSkeleton(0, written))
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", shape).casefold())
    again = str(checker.getSkeleton(0, " ".join(folded.split())))
    if not separators:
        again = again.translate(str.maketrans("", "", " -.'"))
    return unicodedata.normalize("NFC", again)


def _retake(separators: bool) -> None:
    connection = op.get_bind()
    for table in ("users", "sessions"):
        rows = connection.execute(sa.text(f"SELECT DISTINCT name FROM {table}")).all()
        for (name,) in rows:
            connection.execute(
                sa.text(f"UPDATE {table} SET skeleton = :s WHERE name = :n"),
                {"s": _skeleton(name, separators), "n": name},
            )


def upgrade() -> None:
    _retake(separators=False)


def downgrade() -> None:
    _retake(separators=True)
