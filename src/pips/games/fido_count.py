"""The FIDO set's numbers and its count: the divisor of each set (F-01), the tiles each
player holds (F-02), and what the count is worth: the open-end sum S a play makes (F-05
to F-10, F-23), the points it scores (F-15), the highest count a set can show, and the
Ratzek order of a hand by how its tiles move S (F-03). Plain arithmetic on tiles, shared
by the engine, the bots and the sheets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pips.core.moves import At, Move, Play
from pips.core.tiles import Tile

DIVISORS: Mapping[int, int] = {6: 3, 9: 5, 12: 7, 15: 9, 18: 11}
"""F-01: the divisor of each set."""


HAND_SIZES: Mapping[int, Mapping[int, int]] = {
    3: {6: 7, 9: 13, 12: 22, 15: 34, 18: 47},
    4: {6: 5, 9: 11, 12: 18, 15: 27, 18: 38},
    5: {6: 4, 9: 9, 12: 15, 15: 22, 18: 31},
    6: {6: 4, 9: 7, 12: 13, 15: 19, 18: 27},
    7: {6: 3, 9: 6, 12: 11, 15: 17, 18: 23},
    8: {6: 3, 9: 6, 12: 10, 15: 15, 18: 21},
    9: {6: 2, 9: 5, 12: 9, 15: 13, 18: 19},
}
"""F-02: tiles per player, by number of players and set."""


def count_after(count: int, move: Play) -> int:
    """The count ``S`` after ``move`` is laid on a layout whose count is ``count``.

    F-10: the opening double gives 2n. F-05: a double across adds its number.
    F-06: a tile on an open end changes S by its difference. F-07: a tile at a naked
    side adds its free number. F-23: a double in line leaves S unchanged.
    """
    tile = move.tile
    if move.at is At.OPEN:
        return tile.high + tile.low
    if move.at is At.SIDE:
        return count + move.free
    if tile.high == tile.low:
        return count if move.inline else count + tile.high
    return count - move.touching + move.free


def points_for(count: int, divisor: int) -> int:
    """F-15: ``S/d`` when the count divides by the divisor, else nothing."""
    return count // divisor if count % divisor == 0 else 0


def count_of(count: int, move: Move) -> int | None:
    """The count ``S`` that ``move`` would make on a layout counting ``count``."""
    return count_after(count, move) if isinstance(move, Play) else None


def effect(tile: Tile, divisor: int) -> int:
    """The residue class by which a tile moves the count modulo the divisor.

    A tile on an open end changes S by its difference (F-06), a double across adds its
    number (F-05); either way only the value modulo ``d`` matters for scoring (F-15).
    """
    return (tile.high if tile.is_double else tile.difference) % divisor


def ratzek_rows(tiles: Sequence[Tile], divisor: int) -> list[list[Tile]]:
    """The hand in the "Daniela Ratzek" order (F-03, non-normative), row by row.

    Tiles whose effect is ``k`` and ``d - k`` act alike (+k scores when -(d-k) does), so
    each row holds class ``k`` ascending followed by class ``d - k`` descending, as the
    source lays them out; rows go ``k = 1, 2, ...`` and the divisor's own class (the
    "holy" differences) is the last, highest row. Empty rows are left out.

    >>> hand = [Tile.of(0, 3), Tile.of(5, 1), Tile.of(6, 2), Tile.of(4, 4), Tile.of(7, 0),
    ...         Tile.of(9, 6), Tile.of(8, 7), Tile.of(12, 2)]
    >>> [" ".join(map(str, row)) for row in ratzek_rows(hand, 7)]
    ['8-7', '3-0 12-2 9-6 6-2 5-1 4-4', '7-0']
    """
    by_class: dict[int, list[Tile]] = {}
    for tile in tiles:
        by_class.setdefault(effect(tile, divisor), []).append(tile)
    rows: list[list[Tile]] = []
    for k in range(1, divisor // 2 + 1):
        up = sorted(by_class.get(k, ()), key=lambda t: (t.low, t.high))
        down = [] if divisor - k == k else by_class.get(divisor - k, [])
        row = up + sorted(down, key=lambda t: (t.high, t.low), reverse=True)
        if row:
            rows.append(row)
    if by_class.get(0):
        rows.append(sorted(by_class[0], key=lambda t: (t.low, t.high)))
    return rows


def most_count(top: int) -> int:
    """The highest count S any layout of double-``top`` can show (F-04): the opening
    double gives two open ends, every other double one more (F-05) and every naked
    side used one more (F-07), so there are at most ``2 * top + 4`` open ends, and each
    number lies on only ``top + 2`` halves of the set."""
    ends = 2 * top + 4
    halves = [value for value in range(top, -1, -1) for _ in range(top + 2)]
    return sum(halves[:ends])
