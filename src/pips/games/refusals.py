"""Why a move that is not among the legal moves is refused, in the words of the rule
that refuses it: the rule ids a game's errors cite, and the checks that find the rule.

The engine lists the legal moves once per position and applies a listed move unchecked
(:class:`~pips.games.common.HandState`); only a move that is not listed comes here. A
game overrides the checks where its rules differ (FIDO's second tile at a side, F-13;
Doubles' suits opened by their doubles, DB-06).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Self

from pips.core.errors import IllegalMoveError
from pips.core.hand import Hand
from pips.core.layout import Layout, Point
from pips.core.legal import LegalMoves
from pips.core.moves import At, Move, Play
from pips.core.phrase import N_, Phrase, personal, phrase
from pips.core.tiles import Tile
from pips.core.view import MoveEvent

NOT_HELD = personal(
    "{tile} is not in seat {seat}'s hand",
    "seat",
    N_("{tile} is not in {name}'s hand"),
    N_("you do not hold {tile}"),
)


class Refusals:
    """The rule ids of a game and the checks that name the one refusing a move."""

    RULE_PLAY: ClassVar[str]
    """The rule that a player who can lay a tile must do so."""
    RULE_DRAW: ClassVar[str]
    """The rule for drawing and passing."""
    RULE_EMPTY_STOCK: ClassVar[str] = ""
    """The rule for a draw from an empty stock (default: :attr:`RULE_DRAW`)."""
    RULE_END: ClassVar[str]
    """The rule that ends the hand."""
    RULE_OPEN: ClassVar[str]
    """The rule for the first tile."""
    RULE_DEAL: ClassVar[str] = "C-06"
    """The rule for the deal."""
    RULE_HAND_SIZE: ClassVar[str] = ""
    """The rule for the number of tiles dealt (default: :attr:`RULE_DEAL`)."""
    RULE_FIT: ClassVar[str] = ""
    """The rule for where a tile may be laid (default: :attr:`RULE_PLAY`)."""

    if TYPE_CHECKING:
        # What the checks read of the hand (HandState has them).
        hands: list[Hand]
        layout: Layout

        def legal_moves(self) -> LegalMoves: ...
        def clone(self) -> Self: ...
        def play(self, move: Move) -> MoveEvent: ...
        def _openings(self, seat: int) -> list[Play]: ...
        def _fitting(self, seat: int, value: int) -> Sequence[Tile]: ...

    def refusal(self, move: Move) -> IllegalMoveError | None:
        """The error :meth:`play` would raise for ``move`` now, in its rule's words, or
        ``None`` when it would be taken; found on a copy, so nothing changes."""
        if self.legal_moves().find(move) is not None:
            return None
        try:
            self.clone().play(move)
        except IllegalMoveError as error:
            return error
        return None

    def _check_play(self, seat: int, move: Play) -> None:
        """Raise the error of the rule that refuses ``move``."""
        tile = move.tile
        if (
            not isinstance(tile, Tile)
            or not isinstance(move.at, At)
            or type(move.end) is not int
            or type(move.inline) is not bool
        ):
            raise IllegalMoveError("C-08", phrase("not a well-formed play: {move!r}", move=move))
        rule = self._fit_rule
        if tile not in self.hands[seat]:
            raise IllegalMoveError(rule, Phrase(NOT_HELD, {"tile": tile, "seat": seat}))
        if not tile.contains(move.touching):
            raise IllegalMoveError(
                rule,
                phrase(
                    "{tile} has no {touching} to lay against", tile=tile, touching=move.touching
                ),
            )
        if not self.layout.tiles:
            self._check_opening(seat, move)
            return
        if move.at is At.OPEN:
            raise IllegalMoveError(rule, phrase("the layout is already open"))
        point = self.layout.point(move.end)
        if point is None or point.kind is not move.at:
            raise IllegalMoveError(
                rule, phrase("there is no open {value} #{end}", value=move.at.value, end=move.end)
            )
        if point.value != move.touching:
            raise IllegalMoveError(
                rule,
                phrase(
                    "{touching}-{free} does not match the {value} at {value2} #{id}",
                    touching=move.touching,
                    free=move.free,
                    value=point.value,
                    value2=point.kind.value,
                    id=point.id,
                ),
            )
        self._check_placing(seat, move, point)

    def _check_opening(self, seat: int, move: Play) -> None:
        openings = self._openings(seat)
        if move not in openings:
            allowed = ", ".join(str(p.tile) for p in openings)
            raise IllegalMoveError(
                self.RULE_OPEN, phrase("the hand opens with {allowed}", allowed=allowed)
            )

    def _check_placing(self, seat: int, move: Play, point: Point) -> None:
        """The game's own checks of a play on a matching open point."""
        if move.inline:
            raise IllegalMoveError("C-08", phrase("not a well-formed play: {move!r}", move=move))
        if move.tile not in self._fitting(seat, point.value):
            raise self._refuse(seat, move, point.value)

    def _refuse(self, seat: int, move: Play, value: int) -> IllegalMoveError:
        """The error for a tile that matches a point but may not be laid there."""
        return IllegalMoveError(
            self._fit_rule,
            phrase("{tile} may not be laid on the {value}", tile=move.tile, value=value),
        )

    @property
    def _fit_rule(self) -> str:
        return self.RULE_FIT or self.RULE_PLAY
