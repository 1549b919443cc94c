"""Doubles, from the English "Tutorial for Dominoes" (SPEC section 4).

Lots decide seat 0 (DB-01). Each hand the highest double held is set, or 6-6 with the
``double_six`` rule, redealing when nobody holds it (DB-04). The set double is a spinner:
its two sides first, then its two ends (DB-05). The distinctive rule: a tile may be laid
on an end of number v only once v-v is in the layout, and v-v itself opens its suit
(DB-06). Who cannot play draws until a tile can be laid and lays it, or passes with
``no_draw`` (DB-08). The winner went out or holds the fewest pips (DB-10; a tie scores
nothing, DB-11) and earns every opponent's pips (DB-12); first to the target wins
(DB-13).

    >>> import random
    >>> state = GAME.new_hand(DoublesOptions(players=3), random.Random(2))
    >>> [p.kind.value for p in (state.play(state.legal_moves()[0]) and state.layout.points)]
    ['side', 'side']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from pips.core.deal import Deal, deal_until
from pips.core.errors import DealError, IllegalMoveError, OptionError
from pips.core.lots import LotRule
from pips.core.moves import At, Play
from pips.core.outcome import Ending, HandResult
from pips.core.phrase import N_, phrase
from pips.core.tiles import DOUBLES, MAX_NUMBER, Tile, highest_double_holder, set_size
from pips.games.common import (
    HandState,
    holds_a_double,
    line_result,
    lowest,
)
from pips.games.face import GameSpec, PointsBound, set_pips
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
from pips.games.words import how_it_ended, nobody_scores, winner_takes

NAME = "doubles"

SUMMARY = N_(
    """\
Doubles: 2 or more players, hands until someone reaches 100.

- Lots: the heaviest tile drawn takes seat 0, where the playing order starts (DB-01).
- 7 tiles each for 2 to 4 players (DB-02); the rest is the boneyard (DB-03).
- The highest double is set first (or 6-6 with `set_rule double_six`, DB-04).
- The set double is a spinner: its two sides take the first two tiles, then its two
  ends open as well. Other doubles lie across and do not branch (DB-05).
- A suit may be matched only once its double is in the layout: a tile on an open end
  of v needs v-v laid already, or is v-v itself (DB-06).
- You must play if you can (DB-07); otherwise draw until a tile can be laid and lay
  it, passing when the boneyard is empty (DB-08).
- The hand ends when someone goes out or nobody can play (DB-09). The winner (out, or
  fewest pips) earns every opponent's pips (DB-10, DB-12); a tie for fewest scores
  nothing (DB-11). First to 100 wins (DB-13); every hand is a new deal (DB-14).
"""
)
SIX_SIX = DOUBLES[6]


class SetRule(StrEnum):
    """DB-04: which double is set (laid first) in every hand."""

    HIGHEST_DOUBLE = "highest_double"
    DOUBLE_SIX = "double_six"


class Spinner(StrEnum):
    """DB-05: whether the set double is a spinner."""

    SET_DOUBLE = "set_double"
    NONE = "none"


class DrawingRule(StrEnum):
    """DB-08: drawing from the boneyard."""

    DRAW_UNTIL_PLAYABLE = "draw_until_playable"
    NO_DRAW = "no_draw"


TARGETS = (50, 100, 101, 150, 200)
"""DB-13: the targets the text names; any positive number up to :data:`MOST_TARGET` is
accepted."""

MOST_TARGET = 1000
"""The highest target pips plays to: five times the highest the text names (a bound of
the platform, docs/rules/interpretations.md, so that no table plays for ever)."""

MOST_PLAYERS = 9
"""No table seats more (FIDO's largest, F-02): SPEC says "2 or more"; a bound of the
platform (docs/rules/interpretations.md)."""

MOST_TILES = 28
"""A hand holds at most a double-6 set's worth of tiles (DB-02 gives no bound)."""


@dataclass(frozen=True)
class DoublesOptions(GameOptions):
    """The parameters of SPEC 4.1."""

    SECTION: ClassVar[str] = "§4.1"

    players: int = option(
        rule="§4.1", help="Number of players.", values="2 to 9", minimum=2, maximum=MOST_PLAYERS
    )
    set: int | None = option(
        None,
        rule="§4.1",
        help="The set: default 6 for 2-4 players, 9 for 5-7; required for 8 or more.",
        values="0 to 21",
        minimum=0,
        maximum=MAX_NUMBER,
    )
    hand_size: int = option(
        7,
        rule="DB-02",
        help="Tiles per player.",
        values="2 players 7 or 8; 3-4 players 5-7; 5+ any",
        minimum=1,
        maximum=MOST_TILES,
    )
    set_rule: SetRule = option(SetRule.HIGHEST_DOUBLE, rule="DB-04", help="Which double is set.")
    spinner: Spinner = option(Spinner.SET_DOUBLE, rule="DB-05", help="Is the set double a spinner?")
    draw_rule: DrawingRule = option(
        DrawingRule.DRAW_UNTIL_PLAYABLE, rule="DB-08", help="Drawing from the boneyard."
    )
    target: int = option(
        100,
        rule="DB-13",
        minimum=1,
        maximum=MOST_TARGET,
        help="Points that win the match.",
        values="50, 100, 101, 150, 200 or any positive whole number",
    )
    direction: Direction = option(Direction.CLOCKWISE, rule="C-05", help="Direction of play.")

    def check(self) -> None:
        players = self.players
        if players < 2:
            raise OptionError(
                "§4.1", phrase("Doubles needs at least 2 players, not {players}", players=players)
            )
        if self.set is None:
            if players >= 8:
                raise OptionError("DB-02", phrase("with 8 or more players the set must be chosen"))
            object.__setattr__(self, "set", 6 if players <= 4 else 9)
        assert self.set is not None
        if not 0 <= self.set <= MAX_NUMBER:
            raise OptionError(
                "§4.1", phrase("the set is double-0 to double-21, not double-{set}", set=self.set)
            )
        allowed = {2: (7, 8), 3: (5, 6, 7), 4: (5, 6, 7)}.get(players)
        if allowed is not None and self.hand_size not in allowed:
            sizes = " or ".join(map(str, allowed))
            raise OptionError(
                "DB-02",
                phrase(
                    "{players} players take {sizes} tiles, not {hand_size}",
                    players=players,
                    sizes=sizes,
                    hand_size=self.hand_size,
                ),
            )
        if self.hand_size < 1 or players * self.hand_size > set_size(self.set):
            raise OptionError(
                "DB-02",
                phrase(
                    "{players} players x {hand_size} tiles do not fit the {value} tiles"
                    " of double-{set}",
                    players=players,
                    hand_size=self.hand_size,
                    value=set_size(self.set),
                    set=self.set,
                ),
            )
        if self.set_rule is SetRule.DOUBLE_SIX and self.set < 6:
            raise OptionError("DB-04", phrase("double-{set} has no 6-6 to set", set=self.set))

    def traits(self, first_hand: bool = True) -> HandTraits:
        six = self.set_rule is SetRule.DOUBLE_SIX
        return HandTraits(
            players=self.players,
            top=self.top,
            hand_size=self.hand_size,
            # DB-05: the set double is a spinner, unless the table plays a plain line.
            layout=(LayoutKind.SPINNER if self.spinner is Spinner.SET_DOUBLE else LayoutKind.LINE),
            draw=(
                DrawRule.NONE
                if self.draw_rule is DrawingRule.NO_DRAW
                else DrawRule.UNTIL_PLAYABLE  # DB-08
            ),
            opening=Opening.SIX_SIX if six else Opening.HIGHEST_DOUBLE,  # DB-04
            fit=Fit.DOUBLE_OPENS,  # DB-06
            scoring=HandScoring.WINNER_TAKES,  # DB-10 to DB-12
            redeal=Redeal.NO_SIX_SIX if six else Redeal.NO_DOUBLE,  # DB-04
        )


def _can_set(options: DoublesOptions) -> Callable[[Sequence[Sequence[Tile]]], bool]:
    if options.set_rule is SetRule.DOUBLE_SIX:
        return lambda hands: any(SIX_SIX in h for h in hands)
    return holds_a_double


def deal(options: DoublesOptions, rng: random.Random) -> Deal:
    """DB-02, DB-04: dealt again until the double to set is held."""
    return deal_until(
        options.top,
        options.players,
        options.hand_size,
        rng,
        _can_set(options),
    )


def hand_points(pips: Sequence[int], out: int | None) -> list[int]:
    """DB-10 to DB-12: the winner (out, or fewest pips) earns every opponent's pips; a
    tie for the fewest pips in a blocked hand scores nothing (DB-11).

    >>> hand_points([8, 15, 20], None)  # DB-E3
    [35, 0, 0]
    """
    winner = out if out is not None else lowest(pips)
    gained = [0] * len(pips)
    if winner is not None:
        gained[winner] = sum(pips) - pips[winner]
    return gained


class DoublesState(HandState):
    """A hand of Doubles."""

    game = NAME
    RULE_DEAL = "DB-02"
    RULE_OPEN = "DB-04"
    RULE_PLAY = "DB-07"
    RULE_DRAW = "DB-08"
    RULE_END = "DB-09"

    options: DoublesOptions

    def _set_double(self) -> tuple[int, Tile]:
        """DB-04: who sets which double."""
        if self.options.set_rule is SetRule.DOUBLE_SIX:
            seat = next((s for s, h in enumerate(self.hands) if SIX_SIX in h), None)
            if seat is None:
                raise DealError("DB-04", phrase("nobody holds 6-6: shuffle and deal again"))
            return seat, SIX_SIX
        holder = highest_double_holder(self.hands)
        if holder is None:
            raise DealError("DB-04", phrase("nobody holds a double: shuffle and deal again"))
        return holder

    def _opener(self) -> int:
        return self._set_double()[0]

    def _openings(self, seat: int) -> list[Play]:
        double = self._set_double()[1]
        return [Play(double, double.high, At.OPEN)]

    def _fitting(self, seat: int, value: int) -> tuple[Tile, ...]:
        """DB-06: a suit is matched only once its double is laid; the double opens it."""
        hand = self.hands[seat]
        if self.layout.contains_double(value):
            return hand.sorted_with_number(value)
        double = DOUBLES[value]
        return (double,) if double in hand else ()

    def _refuse(self, seat: int, move: Play, value: int) -> IllegalMoveError:
        return IllegalMoveError(
            "DB-06",
            phrase(
                "{tile} may not go on the {value}: {value}-{value} is not in the layout",
                tile=move.tile,
                value=value,
            ),
        )

    def _score(self, ended: Ending, out: int | None) -> HandResult:
        gained = hand_points([h.pips for h in self.hands], out)
        return line_result(self, ended, out, gained)


def explain_hand(options: DoublesOptions, result: HandResult, names: Sequence[str]) -> str:
    """DB-10 to DB-12 in words, with the hand's arithmetic."""
    how = how_it_ended(result, names)
    winners = [s for s, p in enumerate(result.points) if p]
    if not winners:
        return nobody_scores(how, "DB-11")
    return winner_takes(
        how, result, names, winners[0], phrase("{first} to {last}", first="DB-10", last="DB-12")
    )


GAME = GameSpec(
    name=NAME,
    title=N_("Doubles"),
    rules=phrase(
        "SPEC section {number} ({first} to {last})",
        number=4,
        first="DB-01",
        last="DB-14",
    ),
    aliases=("double",),
    options=DoublesOptions,
    state=DoublesState,
    deal=deal,
    explain_hand=explain_hand,
    entry=EntryColumns(N_("match points")),
    sheet=SheetKind.HANDS,
    sheet_rule=lambda options: phrase(
        "The winner of a hand earns the pips left in all opponents' hands (DB-12)."
    ),
    player_counts=tuple(range(2, 10)),
    summary=SUMMARY,
    target=lambda options: options.target,
    most_points_in_hand=lambda options: PointsBound(
        set_pips(options.top),
        f"the winner of a hand earns at most every pip of the other hands, and the set "
        f"holds {set_pips(options.top)} (DB-12)",
    ),
    lots=lambda options: LotRule.FIRST_PLAYER,
    side_word="spinner side",
    sets=(6, 9, 12),
    defaults={"players": 4},
)
