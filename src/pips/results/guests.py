"""A guest who registers keeps what they played as a guest (issue 51): their seats at
the server's tables, finished or not, become the new account's, and so do the results
of the finished games, which are linked to the account's player."""

from __future__ import annotations

from sqlalchemy import select

from pips.core.names import name_key
from pips.results.players import Players
from pips.store.db import Database
from pips.store.models import GameTable, Result, ResultPlayer, Seat, User


def adopt_guest(db: Database, players: Players, guest: str, user_id: int) -> int:
    """Give the account ``user_id`` every seat the guest of token ``guest`` held, and
    the seats of their finished games' results; how many tables. All or nothing, in one
    transaction. A seat of a result already linked to someone is left as it is."""
    if not guest:
        return 0
    with db.session() as session, session.begin():
        user = session.get(User, user_id)
        if user is None:
            return 0
        seats = session.scalars(select(Seat).where(Seat.guest == guest)).all()
        for seat in seats:
            seat.user_id, seat.guest = user_id, None
            table = session.get(GameTable, seat.table_id)
            if table is None or table.status != "finished":
                continue
            lines = session.scalars(
                select(ResultPlayer)
                .join(Result, Result.id == ResultPlayer.result_id)
                .where(
                    Result.table_id == table.id,
                    ResultPlayer.user_id.is_(None),
                    ResultPlayer.player_id.is_(None),
                )
            ).all()
            for line in lines:
                if name_key(line.name) == name_key(seat.name):
                    line.user_id = user_id
                    line.player = players.own_player(session, user, None)
        return len({seat.table_id for seat in seats})
