"""The legal moves of a position as a lazy sequence (like python-chess's generator).

A position usually offers many plays, and a playout or a bot often needs only how many
there are and one of them. :class:`LegalMoves` therefore keeps the plays as groups, one
per attachment point with the tiles in hand that fit it, and builds a :class:`Play` only
when asked: ``len()``, ``bool()`` and indexing (so ``random.choice``) cost in proportion
to the number of open points that some tile fits, not to the number of moves. Iterating,
slicing, membership and comparison build the whole list once and keep it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import IntEnum
from typing import Any, NamedTuple, overload

from pips.core.moves import At, Move, Play
from pips.core.tiles import Tile


class Doubles(IntEnum):
    """How a double in a group becomes moves."""

    NONE = 0
    """No move (a double at a naked side, F-07)."""
    ACROSS = 1
    """One move, the double laid across (or simply laid, in a line game)."""
    ACROSS_OR_INLINE = 2
    """Two moves: across, then in line (F-23 ``optional``)."""
    INLINE = 3
    """One move, in line (F-23 ``always``)."""


_INLINE_FLAGS: tuple[tuple[bool, ...], ...] = ((), (False,), (False, True), (True,))


def group_size(tiles: tuple[Tile, ...], doubles: Doubles, holds_double: bool) -> int:
    """How many moves a group of ``tiles`` makes: one per tile, the double as its rule says."""
    return len(tiles) + (len(_INLINE_FLAGS[doubles]) - 1 if holds_double else 0)


class PointPlays(NamedTuple):
    """The plays at one open point: every tile of ``tiles`` laid with ``value`` touching."""

    point: int
    value: int
    kind: At
    tiles: tuple[Tile, ...]
    doubles: Doubles
    size: int

    @staticmethod
    def of(
        point: int,
        value: int,
        kind: At,
        tiles: tuple[Tile, ...],
        doubles: Doubles,
        holds_double: bool,
    ) -> PointPlays:
        """A group; ``holds_double`` says whether ``tiles`` contains ``value-value``."""
        return PointPlays(
            point, value, kind, tiles, doubles, group_size(tiles, doubles, holds_double)
        )

    def moves(self) -> Iterator[Play]:
        point, value, kind = self.point, self.value, self.kind
        for tile in self.tiles:
            if tile.high != tile.low:
                yield Play(tile, value, kind, point)
            else:
                for inline in _INLINE_FLAGS[self.doubles]:
                    yield Play(tile, value, kind, point, inline)

    def nth(self, index: int) -> Play:
        point, value, kind = self.point, self.value, self.kind
        for tile in self.tiles:
            if tile.high != tile.low:
                if index == 0:
                    return Play(tile, value, kind, point)
                index -= 1
            else:
                flags = _INLINE_FLAGS[self.doubles]
                if index < len(flags):
                    return Play(tile, value, kind, point, flags[index])
                index -= len(flags)
        raise IndexError(index)


class LegalMoves(Sequence[Move]):
    """The legal moves of one position, in the game's documented order."""

    __slots__ = ("_groups", "_length", "_moves")

    def __init__(self, moves: Sequence[Move] = (), groups: Sequence[PointPlays] = ()) -> None:
        """Either a ready list of ``moves`` or the ``groups`` of plays, not both."""
        self._groups = tuple(groups)
        self._moves: list[Move] | None = None if groups else list(moves)
        self._length = sum(g.size for g in self._groups) if groups else len(moves)

    @classmethod
    def of(cls, moves: list[Move]) -> LegalMoves:
        """A ready list of moves, kept as it is (the caller hands it over)."""
        legal = cls.__new__(cls)
        legal._groups = ()
        legal._moves = moves
        legal._length = len(moves)
        return legal

    def _all(self) -> list[Move]:
        if self._moves is None:
            self._moves = [move for group in self._groups for move in group.moves()]
        return self._moves

    def __len__(self) -> int:
        return self._length

    def count(self, value: Any = None) -> int:
        """The number of moves (python-chess's spelling), or how often ``value`` occurs."""
        return self._length if value is None else self._all().count(value)

    def any(self) -> bool:
        return self._length > 0

    @overload
    def __getitem__(self, index: int) -> Move: ...
    @overload
    def __getitem__(self, index: slice) -> list[Move]: ...
    def __getitem__(self, index: int | slice) -> Move | list[Move]:
        if isinstance(index, slice) or self._moves is not None:
            return self._all()[index]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("legal move index out of range")
        for group in self._groups:
            if index < group.size:
                return group.nth(index)
            index -= group.size
        raise IndexError(index)  # pragma: no cover - sizes add up to the length

    def __iter__(self) -> Iterator[Move]:
        return iter(self._all())

    def find(self, move: object) -> Move | None:
        """The listed move equal to ``move``, or ``None``: the engine applies its own
        copy. For plays kept in groups only the group of ``move``'s point is looked at,
        so finding a move costs in proportion to the open points, not to the moves."""
        if self._moves is None:
            if type(move) is not Play or type(move.end) is not int:
                return None  # groups hold plays only
            if type(move.inline) is not bool:
                return None
            for group in self._groups:
                if group.point == move.end and group.kind == move.at:
                    if group.value != move.touching or move.tile not in group.tiles:
                        return None
                    tile = group.tiles[group.tiles.index(move.tile)]
                    if tile.high != tile.low:
                        if move.inline:
                            return None
                        return Play(tile, group.value, group.kind, group.point)
                    if move.inline in _INLINE_FLAGS[group.doubles]:
                        return Play(tile, group.value, group.kind, group.point, move.inline)
                    return None
            return None
        for candidate in self._moves if self._moves is not None else self._all():
            if candidate == move:
                return candidate
        return None

    def __contains__(self, move: object) -> bool:
        return move in self._all()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalMoves | list | tuple):
            return self._all() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LegalMoves([{', '.join(str(m) for m in self._all())}])"


def representatives(moves: Sequence[Move]) -> list[Move]:
    """One move per group of equivalent moves: the same tile, the same way round, on
    points of equal value and kind lead to the same position for every rule (F-04);
    the move on the oldest point stands for its group."""
    return [moves[i] for i in distinct(moves)]


def distinct(moves: Sequence[Move]) -> list[int]:
    """The numbers of the moves :func:`representatives` keeps: the choices a player is
    offered, so nobody is asked to choose between places that make no difference (both
    halves of a double across showing 9, two ends of the same number)."""
    seen: set[tuple[Tile, int, At, bool]] = set()
    out: list[int] = []
    for number, move in enumerate(moves):
        if isinstance(move, Play):
            key = (move.tile, move.touching, move.at, move.inline)
            if key in seen:
                continue
            seen.add(key)
        out.append(number)
    return out
