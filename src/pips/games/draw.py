"""The draw game of the German "Anleitung für Dominos" (SPEC section 3).

Two to six players take 7, 6 or 5 tiles (DR-01); the highest double leads, or the
heaviest tile when nobody holds a double (DR-02). Tiles go on a two-ended line (DR-03);
who can lay a tile must (DR-04); who cannot draws until a drawn tile fits and lays it at
once (DR-05). The hand ends when someone is out or nobody can play with the talon empty
(DR-06); the winner went out or holds the fewest pips, and a tie makes joint winners
(DR-07, DR-08). A game is one hand (DR-09) unless ``match_scoring`` is on (DR-10).

    >>> import random
    >>> state = GAME.new_hand(DrawOptions(players=6), random.Random(1))
    >>> state.options.top, state.options.hand_size, state.stock_size
    (9, 5, 25)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pips.core.deal import Deal, deal_until
from pips.core.errors import OptionError
from pips.core.moves import At, Play
from pips.core.outcome import Ending, HandResult
from pips.core.phrase import N_, phrase
from pips.core.tiles import heaviest, highest_double_holder
from pips.games.common import (
    HandState,
    line_result,
    places_by_pips,
)
from pips.games.doubles import hand_points
from pips.games.face import GameSpec
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

NAME = "draw"

SUMMARY = N_(
    """\
Draw game: 2 to 6 players, one hand (a match to 100 with `match_scoring`).

- Tiles per player by the number of players; the rest is the talon (DR-01).
- The highest double leads; with no double, the heaviest tile (DR-02).
- One line with two open ends; doubles do not branch unless `doubles_branch` is on
  (DR-03). You must lay a matching tile if you can (DR-04).
- If you cannot, draw from the talon until a tile fits and lay it at once; tiles that
  did not fit stay in your hand; with the talon empty you pass (DR-05).
- The hand ends when someone lays their last tile or nobody can play (DR-06). The
  winner went out, or holds the fewest pips (DR-07); equal fewest share the win (DR-08).
- With `match_scoring` the winner earns every opponent's pips, to 100 (DR-10).
"""
)
HAND_SIZES: Mapping[int, int] = {2: 7, 3: 6, 4: 5, 5: 5, 6: 5}
"""DR-01: tiles per player."""
MATCH_TARGET = 100
"""DR-10: the match is played to 100 points when ``match_scoring`` is on."""


@dataclass(frozen=True)
class DrawOptions(GameOptions):
    """The parameters of SPEC 3.1."""

    SECTION: ClassVar[str] = "§3.1"

    players: int = option(
        rule="§3.1", help="Number of players.", values="2 to 6", minimum=2, maximum=6
    )
    set: int | None = option(
        None,
        rule="§3.1",
        help="The set (default 6; six players need 9).",
        values="6, 9",
        minimum=6,
        maximum=9,
    )
    direction: Direction = option(Direction.CLOCKWISE, rule="C-05", help="Direction of play.")
    doubles_branch: bool = option(
        False, rule="DR-03", help="A double laid on an end opens two ends of its number."
    )
    match_scoring: bool = option(
        False, rule="DR-10", help="Score hands as in Doubles and play a match to 100."
    )

    def check(self) -> None:
        if self.players not in HAND_SIZES:
            raise OptionError(
                "§3.1",
                phrase("the draw game is for 2 to 6 players, not {players}", players=self.players),
            )
        if self.set is None:
            object.__setattr__(self, "set", 9 if self.players == 6 else 6)
        if self.set not in (6, 9):
            raise OptionError(
                "§3.1", phrase("the set is double-6 or double-9, not double-{set}", set=self.set)
            )
        if self.players == 6 and self.set != 9:
            raise OptionError(
                "§3.1", phrase("six players need the double-9 set (30 tiles are dealt)")
            )

    @property
    def hand_size(self) -> int:
        return HAND_SIZES[self.players]

    def derived(self) -> dict[str, Any]:
        return {"hand_size": self.hand_size}

    def traits(self, first_hand: bool = True) -> HandTraits:
        return HandTraits(
            players=self.players,
            top=self.top,
            hand_size=self.hand_size,
            layout=LayoutKind.LINE,  # DR-03
            branching=self.doubles_branch,
            draw=DrawRule.UNTIL_PLAYABLE,  # DR-05
            opening=Opening.DOUBLE_OR_HEAVIEST,  # DR-02
            fit=Fit.PLAIN,
            # DR-10: with match scoring, hands score as in Doubles.
            scoring=(HandScoring.WINNER_TAKES if self.match_scoring else HandScoring.PLACES_ONLY),
            redeal=Redeal.NEVER,
        )


def deal(options: DrawOptions, rng: random.Random) -> Deal:
    """DR-01: never dealt again; without a double the heaviest tile leads (DR-02)."""
    return deal_until(options.top, options.players, options.hand_size, rng, lambda _: True)


class DrawState(HandState):
    """A hand of the draw game."""

    game = NAME
    RULE_DEAL = "DR-01"
    RULE_OPEN = "DR-02"
    RULE_PLAY = "DR-04"
    RULE_DRAW = "DR-05"
    RULE_END = "DR-06"

    options: DrawOptions

    def _lead(self) -> tuple[int, Play]:
        """DR-02: the highest double, else the heaviest tile (C-04) held."""
        holder = highest_double_holder(self.hands)
        if holder is not None:
            seat, tile = holder
        else:
            tile = heaviest(t for h in self.hands for t in h)  # type: ignore[assignment]
            seat = next(s for s, h in enumerate(self.hands) if tile in h)
        return seat, Play(tile, tile.high, At.OPEN)

    def _opener(self) -> int:
        return self._lead()[0]

    def _openings(self, seat: int) -> list[Play]:
        return [self._lead()[1]]

    def _score(self, ended: Ending, out: int | None) -> HandResult:
        """DR-07, DR-08: places by going out, then fewest pips (ties share first place);
        DR-10: with match scoring, hands score as in Doubles."""
        pips = [h.pips for h in self.hands]
        gained = hand_points(pips, out) if self.options.match_scoring else [0] * self.players
        return line_result(self, ended, out, gained)


def target(options: DrawOptions) -> int | None:
    """One hand, or a match to 100 with ``match_scoring`` (DR-09, DR-10)."""
    return MATCH_TARGET if options.match_scoring else None


def explain_hand(options: DrawOptions, result: HandResult, names: Sequence[str]) -> str:
    """DR-07, DR-08 (or DR-10 with match scoring) in words."""
    how = how_it_ended(result, names)
    winners = [s for s, p in enumerate(result.points) if p]
    if winners:
        return winner_takes(
            how, result, names, winners[0], phrase("{rule}, as {like}", rule="DR-10", like="DB-10")
        )
    if options.match_scoring:
        return nobody_scores(how, "DR-10, as DB-11")
    order = sorted(range(len(names)), key=lambda s: result.ranks[s])
    places = ", ".join(f"{result.ranks[s]}. {names[s]}" for s in order)
    return phrase(
        "{how}; places by going out, then fewest pips (DR-07, DR-08): {places}.",
        how=how,
        places=places,
    )


def entry_result(
    points: Sequence[int], pips: Sequence[int], out: int | None
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """DR-07, DR-08: whoever went out, then the fewest pips; no points."""
    return tuple(0 for _ in pips), places_by_pips(pips, out)


GAME = GameSpec(
    name=NAME,
    title=N_("Draw game"),
    rules=phrase(
        "SPEC section {number} ({first} to {last})",
        number=3,
        first="DR-01",
        last="DR-10",
    ),
    aliases=("draw-game", "anleitung"),
    options=DrawOptions,
    state=DrawState,
    deal=deal,
    explain_hand=explain_hand,
    entry=EntryColumns(None, pips=True, out=True, out_rule="DR-07"),
    entry_result=entry_result,
    sheet=SheetKind.ONE_HAND,
    sheet_rule=lambda options: phrase(
        "One hand. The winner went out first or, in a blocked hand, holds the fewest "
        "pips; equal lowest pips share the win (DR-07, DR-08)."
    ),
    player_counts=tuple(HAND_SIZES),
    summary=SUMMARY,
    target=target,
    sets=(6, 9),
    defaults={"players": 4},
)
