"""What a month's world list is computed from: the results that count and are new to
it, those held or late, the rated games with their teams and places, the players' names
and the ratings the month starts from. Read from the database, changing nothing."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import date, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pips.results.common import bot_seated, counted_clause, held_clause
from pips.results.fairplay import Meeting, meeting_weights
from pips.results.rating import RatedGame
from pips.store.models import (
    Player,
    Result,
    ResultPlayer,
    WorldList,
    WorldListResult,
    WorldListRow,
)


def new_results(session: Session, game: str, games: Sequence[RatedGame]) -> list[int]:
    """The results of ``games`` no earlier list of ``game`` counted."""
    earlier = set(
        session.scalars(
            select(WorldListResult.result_id)
            .join(WorldList, WorldList.id == WorldListResult.list_id)
            .where(WorldList.game == game)
        )
    )
    return sorted(g.result_id for g in games if g.result_id not in earlier)


def late_results(session: Session, results: Sequence[int], first: date) -> int:
    """How many of ``results`` were played before the month that counts them."""
    late = 0
    for start in range(0, len(results), 5000):
        chunk = results[start : start + 5000]
        late += (
            session.scalar(
                select(func.count()).where(Result.id.in_(chunk), Result.played_on < first)
            )
            or 0
        )
    return late


def held_results(session: Session, game: str, first: date, after: date) -> int:
    """How many of the month's results are held for an administrator now."""
    return (
        session.scalar(
            select(func.count()).where(
                Result.game == game,
                Result.played_on >= first,
                Result.played_on < after,
                Result.status == "confirmed",
                held_clause(),
            )
        )
        or 0
    )


def people_of(session: Session, ids: set[int]) -> dict[int, tuple[str, int | None]]:
    people: dict[int, tuple[str, int | None]] = {}
    ordered = sorted(ids)
    for start in range(0, len(ordered), 5000):
        chunk = ordered[start : start + 5000]
        for pid, name, user in session.execute(
            select(Player.id, Player.name, Player.user_id).where(Player.id.in_(chunk))
        ):
            people[pid] = (name, user)
    return people


def rated_games(session: Session, game: str, after: date, cutoff: datetime) -> list[RatedGame]:
    """The games that count for ``game``'s list up to ``cutoff``, their teams of
    player ids (as text: the rating's keys) and places; ``order`` is the result's
    id. A server game's rematches weigh less (:func:`meeting_weights`)."""
    counting = (
        select(Result.id, Result.played_on, Result.source, Result.entered_at).where(
            Result.game == game,
            Result.played_on < after,
            Result.entered_at < cutoff,
            *counted_clause(),
        )
    ).subquery()
    rows = session.execute(
        select(
            counting.c.id,
            counting.c.played_on,
            counting.c.source,
            counting.c.entered_at,
            ResultPlayer.team,
            ResultPlayer.player_id,
            ResultPlayer.user_id,
            ResultPlayer.rank,
        )
        .join(ResultPlayer, ResultPlayer.result_id == counting.c.id)
        .order_by(counting.c.id, ResultPlayer.team, ResultPlayer.seat)
    ).all()
    found: dict[int, tuple[date, dict[int, list[str]], dict[int, int]]] = {}
    incomplete: set[int] = set()
    # Bot accounts are never on the world list (docs/bots-api.md): a result one of them
    # is at, by a line's account or its player's, is left out here as its page says.
    incomplete.update(bot_seated(session))
    meetings: dict[int, Meeting] = {}
    for result_id, played_on, source, entered_at, team, player_id, user_id, rank in rows:
        _, teams, ranks = found.setdefault(result_id, (played_on, defaultdict(list), {}))
        if player_id is None:
            incomplete.add(result_id)  # a seat that is nobody's is not rated
        teams[team].append(str(player_id))
        ranks[team] = rank
        if source == "server":
            before = meetings.get(result_id)
            accounts = (*(before.accounts if before else ()), user_id or -1)
            meetings[result_id] = Meeting(result_id, entered_at, accounts)
    weights = meeting_weights(meetings.values())
    games = []
    for result_id, (played_on, teams, ranks) in found.items():
        if result_id in incomplete:
            continue
        order = sorted(teams)
        games.append(
            RatedGame(
                played_on,
                result_id,
                tuple(tuple(teams[t]) for t in order),
                tuple(ranks[t] for t in order),
                weights.get(result_id, 1.0),
            )
        )
    return games


def previous_ratings(session: Session, game: str, month: str) -> dict[int, tuple[int, float]]:
    header = session.scalars(
        select(WorldList)
        .where(WorldList.game == game, WorldList.month < month)
        .order_by(WorldList.month.desc())
    ).first()
    if header is None:
        return {}
    rows = session.execute(
        select(WorldListRow.player_id, WorldListRow.place, WorldListRow.rating).where(
            WorldListRow.list_id == header.id, WorldListRow.player_id.is_not(None)
        )
    ).all()
    merged: dict[int, int] = {
        pid: into
        for pid, into in session.execute(
            select(Player.id, Player.merged_into).where(Player.merged_into.is_not(None))
        )
        if into is not None
    }
    previous: dict[int, tuple[int, float]] = {}
    for player_id, place, rating in rows:
        if player_id is not None:
            # A player merged since is the player merged into.
            previous.setdefault(merged.get(player_id, player_id), (place, rating))
    return previous
