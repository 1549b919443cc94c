"""The hand every game shares: a deal, a layout and the turn, written once.

The FIDO game, the family game, the draw game, Doubles and the partnership game differ
in their deal, who opens, which tile may go where, how drawing works and how a hand is
scored; the turn itself (play a tile, or draw, or pass, then the next seat) is the same.
This module holds that turn once; each game module subclasses :class:`HandState`,
declares its traits (:mod:`pips.games.traits`) and overrides only what its SPEC section
says differently, so that it reads like that section.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, NamedTuple, Self

from pips.core.deal import Deal, check_partition
from pips.core.errors import DealError, IllegalMoveError
from pips.core.hand import Hand
from pips.core.layout import Layout
from pips.core.legal import LegalMoves, representatives
from pips.core.moves import At, Draw, Misdeal, Move, Pass, Play
from pips.core.outcome import Ending, HandResult, competition_ranks
from pips.core.phrase import N_, Phrase, personal, phrase
from pips.core.tiles import Tile
from pips.core.view import SPECTATOR, MoveEvent, View
from pips.games.options import GameOptions
from pips.games.refusals import Refusals
from pips.games.traits import DrawRule, Fit, LayoutKind, new_layout

__all__ = ["DrawRule", "HandContext", "HandState"]


# What a client that knows the names says instead of a seat's number (pips.display).
MUST_PLAY = personal(
    "seat {seat} can lay a tile and must play",
    "seat",
    N_("{name} can lay a tile and must play"),
    N_("you can lay a tile and must play"),
)
MUST_LEAD = personal(
    "seat {seat} opens the hand and must lead",
    "seat",
    N_("{name} opens the hand and must lead"),
    N_("you open the hand and must lead"),
)
MUST_DRAW = personal(
    "seat {seat} cannot play and must draw",
    "seat",
    N_("{name} cannot play and must draw"),
    N_("you cannot play and must draw"),
)


class HandContext(NamedTuple):
    """What a hand needs to know of the match around it."""

    number: int = 1
    """The hand's number in the match, from 1."""
    previous_opener: int | None = None
    """The seat that opened the previous hand (PT-05 rotates the lead)."""
    scores: tuple[int, ...] = ()
    """Every seat's match score before this hand (empty: all 0)."""


class HandState(Refusals):
    """A hand in progress, of any game. Change it only through :meth:`play`.

    The turn is the same in every game (lay a tile, or draw, or pass, then the next
    seat) and is written once here. A game declares its traits on its options
    (:meth:`~pips.games.options.GameOptions.traits`), subclasses this with the rule ids
    its errors cite, and overrides the hooks where its rules differ: :meth:`_opener`,
    :meth:`_openings`, :meth:`_plays`, :meth:`_fitting`, :meth:`_scored`,
    :meth:`_score`. Legality is decided once per
    position: :meth:`legal_moves` lists the moves, and :meth:`play` applies a listed
    move without checking it again; only a move that is not listed is examined, to say
    which rule refuses it.
    """

    game: ClassVar[str]
    options: GameOptions
    layout: Layout

    def __init__(
        self,
        options: GameOptions,
        hands: Sequence[Sequence[Tile]],
        stock: Sequence[Tile] | None = None,
        voided: Sequence[tuple[Sequence[Sequence[Tile]], Sequence[Tile]]] = (),
        context: HandContext = HandContext(),
    ) -> None:
        """Start a hand from a given deal; ``stock`` is next-to-draw first.

        ``voided`` keeps the deals thrown in before this one; ``context`` what the hand
        needs to know of the match around it.
        """
        self.options = options
        players = options.players
        if len(hands) != players:
            raise DealError(
                self.RULE_DEAL,
                phrase(
                    "{count} hands dealt for {players} players", count=len(hands), players=players
                ),
            )
        if stock is None:
            stock = self._stock_not_given(hands)
        check_partition(options.top, hands, stock, self.RULE_DEAL)
        self._check_hand_sizes(hands)
        self.traits = options.traits(context.previous_opener is None)
        self.dealt = Deal.of(hands, stock, voided)
        self.context = context
        self.hands = [Hand(h) for h in hands]
        self._stock = list(reversed(stock))  # the next tile to draw is popped off the end
        self.layout = new_layout(self.traits)
        self.scores = list(context.scores) if context.scores else [0] * players
        self.history: list[MoveEvent] = []
        self._seen: dict[int, list[MoveEvent]] = {}
        self.result: HandResult | None = None
        self.set_aside: list[dict[Tile, None]] = [{} for _ in range(players)]
        self._legal: LegalMoves | None = None
        self._draws = self.traits.draw is not DrawRule.NONE
        self._scores_plays = self.traits.scores_during_hand  # read at every play
        self._draw_until = self.traits.draw is DrawRule.UNTIL_PLAYABLE
        # Every tile not laid is in a hand or the stock and fits any open end of its
        # number: the blocked check can then read the layout alone (C-10).
        self._plain_fit = (
            self.traits.layout is not LayoutKind.CROSS and self.traits.fit is Fit.PLAIN
        )
        self._check_deal()
        self.turn = self.opener = self._opener()

    # -- what the game declares ---------------------------------------------------------

    @property
    def draw_rule(self) -> DrawRule:
        return self.traits.draw

    def _stock_not_given(self, hands: Sequence[Sequence[Tile]]) -> Sequence[Tile]:
        """The stock when a deal gives none: a game without a stock has none left."""
        return ()

    def _check_hand_sizes(self, hands: Sequence[Sequence[Tile]]) -> None:
        size = self.options.hand_size
        for seat, tiles in enumerate(hands):
            if len(tiles) != size:
                raise DealError(
                    self.RULE_HAND_SIZE or self.RULE_DEAL,
                    phrase(
                        "seat {seat} was dealt {count} tiles, not {size}",
                        seat=seat,
                        count=len(tiles),
                        size=size,
                    ),
                )

    def _check_deal(self) -> None:
        """Refuse a deal the rules throw in (:class:`DealError`)."""

    def _opener(self) -> int:
        """The seat that lays the first tile."""
        raise NotImplementedError

    def _openings(self, seat: int) -> list[Play]:
        """The legal first tiles of ``seat`` (the opener)."""
        raise NotImplementedError

    def _fitting(self, seat: int, value: int) -> tuple[Tile, ...]:
        """The tiles ``seat`` may lay on an open point of ``value``, in tile order."""
        return self.hands[seat].sorted_with_number(value)

    def _scored(self, seat: int, move: Play) -> MoveEvent:
        """The event of a play just laid; a game that scores as it plays adds points."""
        return MoveEvent(seat, move)

    def _score(self, ended: Ending, out: int | None) -> HandResult:
        raise NotImplementedError

    def _false_knock(self, seat: int) -> tuple[Tile, ...] | None:
        """A knock by a seat that could play: ``None`` refuses it; a game that accepts it
        (PT-08 ``penalize``) returns the tiles it sets aside."""
        return None

    # -- reading ------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return int(self.options.players)

    @property
    def stock(self) -> list[Tile]:
        """The undealt tiles, next to be drawn first (hidden information)."""
        return list(reversed(self._stock))

    @property
    def stock_size(self) -> int:
        return len(self._stock)

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def current_seat(self) -> int | None:
        return None if self.result is not None else self.turn

    def legal_moves(self) -> LegalMoves:
        """Every legal move of the seat to play, in a fixed order.

        Plays come first, by the id of the open point (the order points appeared),
        then by tile (``high``, ``low``), a double across before in line. Only when no
        play exists: a single :class:`Draw` where the player may draw, else
        :class:`Pass`. Empty once the hand is over. Computed once per position; the
        result is a lazy sequence, so counting it or taking one move by index does not
        build the others.
        """
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        return legal

    def _generate(self) -> LegalMoves:
        if self.result is not None:
            return LegalMoves()
        seat = self.turn
        if not self.layout.tiles:
            return LegalMoves.of(list(self._openings(seat)))
        plays = self._plays(seat)
        if plays:
            return plays
        return LegalMoves.of([Draw()] if self._can_draw() else [Pass()])

    def _plays(self, seat: int) -> LegalMoves:
        """The plays of ``seat`` after the opening, point by point."""
        fitting = self._fitting
        return LegalMoves.of(
            [
                Play(tile, point.value, point.kind, point.id)
                for point in self.layout.iter_points()
                for tile in fitting(seat, point.value)
            ]
        )

    def representative_moves(self) -> list[Move]:
        """One legal move per group of moves that lead to the same position for the
        rules: the same tile, the same way round, on points of equal value and kind."""
        return representatives(self.legal_moves())

    def points_if(self, move: Move) -> int:
        """What ``move`` would score at once (0 in games that score at the end)."""
        return 0

    def _has_play(self, seat: int) -> bool:
        """Whether ``seat`` could lay a tile now, without listing the plays (C-10)."""
        if not self.layout.tiles:
            return True
        layout = self.layout
        return any(self._fitting(seat, v) for v in layout.end_values()) or any(
            self._fitting(seat, v) for v in layout.side_values()
        )

    def _can_draw(self) -> bool:
        return self._draws and bool(self._stock)

    def view(self, seat: int) -> View:
        """What ``seat`` may know (``SPECTATOR`` for the public view): C-06."""
        if seat == SPECTATOR:
            hand: tuple[Tile, ...] = ()
        elif 0 <= seat < self.players:
            hand = tuple(self.hands[seat])
        else:
            raise ValueError(f"there is no seat {seat} (seats are 0 to {self.players - 1})")
        return View(
            game=self.game,
            options=self.options,
            seat=seat,
            turn=self.current_seat,
            hand=hand,
            hand_sizes=tuple(len(h) for h in self.hands),
            stock_size=len(self._stock),
            layout=self.layout.snapshot(),
            scores=tuple(self.scores),
            history=self._history_seen_by(seat),
            result=self.result,
            set_aside=self._face_up(),
            hand_number=self.context.number,
        )

    def _face_up(self) -> tuple[tuple[Tile, ...], ...]:
        """Per seat, the tiles lying face up (PT-08)."""
        return tuple(tuple(s) for s in self.set_aside)

    def _history_seen_by(self, seat: int) -> tuple[MoveEvent, ...]:
        # Bots ask for a view at every decision; extending a per-seat copy keeps that
        # proportional to the new events instead of the whole history.
        seen = self._seen.setdefault(seat, [])
        if len(seen) > len(self.history):
            seen.clear()
        seen.extend(e.seen_by(seat) for e in self.history[len(seen) :])
        return tuple(seen)

    # -- changing -----------------------------------------------------------------------

    def play(self, move: Move) -> MoveEvent:
        """Apply ``move`` for the seat to play.

        Raises :class:`IllegalMoveError`, naming the rule, and changes nothing when the
        move is not legal.
        """
        if type(move) is Misdeal:
            return self._misdeal(move)
        seat = self.turn
        legal = self._legal
        if legal is None:
            legal = self.legal_moves()
        listed = legal.find(move)
        # A listed move is legal: the engine applies its own copy of it, unchecked.
        event = self._checked(seat, move) if listed is None else self._apply(seat, listed)
        self.history.append(event)
        self._legal = None
        if self.result is None:
            if not (self._draw_until and type(move) is Draw):
                self.turn = (seat + 1) % self.players
            self._check_blocked()
        return event

    def _apply(self, seat: int, move: Move) -> MoveEvent:
        """Apply a move known to be legal."""
        if type(move) is Play:
            return self._place(seat, move)
        if type(move) is Draw:
            return self._take(seat, move)
        return MoveEvent(seat, move)

    def _checked(self, seat: int, move: Move) -> MoveEvent:
        """A move that is not listed: a draw naming its tile, a false knock the game
        accepts (PT-08), or an illegal move, refused with its rule."""
        if self.result is not None:
            raise IllegalMoveError(self.RULE_END, phrase("the hand is over"))
        if isinstance(move, Play):
            self._check_play(seat, move)
            # Every check passed, yet the move is not listed: the two must never differ.
            raise AssertionError(f"{move} passed the checks but is not a legal move")
        if isinstance(move, Draw):
            return self._draw(seat, move)
        if isinstance(move, Pass):
            return self._pass(seat)
        raise IllegalMoveError("C-08", phrase("not a move: {move!r}", move=move))

    def _place(self, seat: int, move: Play) -> MoveEvent:
        tile = move.tile
        self.hands[seat].remove(tile)
        aside = self.set_aside[seat]
        if aside:
            aside.pop(tile, None)
        if move.at is At.OPEN:
            self.layout.open_with(tile, seat)
        else:
            self.layout.attach(tile, move.touching, move.end, seat, move.inline)
        event = self._scored(seat, move) if self._scores_plays else MoveEvent(seat, move)
        if not self.hands[seat]:
            self._finish(Ending.OUT, seat)
        return event

    def _draw(self, seat: int, move: Draw) -> MoveEvent:
        if self.traits.draw is DrawRule.NONE:
            raise IllegalMoveError(self.RULE_DRAW, phrase("there is no drawing in this game"))
        if self._has_play(seat):
            raise IllegalMoveError(self.RULE_PLAY, Phrase(MUST_PLAY, {"seat": seat}))
        if not self._stock:
            rule = self.RULE_EMPTY_STOCK or self.RULE_DRAW
            raise IllegalMoveError(rule, phrase("the stock is empty: pass"))
        return self._take(seat, move)

    def _take(self, seat: int, move: Draw) -> MoveEvent:
        """Take the top of the stock (a replayed draw names it, and must be right)."""
        if move.tile is not None and move.tile != self._stock[-1]:
            raise IllegalMoveError(
                self.RULE_DRAW, phrase("the top of the stock is not {tile}", tile=move.tile)
            )
        tile = self._stock.pop()
        self.hands[seat].add(tile)
        return MoveEvent(seat, Draw(tile))

    def _pass(self, seat: int) -> MoveEvent:
        set_aside: tuple[Tile, ...] = ()
        if not self.layout.tiles:
            raise IllegalMoveError(self.RULE_OPEN, Phrase(MUST_LEAD, {"seat": seat}))
        if self._has_play(seat):
            knocked = self._false_knock(seat)
            if knocked is None:
                raise IllegalMoveError(self.RULE_PLAY, Phrase(MUST_PLAY, {"seat": seat}))
            set_aside = knocked
            for tile in knocked:
                self.set_aside[seat][tile] = None
        elif self._can_draw():
            raise IllegalMoveError(self.RULE_DRAW, Phrase(MUST_DRAW, {"seat": seat}))
        return MoveEvent(seat, Pass(), set_aside=set_aside)

    def _misdeal(self, move: Misdeal) -> MoveEvent:
        raise IllegalMoveError("F-24", phrase("misdeals are entered only for a game dealt by hand"))

    def _check_blocked(self) -> None:
        """C-10: end the hand once nobody can lay a tile and nobody can draw."""
        if self._can_draw():
            return
        if self._plain_fit and not self._stock and not any(self.set_aside):
            # Every tile not laid is in a hand and fits any end of its number, so the
            # hand is blocked exactly when every tile of every open number is laid
            # (PT-09's note); no need to look at the hands.
            full = self.traits.top + 1
            laid_with = self.layout.laid_with
            if all(laid_with(v) == full for v in self.layout.end_values()):
                self._finish(Ending.BLOCKED, None)
            return
        players = self.players
        for i in range(players):
            if self._has_play((self.turn + i) % players):
                return
        self._finish(Ending.BLOCKED, None)

    def _finish(self, ended: Ending, out: int | None) -> None:
        self.result = self._score(ended, out)
        self.scores = list(self.result.final)

    # -- copies -------------------------------------------------------------------------

    def clone(self) -> Self:
        clone = self.__class__.__new__(self.__class__)
        clone.__dict__.update(self.__dict__)
        clone.hands = [h.copy() for h in self.hands]
        clone._stock = list(self._stock)
        clone.layout = self.layout.copy()
        clone.scores = list(self.scores)
        clone.history = list(self.history)
        clone.set_aside = [dict(s) for s in self.set_aside]
        clone._seen = {}
        return clone

    def __repr__(self) -> str:
        ends = [p.value for p in self.layout.points]
        return (
            f"<{type(self).__name__} {self.players} players, {len(self.layout.tiles)} laid, "
            f"open {ends}, turn {self.turn}>"
        )


def lowest(pips: Sequence[int]) -> int | None:
    """The seat with the lowest pip total, or ``None`` when the lowest is shared
    (FA-09, DB-11: nobody wins a tied block)."""
    least = min(pips)
    holders = [seat for seat, p in enumerate(pips) if p == least]
    return holders[0] if len(holders) == 1 else None


def line_result(
    state: HandState,
    ended: Ending,
    out: int | None,
    gained: Sequence[int],
    places: Sequence[int] | None = None,
) -> HandResult:
    """A line game's hand result: ``gained`` points per seat are added to the match
    scores (``final``); places go to whoever went out, then by fewest pips (or by the
    ``places`` keys given, lower is better)."""
    pips = tuple(h.pips for h in state.hands)
    before = state.context.scores or (0,) * len(pips)
    final = tuple(b + g for b, g in zip(before, gained, strict=True))
    ranks = places_by_pips(pips, out) if places is None else competition_ranks(places, False)
    return HandResult(ended, out, pips, tuple(gained), final, ranks)


def places_by_pips(pips: Sequence[int], out: int | None) -> tuple[int, ...]:
    """Places in a hand: whoever went out first, then by fewest pips; equal pips share a
    place (DR-07, DR-08: tied players with the fewest pips are joint winners).

    >>> places_by_pips([11, 8], None), places_by_pips([8, 8], None)  # DR-E4
    ((2, 1), (1, 1))
    """
    keys = [-1 if seat == out else p for seat, p in enumerate(pips)]
    return competition_ranks(keys, higher_is_better=False)


def holds_a_double(hands: Sequence[Sequence[Tile]]) -> bool:
    return any(t.high == t.low for hand in hands for t in hand)
