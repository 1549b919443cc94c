"""The traits a game declares for a hand: its layout, drawing, opening, fitting, scoring.

Each game states its traits once, on its options
(:meth:`~pips.games.options.GameOptions.traits`); a hand holds them
(:attr:`~pips.games.common.HandState.traits`), and the engine's shared turn, the bots'
knowledge, the playout kernel and the clients read them. A new game whose rules combine
these traits needs no change outside its own module; a new trait is added here, then
taught to the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pips.core.layout import CrossLayout, Layout, LineLayout, Point, SpinnerLayout
from pips.core.legal import Doubles
from pips.core.moves import At
from pips.core.tiles import DOUBLES, Tile


class LayoutKind(StrEnum):
    CROSS = "cross"
    """FIDO: every double across with a naked side; the second tile at a side (F-05, F-13)."""
    LINE = "line"
    """A line with two open ends; doubles may branch (FA-04, DR-03, PT-06)."""
    SPINNER = "spinner"
    """A line around the set double, whose sides are taken first (DB-05)."""


class DrawRule(StrEnum):
    NONE = "none"
    """No drawing: a player who cannot lay a tile passes (PT-07, DB-08 ``no_draw``)."""
    ONE_AND_WAIT = "one_and_wait"
    """Draw one tile and the turn ends (F-17, FA-06)."""
    UNTIL_PLAYABLE = "until_playable"
    """Draw until a tile fits, then lay it at once (DR-05, DB-08)."""


class Opening(StrEnum):
    HIGHEST_DOUBLE = "highest_double"
    """The holder of the highest double lays it (F-09, FA-02, DB-04)."""
    DOUBLE_OR_HEAVIEST = "double_or_heaviest"
    """The highest double, else the heaviest tile (DR-02)."""
    SIX_SIX = "six_six"
    """The holder of 6-6 lays it (PT-05 first hand, DB-04 ``double_six``)."""
    ANY_TILE = "any_tile"
    """The seat after the previous opener, with any tile (PT-05 later hands)."""


class Fit(StrEnum):
    PLAIN = "plain"
    """A tile fits an open point of a number it shows."""
    DOUBLE_OPENS = "double_opens"
    """A suit takes only its double until the double is laid (DB-06)."""


class HandScoring(StrEnum):
    DIVISOR = "divisor"
    """Points as plays are made, pips left deducted at the end (F-15, F-21)."""
    WINNER_GAINS_DIFFERENCE = "winner_gains_difference"
    """The winner gains each opponent's pips less their own (FA-08)."""
    WINNER_TAKES = "winner_takes"
    """The winner earns every opponent's pips (DB-12, DR-10)."""
    PAIRS_ALL_HANDS = "pairs_all_hands"
    """A pair scores floor(P/10)+1; a blocked hand counts all four hands (PT-10, PT-11)."""
    PAIRS_LOSERS_ONLY = "pairs_losers_only"
    """As above, a blocked hand counting the losers' pips (PT-11 ``losers_only``)."""
    PLACES_ONLY = "places_only"
    """No points: places by going out, then fewest pips (DR-07, DR-08)."""


class Redeal(StrEnum):
    NEVER = "never"
    NO_DOUBLE = "no_double"
    """Dealt again while nobody holds a double (F-12, FA-02, DB-04)."""
    NO_SIX_SIX = "no_six_six"
    """Dealt again while nobody holds 6-6 (DB-04 ``double_six``)."""
    FIVE_DOUBLES = "five_doubles"
    """Dealt again while a hand holds five doubles (PT-04)."""


class SheetKind(StrEnum):
    """The printed score sheet of a game."""

    SCORING_PLAYS = "scoring_plays"
    """A row per scoring play, then pips deducted, final score, rank (FIDO)."""
    PAIR_TALLY = "pair_tally"
    """A tally per pair, hand by hand, to the target (the partnership game)."""
    HANDS = "hands"
    """A column per player, a row per hand, to the target (family game, Doubles)."""
    ONE_HAND = "one_hand"
    """Went out, pips left, rank (the draw game)."""


@dataclass(frozen=True, slots=True)
class EntryColumns:
    """What one player's line of a finished game gives, typed or from a record.

    ``points`` names the points column (``None``: the game has none); ``pips``: the
    pips left in hand are entered; ``out``: who went out is entered, under
    ``out_rule``.
    """

    points: str | None
    pips: bool = False
    out: bool = False
    out_rule: str = ""


@dataclass(frozen=True, slots=True)
class HandTraits:
    """The rules of one hand, as every reader of rules needs them."""

    players: int
    top: int
    """The set: double-``top``."""
    hand_size: int
    layout: LayoutKind
    draw: DrawRule
    opening: Opening
    fit: Fit
    scoring: HandScoring
    redeal: Redeal
    branching: bool = False
    """A double laid on an end opens two ends (FA-04, DR-03 ``doubles_branch``)."""
    divisor: int = 0
    """FIDO's divisor (F-01); 0 where plays do not score."""
    mother_theresa: bool = False
    """F-22: a naked side that does not score only as a last resort."""
    doubles_at_end: Doubles = Doubles.ACROSS
    """How a double laid on an open end lies (F-23)."""

    @property
    def scores_during_hand(self) -> bool:
        """Plays score as they are made (F-15), not only at the end of a hand."""
        return self.scoring is HandScoring.DIVISOR

    @property
    def pairs(self) -> bool:
        """Seats play in two pairs, partners opposite (SPEC 5.1)."""
        return self.scoring in (HandScoring.PAIRS_ALL_HANDS, HandScoring.PAIRS_LOSERS_ONLY)


def new_layout(traits: HandTraits) -> Layout:
    """An empty layout of the hand's kind."""
    if traits.layout is LayoutKind.CROSS:
        return CrossLayout()
    if traits.layout is LayoutKind.SPINNER:
        return SpinnerLayout()
    return LineLayout(branching=traits.branching)


def fits(traits: HandTraits, layout: Layout, point: Point, tile: Tile) -> bool:
    """Whether ``tile`` may be laid at open ``point`` of ``layout`` under the hand's
    rules, whoever holds it (F-07, F-13, DB-06). The engines list the moves of a hand
    from its index of tiles; ``tests/test_traits.py`` holds them to this rule."""
    value = point.value
    if not tile.contains(value):
        return False
    if traits.layout is LayoutKind.CROSS:
        if point.kind is At.SIDE:
            return tile.high != tile.low  # F-07
        return len(layout.tiles) > 1  # F-13
    if traits.fit is Fit.DOUBLE_OPENS and not layout.contains_double(value):
        return tile is DOUBLES[value]  # DB-06
    return True
