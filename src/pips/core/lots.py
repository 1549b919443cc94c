"""Drawing lots for seats (DB-01, PT-01).

Every entrant draws one tile face down; pip totals decide. Where a tie leaves the
decisive place open, only the tied entrants draw again, from the tiles that are left,
until it is decided. The same procedure serves a live match (tiles from a seeded
shuffle) and a replayed record (tiles as written), so a record's lots can be checked.

Entrants are numbered in the order they sit around the table, before the lots; the
result is a *seating*: ``seating[seat]`` is the entrant who takes that seat.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import NamedTuple

from pips.core.deal import shuffled
from pips.core.tiles import Tile, double_set


class LotRule(StrEnum):
    FIRST_PLAYER = "first_player"
    """DB-01: the heaviest draw takes seat 0, the others keep their order around the table."""
    PAIRS = "pairs"
    """PT-01: the highest and the lowest draw are partners (seats 0 and 2), the two
    others the other pair (seats 1 and 3, the higher draw first)."""


class LotDraw(NamedTuple):
    entrant: int
    tile: Tile


class Lots(NamedTuple):
    draws: tuple[LotDraw, ...]
    seating: tuple[int, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "draws": [[d.entrant, d.tile.to_json()] for d in self.draws],
            "seating": list(self.seating),
        }


def run_lots(players: int, rule: LotRule, take: Callable[[int], Tile]) -> Lots:
    """Run the lot procedure; ``take(entrant)`` gives the tile that entrant draws."""
    keys: dict[int, list[int]] = {e: [] for e in range(players)}
    draws: list[LotDraw] = []
    pending = list(range(players))
    while pending:
        for entrant in pending:
            tile = take(entrant)
            draws.append(LotDraw(entrant, tile))
            keys[entrant].append(tile.pips)
        # Highest first; entrants still tied keep their order around the table.
        order = sorted(range(players), key=lambda e: keys[e], reverse=True)
        decisive = [order[0]] if rule is LotRule.FIRST_PLAYER else [order[0], order[-1]]
        tied: set[int] = set()
        for place in decisive:
            group = [e for e in order if keys[e] == keys[place]]
            if len(group) > 1:
                tied.update(group)
        pending = sorted(tied)
    if rule is LotRule.FIRST_PLAYER:
        first = order[0]
        seating = tuple((first + i) % players for i in range(players))
    else:
        seating = (order[0], order[1], order[-1], order[2])
    return Lots(tuple(draws), seating)


def draw_lots(players: int, rule: LotRule, top: int, rng: random.Random) -> Lots:
    """Lots from a shuffled double-``top`` set; should a long run of ties empty it, the
    whole set is shuffled again (the tiles are only lots)."""
    pool: list[Tile] = []

    def take(_: int) -> Tile:
        if not pool:
            pool.extend(shuffled(double_set(top), rng))
        return pool.pop()

    return run_lots(players, rule, take)


def replay_lots(players: int, rule: LotRule, draws: Sequence[LotDraw]) -> Lots:
    """The lots that ``draws`` decide; ValueError if the draws do not follow the
    procedure (a wrong entrant, too few or too many draws)."""
    queue = list(draws)

    def take(entrant: int) -> Tile:
        if not queue:
            raise ValueError("the lots end before they are decided")
        drawn = queue.pop(0)
        if drawn.entrant != entrant:
            raise ValueError(f"entrant {entrant} draws next, not {drawn.entrant}")
        return drawn.tile

    lots = run_lots(players, rule, take)
    if queue:
        raise ValueError("there are draws after the lots were decided")
    return lots
