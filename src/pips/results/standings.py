"""An event's standings from the results of its tables (issue 22).

Each table of each round gives every player there a final score and a place
(:class:`TableResult`). The standings add them up by the event's scoring:

- **points** (FIDO, the family game, the draw game, Doubles): the sum of the player's
  final scores (FIDO: points less pips, F-21); ties go to more table wins (first
  places), then to the better average place, then stay tied and share the place;
- **match wins** (the partnership game): matches won first, then the sum of the pair's
  match points; a player's pair changes from round to round, so each player is counted
  alone.

A bye counts as a round played with no points and no win: it is listed, so everyone can
see why a player has one game less.

Pure: the event service and ``pips event`` build on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum


class Scoring(StrEnum):
    """How an event ranks its players."""

    POINTS = "points"
    MATCH_WINS = "match-wins"


@dataclass(frozen=True)
class TableResult:
    """One table of one round: its players in seat order, their final scores and
    places (1 wins; equal places share)."""

    round: int
    table: int
    players: tuple[str, ...]
    finals: tuple[int, ...]
    places: tuple[int, ...]

    def __post_init__(self) -> None:
        if not len(self.players) == len(self.finals) == len(self.places):
            raise ValueError("a table result gives every player a final score and a place")


@dataclass(frozen=True)
class Standing:
    """One player's line: place (shared by ties), the totals and the games behind them."""

    place: int
    name: str
    points: int
    wins: int
    games: int
    byes: int
    average_place: float


def standings(
    results: Iterable[TableResult],
    scoring: Scoring = Scoring.POINTS,
    byes: Iterable[tuple[int, str]] = (),
    players: Sequence[str] = (),
) -> list[Standing]:
    """The standings after ``results`` (and ``byes``: (round, player) pairs); every
    name in ``players`` is listed even before their first game."""
    points: dict[str, int] = dict.fromkeys(players, 0)
    wins: dict[str, int] = dict.fromkeys(players, 0)
    games: dict[str, int] = dict.fromkeys(players, 0)
    place_sum: dict[str, int] = dict.fromkeys(players, 0)
    sat_out: dict[str, int] = dict.fromkeys(players, 0)
    for result in results:
        for name, final, place in zip(result.players, result.finals, result.places, strict=True):
            points[name] = points.get(name, 0) + final
            wins[name] = wins.get(name, 0) + (place == 1)
            games[name] = games.get(name, 0) + 1
            place_sum[name] = place_sum.get(name, 0) + place
    for _round, name in byes:
        sat_out[name] = sat_out.get(name, 0) + 1
    names = set(points) | set(sat_out)

    def average(name: str) -> float:
        played = games.get(name, 0)
        return place_sum.get(name, 0) / played if played else 0.0

    def key(name: str) -> tuple[float, ...]:
        if scoring is Scoring.MATCH_WINS:
            return (-wins.get(name, 0), -points.get(name, 0))
        played = games.get(name, 0)
        # Players who have not played yet come last, not first (an average of 0).
        return (-points.get(name, 0), -wins.get(name, 0), average(name) if played else 99.0)

    ordered = sorted(names, key=lambda n: (key(n), n.casefold()))
    lines: list[Standing] = []
    for index, name in enumerate(ordered):
        # Equal keys share the place of the first of them (1, 2, 2, 4).
        place = lines[-1].place if lines and key(ordered[index - 1]) == key(name) else index + 1
        lines.append(
            Standing(
                place,
                name,
                points.get(name, 0),
                wins.get(name, 0),
                games.get(name, 0),
                sat_out.get(name, 0),
                round(average(name), 2),
            )
        )
    return lines


STANDINGS_FIELDS = ("place", "name", "points", "wins", "games", "byes", "average_place")


def standings_csv(lines: Iterable[Standing]) -> str:
    """The standings as CSV (one row per player, :data:`STANDINGS_FIELDS`); a name a
    spreadsheet would run as a formula is written as text."""
    import csv
    import io

    from pips.results.entry import safe_cell

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(STANDINGS_FIELDS)
    for s in lines:
        writer.writerow(
            [s.place, safe_cell(s.name), s.points, s.wins, s.games, s.byes, s.average_place]
        )
    return out.getvalue()
