"""A table's game as a state machine: commands in, what happened out.

A :class:`Round` holds one table's seats and, once every seat is filled, its match in
the seating driver (:class:`~pips.sim.seating.Seating`). Its commands
(:meth:`Round.join`, :meth:`Round.start`, :meth:`Round.apply_choice`,
:meth:`Round.take_over`, :meth:`Round.give_back`) check the request, change the round
and return what happened (a move as :class:`Played`); a refused command raises
:class:`TableError` and changes nothing. It performs no I/O and knows nothing of the
event loop: the live table (:class:`~pips.server.table.LiveTable`) serialises the
commands, stores what they return through the repository
(:mod:`pips.server.repository`) and then tells every client, each its own seat's view
(:mod:`pips.server.telling`, which builds every message). Nor does it read accounts:
who a connection is comes from the leaf :mod:`pips.server.identity`, so the round
imports no hashing, database or collation (``tests/test_architecture.py``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pips.bots.base import BOT_LEVELS, Bot, make_seated_bot
from pips.bots.expert import ExpertBot
from pips.core.errors import RuleError
from pips.core.fairness import KeyedRandom, deal_commitment, salt_for
from pips.core.moves import Draw, Move, Pass
from pips.core.phrase import phrase
from pips.core.view import SPECTATOR, MoveEvent, move_to_json
from pips.games.match import Match
from pips.games.options import GameOptions
from pips.games.registry import Game
from pips.i18n import reason
from pips.record import dealt_json
from pips.server.identity import Identity
from pips.sim.seating import Seating

TAKE_OVER_BOT = "expert"
"""The bot that takes the seat of a person who stays away (a single turn whose timer
ran out is played by the greedy bot instead: :meth:`Round.timed_out_move`)."""


class TableError(Exception):
    """A request the table refuses; its text goes to that client only. ``rule``: the
    SPEC id where a game's rule refused; ``field``: the part of the request at fault."""

    def __init__(self, message: object, rule: str | None = None, field: str | None = None):
        super().__init__(message)
        self.rule = rule
        self.field = field

    @classmethod
    def of(cls, exc: Exception, field: str | None = None) -> TableError:
        """``exc`` (a rule's or an option's refusal) as the table's, keeping its rule."""
        if isinstance(exc, RuleError):
            return cls(exc.detail, exc.rule, field)
        return cls(reason(exc), field=field)


def bot_seat_name(bot: str, number: int) -> str:
    """A bot's name at a table: the word of its level a player chose it by, and its
    seat ("casual 1", in German "Gelegenheitsspieler 1", issue 51); a bot without a
    level keeps its own name ("search:easy-2")."""
    level = next((word for word, name in BOT_LEVELS if name == bot), None)
    if level is None:
        return f"{bot}-{number}"
    return phrase("{level} {number}", level=phrase(level), number=number)


@dataclass(frozen=True)
class ForCreator:
    """A seat of a new table its creator takes."""


@dataclass(frozen=True)
class ForAnyone:
    """A seat of a new table left open for whoever joins."""


@dataclass(frozen=True)
class ForBot:
    """A seat of a new table a bot plays: ``bot`` is a bot a server may seat, by its
    canonical name (checked where the request entered, :mod:`pips.server.requests`)."""

    bot: str


SeatChoice = ForCreator | ForAnyone | ForBot
"""A seat of a new table as its creator chose it, in the round's own terms: the edge
parses a client's request (pydantic's models, :mod:`pips.server.requests`) and hands the
round these plain values, so the round imports no request parsing
(``tests/test_architecture.py``)."""


@dataclass
class SeatHolder:
    """Who holds an entrant's place: ``open``, a ``person`` or a ``bot``."""

    kind: str
    name: str
    user_id: int | None = None
    guest: str | None = None
    bot: str | None = None

    def held_by(self, who: Identity) -> bool:
        return self.kind == "person" and self.belongs_to(who)

    def belongs_to(self, who: Identity) -> bool:
        """The place is ``who``'s: held by them, or by the bot that took it while they
        were away."""
        return self.kind != "open" and self._names(who)

    def open_to(self, who: Identity) -> bool:
        """An open place ``who`` may take: open to anyone, or kept for them (a
        rematch keeps each player's place)."""
        return self.kind == "open" and (not self.kept or self._names(who))

    def _names(self, who: Identity) -> bool:
        return who.holds(self.user_id, self.guest)

    @property
    def belongs_to_someone(self) -> bool:
        """A person's place: held by them, or by a bot while they are away."""
        return self.kind == "person" or self.taken_over

    @property
    def kept(self) -> bool:
        """An open place kept for one person."""
        return self.kind == "open" and (self.user_id is not None or self.guest is not None)

    @property
    def taken_over(self) -> bool:
        """A bot plays this place for a person who stayed away."""
        return self.kind == "bot" and (self.user_id is not None or self.guest is not None)


@dataclass(frozen=True)
class Played:
    """A move the round applied: the engine's event and the move as stored (its number
    among the table's moves, the seat, the record's JSON)."""

    event: MoveEvent
    number: int
    seat: int
    move: dict[str, Any]
    stand_in: str | None = None
    """The bot that made the move for a person who was away, else None."""


@dataclass
class Round:
    """One table: its game, options, seats, where its deals come from, and once started
    its match.

    A public table deals from ``key``, 256 bits of the OS's CSPRNG expanded by
    :class:`~pips.core.fairness.KeyedRandom`: unpredictable, yet the same again when the
    table is rebuilt from the database. A practice table deals from ``seed``, a number
    its creator chose and every seat is shown."""

    spec: Game
    options: GameOptions
    seed: int | None
    entrants: list[SeatHolder]
    key: str | None = None
    status: str = "waiting"
    seating: Seating | None = None
    moves_made: int = 0
    _commitments: dict[int, str] = field(default_factory=dict, repr=False)
    stand_ins: dict[int, str] = field(default_factory=dict)
    """Move number to the bot that made it for a person who was away."""

    @classmethod
    def new(
        cls,
        spec: Game,
        options: GameOptions,
        seats: Sequence[SeatChoice | SeatHolder],
        creator: Identity,
        seed: int | None = None,
        key: str | None = None,
    ) -> Round:
        """A round not yet started; ``seats`` per entrant: a :data:`SeatChoice` as a
        client chose it (parsed where it entered: a bot seat names a bot a server may
        seat), or a :class:`SeatHolder` the server chose; deals from ``key`` (hex), or from
        ``seed`` at a practice table. Options or seats that make no table raise
        :class:`TableError`."""
        if (seed is None) == (key is None):
            raise TableError(phrase("a table deals from a key or, for practice, a seed"))
        if spec.dealt_by_hand(options):
            raise TableError(
                phrase(
                    "a server table deals itself: manual deals are for entering games"
                    " played at a real table (pips enter)"
                ),
                field="options",
            )
        if len(seats) != options.players:
            raise TableError(
                phrase(
                    "{title} with these options has {players} seats",
                    title=spec.title,
                    players=options.players,
                ),
                field="seats",
            )
        if sum(isinstance(seat, ForCreator) for seat in seats) > 1:
            raise TableError(phrase("you can take one seat"), field="seats")
        entrants: list[SeatHolder] = []
        for number, seat in enumerate(seats):
            match seat:
                case SeatHolder():
                    # A seat the server fills itself (an event's draw), never a client's.
                    entrants.append(seat)
                case ForCreator():
                    entrants.append(
                        SeatHolder("person", creator.name, creator.user_id, creator.guest)
                    )
                case ForAnyone():
                    entrants.append(SeatHolder("open", ""))
                case ForBot(bot=name):
                    entrants.append(SeatHolder("bot", bot_seat_name(name, number), bot=name))
        return cls(spec, options, seed, entrants, key)

    # -- reading ---------------------------------------------------------------------

    @property
    def match(self) -> Match | None:
        return None if self.seating is None else self.seating.match

    @property
    def seating_order(self) -> tuple[int, ...]:
        """``order[seat]``: the entrant in that seat (after the lots)."""
        match = self.match
        return match.seating if match is not None else tuple(range(len(self.entrants)))

    def seat_of(self, who: Identity) -> int:
        """The seat (after lots) ``who`` plays, or SPECTATOR."""
        for seat, entrant in enumerate(self.seating_order):
            if self.entrants[entrant].held_by(who):
                return seat
        return SPECTATOR

    def viewing_seat(self, who: Identity) -> int:
        """The seat whose view ``who`` is sent: theirs, or the one a stand-in plays for
        them until they take it back at their turn (a returning bot or person read
        ``seat: -1`` there before, and lost track of its own hand)."""
        seat = self.seat_of(who)
        return seat if seat >= 0 else self.returning(who)

    def names(self) -> list[str]:
        return [self.entrants[e].name for e in self.seating_order]

    def holder(self, seat: int) -> SeatHolder:
        return self.entrants[self.seating_order[seat]]

    def bot_of(self, seat: int) -> str | None:
        """The bot that holds ``seat`` as the record names it: None for a person's seat,
        even while a bot plays it for them (the record's ``stand_ins`` say when)."""
        holder = self.holder(seat)
        return None if holder.taken_over else holder.bot

    @property
    def at_new_hand(self) -> bool:
        """Nobody has moved yet in a hand after the first (the sheet of the last one
        is being shown: the table's pace waits a while)."""
        match = self.match
        return match is not None and len(match.hand_states) > 1 and not match.current.history

    def is_bot(self, seat: int) -> bool:
        return self.seating is not None and self.seating.bots[seat] is not None

    # -- commands --------------------------------------------------------------------

    def join(self, who: Identity, entrant: int | None = None) -> int:
        """``who`` takes an open seat (the first unless ``entrant`` says which); returns
        the entrant's number."""
        if self.status != "waiting":
            raise TableError(phrase("the game has started; you can watch"))
        if any(e.held_by(who) for e in self.entrants):
            raise TableError(phrase("you already have a seat here"))
        free = [i for i, e in enumerate(self.entrants) if e.open_to(who)]
        # A place kept for this person before any open to all.
        free.sort(key=lambda i: not self.entrants[i].kept)
        if entrant is not None:
            free = [i for i in free if i == entrant]
        if not free:
            raise TableError(phrase("no open seat"))
        self.entrants[free[0]] = SeatHolder("person", who.name, who.user_id, who.guest)
        return free[0]

    @property
    def ready(self) -> bool:
        """Every seat is filled and the game has not begun."""
        return self.status == "waiting" and all(e.kind != "open" for e in self.entrants)

    @property
    def practice(self) -> bool:
        """Dealt from a chosen seed: for practice and teaching, never rated."""
        return self.seed is not None

    @property
    def hints(self) -> bool:
        """Hints (the expert bot's advice) are offered where no other person could be
        disadvantaged by them: at practice tables and at tables of one person and bots."""
        return self.practice or sum(e.kind != "bot" or e.taken_over for e in self.entrants) <= 1

    @property
    def _stream(self) -> int | str:
        """What names the table's random streams (deals, bots' choices)."""
        return self.seed if self.seed is not None else str(self.key)

    def start(self) -> None:
        """Draw the lots, deal, and seat the bots."""
        dealer = (
            random.Random(self.seed)
            if self.seed is not None
            else KeyedRandom(bytes.fromhex(str(self.key)))
        )
        match = Match(self.spec, self.options, dealer)
        bots: list[Bot | None] = [
            None if self.entrants[e].bot is None else make_seated_bot(str(self.entrants[e].bot))
            for e in match.seating
        ]
        self.seating = Seating(match, bots, self._stream)
        self.status = "playing"

    def salts(self) -> list[str] | None:
        """The salt of every hand dealt so far (``None`` at a practice table)."""
        match = self.match
        if self.key is None or match is None:
            return None
        key = bytes.fromhex(self.key)
        return [salt_for(key, hand) for hand in range(1, len(match.hand_states) + 1)]

    def commitment(self) -> str | None:
        """The commitment to the current hand's deal, sent to every seat from the
        deal on (:func:`~pips.core.fairness.deal_commitment`)."""
        match = self.match
        if self.key is None or match is None:
            return None
        hand = len(match.hand_states)
        cached = self._commitments.get(hand)
        if cached is None:
            salt = salt_for(bytes.fromhex(self.key), hand)
            cached = self._commitments[hand] = deal_commitment(salt, dealt_json(match.current))
        return cached

    def apply_choice(self, seat: int, choice: int, moves_made: int) -> Played:
        """Seat ``seat`` plays the legal move numbered ``choice`` of the list it was sent
        when ``moves_made`` moves had been made; anything else is refused. A client's
        move: the number is how the wire names a move (a list sent, one chosen)."""
        legal = self._offered_to(seat, moves_made)
        if not 0 <= choice < len(legal):
            raise TableError(phrase("move must be 0 to {value}", value=len(legal) - 1))
        return self.apply(legal[choice])

    def apply_move(self, seat: int, move: Move, moves_made: int) -> Played:
        """Seat ``seat`` plays ``move`` when ``moves_made`` moves had been made: a bot's
        move, or the one played when a turn's timer ran out, made in this process and
        applied as the move it is (no number on the way); one not offered is refused."""
        if move not in self._offered_to(seat, moves_made):
            raise TableError(phrase("that move is not legal here"))
        return self.apply(move)

    def _offered_to(self, seat: int, moves_made: int) -> Sequence[Move]:
        """The moves offered to ``seat`` if it is its turn in the position of
        ``moves_made`` moves; refused otherwise."""
        match = self.match
        if match is None or self.status != "playing":
            raise TableError(phrase("the game is not being played"))
        if seat < 0:
            raise TableError(phrase("spectators cannot move"))
        if match.current_seat != seat:
            raise TableError(phrase("it is not your turn"))
        if moves_made != self.moves_made:
            raise TableError(phrase("that move list is out of date"))
        return self.offered()

    def offered(self) -> Sequence[Move]:
        """The moves offered to the seat to move, numbered as its client is sent them:
        the legal moves, and where the options accept a false knock (PT-08
        ``penalize``) a knock after the plays, which sets aside the tiles that fit."""
        match = self.match
        assert match is not None
        legal = match.legal_moves()
        if (
            self.spec.false_knocks(self.options)
            and match.current.layout.tiles
            and legal
            and not any(isinstance(m, Pass | Draw) for m in legal)
        ):
            return [*legal, Pass()]
        return legal

    def apply(self, move: Move) -> Played:
        """Apply a move of the seat to move (a listed one, or one read back from storage)."""
        assert self.seating is not None
        seat = self.seating.to_move
        assert seat is not None
        holder = self.holder(seat)
        stand_in = holder.bot if holder.taken_over else None
        event = self.seating.play(move)
        # As applied: a draw names the tile it took, so replaying it is exact.
        played = Played(event, self.moves_made, seat, move_to_json(seat, event.move), stand_in)
        if stand_in is not None:
            self.stand_ins[played.number] = stand_in
        self.moves_made += 1
        if self.seating.match.is_over:
            self.status = "finished"
        return played

    def restore(self, move: Move, stand_in: str | None) -> Played:
        """Apply a move read back from storage, made by ``stand_in`` (a bot playing for
        an absent person) or by the seat's holder."""
        played = self.apply(move)
        self.stand_ins.pop(played.number, None)
        if stand_in is not None:
            self.stand_ins[played.number] = stand_in
        return played

    def stand_ins_json(self) -> list[dict[str, Any]]:
        """The record's ``stand_ins``: each run of moves a bot made for an absent
        person, by seat, hand and the first and last of its moves in the hand (counted
        from 1 among all the hand's moves)."""
        match = self.match
        if match is None:
            return []
        runs: list[dict[str, Any]] = []
        number = 0
        for hand, state in enumerate(match.hand_states, 1):
            open_runs: dict[int, dict[str, Any]] = {}  # seat -> its run going on
            for index, event in enumerate(state.history, 1):
                bot = self.stand_ins.get(number)
                number += 1
                run = open_runs.get(event.seat)
                if bot is None:
                    open_runs.pop(event.seat, None)
                elif run is not None and run["bot"] == bot:
                    run["moves"][1] = index
                else:
                    run = {"seat": event.seat, "bot": bot, "hand": hand, "moves": [index, index]}
                    runs.append(run)
                    open_runs[event.seat] = run
        return runs

    def bot_decision(self) -> Move | None:
        """The move of the bot to move, or ``None`` when no bot is to move (may take a
        while: the actor runs it in a thread)."""
        if self.seating is None or self.status != "playing" or self.seating.bot_to_move is None:
            return None
        return self.seating.decide()

    def timed_out_move(self, seat: int) -> Move:
        """The move played for a person whose turn timer ran out: what the greedy bot
        would play."""
        match = self.match
        assert match is not None
        legal = match.legal_moves()
        view = match.current.view(seat)
        return make_seated_bot("greedy").choose(view, legal, random.Random(f"{self._stream}/timer"))

    def take_over(self, seat: int) -> int:
        """A bot takes the seat of a person who stayed away; returns the entrant."""
        assert self.seating is not None
        entrant = self.seating_order[seat]
        gone = self.entrants[entrant]
        if gone.kind != "person":
            raise TableError(phrase("only a person's seat is taken over"))
        # The seat keeps its person's name: the record says which moves the bot made.
        self.entrants[entrant] = SeatHolder(
            "bot", gone.name, gone.user_id, gone.guest, TAKE_OVER_BOT
        )
        self.seating.seat(seat, make_seated_bot(TAKE_OVER_BOT))
        return entrant

    def returning(self, who: Identity) -> int:
        """The seat a bot plays for ``who`` since they stayed away, or SPECTATOR."""
        for seat, entrant in enumerate(self.seating_order):
            holder = self.entrants[entrant]
            if holder.taken_over and holder.belongs_to(who):
                return seat
        return SPECTATOR

    def give_back(self, seat: int) -> int:
        """The person whose seat a bot took is back: the seat is theirs again (at their
        turn, so the bot never stops in the middle of a thought); returns the entrant."""
        assert self.seating is not None
        entrant = self.seating_order[seat]
        held = self.entrants[entrant]
        if not held.taken_over:
            raise TableError(phrase("that seat is not played by a bot for someone"))
        self.entrants[entrant] = SeatHolder("person", held.name, held.user_id, held.guest)
        self.seating.seat(seat, None)
        return entrant

    # -- advice ------------------------------------------------------------------------

    def advice(self, seat: int) -> tuple[Move, list[str]]:
        """The expert bot's advice for ``seat`` at its turn: the move it would play and
        its reasons (the message, which names the move by its number among those
        offered, is the edge's: :func:`pips.server.telling.hint`)."""
        if not self.hints:
            raise TableError(
                phrase(
                    "hints are given at practice tables and in games against bots only:"
                    " a hint is the expert bot playing for you"
                )
            )
        match = self.match
        if match is None or self.status != "playing" or match.current_seat != seat or seat < 0:
            raise TableError(phrase("a hint is given at your turn"))
        legal = match.legal_moves()
        advice = ExpertBot().advise(match.current.view(seat), legal)
        return advice.move, list(advice.reasons)
