"""The one seating driver: a match with bots, people and external programs at its seats.

Every place that seats players around a match uses :class:`Seating`: ``pips simulate``,
tournaments, the terminal client and the pips server. So every bot is told the same
things everywhere: ``reset(seat)`` before each hand (and when it takes a seat in the
middle of one), ``observe(event)`` after every move, with the event as its seat may see
it (another seat's drawn tile stays hidden), and at its turn its seat's view and the
legal moves.

A bot's randomness comes from :func:`decision_rng`: a ``random.Random`` seeded by the
match's seed and the position (hand number and move number within the hand). A position
reached again (after an undo, a resume, a server restart) gets the same decision, and a
whole match replays from its seed and record alone.

People (and anything else that is not a bot in this process) hold the seats whose bot
is ``None``: the caller asks them and hands their move to :meth:`Seating.play`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from pips.bots.base import Bot, observe, reset
from pips.core.moves import Move
from pips.core.view import MoveEvent, View
from pips.games.match import Match
from pips.games.registry import GameState


def decision_rng(seed: int | str, hand: int, move: int) -> random.Random:
    """The random stream of the decision at move ``move`` (from 0) of hand ``hand``
    (from 1) of the match seeded ``seed``."""
    return random.Random(f"{seed}/{hand}/{move}")


class Seating:
    """Seats ``bots`` (``bots[seat]``, after the lots; ``None`` for a person) around
    ``match`` and plays it move by move.

    ``seed`` names the match's bot streams (:func:`decision_rng`). Time spent and
    decisions taken are counted per seat, for tournaments and benchmarks.
    """

    def __init__(self, match: Match, bots: Sequence[Bot | None], seed: int | str) -> None:
        if len(bots) != match.players:
            raise ValueError(f"{len(bots)} seats given for {match.players} players")
        self.match = match
        self.bots: list[Bot | None] = list(bots)
        self.seed = seed
        self.decisions = [0] * match.players
        self.seconds = [0.0] * match.players
        self._hand: GameState | None = None
        self._start_hand()

    # -- reading ---------------------------------------------------------------------

    @property
    def state(self) -> GameState:
        return self.match.current

    @property
    def to_move(self) -> int | None:
        """The seat to move, ``None`` once the match is over."""
        return self.match.current_seat

    @property
    def bot_to_move(self) -> Bot | None:
        """The bot whose turn it is, if a bot's."""
        seat = self.to_move
        return None if seat is None else self.bots[seat]

    def view(self, seat: int) -> View:
        return self.state.view(seat)

    # -- playing ---------------------------------------------------------------------

    def decide(self) -> Move:
        """The bot to move chooses its move (a search may take a while: a caller with
        an event loop runs this in a thread). A single legal move is taken at once."""
        seat = self.to_move
        bot = self.bot_to_move
        if seat is None or bot is None:
            raise ValueError("no bot is to move")
        moves = self.state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        rng = decision_rng(self.seed, len(self.match.hand_states), len(self.state.history))
        start = time.perf_counter()
        move = bot.choose(self.state.view(seat), moves, rng)
        self.seconds[seat] += time.perf_counter() - start
        self.decisions[seat] += 1
        return move

    def play(self, move: Move) -> MoveEvent:
        """Apply ``move`` for the seat to move and show it to every bot; a refused move
        (:class:`~pips.core.errors.RuleError`) changes nothing."""
        event = self.match.play(move)
        for seat, bot in enumerate(self.bots):
            if bot is not None:
                observe(bot, event.seen_by(seat))
        if self.match.current is not self._hand:
            self._start_hand()
        return event

    def play_bots(self, *, hand_only: bool = False) -> list[MoveEvent]:
        """Let the bots play while it is a bot's turn: to the end of the match, or of the
        current hand with ``hand_only``. Returns the events."""
        events = []
        hand = self.state
        while self.bot_to_move is not None and not (hand_only and hand.is_over):
            events.append(self.play(self.decide()))
        return events

    def seat(self, seat: int, bot: Bot | None) -> None:
        """Put ``bot`` in ``seat`` (a person's seat taken over, or given back); a bot that
        sits down in the middle of a hand is reset for it and reads the hand from its
        view at its turn."""
        self.bots[seat] = bot
        if bot is not None:
            reset(bot, seat)

    def close(self) -> None:
        """Stop the bots that run outside (external programs)."""
        for bot in self.bots:
            close = getattr(bot, "close", None)
            if close is not None:
                close()

    def _start_hand(self) -> None:
        self._hand = self.match.current if self.match.hand_states else None
        for seat, bot in enumerate(self.bots):
            if bot is not None:
                reset(bot, seat)
