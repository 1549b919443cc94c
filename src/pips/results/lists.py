"""The monthly world lists (the pips rating): a month computed once from every result
known at its end and published, never changed; the lists, a player's history."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError

from pips.core.phrase import Phrase, joined, phrase
from pips.games.registry import find_game
from pips.results.common import (
    Conflict,
    Context,
    NotFound,
    ResultsError,
    held_clause,
    month_bounds,
    month_of,
)
from pips.results.entry import GAMES
from pips.results.list_inputs import (
    held_results,
    late_results,
    new_results,
    people_of,
    previous_ratings,
    rated_games,
)
from pips.results.rating import PlayerRating, RatedGame, RatingSettings, compute
from pips.store.models import (
    Player,
    Result,
    WorldList,
    WorldListResult,
    WorldListRow,
)


class WorldLists:
    """Computing, publishing and reading the monthly lists."""

    def __init__(self, context: Context) -> None:
        self.context = context

    def compute_month(
        self, month: str, *, publish: bool = True, top: int = 10
    ) -> list[dict[str, Any]]:
        """Compute the month's list of every game family from the results that count
        at the month's end, and publish it (unless ``publish`` is false: a preview). A
        month is published once: published lists never change. A game with nothing to
        rate gets no list (:meth:`explain_month` says why)."""
        first, after = month_bounds(month)
        cutoff = datetime.combine(after, datetime.min.time())
        if self.context.clock() < cutoff:
            raise ResultsError(
                phrase(
                    "{month} is not over: its list is computed after {value}",
                    month=month,
                    value=after - timedelta(days=1),
                )
            )
        with self.context.db.session() as session:
            done = session.scalars(select(WorldList).where(WorldList.month == month)).first()
            if done is not None and publish:
                raise Conflict(
                    phrase(
                        "the list of {month} was published on {day} UTC and published lists "
                        "never change",
                        month=month,
                        day=done.computed_at.strftime("%Y-%m-%d %H:%M"),
                    )
                )
            lists = []
            for game in GAMES:
                games = rated_games(session, game, after, cutoff)
                if games:
                    new = new_results(session, game, games)
                    lists.append(
                        (
                            game,
                            games,
                            new,
                            compute(games, after - timedelta(days=1), self.context.settings),
                        )
                    )
            late = {game: late_results(session, new, first) for game, _, new, _ in lists}
            held = {game: held_results(session, game, first, after) for game, _, _, _ in lists}
            if not publish:
                return [
                    self._summary(game, month, games, standings, len(new), late[game], top)
                    for game, games, new, standings in lists
                ]
            previous = {game: previous_ratings(session, game, month) for game, _, _, _ in lists}
            people = people_of(session, {key for _, _, _, st in lists for key in _keys(st)})
        published = []
        try:
            with self.context.db.session() as session, session.begin():
                for game, games, new, standings in lists:
                    header = WorldList(
                        game=game,
                        month=month,
                        cutoff=cutoff,
                        computed_at=self.context.clock(),
                        settings=self.context.settings.to_json(),
                        games=len(games),
                        players=len(standings),
                        late=late[game],
                        held=held[game],
                    )
                    session.add(header)
                    session.flush()
                    before = previous[game]
                    rows = []
                    for place, s in enumerate(standings, 1):
                        player_id = int(s.key)
                        name, user_id = people.get(player_id, ("?", None))
                        was = before.get(player_id, (None, None))
                        rows.append(
                            {
                                "list_id": header.id,
                                "place": place,
                                "name": name,
                                "player_id": player_id,
                                "user_id": user_id,
                                "mu": s.mu,
                                "sigma": s.sigma,
                                "rating": s.rating,
                                "games": s.games,
                                "last_played": s.last_played,
                                "previous_place": was[0],
                                "previous_rating": was[1],
                            }
                        )
                    if rows:
                        session.execute(insert(WorldListRow), rows)
                    if new:
                        session.execute(
                            insert(WorldListResult),
                            [{"list_id": header.id, "result_id": rid} for rid in new],
                        )
                    published.append(
                        self._summary(game, month, games, standings, len(new), late[game], top)
                    )
        except IntegrityError:
            raise Conflict(
                phrase("the list of {month} was published meanwhile", month=month)
            ) from None
        return published

    def explain_month(self, month: str) -> list[str]:
        """Why a game has no list for ``month``, in words: what its results wait for,
        and where the results entered after the month count."""
        first, after = month_bounds(month)
        cutoff = datetime.combine(after, datetime.min.time())
        said = []
        with self.context.db.session() as session:
            published = set(session.scalars(select(WorldList.game).where(WorldList.month == month)))
            for game in GAMES:
                if game in published:
                    continue
                title = find_game(game).title
                # Counted in the database: the page is public and a month may hold
                # 100,000 results.
                in_time = Result.entered_at < cutoff
                held_now = held_clause()
                total, late, waiting, disputed, held, unrated = session.execute(
                    select(
                        func.count(),
                        func.count().filter(~in_time),
                        func.count().filter(in_time, Result.status == "provisional"),
                        func.count().filter(in_time, Result.status == "disputed"),
                        func.count().filter(in_time, held_now),
                        func.count().filter(in_time, Result.rated.is_(False)),
                    ).where(
                        Result.game == game,
                        Result.played_on >= first,
                        Result.played_on < after,
                        Result.status != "withdrawn",
                    )
                ).one()
                if not total:
                    continue
                parts: list[str] = []
                if waiting:
                    parts.append(
                        phrase(
                            "{count} provisional (not confirmed at the month's end)",
                            count=waiting,
                        )
                    )
                if disputed:
                    parts.append(phrase("{count} disputed", count=disputed))
                if held:
                    parts.append(phrase("{count} held for an administrator", count=held))
                if unrated:
                    parts.append(
                        phrase("{count} not rated (a bot or a guest played)", count=unrated)
                    )
                sentence: str = phrase(
                    "{game}: no list of {month}: {total} results played",
                    game=Phrase(title),
                    month=month,
                    total=total,
                )
                if parts:
                    sentence = phrase(
                        "{said}; of those entered in time {parts}",
                        said=sentence,
                        parts=joined(parts),
                    )
                if late:
                    sentence = phrase(
                        "{said}; {count} entered after {day} (late), which count from the"
                        " list of {month} on once confirmed",
                        said=sentence,
                        count=late,
                        day=after - timedelta(days=1),
                        month=month_of(after),
                    )
                said.append(sentence)
        return said

    def _summary(
        self,
        game: str,
        month: str,
        games: Sequence[RatedGame],
        standings: Sequence[PlayerRating],
        new: int,
        late: int,
        top: int,
    ) -> dict[str, Any]:
        shown = standings[: max(0, top)]
        with self.context.db.session() as session:
            people = people_of(session, set(_keys(shown)))
        return {
            "game": game,
            "title": find_game(game).title,
            "month": month,
            "games": len(games),
            "new": new,
            "late": late,
            "players": len(standings),
            "top": [
                {
                    "place": i,
                    "name": people.get(int(s.key), ("?", None))[0],
                    "player": int(s.key),
                    "rating": round(s.rating, 2),
                    "games": s.games,
                }
                for i, s in enumerate(shown, 1)
            ],
        }

    def due(self) -> list[str]:
        """The months that are over and have no list yet, oldest first, from the month of
        the first result entered (a few small queries: the server asks this every hour,
        and starts the work of publishing only when a month is due)."""
        now = self.context.clock()
        with self.context.db.session() as session:
            first = session.scalar(select(func.min(Result.entered_at)))
            done = set(session.scalars(select(WorldList.month).distinct()))
        if first is None:
            return []
        months: list[str] = []
        month = month_of(first)
        while True:
            _, after = month_bounds(month)
            if datetime.combine(after, datetime.min.time()) > now:
                return months
            if month not in done:
                months.append(month)
            month = month_of(after)

    def publish_due(self) -> list[dict[str, Any]]:
        """Publish every month that is over and has no list yet (the server does this
        after each month's end); months with nothing to rate stay unpublished."""
        published = []
        for month in self.due():
            with contextlib.suppress(Conflict):  # another process published it first
                published += self.compute_month(month)
        return published

    def months(self, game: str) -> list[dict[str, Any]]:
        with self.context.db.session() as session:
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

    def inputs(self, game: str, month: str) -> dict[str, Any]:
        """What a published list was computed from, for anyone to compute it again
        (docs/results.md, "Check a month yourself"): every game that counts up to the
        list's cut-off, in order, its teams of player numbers, their places and the
        weight of its update (its age's and a rematch's, multiplied), and the list's
        rows to compare with. A result withdrawn or disputed since no longer counts and
        is not given: then the numbers differ from the list, which never changes."""
        _, after = month_bounds(month)
        with self.context.db.session() as session:
            header = session.scalars(
                select(WorldList).where(WorldList.game == game, WorldList.month == month)
            ).first()
            if header is None:
                raise NotFound(
                    phrase("no published list of {game} for {month}", game=game, month=month)
                )
            # The results this list counted: those first counted by it or a list
            # before it (a result confirmed only later joined a later list).
            listed = set(
                session.scalars(
                    select(WorldListResult.result_id)
                    .join(WorldList, WorldList.id == WorldListResult.list_id)
                    .where(WorldList.game == game, WorldList.month <= month)
                )
            )
            games = [
                g for g in rated_games(session, game, after, header.cutoff) if g.result_id in listed
            ]
            as_of = after - timedelta(days=1)
            settings = RatingSettings(
                float(header.settings.get("half_life_days", 365.0)),
                int(header.settings.get("min_games", 1)),
            )
            rows = session.execute(
                select(
                    WorldListRow.place, WorldListRow.player_id, WorldListRow.mu, WorldListRow.sigma
                )
                .where(WorldListRow.list_id == header.id)
                .order_by(WorldListRow.place)
            ).all()
            return {
                "game": game,
                "month": month,
                "as_of": as_of.isoformat(),
                "settings": header.settings,
                "start": {"mu": 25.0, "sigma": 25.0 / 3},
                "games": [
                    {
                        "date": g.played_on.isoformat(),
                        "order": g.result_id,
                        "teams": [list(team) for team in g.teams],
                        "ranks": list(g.ranks),
                        "weight": settings.weight(g.played_on, as_of) * g.weight,
                    }
                    for g in sorted(games, key=lambda g: (g.played_on, g.result_id))
                ],
                "list": [
                    {"place": place, "player": str(player), "mu": mu, "sigma": sigma}
                    for place, player, mu, sigma in rows
                ],
            }

    def world_list(
        self, game: str, month: str | None = None, *, offset: int = 0, limit: int = 100
    ) -> dict[str, Any] | None:
        """A published list (the newest when ``month`` is left out): one page of rows
        with their movement since the list before, and the biggest moves."""
        with self.context.db.session() as session:
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
                "late": header.late,
                "held": header.held,
                "title": find_game(game).title,
                "offset": offset,
                "rows": [_row_json(r) for r in rows],
                "risers": [_row_json(r) for r in risers],
                "fallers": [_row_json(r) for r in fallers],
                "newcomers": newcomers,
            }

    def player_history(self, game: str, player: int) -> list[dict[str, Any]]:
        """A player's lines in every published list of ``game`` (with the players
        merged into them)."""
        with self.context.db.session() as session:
            ids = [player, *session.scalars(select(Player.id).where(Player.merged_into == player))]
            rows = session.execute(
                select(WorldList.month, WorldListRow)
                .join(WorldListRow, WorldListRow.list_id == WorldList.id)
                .where(WorldList.game == game, WorldListRow.player_id.in_(ids))
                .order_by(WorldList.month, WorldListRow.place)
            ).all()
            seen: set[str] = set()
            history = []
            for month, row in rows:
                if month not in seen:
                    seen.add(month)
                    history.append({"month": month, **_row_json(row)})
            return history


def _keys(standings: Sequence[PlayerRating]) -> list[int]:
    return [int(s.key) for s in standings]


def _row_json(row: WorldListRow) -> dict[str, Any]:
    move = None if row.previous_place is None else row.previous_place - row.place
    return {
        "place": row.place,
        "name": row.name,
        "player": row.player_id,
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
