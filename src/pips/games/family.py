"""The German family game: 5 tiles, draw one and wait, first to 100 (SPEC section 2).

Each player takes five tiles (FA-01); the holder of the highest double lays it, and
nobody holding a double means a new deal (FA-02). Play goes to the left (FA-03) along a
line with two open ends (FA-04). Who cannot lay a tile draws one and waits: the drawn
tile may be laid from the next turn on (FA-06). The hand ends when someone is out or
when the stock is empty and nobody can lay a tile (FA-07); the winner gains every
opponent's pips minus their own (FA-08), a tie for fewest scores nothing (FA-09), and
the first to reach the target wins the match (FA-11).

    >>> import random
    >>> state = GAME.new_hand(FamilyOptions(players=3), random.Random(4))
    >>> opening = state.legal_moves()[0]
    >>> opening.tile.is_double, opening.at.value
    (True, 'open')
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pips.core.deal import Deal, deal_until
from pips.core.errors import DealError, OptionError
from pips.core.moves import At, Play
from pips.core.outcome import Ending, HandResult
from pips.core.phrase import N_, Phrase, personal, phrase
from pips.core.tiles import highest_double_holder
from pips.games.common import (
    HandState,
    holds_a_double,
    line_result,
    lowest,
)
from pips.games.face import GameSpec, PointsBound, set_pips
from pips.games.options import GameOptions, option
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
from pips.games.words import how_it_ended, nobody_scores

NAME = "family"

SUMMARY = N_(
    """\
Family game: 2 to 4 players, double-6, hands until someone reaches 100.

- Each player takes 5 tiles; the rest is the stock (FA-01). The holder of the highest
  double lays it first (FA-02); play goes clockwise (FA-03).
- The layout is one line with two open ends; a tile goes on an end with matching
  halves touching. Doubles do not branch unless `doubles_branch` is on (FA-04).
- You must lay a tile if you can (FA-05). If you cannot, draw exactly one tile and
  wait: it may be laid from your next turn on. With the stock empty you pass (FA-06).
- The hand ends when someone lays their last tile, or the stock is empty and nobody
  can play (FA-07).
- The winner (out, or fewest pips in a blocked hand) gains from every other player
  that player's pips minus their own (FA-08); a tie for fewest scores nothing (FA-09).
- Every hand is a new deal opened by the highest double (FA-10); the first to 100 at
  the end of a hand wins the match (FA-11).
"""
)
SET = 6
HAND_SIZE = 5
MOST_TARGET = 1000
"""The highest target pips plays to: ten times the usual 100 (a bound of the platform,
docs/rules/interpretations.md, so that no table plays for ever)."""
STOCK_SIZES = {2: 18, 3: 13, 4: 8}
"""FA-01: the stock after the deal, by number of players."""


@dataclass(frozen=True)
class FamilyOptions(GameOptions):
    """The parameters of SPEC 2.1."""

    SECTION: ClassVar[str] = "§2.1"
    FIXED: ClassVar[Mapping[str, Any]] = {
        "set": SET,
        "hand_size": HAND_SIZE,
        "direction": "clockwise",
    }

    players: int = option(
        rule="§2.1", help="Number of players.", values="2, 3, 4", minimum=2, maximum=4
    )
    target: int = option(
        100,
        rule="FA-11",
        minimum=1,
        maximum=MOST_TARGET,
        help="Points that win the match.",
        values="a positive whole number",
    )
    doubles_branch: bool = option(
        False, rule="FA-04", help="A double laid on an end opens two ends of its number."
    )

    def check(self) -> None:
        if self.players not in STOCK_SIZES:
            raise OptionError(
                "§2.1",
                phrase(
                    "the family game is for 2 to 4 players, not {players}", players=self.players
                ),
            )

    @property
    def set(self) -> int:
        return SET

    @property
    def hand_size(self) -> int:
        return HAND_SIZE

    def traits(self, first_hand: bool = True) -> HandTraits:
        return HandTraits(
            players=self.players,
            top=SET,
            hand_size=HAND_SIZE,
            layout=LayoutKind.LINE,  # FA-04
            branching=self.doubles_branch,
            draw=DrawRule.ONE_AND_WAIT,  # FA-06
            opening=Opening.HIGHEST_DOUBLE,  # FA-02, FA-10
            fit=Fit.PLAIN,
            scoring=HandScoring.WINNER_GAINS_DIFFERENCE,  # FA-08
            redeal=Redeal.NO_DOUBLE,  # FA-02
        )


def deal(options: FamilyOptions, rng: random.Random) -> Deal:
    """FA-01, FA-02: five tiles each, dealt again until somebody holds a double."""
    return deal_until(SET, options.players, HAND_SIZE, rng, holds_a_double)


def hand_points(pips: Sequence[int], out: int | None) -> list[int]:
    """FA-08: the winner (out, or fewest pips) gains each opponent's pips minus their
    own; FA-09: a tie for the fewest pips in a blocked hand scores nothing.

    >>> hand_points([12, 18, 11], None)  # FA-E1
    [0, 0, 8]
    """
    winner = out if out is not None else lowest(pips)
    gained = [0] * len(pips)
    if winner is not None:
        gained[winner] = sum(p - pips[winner] for seat, p in enumerate(pips) if seat != winner)
    return gained


class FamilyState(HandState):
    """A hand of the family game."""

    game = NAME
    RULE_DEAL = "FA-01"
    RULE_OPEN = "FA-02"
    RULE_PLAY = "FA-05"
    RULE_DRAW = "FA-06"
    RULE_END = "FA-07"

    options: FamilyOptions

    def _opener(self) -> int:
        holder = highest_double_holder(self.hands)
        if holder is None:
            raise DealError("FA-02", phrase("nobody holds a double: shuffle and deal again"))
        return holder[0]

    def _openings(self, seat: int) -> list[Play]:
        holder = highest_double_holder(self.hands)
        assert holder is not None
        double = holder[1]
        return [Play(double, double.high, At.OPEN)]

    def _score(self, ended: Ending, out: int | None) -> HandResult:
        gained = hand_points([h.pips for h in self.hands], out)
        return line_result(self, ended, out, gained)


def explain_hand(options: FamilyOptions, result: HandResult, names: Sequence[str]) -> str:
    """FA-08, FA-09 in words, with the hand's arithmetic."""
    how = how_it_ended(result, names)
    winners = [s for s, p in enumerate(result.points) if p]
    if not winners:
        return nobody_scores(how, "FA-09")
    w, pips = winners[0], result.pips
    terms = " + ".join(f"({pips[s]}-{pips[w]})" for s in range(len(pips)) if s != w)
    return Phrase(
        WINNER_SCORES,
        {"how": how, "who": names[w], "points": result.points[w], "terms": terms},
    )


WINNER_SCORES = personal(
    "{how}; {who} scores {points} = {terms}: each opponent's pips less the winner's (FA-08).",
    "who",
    N_("{how}; {who} scores {points} = {terms}: each opponent's pips less the winner's (FA-08)."),
    N_("{how}; you score {points} = {terms}: each opponent's pips less yours (FA-08)."),
)


GAME = GameSpec(
    name=NAME,
    title=N_("Family game"),
    rules=phrase(
        "SPEC section {number} ({first} to {last})",
        number=2,
        first="FA-01",
        last="FA-11",
    ),
    aliases=("familie", "five-tiles"),
    options=FamilyOptions,
    state=FamilyState,
    deal=deal,
    explain_hand=explain_hand,
    entry=EntryColumns(N_("match points")),
    sheet=SheetKind.HANDS,
    sheet_rule=lambda options: phrase(
        "The winner of a hand gains every other player's pips minus their own (FA-08)."
    ),
    player_counts=tuple(STOCK_SIZES),
    summary=SUMMARY,
    target=lambda options: options.target,
    most_points_in_hand=lambda options: PointsBound(
        set_pips(options.top),
        f"the winner of a hand gains at most every pip of the other hands, and the set "
        f"holds {set_pips(options.top)} (FA-08)",
    ),
    defaults={"players": 4},
)
