"""What one seat may know: its own hand and everything public (C-06).

A :class:`View` is the only thing a bot, a client or a spectator is ever given. It is
built by the game state, never by hand, and holds no reference to the live state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from pips.core.layout import LayoutView
from pips.core.moves import At, Draw, Misdeal, Move, Pass, Play
from pips.core.outcome import HandResult
from pips.core.tiles import Tile


class Options(Protocol):
    """What every game's options say, whatever the game: a game's own typed, frozen
    options (:class:`pips.games.options.GameOptions`) say more, and only its own module
    reads the rest."""

    @property
    def players(self) -> int: ...

    @property
    def top(self) -> int:
        """The set: double-``top``."""
        ...

    @property
    def clockwise(self) -> bool:
        """Play goes clockwise (C-05)."""
        ...

    def to_json(self) -> dict[str, Any]: ...


SPECTATOR = -1
"""The seat number of a view that holds no hand."""


class MoveEvent(NamedTuple):
    """One applied move: who made it, what it was, and what it scored.

    ``layout_count`` is the layout count ``S`` after a play, where the game has one;
    ``set_aside`` the tiles a penalized false knock put face up (PT-08).
    """

    seat: int
    move: Move
    points: int = 0
    layout_count: int | None = None
    set_aside: tuple[Tile, ...] = ()

    def seen_by(self, seat: int) -> MoveEvent:
        """The event as ``seat`` may see it: tiles that moved face down are hidden."""
        move = self.move
        if seat != self.seat:
            if isinstance(move, Draw) and move.tile is not None:
                return MoveEvent(self.seat, Draw(None), self.points, self.layout_count)
            if isinstance(move, Misdeal) and (move.drawn or move.returned):
                # Tiles go back to and come from the stock face down (F-24).
                return MoveEvent(self.seat, Misdeal(move.seat), self.points, self.layout_count)
        return self


@dataclass(frozen=True, slots=True)
class View:
    """One seat's knowledge of a hand (``seat == SPECTATOR`` for the public view)."""

    game: str
    options: Options
    seat: int
    turn: int | None
    hand: tuple[Tile, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    layout: LayoutView
    scores: tuple[int, ...]
    history: tuple[MoveEvent, ...]
    result: HandResult | None
    set_aside: tuple[tuple[Tile, ...], ...] = ()
    """Per seat, tiles lying face up after a false knock (PT-08): public."""
    hand_number: int = 1
    """Which hand of the match this is, from 1."""

    @property
    def count(self) -> int:
        return self.layout.count

    def to_json(self, history: bool = True) -> dict[str, Any]:
        """A plain JSON form, as a client receives it; without ``history`` the moves so
        far are left out (a live client follows them one event at a time)."""
        out = {
            "game": self.game,
            "options": self.options.to_json(),
            "seat": self.seat,
            "turn": self.turn,
            "hand": [t.to_json() for t in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "stock_size": self.stock_size,
            "layout": {
                "tiles": [
                    {
                        "tile": laid.tile.to_json(),
                        "touching": laid.touching,
                        "on": laid.on,
                        "parent": laid.parent,
                        "across": laid.across,
                        "seat": laid.seat,
                        "slot": laid.slot,
                    }
                    for laid in self.layout.tiles
                ],
                "points": [
                    {
                        "id": p.id,
                        "value": p.value,
                        "kind": p.kind.value,
                        "node": p.node,
                        "slot": p.slot,
                    }
                    for p in self.layout.points
                ],
                "count": self.layout.count,
            },
            "scores": list(self.scores),
            "result": None if self.result is None else self.result.to_json(),
            "set_aside": [[t.to_json() for t in tiles] for tiles in self.set_aside],
            "hand_number": self.hand_number,
        }
        if history:
            out["history"] = [event_to_json(e) for e in self.history]
        return out


def move_to_json(seat: int, move: Move) -> dict[str, Any]:
    """A move in the record format's words (see docs/record-format.md)."""
    kind = type(move)
    if kind is Play:
        play: Play = move  # type: ignore[assignment]
        tile, touching = play.tile, play.touching
        free = tile.low if tile.high == touching else tile.high
        at = _AT_TEXT[play.at]
        if at == "open":
            return {"seat": seat, "play": [touching, free], "at": at}
        out: dict[str, Any] = {"seat": seat, "play": [touching, free], "at": at, "end": play.end}
        if play.inline:
            out["inline"] = True
        return out
    if kind is Draw:
        drawn = move.tile  # type: ignore[union-attr]
        return {"seat": seat, "draw": None if drawn is None else [drawn.high, drawn.low]}
    if kind is Pass:
        return {"seat": seat, "pass": True}
    misdeal: Misdeal = move  # type: ignore[assignment]
    return {
        "seat": misdeal.seat,
        "misdeal": {
            "returned": [t.to_json() for t in misdeal.returned],
            "drawn": [t.to_json() for t in misdeal.drawn],
        },
    }


_AT_TEXT = {at: at.value for at in At}
"""The record's word for each place (a plain string, not the enum)."""


def event_to_json(event: MoveEvent) -> dict[str, Any]:
    out = move_to_json(event.seat, event.move)
    if event.layout_count is not None and type(event.move) is Play:
        # Only games that score during the hand (FIDO) have a count and play points.
        out["points"] = event.points
        out["count"] = event.layout_count
    if event.set_aside:
        out["set_aside"] = [t.to_json() for t in event.set_aside]
    return out
