"""Drawing players to tables for an event's rounds (issue 22, first part): how many
tables of which sizes, who sits out, who sits where.

An evening at a club or a championship round is played at several tables at once. For
N players the tables take the sizes the game allows with its options (FIDO 3 to 9
(F-02), the family game 2 to 4, the draw game 2 to 6, Doubles as DB-02 allows, the
partnership game exactly 4), as even as possible and near four a table, the size most
clubs play at (17 FIDO players: 5-4-4-4). When no split seats everybody (the
partnership game with 17), the fewest possible players sit out the round: a bye.

From the second round on the draw keeps players from meeting again: among many
shuffled draws, improved by swapping players between tables, it keeps one with the
fewest pairs of players who have already met (and, between those, spreads byes to the
players who had the fewest). Seat order at a table is by lot. Everything comes from the
``random.Random`` passed in, so a draw replays from its seed.

Pure: no I/O, no database; the event service and the ``pips event`` commands build on it.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from pips.core.errors import OptionError
from pips.core.phrase import phrase
from pips.games.options import GameOptions
from pips.games.registry import Game

PREFERRED_SIZE = 4
"""The table size the draw aims at when several splits are possible."""

LARGEST_TABLE = 9
"""No table seats more (FIDO's largest, F-02)."""

TRIES = 4
"""Shuffled draws a round starts from; each is then improved by swaps."""

STEPS = 3000
"""Swaps tried to improve each of them."""

COOLING = 0.998
"""How fast worse swaps stop being accepted (simulated annealing)."""

REPEAT = 100
"""What two players meeting again costs a draw (squared over their meetings)."""
CLUB = 10
"""What two players of one club at a table cost by default (``normal``): kept apart
as long as that does not make anyone meet again, nor, in a Swiss round, move anyone
from their table by the standings."""
SEEDED = 1000
"""What two of the top seeds (as many as there are tables) at one table cost: seeds are
spread first of all."""
SWISS = 30
"""What a player seated one table away from their place in the standings costs in a
Swiss round: a repeat is worth moving two players a table, a club pair is not."""


CLUBS_APART: dict[str, int] = {
    "off": 0,
    "normal": CLUB,
    "strong": 4 * SWISS,
    "strict": 3 * REPEAT,
}
"""How strongly a draw keeps club-mates apart, the organiser's setting: what two of
one club at a table cost. ``off``: not at all; ``normal``: as long as nothing else
suffers; ``strong``: worth moving two players a table from their place by the
standings in a Swiss round (a swap costs two moves, :data:`SWISS` each); ``strict``:
worth more than two players meeting again (:data:`REPEAT`). Nobody moves more than
one table from their place in a Swiss round, whatever the setting
(``benchmarks/clubs_apart.py`` measures club-mate pairs per round at each)."""


@dataclass(frozen=True)
class Apart:
    """Whom a draw keeps apart besides players who met: players of one club (``clubs``:
    player to club, empty for none), each pair costing ``club_cost``
    (:data:`CLUBS_APART`), and the top seeds (``seeds``: player to seed, 1 the
    strongest), one per table."""

    clubs: Mapping[str, str] = field(default_factory=dict)
    seeds: Mapping[str, int] = field(default_factory=dict)
    club_cost: int = CLUB


@dataclass(frozen=True)
class Table:
    """One table of a round: its number (from 1) and its players in seat order."""

    number: int
    seats: tuple[str, ...]


@dataclass(frozen=True)
class RoundDraw:
    """A round: its tables and the players who sit it out."""

    number: int
    tables: tuple[Table, ...]
    byes: tuple[str, ...]

    def pairs(self) -> Iterable[frozenset[str]]:
        """Every two players who meet at a table of this round."""
        for table in self.tables:
            for a, b in combinations(table.seats, 2):
                yield frozenset((a, b))


@dataclass(frozen=True)
class TableOptions:
    """An event's options (every option but the number of players) parsed once, where
    they enter (a new event, an event read from the database): the game's own typed
    options for each size of table they seat. Past that, pips carries these and
    changes them (:meth:`~pips.games.options.GameOptions.changed`), never parses again."""

    sizes: Mapping[int, GameOptions]
    """A table's options by its number of players, for every number it may seat."""

    @classmethod
    def parse(cls, spec: Game, options: Mapping[str, Any]) -> TableOptions:
        """``options`` as ``spec``'s for each table size; :class:`OptionError` when no
        table can be seated with them."""
        sizes: dict[int, GameOptions] = {}
        for players in range(2, LARGEST_TABLE + 1):
            try:
                sizes[players] = spec.options_from_json({**options, "players": players})
            except (OptionError, TypeError, ValueError):
                continue
        if not sizes:
            raise OptionError("players", phrase("no table of this game can be seated"))
        return cls(sizes)

    def allowed(self) -> tuple[int, ...]:
        """The numbers of players a table seats."""
        return tuple(self.sizes)

    def with_set(self, top: int, players: int | None = None) -> GameOptions | None:
        """A table's options played with double-``top`` (of ``players``, else of any
        size), or ``None`` where no table is played with that set."""
        for size, options in self.sizes.items():
            if players is not None and size != players:
                continue
            try:
                return options.changed(set=top)
            except (OptionError, TypeError, ValueError):
                continue
        return None


def allowed_sizes(spec: Game, options: Mapping[str, Any]) -> tuple[int, ...]:
    """The numbers of players a table of ``spec`` seats with the event's ``options``
    (every option but the number of players): :meth:`TableOptions.parse`'s sizes."""
    return TableOptions.parse(spec, options).allowed()


def table_sizes(players: int, allowed: Sequence[int]) -> tuple[tuple[int, ...], int]:
    """The sizes of the tables for ``players`` and how many sit out: the fewest byes,
    then sizes that differ by at most one, nearest :data:`PREFERRED_SIZE` a table."""
    if players < 0:
        raise ValueError("a number of players is not negative")
    for byes in range(players + 1):
        seated = players - byes
        best: tuple[float, int] | None = None
        chosen: tuple[int, ...] = ()
        for count in range(1, seated // min(allowed) + 1):
            base, extra = divmod(seated, count)
            sizes = (base + 1,) * extra + (base,) * (count - extra)
            if not all(size in allowed for size in sizes):
                continue
            # Nearest the preferred size; between equals, more tables (smaller ones).
            key = (abs(seated / count - PREFERRED_SIZE), -count)
            if best is None or key < best:
                best, chosen = key, sizes
        if chosen:
            return chosen, byes
    return (), players


def draw_round(
    number: int,
    players: Sequence[str],
    allowed: Sequence[int],
    rng: random.Random,
    met: Mapping[frozenset[str], int] | None = None,
    byes_so_far: Mapping[str, int] | None = None,
    apart: Apart | None = None,
) -> RoundDraw:
    """Round ``number`` for ``players``: the tables (:func:`table_sizes`), byes for
    those who had the fewest, and among the draws tried the one whose tables repeat the
    fewest pairs in ``met`` (how often two players met before), then hold the fewest
    players of one club, with the top seeds at different tables (``apart``)."""
    if len(set(players)) != len(players):
        raise ValueError("every player is drawn once")
    met = met or {}
    byes_so_far = byes_so_far or {}
    cost = Cost(met, apart or Apart(), len(table_sizes(len(players), allowed)[0]))
    sizes, bye_count = table_sizes(len(players), allowed)
    # Byes go to those who sat out least often; the lot decides among equals.
    order = sorted(players, key=lambda p: (byes_so_far.get(p, 0), rng.random()))
    resting = tuple(sorted(order[:bye_count]))
    playing = [p for p in players if p not in resting]
    best: list[list[str]] = []
    best_cost = -1
    for _ in range(TRIES):
        pool = list(playing)
        rng.shuffle(pool)
        groups, start = [], 0
        for size in sizes:
            groups.append(pool[start : start + size])
            start += size
        total = _improve(groups, cost, rng)
        if best_cost < 0 or total < best_cost:
            best, best_cost = groups, total
            if total == 0:
                break
    return RoundDraw(number, _seated(best, rng), resting)


def _seated(groups: Sequence[Sequence[str]], rng: random.Random) -> tuple[Table, ...]:
    """The tables of a round, numbered from 1, each one's seat order by lot."""
    tables = []
    for index, group in enumerate(groups, 1):
        seats = list(group)
        rng.shuffle(seats)
        tables.append(Table(index, tuple(seats)))
    return tuple(tables)


def draw_event(
    players: Sequence[str], rounds: int, allowed: Sequence[int], rng: random.Random
) -> list[RoundDraw]:
    """Every round of an event drawn in advance, each avoiding the pairs of the
    rounds before it (a draw by standings needs the results and is made round by
    round)."""
    if rounds < 1:
        raise ValueError("an event has at least one round")
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    drawn = []
    for number in range(1, rounds + 1):
        one = draw_round(number, players, allowed, rng, met, byes)
        met.update(one.pairs())
        byes.update(one.byes)
        drawn.append(one)
    return drawn


def repeats(drawn: Sequence[RoundDraw]) -> int:
    """How many times two players met again at a table after meeting before."""
    met: Counter[frozenset[str]] = Counter()
    again = 0
    for one in drawn:
        for pair in one.pairs():
            again += met[pair] > 0
        met.update(one.pairs())
    return again


@dataclass(frozen=True)
class Cost:
    """What a table of a draw costs: repeated meetings (squared, so that two players
    meeting a third time weighs more than two pairs meeting a second time: repeats are
    spread over the field), then players of one club, then top seeds together; in a
    Swiss round also each player's distance from their table by the standings
    (``home``: player to that table's index)."""

    met: Mapping[frozenset[str], int]
    apart: Apart
    tables: int
    home: Mapping[str, int] = field(default_factory=dict)

    def of(self, group: Sequence[str], index: int = 0) -> int:
        clubs, seeds = self.apart.clubs, self.apart.seeds
        total = 0
        for a, b in combinations(group, 2):
            total += REPEAT * self.met.get(frozenset((a, b)), 0) ** 2
            club = clubs.get(a, "")
            if club and club == clubs.get(b, ""):
                total += self.apart.club_cost
            if seeds.get(a, 0) and seeds.get(b, 0) and max(seeds[a], seeds[b]) <= self.tables:
                total += SEEDED
        if self.home:
            total += SWISS * sum(abs(index - self.home.get(p, index)) for p in group)
        return total


def _improve(groups: list[list[str]], cost: Cost, rng: random.Random) -> int:
    """Lower the cost of the tables by swapping players between them: random swaps,
    kept when they do not raise the total and now and then when they do (simulated
    annealing, so that a draw is not stuck where every single swap looks worse); the
    lowest total is kept in ``groups`` and returned. In a Swiss round (``cost.home``)
    only players of neighbouring tables are swapped, and nobody ends more than one table
    from their place by the standings."""
    costs = [cost.of(g, i) for i, g in enumerate(groups)]
    total = sum(costs)
    if len(groups) < 2 or not total:
        return total
    best = [list(g) for g in groups]
    best_total = total
    temperature = 1.0
    for _ in range(STEPS):
        if not total:
            break
        if cost.home:
            i = rng.randrange(len(groups) - 1)
            j = i + 1
        else:
            i, j = rng.sample(range(len(groups)), 2)
        a, b = rng.randrange(len(groups[i])), rng.randrange(len(groups[j]))
        gi, gj = groups[i], groups[j]
        if cost.home and (abs(j - cost.home[gi[a]]) > 1 or abs(i - cost.home[gj[b]]) > 1):
            continue  # in a Swiss round nobody moves more than a table from their place
        gi[a], gj[b] = gj[b], gi[a]
        ci, cj = cost.of(gi, i), cost.of(gj, j)
        change = ci + cj - costs[i] - costs[j]
        if change <= 0 or rng.random() < math.exp(-change / (temperature * REPEAT)):
            costs[i], costs[j] = ci, cj
            total += change
            if total < best_total:
                best, best_total = [list(g) for g in groups], total
        else:
            gi[a], gj[b] = gj[b], gi[a]
        temperature = max(0.05, temperature * COOLING)
    groups[:] = best
    return best_total


def draw_swiss_round(
    number: int,
    ranking: Sequence[str],
    allowed: Sequence[int],
    rng: random.Random,
    met: Mapping[frozenset[str], int] | None = None,
    byes_so_far: Mapping[str, int] | None = None,
    apart: Apart | None = None,
) -> RoundDraw:
    """Round ``number`` by the standings (``ranking``: best first), the Swiss system's
    principle for tables of more than two: the standings are cut into consecutive
    tables (the leaders at table 1), then players of neighbouring tables are swapped
    where that keeps two players from meeting again (or, worth less, two of one club
    apart), nobody moving more than one table; a bye goes to the lowest-ranked of those
    who had the fewest."""
    if len(set(ranking)) != len(ranking):
        raise ValueError("every player is drawn once")
    met = met or {}
    byes_so_far = byes_so_far or {}
    sizes, bye_count = table_sizes(len(ranking), allowed)
    position = {p: i for i, p in enumerate(ranking)}
    order = sorted(ranking, key=lambda p: (byes_so_far.get(p, 0), -position[p]))
    resting = tuple(sorted(order[:bye_count], key=lambda p: position[p]))
    playing = [p for p in ranking if p not in resting]
    groups, home, start = [], {}, 0
    for index, size in enumerate(sizes):
        groups.append(playing[start : start + size])
        home.update(dict.fromkeys(playing[start : start + size], index))
        start += size
    cost = Cost(met, apart or Apart(), len(sizes), home)
    _improve(groups, cost, rng)
    return RoundDraw(number, _seated(groups, rng), resting)


def draw_pairs_round(
    number: int,
    pairs: Sequence[tuple[str, str]],
    teams: Sequence[Sequence[int]],
    rng: random.Random,
    met: Mapping[frozenset[str], int] | None = None,
    byes_so_far: Mapping[str, int] | None = None,
) -> RoundDraw:
    """Round ``number`` with fixed partners (the partnership game, PT-01): each pair is
    drawn as one, ``len(teams)`` pairs a table, avoiding pairs that met before; at the
    table each pair takes one of the game's ``teams`` of seats (partners opposite), which
    pair sits where and which partner sits first by lot."""
    labels = [str(index) for index in range(len(pairs))]
    met = met or {}
    byes_so_far = byes_so_far or {}
    unit_met = {
        frozenset((str(a), str(b))): met.get(frozenset((pairs[a][0], pairs[b][0])), 0)
        for a, b in combinations(range(len(pairs)), 2)
    }
    unit_byes = {str(i): byes_so_far.get(pair[0], 0) for i, pair in enumerate(pairs)}
    drawn = draw_round(number, labels, (len(teams),), rng, unit_met, unit_byes)
    tables = []
    for table in drawn.tables:
        seats = [""] * sum(len(team) for team in teams)
        for team, label in zip(teams, table.seats, strict=True):
            members = list(pairs[int(label)])
            rng.shuffle(members)
            for seat, member in zip(team, members, strict=True):
                seats[seat] = member
        tables.append(Table(table.number, tuple(seats)))
    byes = tuple(sorted(member for label in drawn.byes for member in pairs[int(label)]))
    return RoundDraw(number, tuple(tables), byes)
