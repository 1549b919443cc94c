"""Tiles and double-n sets (SPEC C-01 to C-04).

A tile is an unordered pair of pip numbers, written ``a-b`` with ``a >= b``.
Tiles are interned: ``Tile.of(6, 3) is Tile.of(3, 6)``, so they hash and compare
cheaply and a hand of tiles can be kept in plain sets and dicts.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import NamedTuple

from pips.core.phrase import phrase

MAX_NUMBER = 21
"""The largest double supported (double-21, 253 tiles)."""

_TILE_TEXT = re.compile(r"^\s*(\d{1,2})\s*[-/|:]\s*(\d{1,2})\s*$")


class Tile(NamedTuple):
    """A domino tile ``high-low`` (C-01).

    Build tiles with :meth:`Tile.of` (any order of halves) or :meth:`Tile.parse`;
    both return the one shared instance of that tile.
    """

    high: int
    low: int

    @staticmethod
    def of(a: int, b: int) -> Tile:
        """The tile with halves ``a`` and ``b`` in either order."""
        if not (0 <= a <= MAX_NUMBER and 0 <= b <= MAX_NUMBER):
            raise ValueError(
                phrase(
                    "C-01: tile halves must be 0 to {most}, got {a}-{b}", most=MAX_NUMBER, a=a, b=b
                )
            )
        return _TILES[a][b]

    @staticmethod
    def parse(text: str) -> Tile:
        """Parse ``"12-9"`` (also ``9-12``, ``12/9``) into a tile."""
        match = _TILE_TEXT.match(text)
        if match is None:
            raise ValueError(phrase("not a tile: {text!r} (write it like 12-9)", text=text))
        return Tile.of(int(match.group(1)), int(match.group(2)))

    @property
    def ordinal(self) -> int:
        """A dense id, the same in every set: ``high*(high+1)/2 + low``."""
        return self.high * (self.high + 1) // 2 + self.low

    @property
    def pips(self) -> int:
        """C-01: the sum of both halves."""
        return self.high + self.low

    @property
    def is_double(self) -> bool:
        return self.high == self.low

    @property
    def difference(self) -> int:
        """C-01: ``high - low`` (the FIDO player's view of a tile)."""
        return self.high - self.low

    @property
    def heaviness(self) -> tuple[int, int]:
        """C-04 sort key: pip total, then the higher half (6-3 beats 5-4)."""
        return (self.high + self.low, self.high)

    def contains(self, number: int) -> bool:
        return self.high == number or self.low == number

    def other(self, number: int) -> int:
        """The half opposite ``number`` (which the tile must contain)."""
        if self.high == number:
            return self.low
        if self.low == number:
            return self.high
        raise ValueError(f"{self} has no {number}")

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"

    def __repr__(self) -> str:
        return f"Tile({self.high}-{self.low})"

    def to_json(self) -> list[int]:
        return [self.high, self.low]


_TILES: list[list[Tile]] = [
    [tuple.__new__(Tile, (max(a, b), min(a, b))) for b in range(MAX_NUMBER + 1)]
    for a in range(MAX_NUMBER + 1)
]
for _a in range(MAX_NUMBER + 1):
    for _b in range(_a):
        _TILES[_b][_a] = _TILES[_a][_b]

DOUBLES: tuple[Tile, ...] = tuple(_TILES[n][n] for n in range(MAX_NUMBER + 1))
"""``DOUBLES[n]`` is the tile n-n."""


def set_size(top: int) -> int:
    """C-02: a double-``top`` set has (n+1)(n+2)/2 tiles."""
    return (top + 1) * (top + 2) // 2


_SETS: tuple[tuple[Tile, ...], ...] = tuple(
    tuple(_TILES[a][b] for a in range(top + 1) for b in range(a + 1))
    for top in range(MAX_NUMBER + 1)
)
_SET_MEMBERS: tuple[frozenset[Tile], ...] = tuple(frozenset(tiles) for tiles in _SETS)


def double_set(top: int) -> tuple[Tile, ...]:
    """C-02: every tile of a double-``top`` set, ordered by :attr:`Tile.ordinal`."""
    if not 0 <= top <= MAX_NUMBER:
        raise ValueError(f"C-02: sets go from double-0 to double-{MAX_NUMBER}, got double-{top}")
    return _SETS[top]


def set_members(top: int) -> frozenset[Tile]:
    """The tiles of a double-``top`` set, for membership tests."""
    double_set(top)  # the same range check
    return _SET_MEMBERS[top]


def pip_total(tiles: Iterable[Tile]) -> int:
    """C-03: the pips of a group of tiles."""
    return sum(t.high + t.low for t in tiles)


def highest_double(tiles: Iterable[Tile]) -> Tile | None:
    """C-04: the double with the largest number among ``tiles``, if any."""
    best: Tile | None = None
    for tile in tiles:
        if tile.high == tile.low and (best is None or tile.high > best.high):
            best = tile
    return best


def highest_double_holder(hands: Sequence[Collection[Tile]]) -> tuple[int, Tile] | None:
    """The seat holding the highest double of all ``hands`` (C-04), with that double;
    None if nobody holds one. The one rule of who opens with a double (F-09, FA-02,
    DR-02, DB-04).

    >>> six_one, three, five, two = map(Tile.parse, ["6-1", "3-3", "5-5", "2-0"])
    >>> highest_double_holder([[six_one, three], [five, two]])
    (1, Tile(5-5))
    """
    double = highest_double(tile for hand in hands for tile in hand)
    if double is None:
        return None
    return next(seat for seat, hand in enumerate(hands) if double in hand), double


def heaviest(tiles: Iterable[Tile]) -> Tile | None:
    """C-04: the heaviest tile among ``tiles`` (never tied), if any."""
    return max(tiles, key=lambda t: (t.high + t.low, t.high), default=None)
