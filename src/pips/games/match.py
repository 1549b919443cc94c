"""A match: hands until a target is reached (C-09), or the single hand of a game.

The match carries what lives between hands: the scores, who opened last (the
partnership game's lead rotates, PT-05) and the lots that seated the players (DB-01,
PT-01). Every game is played through a match, so that a one-hand game (FIDO, the draw
game) and a match to 100 are recorded, replayed and shown the same way.

    >>> import random
    >>> from pips.games.registry import find_game
    >>> spec = find_game("family")
    >>> match = Match(spec, spec.options_from_json({"players": 3}), random.Random(5))
    >>> while not match.is_over:
    ...     _ = match.play(match.legal_moves()[0])
    >>> max(match.scores) >= 100, len(match.hand_states) > 1
    (True, True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

from pips.core.errors import IllegalMoveError
from pips.core.lots import Lots, draw_lots
from pips.core.moves import Move
from pips.core.outcome import competition_ranks
from pips.core.phrase import phrase
from pips.core.tiles import Tile
from pips.core.view import MoveEvent
from pips.games.common import HandContext
from pips.games.options import GameOptions
from pips.games.registry import Game, GameState


class MatchResult(NamedTuple):
    """The end of a match: every seat's total and place (1 is best)."""

    final: tuple[int, ...]
    ranks: tuple[int, ...]

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(seat for seat, rank in enumerate(self.ranks) if rank == 1)

    def to_json(self) -> dict[str, list[int]]:
        return {"final": list(self.final), "ranks": list(self.ranks)}


class Match:
    """Hands of one game until its target; seats are numbered after the lots.

    With ``rng`` the match draws its lots and deals its hands itself, the next hand as
    soon as one ends. Without it (reading a record, entering a real-table game) the
    caller gives each deal with :meth:`add_hand` and ``lots`` as they were drawn.
    """

    def __init__(
        self,
        spec: Game,
        options: GameOptions,
        rng: random.Random | None = None,
        *,
        lots: Lots | None = None,
    ) -> None:
        self.spec = spec
        self.options = options
        self.rng = rng
        self.target = spec.target(options)
        rule = spec.lots(options)
        if lots is None and rule is not None and rng is not None:
            lots = draw_lots(options.players, rule, options.top, rng)
        self.lots = lots
        self.hand_states: list[GameState] = []
        self.scores = [0] * options.players
        if rng is not None:
            self._deal_next()

    @classmethod
    def of_hand(cls, spec: Game, state: GameState) -> Match:
        """A one-hand game already under way (``pips enter``, tests)."""
        match = cls(spec, state.options)
        match.hand_states.append(state)
        if state.result is not None:
            match.scores = list(state.result.final)
        return match

    # -- reading -----------------------------------------------------------------------

    @property
    def players(self) -> int:
        return int(self.options.players)

    @property
    def seating(self) -> tuple[int, ...]:
        """``seating[seat]``: the entrant (in the order given) who sits there."""
        return self.lots.seating if self.lots is not None else tuple(range(self.players))

    @property
    def current(self) -> GameState:
        """The hand being played, or the last one once the match is over."""
        return self.hand_states[-1]

    @property
    def is_over(self) -> bool:
        if not self.hand_states or not self.current.is_over:
            return False
        return self.target is None or max(self.scores) >= self.target

    @property
    def current_seat(self) -> int | None:
        return None if self.is_over else self.current.current_seat

    @property
    def result(self) -> MatchResult | None:
        """The final totals and places; ``None`` while the match goes on.

        A one-hand game takes its places from the hand (the draw game ranks by going
        out and pips, not by points); a match ranks by total points (FA-11, DB-13,
        PT-13).
        """
        if not self.is_over:
            return None
        hand = self.current.result
        assert hand is not None
        if self.target is None:
            return MatchResult(hand.final, hand.ranks)
        return MatchResult(tuple(self.scores), competition_ranks(self.scores))

    def context(self) -> HandContext:
        """The context of the next hand."""
        if not self.hand_states:
            return HandContext(1, None, tuple(self.scores))
        last = self.current
        opener = last.layout.tiles[0].seat if last.layout.tiles else None
        return HandContext(len(self.hand_states) + 1, opener, tuple(self.scores))

    def legal_moves(self) -> Sequence[Move]:
        return self.current.legal_moves()

    # -- changing ----------------------------------------------------------------------

    def play(self, move: Move) -> MoveEvent:
        """Play ``move`` in the current hand; a finished hand adds to the scores and,
        unless the match is over, the next hand is dealt (when the match has an rng)."""
        hand = self.current
        # Once the hand is over it refuses moves under its own rule (F-19, FA-07 ...),
        # except a FIDO misdeal, which may follow the end (F-24).
        event = hand.play(move)
        if hand.result is not None:
            self.scores = list(hand.result.final)
            if not self.is_over and self.rng is not None:
                self._deal_next()
        return event

    def add_hand(
        self,
        hands: Sequence[Sequence[Tile]],
        stock: Sequence[Tile] | None,
        voided: Sequence[tuple[Sequence[Sequence[Tile]], Sequence[Tile]]] = (),
    ) -> GameState:
        """Start the next hand from a given deal (records, real tables); ``stock`` may be
        ``None`` where the game allows it (a FIDO hand in manual deal mode)."""
        if self.hand_states and not self.current.is_over:
            raise IllegalMoveError("C-09", phrase("the current hand is not over"))
        if self.is_over:
            raise IllegalMoveError("C-09", phrase("the match is over"))
        state = self.spec.from_deal(self.options, hands, stock, voided, self.context())
        self.hand_states.append(state)
        return state

    def _deal_next(self) -> None:
        assert self.rng is not None
        self.add_hand(*self.spec.deal(self.options, self.rng))

    def __repr__(self) -> str:
        return (
            f"<Match {self.spec.name} hand {len(self.hand_states)}, scores {self.scores}, "
            f"target {self.target}>"
        )
