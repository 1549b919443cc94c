"""Moves: small immutable values, the only way to change a game state (C-08).

A :class:`Play` names the tile, the half that touches the layout, and the attachment
point by its stable id, so a move means the same thing in a record, a bot and a client.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from pips.core.errors import IllegalMoveError
from pips.core.tiles import Tile

__all__ = ["At", "Draw", "IllegalMoveError", "Misdeal", "Move", "Pass", "Play"]


class At(StrEnum):
    """Where a tile is laid; the values are those of the record format."""

    OPEN = "open"
    """The first tile of a hand."""
    END = "end"
    """An open end (C-07)."""
    SIDE = "side"
    """A naked side of a double laid across (FIDO, F-07)."""


# Moves are NamedTuples: immutable, hashable and cheap to build, which matters because
# search and playouts create millions of them. Each kind has its own length, so moves of
# different kinds never compare equal.


class Play(NamedTuple):
    """Lay ``tile`` with its ``touching`` half against attachment point ``end``.

    ``end`` is the id of an open point of the layout (``-1`` for the opening tile).
    ``inline`` marks a double laid in line instead of across (F-23).
    """

    tile: Tile
    touching: int
    at: At
    end: int = -1
    inline: bool = False

    @property
    def free(self) -> int:
        """The half that stays open after the play."""
        tile = self.tile
        return tile.low if tile.high == self.touching else tile.high

    def __str__(self) -> str:
        where = "to open" if self.at is At.OPEN else f"on {self.at.value} #{self.end}"
        inline = " in line" if self.inline else ""
        return f"{self.touching}-{self.free} {where}{inline}"


class Draw(NamedTuple):
    """Take a tile from the stock.

    ``tile`` is ``None`` when the engine takes the top of the stock; a replayed or
    hand-entered draw (manual deal mode) names the tile.
    """

    tile: Tile | None = None

    def __str__(self) -> str:
        return "draw" if self.tile is None else f"draw {self.tile}"


class Pass(NamedTuple):
    """Pass the turn (C-08), when the rules leave nothing else."""

    def __str__(self) -> str:
        return "pass"


class Misdeal(NamedTuple):
    """A misdealt hand is corrected at a real table (F-24, manual deal mode only).

    Not a turn: it may be entered for any seat at any time, even after the hand ended.
    ``returned`` tiles go back to the stock (only before the opening), ``drawn`` tiles
    come from the stock into ``seat``'s hand.
    """

    seat: int
    returned: tuple[Tile, ...] = ()
    drawn: tuple[Tile, ...] = ()

    def __str__(self) -> str:
        parts = [f"misdeal seat {self.seat}"]
        if self.returned:
            parts.append("returns " + " ".join(map(str, self.returned)))
        if self.drawn:
            parts.append("draws " + " ".join(map(str, self.drawn)))
        return ", ".join(parts)


Move = Play | Draw | Pass | Misdeal
