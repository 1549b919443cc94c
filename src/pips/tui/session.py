"""One person's match against bots, as the terminal client runs it (no screen here).

The session owns the match, seats the bots, saves the record after every move (so a
closed terminal loses nothing and ``pips play --resume FILE`` goes on from there), takes
moves back (undo, against bots only) and asks the ``expert`` bot for hints.

The bots sit in the seating driver (:class:`~pips.sim.seating.Seating`), whose random
streams are keyed by the game's seed and the position (hand and move number), so a
position reached again after an undo, or after resuming, gets the same decision: a game
replays from its record alone.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pips import record
from pips.bots.base import Bot, make_bot
from pips.core.moves import At, Move, Pass, Play
from pips.core.phrase import phrase
from pips.core.tiles import Tile
from pips.core.view import MoveEvent, View
from pips.games.match import Match
from pips.games.options import GameOptions
from pips.games.registry import Game, GameState
from pips.i18n import say
from pips.sim.seating import Seating

if TYPE_CHECKING:
    from pips.bots.expert import Advice


class SessionError(ValueError):
    """A session that cannot be started or resumed, in one line."""


@dataclass(frozen=True)
class MoveMade:
    """A move that was applied: in which hand, by whom, and the event it made."""

    hand: int
    event: MoveEvent
    hand_over: bool


class PlaySession:
    """A match with one person (``bots[seat] is None``) and bots in the other seats.

    ``entrants`` are given in the order before any lots; after the lots
    :attr:`names` and :attr:`bot_names` are in seat order.
    """

    def __init__(
        self,
        spec: Game,
        options: GameOptions,
        entrants: Sequence[str | None],
        names: Sequence[str],
        seed: int,
        path: Path,
    ) -> None:
        if sum(e is None for e in entrants) != 1:
            raise SessionError("a terminal game has exactly one person at the table")
        self.spec = spec
        self.options = options
        self.seed = seed
        self.path = path
        seating = Match(spec, options, random.Random(seed)).seating
        self.bot_names: list[str | None] = [entrants[e] for e in seating]
        self.names = [names[e] for e in seating]
        self.bots: list[Bot | None] = [None if b is None else make_bot(b) for b in self.bot_names]
        self.me = self.bot_names.index(None)
        self.undos = 0
        self._restart()

    @classmethod
    def resume(cls, path: Path) -> PlaySession:
        """The unfinished match saved in ``path``, ready to go on."""
        records = list(record.load(path))
        if len(records) != 1:
            raise SessionError(
                phrase(
                    "{path} holds {count} records; resume needs one game",
                    path=path,
                    count=len(records),
                )
            )
        replayed = record.replay(records[0])
        if replayed.match.is_over:
            raise SessionError(
                phrase("{path}: that game is over; `pips replay {path}` shows it", path=path)
            )
        if replayed.seed is None or replayed.bots is None:
            raise SessionError(
                phrase("{path} was not saved by `pips play` (no seed or bots)", path=path)
            )
        entrants: list[str | None] = [None] * len(replayed.seats)
        names = list(replayed.seats)
        for seat, entrant in enumerate(replayed.match.seating):
            entrants[entrant] = replayed.bots[seat]
            names[entrant] = replayed.seats[seat]
        session = cls(replayed.spec, replayed.options, entrants, names, replayed.seed, path)
        for hand in replayed.match.hand_states:
            for event in hand.history:
                session._apply(event.move)
        # Moves taken back before the game was saved still count (the record says so).
        undos = records[0].get("undos", 0)
        session.undos = undos if isinstance(undos, int) and undos >= 0 else 0
        return session

    # -- reading -----------------------------------------------------------------------

    @property
    def state(self) -> GameState:
        return self.match.current

    @property
    def is_over(self) -> bool:
        return self.match.is_over

    @property
    def turn(self) -> int | None:
        return self.match.current_seat

    @property
    def my_turn(self) -> bool:
        return self.turn == self.me

    def view(self) -> View:
        """What the person at the keyboard may see of the current hand."""
        return self.state.view(self.me)

    def legal_moves(self) -> Sequence[Move]:
        return self.match.legal_moves()

    @property
    def can_undo(self) -> bool:
        return not self.is_over and any(self._mine(i) for i in range(len(self.moves)))

    def why_not(self, tile: Tile) -> str:
        """Why the person cannot lay ``tile`` now, in the words of the rule that refuses
        it (a suit whose double is not laid, DB-06; a tile that matches no end ...)."""
        view = self.view()
        top = view.options.top
        if tile.high > top:
            return f"{tile} is not a tile of the double-{top} set"
        if tile not in view.hand:
            return f"you do not hold {tile}"
        if not view.layout.tiles:
            tries = [Play(tile, tile.high, At.OPEN)]
        else:
            tries = [
                Play(tile, p.value, p.kind, p.id)
                for p in view.layout.points
                if tile.contains(p.value)
            ]
        if not tries:
            ends = ", ".join(sorted({str(p.value) for p in view.layout.points}, key=int))
            return say(
                phrase("{tile} matches no open end (they show {ends})", tile=tile, ends=ends)
            )
        for move in tries:
            error = self.state.refusal(move)
            if error is not None:
                return f"{say(error.detail)} ({error.rule})"
        return say(phrase("{tile} cannot be played now", tile=tile))

    def penalized_pass(self) -> bool:
        """Whether passing now is accepted with a penalty (PT-08 ``penalize``: a false
        knock sets tiles aside) rather than listed as a move or refused."""
        return Pass() not in self.legal_moves() and self.state.refusal(Pass()) is None

    def hint(self) -> Advice:
        """What the ``expert`` bot would play here, and why."""
        from pips.bots.expert import ExpertBot  # the bots part of pips: numpy

        return ExpertBot().advise(self.view(), self.legal_moves())

    # -- playing -----------------------------------------------------------------------

    def decide(self) -> Move:
        """The bot to move chooses (this may take a while: run it off the UI thread)."""
        return self.seating.decide()

    def play(self, move: Move) -> MoveMade:
        """Apply ``move`` for the seat to move and save; a
        :class:`~pips.core.errors.RuleError` changes nothing."""
        played = self._apply(move)
        self.save()
        return played

    def undo(self) -> int:
        """Take back the person's last move and the bots' moves after it; how many moves
        went back. The match is played again from its seed up to that point."""
        mine = [i for i in range(len(self.moves)) if self._mine(i)]
        if self.is_over or not mine:
            return 0
        keep = self.moves[: mine[-1]]
        taken = len(self.moves) - len(keep)
        self._restart()
        for move in keep:
            self._apply(move)
        self.undos += 1
        self.save()
        return taken

    def save(self) -> Path:
        """Write the record (atomically) to :attr:`path`."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        written = record.write_record(self.match, self.names, seed=self.seed, bots=self.bot_names)
        if self.undos:
            written["undos"] = self.undos
        record.save([written], self.path)
        return self.path

    # -- inside --------------------------------------------------------------------------

    def _mine(self, index: int) -> bool:
        """Whether move ``index`` was the person's (replayed hands give the seat)."""
        return self._seats[index] == self.me

    def _apply(self, move: Move) -> MoveMade:
        seat = self.turn
        assert seat is not None
        hand = len(self.match.hand_states)
        state = self.state
        event = self.seating.play(move)
        # As applied: a draw names the tile it took, so replaying it is exact.
        self.moves.append(event.move)
        self._seats.append(seat)
        return MoveMade(hand, event, state.is_over)

    def _restart(self) -> None:
        """The match from its first deal, no move made."""
        self.match = Match(self.spec, self.options, random.Random(self.seed))
        self.seating = Seating(self.match, self.bots, self.seed)
        self.moves: list[Move] = []
        self._seats: list[int] = []


def default_path(records: Path, game: str, seed: int) -> Path:
    """A new record file in the records folder, named by time, game and seed."""
    return records / f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{game}-{seed}.json"
