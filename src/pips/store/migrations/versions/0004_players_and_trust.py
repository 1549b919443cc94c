"""players as people, the trust model (administrators, approved groups, provisional
results, flags), match targets, the results each published list counted

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 09:00:00
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _key(name: str) -> str:
    # pips.core.names.name_key as of this revision (a migration never imports live code).
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def _fingerprint(
    game: str, day: str, top: int, lines: list[tuple[str, int, int, bool]], source: str
) -> str:
    # pips.results.entry.Checked.fingerprint as of this revision: seat order left out.
    players = sorted([_key(n), p, q, o] for n, p, q, o in lines)
    key = [game, day, top, players, source]
    return hashlib.sha256(json.dumps(key).encode()).hexdigest()


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(
            sa.Column("admin", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("groups") as batch:
        batch.add_column(sa.Column("approved_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("approved_by", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_groups_approved_by", "users", ["approved_by"], ["id"])
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=160), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("claim_user_id", sa.Integer(), nullable=True),
        sa.Column("claimed_at", sa.DateTime(), nullable=True),
        sa.Column("merged_into", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["group_id"], ["groups.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.ForeignKeyConstraint(["claim_user_id"], ["users.id"]),
        sa.ForeignKeyConstraint(["merged_into"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_players_name_key", "players", ["name_key"])
    op.create_index("ix_players_group_id", "players", ["group_id"])
    op.create_index("ix_players_user_id", "players", ["user_id"])
    with op.batch_alter_table("results") as batch:
        batch.alter_column("status", existing_type=sa.String(length=10), type_=sa.String(12))
        batch.add_column(sa.Column("confirmed_by", sa.String(length=8), nullable=True))
        batch.add_column(sa.Column("target", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("flag", sa.String(length=300), nullable=True))
        batch.add_column(sa.Column("flag_cleared_by", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_results_flag_cleared_by", "users", ["flag_cleared_by"], ["id"])
    with op.batch_alter_table("result_players") as batch:
        batch.add_column(sa.Column("player_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_result_players_player_id", "players", ["player_id"], ["id"])
        batch.create_index("ix_result_players_player_id", ["player_id"])
    with op.batch_alter_table("world_lists") as batch:
        batch.add_column(sa.Column("late", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("world_list_rows") as batch:
        batch.add_column(sa.Column("player_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_world_list_rows_player_id", "players", ["player_id"], ["id"])
        batch.create_index("ix_world_list_rows_player_id", ["player_id"])
    op.create_table(
        "world_list_results",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("result_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["list_id"], ["world_lists.id"]),
        sa.ForeignKeyConstraint(["result_id"], ["results.id"]),
        sa.PrimaryKeyConstraint("list_id", "result_id"),
    )
    op.create_index("ix_world_list_results_result_id", "world_list_results", ["result_id"])
    _move_data()


def _move_data() -> None:
    connection = op.get_bind()
    results = sa.table(
        "results",
        sa.column("id", sa.Integer),
        sa.column("game"),
        sa.column("played_on"),
        sa.column("set", sa.Integer),
        sa.column("group_id", sa.Integer),
        sa.column("source"),
        sa.column("table_id"),
        sa.column("entered_by", sa.Integer),
        sa.column("status"),
        sa.column("confirmed_by"),
        sa.column("fingerprint"),
    )
    seats = sa.table(
        "result_players",
        sa.column("id", sa.Integer),
        sa.column("result_id", sa.Integer),
        sa.column("seat", sa.Integer),
        sa.column("name"),
        sa.column("user_id", sa.Integer),
        sa.column("player_id", sa.Integer),
        sa.column("points", sa.Integer),
        sa.column("pips", sa.Integer),
        sa.column("out", sa.Boolean),
    )
    reviews = sa.table(
        "result_reviews",
        sa.column("result_id", sa.Integer),
        sa.column("user_id", sa.Integer),
        sa.column("action"),
    )
    players = sa.table(
        "players",
        sa.column("id", sa.Integer),
        sa.column("name"),
        sa.column("name_key"),
        sa.column("group_id", sa.Integer),
        sa.column("user_id", sa.Integer),
        sa.column("created_at", sa.DateTime),
    )
    rows = connection.execute(
        sa.select(
            results,
            seats.c.id.label("seat_id"),
            seats.c.seat,
            seats.c.name,
            seats.c.user_id,
            seats.c.points,
            seats.c.pips,
            seats.c.out,
        )
        .join(seats, seats.c.result_id == results.c.id)
        .order_by(results.c.id, seats.c.seat)
    ).all()
    confirmers: dict[int, set[int]] = defaultdict(set)
    for result_id, user_id, action in connection.execute(
        sa.select(reviews.c.result_id, reviews.c.user_id, reviews.c.action)
    ):
        if action == "confirm":
            confirmers[result_id].add(user_id)
    # Players: one per account, else one per name within the group that entered it.
    made: dict[tuple[object, ...], int] = {}
    by_result: dict[int, list[Any]] = defaultdict(list)
    moment = datetime.now(UTC).replace(tzinfo=None)
    for row in rows:
        by_result[row.id].append(row)
        if row.source == "server" and row.user_id is None:
            continue  # a guest or a bot
        key: tuple[object, ...] = (
            ("user", row.user_id) if row.user_id is not None else (row.group_id, _key(row.name))
        )
        if key not in made:
            made[key] = connection.execute(
                players.insert()
                .values(
                    name=row.name,
                    name_key=_key(row.name),
                    group_id=row.group_id,
                    user_id=row.user_id,
                    created_at=moment,
                )
                .returning(players.c.id)
            ).scalar_one()
        connection.execute(
            seats.update().where(seats.c.id == row.seat_id).values(player_id=made[key])
        )
    for result_id, lines in by_result.items():
        head = lines[0]
        status, confirmed_by = head.status, head.confirmed_by
        if head.source == "server":
            confirmed_by = "server"
        elif status == "entered":
            status = "provisional"
        elif status == "confirmed":
            # Confirmed before by one player's word: it stays confirmed only if every
            # other player's account confirmed it (the trust model of docs/results.md).
            others = {s.user_id for s in lines} - {head.entered_by}
            if None not in others and others <= confirmers[result_id]:
                confirmed_by = "players"
            else:
                status = "provisional"
        fingerprint = head.fingerprint
        if fingerprint is not None:
            fingerprint = _fingerprint(
                head.game,
                str(head.played_on)[:10],
                head.set,
                [(s.name, s.points, s.pips, bool(s.out)) for s in lines],
                head.table_id or "",
            )
        connection.execute(
            results.update()
            .where(results.c.id == result_id)
            .values(status=status, confirmed_by=confirmed_by, fingerprint=fingerprint)
        )


def downgrade() -> None:
    op.execute("UPDATE results SET status = 'entered' WHERE status = 'provisional'")
    op.drop_index("ix_world_list_results_result_id", table_name="world_list_results")
    op.drop_table("world_list_results")
    with op.batch_alter_table("world_list_rows") as batch:
        batch.drop_index("ix_world_list_rows_player_id")
        batch.drop_constraint("fk_world_list_rows_player_id", type_="foreignkey")
        batch.drop_column("player_id")
    with op.batch_alter_table("world_lists") as batch:
        batch.drop_column("late")
    with op.batch_alter_table("result_players") as batch:
        batch.drop_index("ix_result_players_player_id")
        batch.drop_constraint("fk_result_players_player_id", type_="foreignkey")
        batch.drop_column("player_id")
    with op.batch_alter_table("results") as batch:
        batch.drop_constraint("fk_results_flag_cleared_by", type_="foreignkey")
        batch.drop_column("flag_cleared_by")
        batch.drop_column("flag")
        batch.drop_column("target")
        batch.drop_column("confirmed_by")
    op.drop_index("ix_players_user_id", table_name="players")
    op.drop_index("ix_players_group_id", table_name="players")
    op.drop_index("ix_players_name_key", table_name="players")
    op.drop_table("players")
    with op.batch_alter_table("groups") as batch:
        batch.drop_constraint("fk_groups_approved_by", type_="foreignkey")
        batch.drop_column("approved_by")
        batch.drop_column("approved_at")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("admin")
