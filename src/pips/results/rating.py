"""The pips rating: a world list per game family from multiplayer results.

Every game is one ranked result for openskill's Plackett-Luce model: a FIDO game of up
to nine players is one ranking of nine, a partnership game a ranking of two pairs.
Games are taken in the order they were played. Recent games weigh more: a game played
``a`` days before the list's cut-off moves the ratings by the fraction

    w = 0.5 ** (a / half_life_days)

of what openskill's update would move them (the mean moves ``w`` of its step, the
variance ``w`` of its change), so a game half a life old counts half. With ``w = 1``
the update is openskill's own, exactly.

The list is computed from scratch each month from every result known at the cut-off:
a result entered late joins the next month's computation at its real date, where it
weighs what its age says (F-25: later results are included later and count less).

FIDO's own ranking (F-25) is not public and is never computed here; the pips rating is
this platform's own number, ``mu - 3 sigma`` (openskill's ordinal: a player is at least
this good with high confidence), and is called so everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from openskill.models import PlackettLuce, PlackettLuceRating

NAME = "pips rating"


@dataclass(frozen=True, slots=True)
class RatingSettings:
    """How a list is computed; stored with every published list."""

    half_life_days: float = 365.0
    """Days after which a game weighs half (a setting: ``--half-life``,
    ``PIPS_RATING_HALF_LIFE``)."""
    min_games: int = 1
    """Games a player needs to be listed."""

    def __post_init__(self) -> None:
        if not self.half_life_days > 0 or math.isinf(self.half_life_days):
            raise ValueError("the half-life is a positive number of days")
        if self.min_games < 1:
            raise ValueError("a player needs at least one game to be listed")

    def weight(self, played_on: date, as_of: date) -> float:
        age = max(0, (as_of - played_on).days)
        return float(0.5 ** (age / self.half_life_days))

    def to_json(self) -> dict[str, float | int | str]:
        return {
            "model": "openskill PlackettLuce",
            "half_life_days": self.half_life_days,
            "min_games": self.min_games,
        }


@dataclass(frozen=True, slots=True)
class RatedGame:
    """One result as the rating sees it: teams of players (by :attr:`PlayerRating.key`)
    and their places."""

    played_on: date
    result_id: int
    """The result's id, which orders the games of one day as they were entered (a pool
    without results, as the bots' games or the worked example, numbers its games)."""
    teams: tuple[tuple[str, ...], ...]
    ranks: tuple[int, ...]
    weight: float = 1.0
    """A further factor of the game's weight (a rematch of the same accounts at the
    server's tables weighs less: :mod:`pips.results.fairplay`)."""


@dataclass(slots=True)
class PlayerRating:
    key: str
    """Who is rated: a player's id on the world list, a bot's name in the bots' pool."""
    mu: float
    sigma: float
    games: int = 0
    last_played: date | None = None

    @property
    def rating(self) -> float:
        return self.mu - 3 * self.sigma


def model() -> PlackettLuce:
    return PlackettLuce()


def rate(
    engine: PlackettLuce,
    ratings: Sequence[Sequence[PlackettLuceRating]],
    ranks: Sequence[int],
    weight: float = 1.0,
) -> list[list[tuple[float, float]]]:
    """New (mu, sigma) of every player of one game: openskill's update scaled by
    ``weight`` (1 is openskill's own)."""
    teams = [list(team) for team in ratings]
    updated = engine.rate(teams, ranks=[float(r) for r in ranks])
    out: list[list[tuple[float, float]]] = []
    for before_team, after_team in zip(ratings, updated, strict=True):
        row = []
        for before, after in zip(before_team, after_team, strict=True):
            if weight == 1.0:
                row.append((after.mu, after.sigma))
                continue
            mu = before.mu + weight * (after.mu - before.mu)
            variance = before.sigma**2 + weight * (after.sigma**2 - before.sigma**2)
            row.append((mu, math.sqrt(variance)))
        out.append(row)
    return out


def compute(
    games: Iterable[RatedGame], as_of: date, settings: RatingSettings | None = None
) -> list[PlayerRating]:
    """The standings after ``games`` (any order: they are taken as played), weighted as
    seen on ``as_of``; best first, players with too few games left out."""
    settings = settings or RatingSettings()
    engine = model()
    players: dict[str, PlayerRating] = {}
    mu0, sigma0 = engine.mu, engine.sigma
    for game in sorted(games, key=lambda g: (g.played_on, g.result_id)):
        standings = [
            [
                players.get(name) or players.setdefault(name, PlayerRating(name, mu0, sigma0))
                for name in team
            ]
            for team in game.teams
        ]
        ratings = [[engine.rating(mu=s.mu, sigma=s.sigma) for s in team] for team in standings]
        weight = settings.weight(game.played_on, as_of) * game.weight
        for team, new in zip(standings, rate(engine, ratings, game.ranks, weight), strict=True):
            for standing, (mu, sigma) in zip(team, new, strict=True):
                standing.mu, standing.sigma = mu, sigma
                standing.games += 1
                standing.last_played = game.played_on
    listed = [s for s in players.values() if s.games >= settings.min_games]
    listed.sort(key=lambda s: (-s.rating, s.key))
    return listed


EVENING: tuple[tuple[tuple[str, int, int], ...], ...] = (
    (("Anna", 80, 1), ("Ben", 20, 2), ("Cleo", 15, 3)),
    (("Dora", 30, 1), ("Emil", 28, 2), ("Fritz", 5, 3)),
    (("Dora", 25, 1), ("Emil", 20, 2), ("Anna", 10, 3)),
    (("Ben", 30, 1), ("Cleo", 12, 2), ("Fritz", 10, 3)),
)
"""A club evening of six new players, two rounds at two tables of three: each table's
players with their final score and place. The worked example of the list page and of
docs/results.md: Anna scores most points, Dora wins both her tables."""


@dataclass(frozen=True, slots=True)
class ExampleLine:
    name: str
    points: int
    places: tuple[int, ...]
    mu: float
    sigma: float
    rating: float


def worked_example(day: date = date(2026, 10, 2)) -> list[ExampleLine]:
    """:data:`EVENING` rated as the list rates it (no age weighting: the evening is
    the list's last day), best rating first."""
    games = [
        RatedGame(day, order, tuple((name,) for name, _, _ in table), tuple(p for *_, p in table))
        for order, table in enumerate(EVENING)
    ]
    rated = {s.key: s for s in compute(games, day)}
    points: dict[str, int] = {}
    places: dict[str, list[int]] = {}
    for table in EVENING:
        for name, score, place in table:
            points[name] = points.get(name, 0) + score
            places.setdefault(name, []).append(place)
    return [
        ExampleLine(s.key, points[s.key], tuple(places[s.key]), s.mu, s.sigma, s.rating)
        for s in sorted(rated.values(), key=lambda s: -s.rating)
    ]
