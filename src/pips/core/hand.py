"""A player's hand: tiles in the order they were taken, indexed by number.

Legal-move generation asks "which of my tiles contain v?" once per open end, so the
hand keeps that answer ready instead of scanning itself: the cost of a lookup does
not grow with the size of the set or of the hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pips.core.tiles import Tile


class Hand:
    """Tiles held by one seat. Iteration yields them in the order they were taken."""

    __slots__ = ("_by_number", "_pips", "_sorted", "_tiles")

    def __init__(self, tiles: Iterable[Tile] = ()) -> None:
        order = list(tiles)
        self._tiles: dict[Tile, None] = dict.fromkeys(order)
        if len(self._tiles) != len(order):
            twice = next(t for t in order if order.count(t) > 1)
            raise ValueError(f"{twice} is already in this hand")
        by_number: dict[int, dict[Tile, None]] = {}
        for tile in order:
            by_number.setdefault(tile.high, {})[tile] = None
            if tile.low != tile.high:
                by_number.setdefault(tile.low, {})[tile] = None
        self._by_number = by_number
        # Sorted tuples per number, built on demand and dropped when the number changes.
        self._sorted: dict[int, tuple[Tile, ...]] = {}
        self._pips = sum(t.high + t.low for t in order)

    def add(self, tile: Tile) -> None:
        if tile in self._tiles:
            raise ValueError(f"{tile} is already in this hand")
        self._tiles[tile] = None
        self._by_number.setdefault(tile.high, {})[tile] = None
        self._sorted.pop(tile.high, None)
        if tile.low != tile.high:
            self._by_number.setdefault(tile.low, {})[tile] = None
            self._sorted.pop(tile.low, None)
        self._pips += tile.high + tile.low

    def remove(self, tile: Tile) -> None:
        del self._tiles[tile]
        del self._by_number[tile.high][tile]
        self._sorted.pop(tile.high, None)
        if tile.low != tile.high:
            del self._by_number[tile.low][tile]
            self._sorted.pop(tile.low, None)
        self._pips -= tile.high + tile.low

    def with_number(self, number: int) -> Iterable[Tile]:
        """The tiles containing ``number``, in the order they were taken."""
        return self._by_number.get(number, {}).keys()

    def sorted_with_number(self, number: int) -> tuple[Tile, ...]:
        """The tiles containing ``number``, in tile order (``high``, then ``low``)."""
        cached = self._sorted.get(number)
        if cached is None:
            cached = self._sorted[number] = tuple(sorted(self._by_number.get(number, ())))
        return cached

    def has_number(self, number: int) -> bool:
        return bool(self._by_number.get(number))

    @property
    def pips(self) -> int:
        """C-03: the pip total of the hand, kept up to date incrementally."""
        return self._pips

    def __contains__(self, tile: object) -> bool:
        return tile in self._tiles

    def __iter__(self) -> Iterator[Tile]:
        return iter(self._tiles)

    def __len__(self) -> int:
        return len(self._tiles)

    def __repr__(self) -> str:
        return f"Hand({' '.join(map(str, self._tiles))})"

    def copy(self) -> Hand:
        clone = Hand.__new__(Hand)
        clone._tiles = dict(self._tiles)
        clone._by_number = {n: dict(ts) for n, ts in self._by_number.items()}
        clone._sorted = dict(self._sorted)
        clone._pips = self._pips
        return clone
