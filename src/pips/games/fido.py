"""The FIDO divisor game (SPEC section 1, rules F-01 to F-24).

One hand is one game. The opener lays the highest double held (F-09); every double
lies across and leaves a naked side (F-05); after every play the open ends are added
up and, when the count ``S`` divides by the set's divisor, the player scores ``S/d``
(F-15). A player who cannot play draws one tile and sits out (F-17). At the end every
player's remaining pips are deducted (F-21).

Typical use::

    >>> import random
    >>> state = FidoState.new_hand(FidoOptions(players=4, set=6), random.Random(7))
    >>> opening = state.legal_moves()[0]
    >>> event = state.play(opening)
    >>> event.layout_count, event.points
    (12, 4)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Self

from pips.core.deal import Deal, deal_until
from pips.core.errors import DealError, IllegalMoveError, OptionError
from pips.core.layout import CrossLayout, Point
from pips.core.legal import Doubles, LegalMoves, PointPlays, group_size
from pips.core.moves import At, Draw, Misdeal, Move, Play
from pips.core.outcome import Ending, HandResult, competition_ranks
from pips.core.phrase import N_, Phrase, joined, phrase
from pips.core.tiles import DOUBLES, Tile, double_set, highest_double, highest_double_holder
from pips.core.view import MoveEvent, View
from pips.games.common import HandContext, HandState, holds_a_double
from pips.games.face import GameSpec, PointsBound
from pips.games.fido_count import (
    DIVISORS,
    HAND_SIZES,
    count_after,
    count_of,
    most_count,
    points_for,
    ratzek_rows,
)
from pips.games.options import Direction, GameOptions, option
from pips.games.traits import (
    DrawRule,
    EntryColumns,
    Fit,
    HandScoring,
    HandTraits,
    LayoutKind,
    Opening,
    Redeal,
    SheetKind,
)
from pips.games.words import how_it_ended

NAME = "fido"

SUMMARY = N_(
    """\
FIDO divisor game: one hand, 3 to 9 players, a double-6 to double-18 set.

- Set and divisor (F-01): double-6 scores on 3, double-9 on 5, double-12 on 7,
  double-15 on 9, double-18 on 11. Hand sizes by players and set (F-02); the rest is
  the stock.
- The holder of the highest double opens with it (F-09). It lies alone: both halves
  are open ends, both long sides are naked sides; S = twice its number (F-10).
- The second tile must go against a naked side of the opening double (F-13).
- Every double is laid across (F-05): both halves stay open and its far long side
  becomes naked; S rises by its number. A tile on an open end changes S by its
  difference (F-06); a tile at a naked side adds its free number (F-07).
- S counts open ends only, never naked sides (F-04).
- After every play, if S divides by the divisor, the player scores S / divisor
  (F-15), the opening included (F-11).
- You must play if you can (F-16). Otherwise draw one tile and sit out; that tile
  waits for your next turn (F-17). With the stock empty you pass (F-18).
- The hand ends when someone lays their last tile (F-19) or nobody can play and
  nothing can be drawn (F-20). Everyone deducts the pips left in their hand from
  their points; the highest final score wins (F-21).
- Options: direction of play, the Mother Theresa rule (a naked side may be taken
  without scoring only as a last resort, F-22), doubles in line (F-23).
"""
)


class DoublesInline(StrEnum):
    """F-23, the Sönke Hansen variant."""

    NEVER = "never"
    OPTIONAL = "optional"
    ALWAYS = "always"


class DealMode(StrEnum):
    """F-24: ``manual`` records a game whose tiles were taken by hand at a real table."""

    AUTOMATIC = "automatic"
    MANUAL = "manual"


@dataclass(frozen=True)
class FidoOptions(GameOptions):
    """The options of SPEC 1.1, validated on construction."""

    SECTION: ClassVar[str] = "§1.1"

    players: int = option(
        rule="§1.1", help="Number of players.", values="3 to 9", minimum=3, maximum=9
    )
    set: int = option(
        12, rule="§1.1", help="The set (F-01).", values="6, 9, 12, 15, 18", minimum=6, maximum=18
    )
    direction: Direction = option(Direction.CLOCKWISE, rule="§1.1", help="Direction of play.")
    mother_theresa: bool = option(
        False, rule="F-22", help="The rule of mercy: a naked side only when it scores."
    )
    doubles_inline: DoublesInline = option(
        DoublesInline.NEVER, rule="§1.1", help="Doubles in line, the Sönke Hansen variant (F-23)."
    )
    deal_mode: DealMode = option(
        DealMode.AUTOMATIC, rule="F-24", help="manual: tiles taken by hand at a real table."
    )

    def check(self) -> None:
        if self.set not in DIVISORS:
            sets = joined([phrase("double-{top}", top=s) for s in DIVISORS])
            raise OptionError(
                "F-01",
                phrase("the set must be one of {sets}, not double-{set}", sets=sets, set=self.set),
            )
        if self.players not in HAND_SIZES:
            raise OptionError(
                "F-02",
                phrase("FIDO is played by 3 to 9 players, not {players}", players=self.players),
            )

    @property
    def divisor(self) -> int:
        return DIVISORS[self.top]

    @property
    def hand_size(self) -> int:
        return HAND_SIZES[self.players][self.top]

    @property
    def stock_size(self) -> int:
        return len(double_set(self.top)) - self.players * self.hand_size

    def derived(self) -> dict[str, Any]:
        """The divisor and hand size, written into records so a reader can see them."""
        return {"divisor": self.divisor, "hand_size": self.hand_size}

    def traits(self, first_hand: bool = True) -> HandTraits:
        return HandTraits(
            players=self.players,
            top=self.top,
            hand_size=self.hand_size,
            layout=LayoutKind.CROSS,  # F-04 to F-10
            draw=DrawRule.ONE_AND_WAIT,  # F-17
            opening=Opening.HIGHEST_DOUBLE,  # F-09
            fit=Fit.PLAIN,
            scoring=HandScoring.DIVISOR,  # F-15, F-21
            redeal=Redeal.NO_DOUBLE,  # F-12
            divisor=self.divisor,
            mother_theresa=self.mother_theresa,
            doubles_at_end=_DOUBLES_AT_END[self.doubles_inline],
        )


def options_of(view: View) -> FidoOptions:
    """A FIDO view's options, as FIDO's own type."""
    options = view.options
    assert isinstance(options, FidoOptions), options
    return options


def immediate_points(view: View, move: Move) -> int:
    """What ``move`` would score at once, from what a seat can see (for bots, hints)."""
    if not isinstance(move, Play):
        return 0
    return points_for(count_after(view.layout.count, move), options_of(view).divisor)


_DOUBLES_AT_END = {
    DoublesInline.NEVER: Doubles.ACROSS,
    DoublesInline.OPTIONAL: Doubles.ACROSS_OR_INLINE,
    DoublesInline.ALWAYS: Doubles.INLINE,
}


def _point_of(group: PointPlays) -> int:
    return group.point


def hand_result(
    ended: Ending, out: int | None, running: Sequence[int], pips: Sequence[int]
) -> HandResult:
    """F-19 to F-21: every player's remaining pips are deducted from their running score;
    the highest final score wins, equal scores share the place."""
    final = tuple(s - p for s, p in zip(running, pips, strict=True))
    return HandResult(ended, out, tuple(pips), tuple(running), final, competition_ranks(final))


class FidoState(HandState):
    """A FIDO hand in progress. Change it only through :meth:`play`.

    The turn is the common hand's; FIDO states what differs: the cross layout with its
    naked sides and the second tile at a side (F-05, F-13), doubles in line (F-23),
    the Mother Theresa rule (F-22), scoring after every play (F-15), the deduction at
    the end (F-21) and the manual deal mode of a real table (F-24).
    """

    game = NAME
    RULE_DEAL = "F-03"
    RULE_HAND_SIZE = "F-02"
    RULE_OPEN = "F-09"
    RULE_FIT = "F-14"
    RULE_PLAY = "F-16"
    RULE_DRAW = "F-17"
    RULE_EMPTY_STOCK = "F-18"
    RULE_END = "F-19"

    options: FidoOptions
    layout: CrossLayout

    def __init__(
        self,
        options: FidoOptions,
        hands: Sequence[Sequence[Tile]],
        stock: Sequence[Tile] | None = None,
        voided: Sequence[tuple[Sequence[Sequence[Tile]], Sequence[Tile]]] = (),
        context: HandContext = HandContext(),
    ) -> None:
        """Start a hand from a given deal.

        ``stock`` lists the undealt tiles, the next to be drawn first. In manual deal
        mode (F-24) its order is unknown and it may be left out: it is the rest of the
        set, and every draw names its tile. ``voided`` keeps deals cancelled by F-12.
        A FIDO game is one hand, so ``context`` is always the first hand's.
        """
        self._divisor = options.divisor
        self._short = [max(0, options.hand_size - len(h)) for h in hands]
        super().__init__(options, hands, stock, voided, context)

    # -- construction -------------------------------------------------------------------

    @classmethod
    def new_hand(cls, options: FidoOptions, rng: random.Random) -> FidoState:
        """Shuffle and deal with ``rng``; redeal while nobody holds a double (F-12)."""
        dealt = deal(options, rng)
        return cls(options, dealt.hands, dealt.stock, dealt.voided)

    def _stock_not_given(self, hands: Sequence[Sequence[Tile]]) -> Sequence[Tile]:
        if self.options.deal_mode is not DealMode.MANUAL:
            raise DealError("C-06", phrase("an automatic deal needs its stock in order"))
        dealt = {t for h in hands for t in h}
        return [t for t in double_set(self.options.top) if t not in dealt]

    def _check_hand_sizes(self, hands: Sequence[Sequence[Tile]]) -> None:
        if self.options.deal_mode is not DealMode.MANUAL:  # F-24: misdeals are corrected
            super()._check_hand_sizes(hands)

    def _opener(self) -> int:
        """F-09: the seat holding the highest double."""
        holder = highest_double_holder(self.hands)
        if holder is None:
            raise DealError("F-12", phrase("nobody holds a double: shuffle and deal again"))
        return holder[0]

    def _openings(self, seat: int) -> list[Play]:
        double = highest_double(self.hands[seat])
        assert double is not None  # the opener holds the highest double (F-09)
        return [Play(double, double.high, At.OPEN)]

    # -- reading --------------------------------------------------------------------

    def _plays(self, seat: int) -> LegalMoves:
        """The plays after the opening, one group per point that a tile in hand fits,
        built only when asked for (F-13 to F-23)."""
        groups = self._groups(seat)
        if self.options.mother_theresa and len(self.layout.tiles) > 1:
            plays = [play for group in groups for play in group.moves()]
            return LegalMoves.of(self._mother_theresa(plays))
        return LegalMoves(groups=groups)

    def _groups(self, seat: int) -> list[PointPlays]:
        """The plays after the opening, one group per point that a tile in hand fits.

        Only those points are visited, so the work follows the open points and the
        hand's matches, never the size of the set.
        """
        hand = self.hands[seat]
        layout = self.layout
        sorted_with = hand.sorted_with_number
        groups: list[PointPlays] = []
        if len(layout.tiles) > 1:  # F-13: the second tile may only go to a naked side.
            doubles = self.traits.doubles_at_end
            for value, ids in layout.ends_by_value().items():
                tiles = sorted_with(value)
                if tiles:
                    # One size per value, shared by every point of that value.
                    size = group_size(tiles, doubles, DOUBLES[value] in hand)
                    groups += [PointPlays(p, value, At.END, tiles, doubles, size) for p in ids]
        for value, ids in layout.sides_by_value().items():
            tiles = sorted_with(value)
            if tiles:
                # F-07: never a double at a naked side.
                size = group_size(tiles, Doubles.NONE, DOUBLES[value] in hand)
                if size:
                    groups += [
                        PointPlays(p, value, At.SIDE, tiles, Doubles.NONE, size) for p in ids
                    ]
        groups.sort(key=_point_of)
        return groups

    def _scores_at_side(self, play: Play) -> bool:
        count = self.layout.count + play.free
        return count > 0 and count % self._divisor == 0

    def _mother_theresa(self, plays: list[Play]) -> list[Move]:
        """F-22: a non-scoring naked-side play only when nothing else is legal."""
        keep: list[Move] = [p for p in plays if p.at is not At.SIDE or self._scores_at_side(p)]
        return keep if keep else list(plays)

    def _has_play(self, seat: int) -> bool:
        """Whether ``seat`` has any legal play, without listing them (C-10)."""
        hand = self.hands[seat]
        layout = self.layout
        laid = len(layout.tiles)
        if laid == 0:
            return True
        if laid > 1:
            for v in layout.end_values():
                if hand.has_number(v):
                    return True
        for v in layout.side_values():
            for tile in hand.with_number(v):
                if tile.high != tile.low:
                    return True
        return False

    def points_if(self, move: Move) -> int:
        """What ``move`` would score now (0 for a draw or pass)."""
        if not isinstance(move, Play):
            return 0
        return points_for(count_after(self.layout.count, move), self._divisor)

    def _face_up(self) -> tuple[tuple[Tile, ...], ...]:
        return ()  # nothing is ever laid face up in FIDO

    # -- changing ---------------------------------------------------------------------

    def _scored(self, seat: int, move: Play) -> MoveEvent:
        """F-15: after every play, the count S scores S/d when it divides."""
        count = self.layout.count
        points = count // self._divisor if count % self._divisor == 0 else 0
        self.scores[seat] += points
        return MoveEvent(seat, move, points, count)

    def _check_opening(self, seat: int, move: Play) -> None:
        expected = self._openings(seat)[0]
        if move.at is not At.OPEN or move.tile != expected.tile:
            raise IllegalMoveError(
                "F-09",
                phrase("the hand opens with the highest double held, {tile}", tile=expected.tile),
            )
        if move.inline:
            raise IllegalMoveError("F-23", phrase("the opening double always lies alone"))

    def _check_placing(self, seat: int, move: Play, point: Point) -> None:
        tile = move.tile
        laid = len(self.layout.tiles)
        if laid == 1 and move.at is not At.SIDE:
            raise IllegalMoveError(
                "F-13", phrase("the second tile must be laid against a naked side")
            )
        double = tile.high == tile.low
        if move.at is At.SIDE and double:
            raise IllegalMoveError("F-07", phrase("a double can never be laid at a naked side"))
        rule = self.options.doubles_inline
        if move.inline:
            if not double or move.at is not At.END:
                raise IllegalMoveError(
                    "F-23", phrase("only a double laid on an open end can lie in line")
                )
            if rule is DoublesInline.NEVER:
                raise IllegalMoveError(
                    "F-23", phrase("doubles are always laid across (doubles_inline is never)")
                )
        elif double and rule is DoublesInline.ALWAYS:
            raise IllegalMoveError(
                "F-23",
                phrase("every double after the opening is laid in line (doubles_inline is always)"),
            )
        others = [p for p in self.legal_moves() if isinstance(p, Play)]
        if self.options.mother_theresa and move.at is At.SIDE and laid > 1 and others:
            raise IllegalMoveError(
                "F-22",
                phrase(
                    "a naked side that does not score may only be used when nothing else can be"
                    " played (e.g. {value})",
                    value=others[0],
                ),
            )

    def _take(self, seat: int, move: Draw) -> MoveEvent:
        if self.options.deal_mode is not DealMode.MANUAL:
            return super()._take(seat, move)
        if move.tile is None:
            raise IllegalMoveError("F-24", phrase("in manual deal mode a draw names its tile"))
        if move.tile not in self._stock:
            raise IllegalMoveError("F-17", phrase("{tile} is not in the stock", tile=move.tile))
        self._stock.remove(move.tile)
        self.hands[seat].add(move.tile)
        return MoveEvent(seat, Draw(move.tile))

    def _misdeal(self, move: Misdeal) -> MoveEvent:
        """F-24: correct a hand taken wrongly at a real table."""
        if self.options.deal_mode is not DealMode.MANUAL:
            raise IllegalMoveError("F-24", phrase("misdeals only exist in manual deal mode"))
        seat = move.seat
        if not 0 <= seat < self.options.players:
            raise IllegalMoveError("F-24", phrase("there is no seat {seat}", seat=seat))
        hand = self.hands[seat]
        size = self.options.hand_size
        before_opening = not self.layout.tiles
        if before_opening:
            # F-24.1: excess tiles go back to the stock, missing ones are drawn.
            excess = max(0, len(hand) - size)
            missing = max(0, size - len(hand))
            if not excess and not missing:
                raise IllegalMoveError(
                    "F-24", phrase("seat {seat} holds the right number of tiles", seat=seat)
                )
        else:
            # F-24.2: too many are kept; F-24.3: too few are made up from the stock.
            excess, missing = 0, self._short[seat]
            if not missing:
                raise IllegalMoveError(
                    "F-24",
                    phrase(
                        "seat {seat} was not dealt too few tiles; a player with too many keeps them"
                        " (F-24.2)",
                        seat=seat,
                    ),
                )
        if len(move.returned) != excess:
            raise IllegalMoveError(
                "F-24", phrase("seat {seat} must return {excess} tile(s)", seat=seat, excess=excess)
            )
        for tile in move.returned:
            if tile not in hand:
                raise IllegalMoveError(
                    "F-24", phrase("{tile} is not in seat {seat}'s hand", tile=tile, seat=seat)
                )
        want = min(missing, len(self._stock) + len(move.returned))
        if len(move.drawn) != want or len(set(move.drawn)) != want:
            raise IllegalMoveError(
                "F-24", phrase("seat {seat} must draw {want} tile(s)", seat=seat, want=want)
            )
        for tile in move.drawn:
            if tile not in self._stock:
                raise IllegalMoveError("F-24", phrase("{tile} is not in the stock", tile=tile))
        for tile in move.returned:
            hand.remove(tile)
            self._stock.append(tile)
        for tile in move.drawn:
            self._stock.remove(tile)
            hand.add(tile)
        self._short[seat] = 0
        self._legal = None
        event = MoveEvent(seat, move)
        self.history.append(event)
        if before_opening:
            self.turn = self._opener()
        elif self.result is not None:
            # Discovered at the end: the tiles only count in the deduction; no resuming.
            self._finish(self.result.ended, self.result.out)
        elif not self._stock:
            self._check_blocked()
        return event

    def _score(self, ended: Ending, out: int | None) -> HandResult:
        return hand_result(ended, out, self.scores, [h.pips for h in self.hands])

    def _finish(self, ended: Ending, out: int | None) -> None:
        # The scores stay the running points of the hand (F-15); the final scores are
        # the result's (F-21).
        self.result = self._score(ended, out)

    # -- copies ---------------------------------------------------------------------

    def clone(self) -> Self:
        clone = super().clone()
        clone._short = list(self._short)
        return clone

    def __repr__(self) -> str:
        return (
            f"<FidoState double-{self.options.top} {self.options.players} players, "
            f"{len(self.layout.tiles)} laid, S={self.layout.count}, turn {self.turn}>"
        )


def deal(options: FidoOptions, rng: random.Random) -> Deal:
    """F-03, F-12: shuffle and deal, again while nobody holds a double."""
    return deal_until(options.top, options.players, options.hand_size, rng, holds_a_double)


def hand_rows(view: View) -> list[list[Tile]]:
    """FIDO players hold their tiles in the Ratzek order (F-03)."""
    return ratzek_rows(view.hand, options_of(view).divisor)


def explain_hand(options: FidoOptions, result: HandResult, names: Sequence[str]) -> str:
    """F-21 in words."""
    how = how_it_ended(result, names)
    return phrase(
        "{how}; every player's pips left are deducted from the points they scored (F-21).",
        how=how,
    )


def sheet_rule(options: FidoOptions) -> Phrase:
    return phrase(
        "After every play, if the open-end sum S divides by {d}, the player scores "
        "S / {d} (F-15). Write the running points after each scoring play. At the end "
        "every player deducts the pips left in hand (F-21); the highest final score wins.",
        d=options.divisor,
    )


def most_points_in_hand(options: FidoOptions) -> PointsBound:
    """The most running points a player can score in a game: they lay at most their
    hand and every tile of the stock, and each play scores at most the highest count
    divided by d (F-15)."""
    plays = options.hand_size + options.stock_size
    per_play = most_count(options.top) // options.divisor
    return PointsBound(
        plays * per_play,
        f"{plays} plays (a hand of {options.hand_size} and all {options.stock_size} tiles "
        f"of the stock) of at most {per_play} points each, as no layout of double-"
        f"{options.top} counts more than {most_count(options.top)} (F-15)",
    )


def entry_result(
    points: Sequence[int], pips: Sequence[int], out: int | None
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """F-21: running points less the pips left; highest first."""
    result = hand_result(Ending.OUT, out, points, pips)
    return result.final, result.ranks


GAME = GameSpec(
    name=NAME,
    title=N_("FIDO divisor game"),
    rules=phrase(
        "SPEC section {number} ({first} to {last})",
        number=1,
        first="F-01",
        last="F-24",
    ),
    aliases=("divisor", "fido-divisor"),
    options=FidoOptions,
    state=FidoState,
    deal=deal,
    explain_hand=explain_hand,
    entry=EntryColumns(N_("running points"), pips=True, out=True, out_rule="F-19"),
    entry_result=entry_result,
    sheet=SheetKind.SCORING_PLAYS,
    sheet_rule=sheet_rule,
    most_points_in_hand=most_points_in_hand,
    player_counts=tuple(HAND_SIZES),
    summary=SUMMARY,
    immediate_points=immediate_points,
    count_after=count_of,
    hand_rows=hand_rows,
    side_word="naked side",
    manual_deal=True,
    dealt_by_hand=lambda options: options.deal_mode is DealMode.MANUAL,
    sets=tuple(DIVISORS),
    defaults={"players": 4, "set": 12},
)
