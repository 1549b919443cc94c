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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from pips.core.phrase import N_, phrase
from pips.text import sort_key


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


TIEBREAKS: dict[str, str] = {
    "wins": N_("more table wins (first places)"),
    "average-place": N_("the better average place"),
    "buchholz": N_("the stronger opponents: the sum of the points of everyone met (Buchholz)"),
    "best-game": N_("the best single game"),
    "fewer-byes": N_("fewer byes"),
}
"""The tie-breaks an organiser chooses from, in the order chosen (docs/events.md):
equal points are decided by the first that differs; equal in all, players share the
place."""

DEFAULT_TIEBREAKS = ("wins", "average-place")


def check_tiebreaks(chosen: Sequence[str]) -> tuple[str, ...]:
    """The organiser's tie-breaks, each known and named once, or :class:`ValueError`."""
    found = tuple(dict.fromkeys(str(c).strip() for c in chosen if str(c).strip()))
    unknown = [c for c in found if c not in TIEBREAKS]
    if unknown:
        raise ValueError(
            phrase(
                "unknown tie-break {names}: choose from {choices}",
                names=", ".join(unknown),
                choices=", ".join(TIEBREAKS),
            )
        )
    return found


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
    buchholz: int = 0
    """The sum of the points of every opponent met, once per meeting."""
    best: int = 0
    """The best single game's final score."""
    final_place: int | None = None
    """The place at the final table (finalists are ranked by it first)."""


def standings(
    results: Iterable[TableResult],
    scoring: Scoring = Scoring.POINTS,
    byes: Iterable[tuple[int, str]] = (),
    players: Sequence[str] = (),
    *,
    tiebreaks: Sequence[str] = DEFAULT_TIEBREAKS,
    finals: Iterable[int] = (),
) -> list[Standing]:
    """The standings after ``results`` (and ``byes``: (round, player) pairs); every
    name in ``players`` is listed even before their first game. Equal points are
    decided by ``tiebreaks`` (:data:`TIEBREAKS`, in order). The rounds in ``finals``
    are final tables: their players rank first, by their place there (equal places
    by the standings before it), and their final's points do not count in the
    totals, which compare the rounds everybody played."""
    final_rounds = set(finals)
    every = list(results)
    regular = [r for r in every if r.round not in final_rounds]
    points: dict[str, int] = dict.fromkeys(players, 0)
    wins: dict[str, int] = dict.fromkeys(players, 0)
    games: dict[str, int] = dict.fromkeys(players, 0)
    place_sum: dict[str, float] = dict.fromkeys(players, 0.0)
    best: dict[str, int] = {}
    sat_out: dict[str, int] = dict.fromkeys(players, 0)
    for result in regular:
        for name, final, place in zip(result.players, result.finals, result.places, strict=True):
            points[name] = points.get(name, 0) + final
            wins[name] = wins.get(name, 0) + (place == 1)
            games[name] = games.get(name, 0) + 1
            place_sum[name] = place_sum.get(name, 0.0) + as_at_four(place, len(result.players))
            best[name] = max(best.get(name, final), final)
    for _round, name in byes:
        sat_out[name] = sat_out.get(name, 0) + 1
    buchholz: dict[str, int] = {}
    for result in regular:
        for name in result.players:
            buchholz[name] = buchholz.get(name, 0) + sum(
                points.get(other, 0) for other in result.players if other != name
            )
    final_place: dict[str, int] = {}
    for result in every:
        if result.round in final_rounds:
            for name, place in zip(result.players, result.places, strict=True):
                final_place[name] = place
    names = set(points) | set(sat_out) | set(final_place)

    def average(name: str) -> float:
        played = games.get(name, 0)
        return place_sum.get(name, 0) / played if played else 0.0

    def tiebreak(name: str, rule: str) -> float:
        if rule == "wins":
            return -wins.get(name, 0)
        if rule == "average-place":
            # Players who have not played yet come last, not first (an average of 0).
            return average(name) if games.get(name, 0) else 99.0
        if rule == "buchholz":
            return -buchholz.get(name, 0)
        if rule == "best-game":
            return -best.get(name, -(10**6))
        return sat_out.get(name, 0)  # fewer-byes

    def key(name: str) -> tuple[float, ...]:
        # Finalists first, by their final place; then everyone who played, by points
        # and tie-breaks; a player with no game yet (absent, or arriving later) last,
        # whatever the points of those who played (FIDO's can be below zero).
        finalist = (
            final_place.get(name, 10**6),
            0 if games.get(name, 0) or name in final_place else 1,
        )
        if scoring is Scoring.MATCH_WINS:
            return (*finalist, -wins.get(name, 0), -points.get(name, 0))
        return (
            *finalist,
            -points.get(name, 0),
            *(tiebreak(name, rule) for rule in tiebreaks),
        )

    ordered = sorted(names, key=lambda n: (key(n), sort_key(n)))
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
                buchholz.get(name, 0),
                best.get(name, 0),
                final_place.get(name),
            )
        )
    return lines


def as_at_four(place: int, size: int) -> float:
    """A place at a table of ``size`` as the place it is worth at a table of four, for
    the average place: the share of the table finishing ahead, counting a shared
    place half, ``(place − ½) / size``, put on a table of four's scale. At a table
    of four a place is itself; the last of five (4.1) did worse than the last of
    four (4.0), having lost to one more, and the first of five (0.9) better than the
    first of four; at any table size the middle is 2.5, so players at larger tables
    are neither favoured nor held back.

    >>> as_at_four(4, 4), as_at_four(5, 5), as_at_four(1, 5), as_at_four(3, 5)
    (4.0, 4.1, 0.9, 2.5)
    """
    return round(4 * (place - 0.5) / size + 0.5, 6)


@dataclass(frozen=True)
class GroupStanding:
    """A club's or a team's line: its place, its points (the sum of its best
    ``counted`` players'), and the players behind them."""

    place: int
    name: str
    points: int
    counted: tuple[str, ...]
    players: int


def group_standings(
    lines: Sequence[Standing], group_of: Mapping[str, str], counted: int = 3
) -> list[GroupStanding]:
    """Club or team standings from the players' (``group_of``: player to club or
    team, empty for none): each group's best ``counted`` players' points, so that a
    club with more players at the event has no advantage; a group with fewer counts
    what it has. Ties share the place."""
    members: dict[str, list[Standing]] = {}
    for line in lines:
        group = group_of.get(line.name, "")
        if group:
            members.setdefault(group, []).append(line)
    rows = []
    for group, found in members.items():
        top = sorted(found, key=lambda s: (-s.points, sort_key(s.name)))[:counted]
        rows.append((group, sum(s.points for s in top), tuple(s.name for s in top), len(found)))
    rows.sort(key=lambda r: (-r[1], sort_key(r[0])))
    out: list[GroupStanding] = []
    for index, (group, total, names, size) in enumerate(rows):
        place = out[-1].place if out and out[-1].points == total else index + 1
        out.append(GroupStanding(place, group, total, names, size))
    return out
