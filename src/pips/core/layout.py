"""Layouts: the tree of laid tiles and its open attachment points (C-07, F-04).

Four kinds are shared by the games: the FIDO cross (:class:`CrossLayout`), a two-ended
line and a line whose doubles branch (:class:`LineLayout`), and a line around a spinner
(:class:`SpinnerLayout`).

A layout keeps two things:

* the real tree, ``tiles``: every laid tile with the point it was attached to, for
  display and replay;
* the open attachment points, each with a stable integer id handed out in the order
  the points appear. Ids never change or get reused, so a move can name its point.

For rule purposes the game only needs the multiset of open-end values, the naked
sides and the count ``S`` (F-04); those are kept incrementally, and the points are
indexed by value so legal-move generation costs in proportion to the open points,
never to the size of the set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple, Self

from pips.core.moves import At
from pips.core.tiles import Tile


class Point(NamedTuple):
    """An open place to attach a tile: an open end or a naked side.

    ``node`` is the index in :attr:`Layout.tiles` of the tile it belongs to and
    ``slot`` says which part of that tile it is (``free``, ``half-a``, ``half-b``,
    ``side-a``, ``side-b``), for clients that draw the layout.
    """

    id: int
    value: int
    kind: At
    node: int
    slot: str


class Laid(NamedTuple):
    """A tile in the layout: attached at point ``on`` (``-1`` for the first tile).

    ``slot`` is the slot of that point on the ``parent`` tile (``""`` for the first
    tile), so a client can draw where on its parent a tile hangs.
    """

    tile: Tile
    touching: int
    on: int
    parent: int
    across: bool
    seat: int
    slot: str = ""


class Layout:
    """Base layout: the tree, the open points and their indexes. Games subclass it."""

    __slots__ = (
        "_count",
        "_doubles",
        "_ends",
        "_laid_with",
        "_next_id",
        "_points",
        "_sides",
        "tiles",
    )

    def __init__(self) -> None:
        self.tiles: list[Laid] = []
        self._doubles: set[int] = set()
        self._laid_with: dict[int, int] = {}
        self._points: dict[int, Point] = {}
        self._ends: dict[int, dict[int, None]] = {}
        self._sides: dict[int, dict[int, None]] = {}
        self._next_id = 0
        self._count = 0

    # -- reading -------------------------------------------------------------------

    @property
    def count(self) -> int:
        """``S``: the sum of the values of all open ends (naked sides excluded, F-04)."""
        return self._count

    @property
    def points(self) -> list[Point]:
        """Every open point, in id order."""
        return list(self._points.values())

    def iter_points(self) -> Iterable[Point]:
        """Every open point in id order, without copying (do not change the layout
        while iterating)."""
        return self._points.values()

    @property
    def next_point_id(self) -> int:
        """The id the next point to open will get."""
        return self._next_id

    def point(self, point_id: int) -> Point | None:
        return self._points.get(point_id)

    @property
    def open_ends(self) -> list[Point]:
        return [p for p in self._points.values() if p.kind is At.END]

    @property
    def naked_sides(self) -> list[Point]:
        return [p for p in self._points.values() if p.kind is At.SIDE]

    def end_values(self) -> list[int]:
        """The distinct values that have at least one open end."""
        return list(self._ends)

    def side_values(self) -> list[int]:
        """The distinct values that have at least one naked side."""
        return list(self._sides)

    def ends_by_value(self) -> Mapping[int, Iterable[int]]:
        """Open-end ids grouped by value (a live read-only view, for move generation)."""
        return self._ends

    def sides_by_value(self) -> Mapping[int, Iterable[int]]:
        """Naked-side ids grouped by value (a live read-only view)."""
        return self._sides

    def ends_with(self, value: int) -> list[int]:
        """Ids of the open ends of ``value``, oldest first."""
        return list(self._ends.get(value, ()))

    def sides_with(self, value: int) -> list[int]:
        return list(self._sides.get(value, ()))

    def contains_double(self, number: int) -> bool:
        """Whether ``number-number`` has been laid (the Doubles game's DB-06 asks this)."""
        return number in self._doubles

    def laid_with(self, number: int) -> int:
        """How many laid tiles contain ``number`` (a double counts once)."""
        return self._laid_with.get(number, 0)

    def __len__(self) -> int:
        return len(self.tiles)

    # -- changing --------------------------------------------------------------------

    def open_with(self, tile: Tile, seat: int) -> None:
        """Lay the first tile of the hand."""
        raise NotImplementedError

    def attach(
        self, tile: Tile, touching: int, point_id: int, seat: int, inline: bool = False
    ) -> None:
        """Lay ``tile`` with ``touching`` against open point ``point_id``; the caller has
        checked legality. ``inline`` lays a double in line (F-23) where the layout has
        doubles across."""
        raise NotImplementedError

    def replay(self, laid: Iterable[Laid]) -> Self:
        """Lay ``laid`` (another layout's tiles, as a view shows them) in order on this
        empty layout of the same kind: the same points with the same ids follow."""
        for tile in laid:
            if tile.on < 0:
                self.open_with(tile.tile, tile.seat)
            else:
                double = tile.tile.high == tile.tile.low
                self.attach(
                    tile.tile, tile.touching, tile.on, tile.seat, double and not tile.across
                )
        return self

    def _open(self, value: int, kind: At, node: int, slot: str) -> None:
        point = Point(self._next_id, value, kind, node, slot)
        self._next_id += 1
        self._points[point.id] = point
        index = self._ends if kind is At.END else self._sides
        index.setdefault(value, {})[point.id] = None
        if kind is At.END:
            self._count += value

    def _close(self, point: Point) -> None:
        del self._points[point.id]
        index = self._ends if point.kind is At.END else self._sides
        bucket = index[point.value]
        del bucket[point.id]
        if not bucket:
            del index[point.value]
        if point.kind is At.END:
            self._count -= point.value

    def _lay(self, tile: Tile, touching: int, on: Point | None, across: bool, seat: int) -> int:
        laid = self._laid_with
        laid[tile.high] = laid.get(tile.high, 0) + 1
        if tile.high == tile.low:
            self._doubles.add(tile.high)
        else:
            laid[tile.low] = laid.get(tile.low, 0) + 1
        self.tiles.append(
            Laid(
                tile,
                touching,
                -1 if on is None else on.id,
                -1 if on is None else on.node,
                across,
                seat,
                "" if on is None else on.slot,
            )
        )
        return len(self.tiles) - 1

    def copy(self) -> Self:
        clone = self.__class__.__new__(self.__class__)
        clone.tiles = list(self.tiles)
        clone._doubles = set(self._doubles)
        clone._laid_with = dict(self._laid_with)
        clone._points = dict(self._points)
        clone._ends = {v: dict(ids) for v, ids in self._ends.items()}
        clone._sides = {v: dict(ids) for v, ids in self._sides.items()}
        clone._next_id = self._next_id
        clone._count = self._count
        return clone

    def snapshot(self) -> LayoutView:
        return LayoutView(tuple(self.tiles), tuple(self._points.values()), self._count)


class CrossLayout(Layout):
    """The FIDO layout: every double lies across, with naked sides (F-04 to F-10).

    A double across keeps both halves open and offers its free long side as a naked
    side; the opening double lies alone and offers both long sides.
    """

    __slots__ = ()

    def open_with(self, double: Tile, seat: int) -> None:
        """F-10: ends [n, n], naked [n, n], S = 2n."""
        if self.tiles:
            raise ValueError("the layout is already open")
        n = double.high
        node = self._lay(double, n, None, True, seat)
        self._open(n, At.END, node, "half-a")
        self._open(n, At.END, node, "half-b")
        self._open(n, At.SIDE, node, "side-a")
        self._open(n, At.SIDE, node, "side-b")

    def attach(
        self, tile: Tile, touching: int, point_id: int, seat: int, inline: bool = False
    ) -> None:
        """Lay ``tile`` at an open point; the caller has checked legality."""
        point = self._points[point_id]
        self._close(point)
        if tile.high == tile.low and point.kind is At.END and not inline:
            # F-05: both halves stay open and the far long side becomes naked: +v.
            node = self._lay(tile, touching, point, True, seat)
            self._open(touching, At.END, node, "half-a")
            self._open(touching, At.END, node, "half-b")
            self._open(touching, At.SIDE, node, "side-a")
        else:
            # F-06, F-07, F-23: one new open end with the free half.
            node = self._lay(tile, touching, point, False, seat)
            free = tile.low if tile.high == touching else tile.high
            self._open(free, At.END, node, "free")


class LineLayout(Layout):
    """A line with two open ends (FA-04, DR-03, PT-06, DB-05 ``spinner: none``).

    The first tile offers both its halves as open ends (a double: two ends of its
    number). A tile laid on an end leaves its other half open. Doubles are drawn across
    but keep one end, unless ``branching``: then a double laid on an end replaces it by
    two ends of its number (FA-04 option ``doubles_branch``).
    """

    __slots__ = ("branching",)

    def __init__(self, branching: bool = False) -> None:
        super().__init__()
        self.branching = branching

    def open_with(self, tile: Tile, seat: int) -> None:
        if self.tiles:
            raise ValueError("the layout is already open")
        node = self._lay(tile, tile.high, None, tile.high == tile.low, seat)
        self._open(tile.high, At.END, node, "half-a")
        self._open(tile.low, At.END, node, "half-b")

    def attach(
        self, tile: Tile, touching: int, point_id: int, seat: int, inline: bool = False
    ) -> None:
        """Lay ``tile`` on open end ``point_id``; the caller has checked legality (a
        line's doubles lie as the layout says: ``inline`` is FIDO's, F-23)."""
        point = self._points[point_id]
        self._close(point)
        double = tile.high == tile.low
        node = self._lay(tile, touching, point, double, seat)
        if double and self.branching:
            self._open(touching, At.END, node, "half-a")
            self._open(touching, At.END, node, "half-b")
        else:
            self._open(tile.low if tile.high == touching else tile.high, At.END, node, "free")

    def copy(self) -> Self:
        clone = super().copy()
        clone.branching = self.branching
        return clone


class SpinnerLayout(Layout):
    """The Doubles layout with the set double as spinner (DB-05).

    The spinner offers its two long sides first (points of kind ``side``); once both
    are taken its two ends open as well. Every other double lies across and keeps one
    end; a tile at a side or an end leaves its other half open.
    """

    __slots__ = ("_sides_left",)

    def __init__(self) -> None:
        super().__init__()
        self._sides_left = 0

    def open_with(self, double: Tile, seat: int) -> None:
        if self.tiles:
            raise ValueError("the layout is already open")
        n = double.high
        node = self._lay(double, n, None, True, seat)
        self._open(n, At.SIDE, node, "side-a")
        self._open(n, At.SIDE, node, "side-b")
        self._sides_left = 2

    def attach(
        self, tile: Tile, touching: int, point_id: int, seat: int, inline: bool = False
    ) -> None:
        point = self._points[point_id]
        self._close(point)
        node = self._lay(tile, touching, point, tile.high == tile.low, seat)
        self._open(tile.low if tile.high == touching else tile.high, At.END, node, "free")
        if point.kind is At.SIDE:
            self._sides_left -= 1
            if self._sides_left == 0:
                spinner = self.tiles[0].tile.high
                self._open(spinner, At.END, 0, "half-a")
                self._open(spinner, At.END, 0, "half-b")

    def copy(self) -> Self:
        clone = super().copy()
        clone._sides_left = self._sides_left
        return clone


@dataclass(frozen=True, slots=True)
class LayoutView:
    """An immutable picture of a layout, for views and clients."""

    tiles: tuple[Laid, ...]
    points: tuple[Point, ...]
    count: int

    @property
    def open_ends(self) -> list[Point]:
        return [p for p in self.points if p.kind is At.END]

    @property
    def naked_sides(self) -> list[Point]:
        return [p for p in self.points if p.kind is At.SIDE]
