"""The international partnership game, "Doppel Sechs" (SPEC section 5).

Four players in two pairs, drawn by lot (PT-01) or fixed, sit opposite: seats 0 and 2
against seats 1 and 3. All 28 tiles are dealt, seven each (PT-02), and dealt again when
someone holds five doubles (PT-04). The 6-6 leads the first hand of a match; later hands
are led with any tile by the next seat (PT-05). Play goes counter-clockwise along a
two-ended line (PT-06); who cannot lay a tile knocks (PT-07); a false knock is refused or,
for refereeing, penalized by setting the overlooked tiles aside (PT-08). Going out
scores ``floor(P/10) + 1`` for the pair, P being the opponents' pips (PT-10); a blocked
hand goes to the pair with fewer pips (PT-11, a tie scores nothing, PT-12). The first
pair to the target wins the match (PT-13).

    >>> import random
    >>> state = GAME.new_hand(PartnershipOptions(teams="fixed"), random.Random(3))
    >>> state.stock_size, str(state.legal_moves()[0].tile)
    (0, '6-6')
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from pips.core.deal import Deal, deal_until
from pips.core.errors import DealError, OptionError
from pips.core.lots import LotRule
from pips.core.moves import At, Play
from pips.core.outcome import Ending, HandResult
from pips.core.phrase import N_, Phrase, phrase
from pips.core.tiles import DOUBLES, Tile
from pips.core.view import View
from pips.games.common import HandState, line_result
from pips.games.face import GameSpec, PointsBound, by_number, set_pips
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

NAME = "partnership"

SUMMARY = N_(
    """\
Partnership game: 2 against 2, double-6, 7 tiles each, no stock, a match to 30.

- Pairs by lot: the highest and the lowest draw sit opposite (PT-01); 7 tiles each,
  nothing remains (PT-02). Tiles are not sorted unless `allow_hand_sorting` (PT-03).
- Five or more doubles in one hand: everything is redealt (PT-04).
- The first hand is opened with 6-6 by its holder; each later hand by the next player
  after the last opener, with any tile (PT-05).
- Play is counter-clockwise on one line with two open ends; doubles lie across and
  do not branch; you must lay a tile if you can (PT-06).
- Otherwise you knock and the turn passes; nobody draws (PT-07). A false knock is
  refused, or with `false_knock penalize` every tile you could have laid is set aside
  face up until it is your last (PT-08).
- The hand ends when someone goes out or nobody can play (PT-09). Going out: your pair
  scores floor(P / 10) + 1 with P the opponents' pips (PT-10). Blocked: the pair with
  fewer pips scores on all four hands' pips (or the losers' with `block_points
  losers_only`, PT-11); equal pips score nothing (PT-12).
- The first pair to 30 points (10 in tournaments) wins the match (PT-13).
"""
)
SET = 6
HAND_SIZE = 7
PLAYERS = 4
MOST_TARGET = 300
"""The highest target pips plays to: ten times the usual 30 (a bound of the platform,
docs/rules/interpretations.md, so that no table plays for ever)."""
SIX_SIX = DOUBLES[6]
TOURNAMENT_TARGET = 10
"""PT-13: the target of tournament play."""


class Teams(StrEnum):
    """PT-01: how the pairs are made."""

    LOT = "lot"
    FIXED = "fixed"


class BlockPoints(StrEnum):
    """PT-11: the pips P a blocked hand is worth."""

    ALL_HANDS = "all_hands"
    LOSERS_ONLY = "losers_only"


class FalseKnock(StrEnum):
    """PT-08: a knock by a player who could have laid a tile."""

    PREVENT = "prevent"
    PENALIZE = "penalize"


@dataclass(frozen=True)
class PartnershipOptions(GameOptions):
    """The parameters of SPEC 5.1."""

    SECTION: ClassVar[str] = "§5.1"
    FIXED: ClassVar[Mapping[str, Any]] = {
        "set": SET,
        "hand_size": HAND_SIZE,
        "direction": "counter-clockwise",
    }

    players: int = option(
        PLAYERS, rule="§5.1", help="Always four, in two pairs.", values="4", minimum=4, maximum=4
    )
    teams: Teams = option(Teams.LOT, rule="PT-01", help="Pairs drawn by lot, or fixed.")
    target: int = option(
        30,
        rule="PT-13",
        minimum=1,
        maximum=MOST_TARGET,
        help="Points that win the match (10 in tournaments).",
        values="30, 10 or any positive whole number",
    )
    block_points: BlockPoints = option(
        BlockPoints.ALL_HANDS, rule="PT-11", help="The pips a blocked hand is worth."
    )
    false_knock: FalseKnock = option(
        FalseKnock.PREVENT, rule="PT-08", help="Refuse a false knock, or penalize it."
    )
    allow_hand_sorting: bool = option(
        False, rule="PT-03", help="Let clients sort a hand (no effect on play)."
    )

    def check(self) -> None:
        if self.players != PLAYERS:
            raise OptionError(
                "§5.1",
                phrase(
                    "the partnership game is for 4 players, not {players}", players=self.players
                ),
            )

    @property
    def set(self) -> int:
        return SET

    @property
    def hand_size(self) -> int:
        return HAND_SIZE

    def traits(self, first_hand: bool = True) -> HandTraits:
        losers = self.block_points is BlockPoints.LOSERS_ONLY
        return HandTraits(
            players=PLAYERS,
            top=SET,
            hand_size=HAND_SIZE,
            layout=LayoutKind.LINE,  # PT-06
            draw=DrawRule.NONE,  # PT-07: there is no drawing
            opening=Opening.SIX_SIX if first_hand else Opening.ANY_TILE,  # PT-05
            fit=Fit.PLAIN,
            scoring=HandScoring.PAIRS_LOSERS_ONLY if losers else HandScoring.PAIRS_ALL_HANDS,
            redeal=Redeal.FIVE_DOUBLES,  # PT-04
        )


def partner(seat: int) -> int:
    """Partners sit opposite (SPEC 5.1)."""
    return (seat + 2) % PLAYERS


def _no_five_doubles(hands: Sequence[Iterable[Tile]]) -> bool:
    return all(sum(t.high == t.low for t in hand) < 5 for hand in hands)


def deal(options: PartnershipOptions, rng: random.Random) -> Deal:
    """PT-02, PT-04: seven tiles each, no stock; dealt again while a hand holds five or
    more doubles."""
    return deal_until(SET, PLAYERS, HAND_SIZE, rng, _no_five_doubles)


def points_for(pips: int) -> int:
    """PT-10: ``floor(P/10) + 1``: 0-9 pips make 1 point, 10-19 make 2, and so on."""
    return pips // 10 + 1


def hand_points(
    pips: Sequence[int], out: int | None, block_points: BlockPoints = BlockPoints.ALL_HANDS
) -> list[int]:
    """Each seat's points for a hand, both partners alike.

    PT-10: the pair of the player who went out scores ``floor(P/10) + 1`` with P the
    opponents' pips. PT-11: in a blocked hand the pair with fewer pips scores, P being
    all four hands (``all_hands``) or the losers' (``losers_only``); PT-12: a tie
    scores nothing.

    >>> hand_points([9, 12, 12, 14], None)  # PT-E2: 21 against 26 pips
    [5, 0, 5, 0]
    """
    pair_pips = [pips[0] + pips[2], pips[1] + pips[3]]
    if out is not None:
        winners = out % 2
        points = points_for(pair_pips[1 - winners])
    elif pair_pips[0] == pair_pips[1]:
        return [0] * PLAYERS
    else:
        winners = 0 if pair_pips[0] < pair_pips[1] else 1
        lost = pair_pips[1 - winners]
        points = points_for(sum(pips) if block_points is BlockPoints.ALL_HANDS else lost)
    return [points if seat % 2 == winners else 0 for seat in range(PLAYERS)]


class PartnershipState(HandState):
    """A hand of the partnership game."""

    game = NAME
    RULE_DEAL = "PT-02"
    RULE_OPEN = "PT-05"
    RULE_PLAY = "PT-06"
    RULE_DRAW = "PT-07"
    RULE_END = "PT-09"

    options: PartnershipOptions

    def _check_deal(self) -> None:
        if not _no_five_doubles(self.hands):
            raise DealError("PT-04", phrase("a player holds five or more doubles: deal again"))

    def _opener(self) -> int:
        """PT-05: the 6-6 in the first hand, then the seat after the previous opener."""
        previous = self.context.previous_opener
        if previous is None:
            return next(s for s, h in enumerate(self.hands) if SIX_SIX in h)
        return (previous + 1) % PLAYERS

    def _openings(self, seat: int) -> list[Play]:
        if self.context.previous_opener is None:
            return [Play(SIX_SIX, 6, At.OPEN)]
        return [Play(t, t.high, At.OPEN) for t in sorted(self.hands[seat])]

    def _fitting(self, seat: int, value: int) -> tuple[Tile, ...]:
        """PT-08: set-aside tiles may be laid only once nothing else is held."""
        tiles = self.hands[seat].sorted_with_number(value)
        aside = self.set_aside[seat]
        if aside and tiles and len(self.hands[seat]) > len(aside):
            return tuple(t for t in tiles if t not in aside)
        return tiles

    def _false_knock(self, seat: int) -> tuple[Tile, ...] | None:
        """PT-08 ``penalize``: every tile that could have been laid is set aside, face up."""
        if self.options.false_knock is not FalseKnock.PENALIZE:
            return None
        values = [p.value for p in self.layout.points]
        return tuple(sorted({t for v in values for t in self._fitting(seat, v)}))

    def _score(self, ended: Ending, out: int | None) -> HandResult:
        pips = [h.pips for h in self.hands]
        gained = hand_points(pips, out, self.options.block_points)
        pair_pips = [pips[s] + pips[partner(s)] for s in range(PLAYERS)]
        # Places: the pair that went out first, then the pair with fewer pips.
        places = [-1 if out is not None and s % 2 == out % 2 else pair_pips[s] for s in range(4)]
        return line_result(self, ended, out, gained, places)


def explain_hand(options: PartnershipOptions, result: HandResult, names: Sequence[str]) -> str:
    """PT-10 to PT-12 in words, with the hand's arithmetic."""
    how = how_it_ended(result, names)
    winners = [s for s, p in enumerate(result.points) if p]
    if not winners:
        return nobody_scores(how, "PT-12")
    w, pips = winners[0], result.pips
    pair = f"{names[w]}/{names[partner(w)]}"
    opponents = pips[(w + 1) % 4] + pips[(w + 3) % 4]
    if result.ended is Ending.OUT:
        lost, rule = opponents, phrase("PT-10: the opponents' pips")
    else:
        losers_only = options.block_points is BlockPoints.LOSERS_ONLY
        lost = opponents if losers_only else sum(pips)
        rule = phrase("PT-11: the pips counted in a blocked hand")
    return phrase(
        "{how}; {pair} score {points}: {lost} pips counted, 1 point for 0 to 9 and one"
        " more for every full 10 ({rule}).",
        how=how,
        pair=pair,
        points=result.points[w],
        lost=lost,
        rule=rule,
    )


def hand_rows(view: View) -> list[list[Tile]]:
    """PT-03: tiles stay as taken, unsorted, unless the table allows sorting."""
    options = view.options
    assert isinstance(options, PartnershipOptions), options
    if options.allow_hand_sorting:
        return by_number(view)
    return [list(view.hand)] if view.hand else []


def sheet_rule(options: PartnershipOptions) -> Phrase:
    """The scoring in words for the score sheet (PT-10 to PT-13)."""
    if options.block_points.value == "losers_only":
        return phrase(
            "Partners sit opposite (seats 1 and 3, 2 and 4). When a player goes out, "
            "their pair counts the opponents' pips (PT-10); in a blocked hand the pair "
            "with fewer pips wins the hand and counts the losers' pips (PT-11). The pair "
            "scores 1 point for 0 to 9 pips counted, 2 for 10 to 19, 3 for 20 to 29, and "
            "so on. Only one pair scores per hand; the first pair to {target} wins the "
            "match (PT-13).",
            target=options.target,
        )
    return phrase(
        "Partners sit opposite (seats 1 and 3, 2 and 4). When a player goes out, their "
        "pair counts the opponents' pips (PT-10); in a blocked hand the pair with fewer "
        "pips wins the hand and counts the pips of all four hands (PT-11). The pair "
        "scores 1 point for 0 to 9 pips counted, 2 for 10 to 19, 3 for 20 to 29, and so "
        "on. Only one pair scores per hand; the first pair to {target} wins the match "
        "(PT-13).",
        target=options.target,
    )


GAME = GameSpec(
    name=NAME,
    title=N_("Partnership game (Doppel Sechs)"),
    rules=phrase(
        "SPEC section {number} ({first} to {last})",
        number=5,
        first="PT-01",
        last="PT-13",
    ),
    aliases=("doppel-sechs", "partners", "pairs"),
    options=PartnershipOptions,
    state=PartnershipState,
    deal=deal,
    explain_hand=explain_hand,
    entry=EntryColumns(N_("pair's points")),
    sheet=SheetKind.PAIR_TALLY,
    sheet_rule=sheet_rule,
    player_counts=(PLAYERS,),
    summary=SUMMARY,
    target=lambda options: options.target,
    most_points_in_hand=lambda options: PointsBound(
        set_pips(options.top) // 10 + 1,
        f"a pair scores floor(P / 10) + 1 for P pips, and the set holds "
        f"{set_pips(options.top)} (PT-10, PT-11)",
    ),
    lots=lambda options: LotRule.PAIRS if options.teams is Teams.LOT else None,
    hand_rows=hand_rows,
    pass_word="knock",
    false_knocks=lambda options: options.false_knock is FalseKnock.PENALIZE,
    # A point is 10 pips (PT-10): half of one is already a lot to give away.
    mistake_points=(0.5, 1.0, 2.0),
)
