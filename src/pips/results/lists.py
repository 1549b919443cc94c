"""The monthly world lists (the pips rating): a month computed once from every result
known at its end and published, never changed; the lists, a player's history."""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pips.core.names import name_key
from pips.results.common import (
    COUNTED,
    Conflict,
    ResultsError,
    ServiceBase,
    month_bounds,
    month_of,
)
from pips.results.entry import GAMES
from pips.results.rating import RatedGame, compute
from pips.store.models import (
    Result,
    ResultPlayer,
    WorldList,
    WorldListRow,
)


class WorldLists(ServiceBase):
    """Computing, publishing and reading the monthly lists."""

    def compute_month(self, month: str, *, publish: bool = True) -> list[dict[str, Any]]:
        """Compute the month's list of every game family from the results known at the
        month's end, and publish it (unless ``publish`` is false: a preview). A month is
        published once: published lists never change."""
        _, after = month_bounds(month)
        cutoff = datetime.combine(after, datetime.min.time())
        if self.clock() < cutoff:
            raise ResultsError(
                f"{month} is not over: its list is computed after {after - timedelta(days=1)}"
            )
        with self.db.session() as session:
            done = session.scalars(select(WorldList).where(WorldList.month == month)).first()
            if done is not None and publish:
                raise Conflict(
                    f"the list of {month} was published on {done.computed_at:%Y-%m-%d %H:%M} UTC "
                    "and published lists never change"
                )
            lists = []
            for game in GAMES:
                games = self._rated_games(session, game, after, cutoff)
                if games:
                    lists.append(
                        (game, games, compute(games, after - timedelta(days=1), self.settings))
                    )
            if not publish:
                return [
                    self._summary(game, month, games, standings) for game, games, standings in lists
                ]
            previous = {game: self._previous(session, game, month) for game, _, _ in lists}
        published = []
        try:
            with self.db.session() as session, session.begin():
                for game, games, standings in lists:
                    header = WorldList(
                        game=game,
                        month=month,
                        cutoff=cutoff,
                        computed_at=self.clock(),
                        settings=self.settings.to_json(),
                        games=len(games),
                        players=len(standings),
                    )
                    session.add(header)
                    session.flush()
                    before = previous[game]
                    accounts = self._accounts(session, (s.name for s in standings))
                    session.execute(
                        insert(WorldListRow),
                        [
                            {
                                "list_id": header.id,
                                "place": place,
                                "name": s.name,
                                "user_id": accounts.get(name_key(s.name)),
                                "mu": s.mu,
                                "sigma": s.sigma,
                                "rating": s.rating,
                                "games": s.games,
                                "last_played": s.last_played,
                                "previous_place": before.get(s.name, (None, None))[0],
                                "previous_rating": before.get(s.name, (None, None))[1],
                            }
                            for place, s in enumerate(standings, 1)
                        ],
                    )
                    published.append(self._summary(game, month, games, standings))
        except IntegrityError:
            raise Conflict(f"the list of {month} was published meanwhile") from None
        return published

    @staticmethod
    def _summary(
        game: str, month: str, games: Sequence[RatedGame], standings: Sequence[Any]
    ) -> dict[str, Any]:
        return {
            "game": game,
            "month": month,
            "games": len(games),
            "players": len(standings),
            "top": [
                {"place": i, "name": s.name, "rating": round(s.rating, 2), "games": s.games}
                for i, s in enumerate(standings[:10], 1)
            ],
        }

    def _rated_games(
        self, session: Session, game: str, after: date, cutoff: datetime
    ) -> list[RatedGame]:
        counted = (
            select(Result.id, Result.played_on).where(
                Result.game == game,
                Result.played_on < after,
                Result.entered_at < cutoff,
                Result.status.in_(COUNTED),
                Result.rated.is_(True),
            )
        ).subquery()
        rows = session.execute(
            select(
                counted.c.id,
                counted.c.played_on,
                ResultPlayer.team,
                ResultPlayer.name,
                ResultPlayer.rank,
            )
            .join(ResultPlayer, ResultPlayer.result_id == counted.c.id)
            .order_by(counted.c.id, ResultPlayer.team, ResultPlayer.seat)
        ).all()
        games: list[RatedGame] = []
        current = -1
        teams: dict[int, list[str]] = {}
        ranks: dict[int, int] = {}
        played = date.min

        def flush() -> None:
            if current >= 0:
                order = sorted(teams)
                games.append(
                    RatedGame(
                        played,
                        current,
                        tuple(tuple(teams[t]) for t in order),
                        tuple(ranks[t] for t in order),
                    )
                )

        for result_id, played_on, team, name, rank in rows:
            if result_id != current:
                flush()
                current, played, teams, ranks = result_id, played_on, defaultdict(list), {}
            teams[team].append(name)
            ranks[team] = rank
        flush()
        return games

    def _previous(self, session: Session, game: str, month: str) -> dict[str, tuple[int, float]]:
        header = session.scalars(
            select(WorldList)
            .where(WorldList.game == game, WorldList.month < month)
            .order_by(WorldList.month.desc())
        ).first()
        if header is None:
            return {}
        rows = session.execute(
            select(WorldListRow.name, WorldListRow.place, WorldListRow.rating).where(
                WorldListRow.list_id == header.id
            )
        ).all()
        return {name: (place, rating) for name, place, rating in rows}

    def publish_due(self) -> list[dict[str, Any]]:
        """Publish every month that is over and has no list yet (the server does this
        after each month's end); months with nothing to rate stay unpublished."""
        now = self.clock()
        with self.db.session() as session:
            first = session.scalar(select(func.min(Result.entered_at)))
            done = set(session.scalars(select(WorldList.month).distinct()))
        if first is None:
            return []
        published = []
        month = month_of(first)
        while True:
            _, after = month_bounds(month)
            if datetime.combine(after, datetime.min.time()) > now:
                break
            if month not in done:
                with contextlib.suppress(Conflict):  # another process published it first
                    published += self.compute_month(month)
            month = month_of(after)
        return published

    def months(self, game: str) -> list[dict[str, Any]]:
        with self.db.session() as session:
            return [
                {
                    "month": w.month,
                    "games": w.games,
                    "players": w.players,
                    "computed_at": w.computed_at.isoformat(timespec="seconds"),
                }
                for w in session.scalars(
                    select(WorldList).where(WorldList.game == game).order_by(WorldList.month.desc())
                )
            ]

    def world_list(
        self, game: str, month: str | None = None, *, offset: int = 0, limit: int = 100
    ) -> dict[str, Any] | None:
        """A published list (the newest when ``month`` is left out): one page of rows
        with their movement since the list before, and the biggest moves."""
        with self.db.session() as session:
            query = select(WorldList).where(WorldList.game == game)
            if month:
                month_bounds(month)
                query = query.where(WorldList.month == month)
            header = session.scalars(query.order_by(WorldList.month.desc())).first()
            if header is None:
                return None
            rows = session.scalars(
                select(WorldListRow)
                .where(WorldListRow.list_id == header.id)
                .order_by(WorldListRow.place)
                .offset(max(0, offset))
                .limit(max(1, min(limit, 500)))
            ).all()
            climb = WorldListRow.previous_place - WorldListRow.place
            moved = select(WorldListRow).where(
                WorldListRow.list_id == header.id, WorldListRow.previous_place.is_not(None)
            )
            risers = session.scalars(
                moved.where(climb > 0).order_by(climb.desc(), WorldListRow.place).limit(5)
            ).all()
            fallers = session.scalars(
                moved.where(climb < 0).order_by(climb, WorldListRow.place).limit(5)
            ).all()
            newcomers = session.scalar(
                select(func.count()).where(
                    WorldListRow.list_id == header.id, WorldListRow.previous_place.is_(None)
                )
            )
            return {
                "game": game,
                "month": header.month,
                "computed_at": header.computed_at.isoformat(timespec="seconds"),
                "cutoff": header.cutoff.isoformat(timespec="seconds"),
                "settings": header.settings,
                "games": header.games,
                "players": header.players,
                "offset": offset,
                "rows": [_row_json(r) for r in rows],
                "risers": [_row_json(r) for r in risers],
                "fallers": [_row_json(r) for r in fallers],
                "newcomers": newcomers,
            }

    def player_history(self, game: str, name: str) -> list[dict[str, Any]]:
        with self.db.session() as session:
            rows = session.execute(
                select(WorldList.month, WorldListRow)
                .join(WorldListRow, WorldListRow.list_id == WorldList.id)
                .where(WorldList.game == game, WorldListRow.name == name)
                .order_by(WorldList.month)
            ).all()
            return [{"month": month, **_row_json(row)} for month, row in rows]


def _row_json(row: WorldListRow) -> dict[str, Any]:
    move = None if row.previous_place is None else row.previous_place - row.place
    return {
        "place": row.place,
        "name": row.name,
        "rating": round(row.rating, 3),
        "mu": round(row.mu, 3),
        "sigma": round(row.sigma, 3),
        "games": row.games,
        "last_played": row.last_played.isoformat(),
        "previous_place": row.previous_place,
        "move": move,
        "change": None
        if row.previous_rating is None
        else round(row.rating - row.previous_rating, 3),
    }
