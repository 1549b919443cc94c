"""What a client shows a player, computed from a seat's view: the order of a hand, what
each playable tile would do, and the score sheet of a finished hand.

Shared by the terminal client and the web client. Nothing here changes a game: it only
reads views, moves and results, so a display aid can never leak or decide anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pips.core.moves import Move, Play
from pips.core.outcome import Ending, HandResult
from pips.core.tiles import Tile
from pips.core.view import SPECTATOR, Event, View
from pips.games.fido import count_after, points_for
from pips.games.registry import GameState
from pips.record import Replay

# -- the order of a hand -----------------------------------------------------------------


def fido_effect(tile: Tile, divisor: int) -> int:
    """The residue class by which a tile moves the count modulo the divisor.

    A tile on an open end changes S by its difference (F-06), a double across adds its
    number (F-05); either way only the value modulo ``d`` matters for scoring (F-15).
    """
    return (tile.high if tile.is_double else tile.difference) % divisor


def ratzek_rows(tiles: Sequence[Tile], divisor: int) -> list[list[Tile]]:
    """The hand in the "Daniela Ratzek" order (F-03, non-normative), row by row.

    Tiles whose effect is ``k`` and ``d - k`` act alike (+k scores when -(d-k) does), so
    each row holds class ``k`` ascending followed by class ``d - k`` descending, as the
    source lays them out; rows go ``k = 1, 2, ...`` and the divisor's own class (the
    "holy" differences) is the last, highest row. Empty rows are left out.

    >>> hand = [Tile.of(0, 3), Tile.of(5, 1), Tile.of(6, 2), Tile.of(4, 4), Tile.of(7, 0),
    ...         Tile.of(9, 6), Tile.of(8, 7), Tile.of(12, 2)]
    >>> [" ".join(map(str, row)) for row in ratzek_rows(hand, 7)]
    ['8-7', '3-0 12-2 9-6 6-2 5-1 4-4', '7-0']
    """
    by_class: dict[int, list[Tile]] = {}
    for tile in tiles:
        by_class.setdefault(fido_effect(tile, divisor), []).append(tile)
    rows: list[list[Tile]] = []
    for k in range(1, divisor // 2 + 1):
        up = sorted(by_class.get(k, ()), key=lambda t: (t.low, t.high))
        down = [] if divisor - k == k else by_class.get(divisor - k, [])
        row = up + sorted(down, key=lambda t: (t.high, t.low), reverse=True)
        if row:
            rows.append(row)
    if by_class.get(0):
        rows.append(sorted(by_class[0], key=lambda t: (t.low, t.high)))
    return rows


def hand_rows(view: View) -> list[list[Tile]]:
    """The seat's hand as the players of its game like to hold it, in rows.

    FIDO: the Ratzek order (F-03). The partnership game: as taken, unsorted, unless its
    ``allow_hand_sorting`` option is on (PT-03). Otherwise by number, heaviest first.
    """
    if view.game == "fido":
        return ratzek_rows(view.hand, int(view.options["divisor"]))
    if view.game == "partnership" and not view.options.get("allow_hand_sorting"):
        return [list(view.hand)] if view.hand else []
    ordered = sorted(view.hand, key=lambda t: (t.high, t.low), reverse=True)
    return [ordered] if ordered else []


def hand_order(view: View) -> list[Tile]:
    """:func:`hand_rows` flattened: the order in which the hand is shown."""
    return [tile for row in hand_rows(view) for tile in row]


# -- what a play would do --------------------------------------------------------------


@dataclass(frozen=True)
class PlayOutcome:
    """One legal play as the player sees it: where it goes and, in FIDO, the count it
    makes and what that scores (F-05 to F-07, F-15)."""

    move: Play
    count: int | None
    points: int


def play_outcomes(view: View, moves: Sequence[Move]) -> dict[Tile, list[PlayOutcome]]:
    """Every legal play, grouped by tile in the order the moves are listed.

    Places that are the same for the rules (same kind, value and in/across) are kept
    once: the engine takes the oldest (F-04 makes them equivalent).
    """
    divisor = view.options.get("divisor") if view.game == "fido" else None
    values = {p.id: p.value for p in view.layout.points}
    seen: set[tuple[Tile, int, str, int, bool]] = set()
    out: dict[Tile, list[PlayOutcome]] = {}
    for move in moves:
        if not isinstance(move, Play):
            continue
        key = (move.tile, move.touching, move.at.value, values.get(move.end, -1), move.inline)
        if key in seen:
            continue
        seen.add(key)
        count = points = None
        if isinstance(divisor, int):
            count = count_after(view.layout.count, move)
            points = points_for(count, divisor)
        out.setdefault(move.tile, []).append(PlayOutcome(move, count, points or 0))
    return out


# -- the score sheet of a hand ---------------------------------------------------------


@dataclass(frozen=True)
class ScoringPlay:
    """A play that scored during the hand (F-15)."""

    number: int
    seat: int
    move: Play
    count: int
    points: int


@dataclass(frozen=True)
class SheetLine:
    """One seat's line on the sheet: before the hand, scored, left in hand, after."""

    seat: int
    before: int
    points: int
    pips: int
    change: int
    final: int
    rank: int


@dataclass(frozen=True)
class ScoreSheet:
    """A finished hand as a score sheet: how it ended, the scoring plays (FIDO), every
    seat's line, and one sentence on how the points came about."""

    game: str
    hand: int
    ended: Ending
    out: int | None
    plays: tuple[ScoringPlay, ...]
    lines: tuple[SheetLine, ...]
    explanation: str


def score_sheet(
    game: str,
    options: Mapping[str, Any],
    history: Sequence[Event],
    result: HandResult,
    before: Sequence[int],
    names: Sequence[str],
    hand: int = 1,
) -> ScoreSheet:
    """The sheet of a finished hand from its public history and result."""
    before = tuple(before) or (0,) * len(result.final)
    plays = tuple(
        ScoringPlay(number, e.seat, e.move, e.layout_count or 0, e.points)
        for number, e in enumerate(history, 1)
        if isinstance(e.move, Play) and e.points
    )
    lines = tuple(
        SheetLine(
            seat,
            before[seat],
            result.points[seat],
            result.pips[seat],
            result.final[seat] - before[seat],
            result.final[seat],
            result.ranks[seat],
        )
        for seat in range(len(result.final))
    )
    explanation = explain(game, options, result, names)
    return ScoreSheet(game, hand, result.ended, result.out, plays, lines, explanation)


def explain(game: str, options: Mapping[str, Any], result: HandResult, names: Sequence[str]) -> str:
    """How the hand's points came about, with the arithmetic of the game's rule."""
    pips = result.pips
    how = (
        f"{names[result.out]} went out"
        if result.ended is Ending.OUT and result.out is not None
        else "the hand was blocked"
    )
    if game == "fido":
        return f"{how}; every player's pips left are deducted from the points they scored (F-21)."
    winners = [s for s, p in enumerate(result.points) if p]
    if not winners:
        if game == "draw":
            order = sorted(range(len(names)), key=lambda s: result.ranks[s])
            places = ", ".join(f"{result.ranks[s]}. {names[s]}" for s in order)
            return f"{how}; places by going out, then fewest pips (DR-07, DR-08): {places}."
        return f"{how}; the fewest pips are shared, so nobody scores (FA-09, DB-11, PT-12)."
    w, gained = winners[0], result.points[winners[0]]
    others = [s for s in range(len(pips)) if s != w]
    if game == "family":
        terms = " + ".join(f"({pips[s]}-{pips[w]})" for s in others)
        rule = "each opponent's pips less the winner's (FA-08)"
        return f"{how}; {names[w]} scores {gained} = {terms}: {rule}."
    if game == "partnership":
        pair = f"{names[w]}/{names[(w + 2) % 4]}"
        if result.ended is Ending.OUT:
            lost = pips[(w + 1) % 4] + pips[(w + 3) % 4]
            rule = "PT-10: the opponents' pips"
        else:
            losers_only = options.get("block_points") == "losers_only"
            lost = pips[(w + 1) % 4] + pips[(w + 3) % 4] if losers_only else sum(pips)
            rule = "PT-11: the pips counted in a blocked hand"
        return f"{how}; {pair} score {gained} = {lost}//10 + 1 ({rule})."
    terms = " + ".join(str(pips[s]) for s in others)
    rule = "DR-10, as DB-10" if game == "draw" else "DB-10 to DB-12"
    return f"{how}; {names[w]} scores {gained} = {terms}: every opponent's pips ({rule})."


# -- replays ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """One position of a replay: the public view and every hand face up (a finished
    or recorded game has nothing left to hide)."""

    hand: int
    move: int
    view: View
    hands: tuple[tuple[Tile, ...], ...]
    event: Event | None
    result: HandResult | None
    before: tuple[int, ...]


def replay_positions(replayed: Replay) -> list[Position]:
    """Every position of a record: each hand from its deal, one move at a time."""
    positions: list[Position] = []
    spec = replayed.spec
    for number, played in enumerate(replayed.match.hands, 1):
        dealt = played.dealt
        state = spec.from_deal(
            replayed.options, dealt.hands, dealt.stock, dealt.voided, played.context
        )
        before = tuple(played.context.scores) or (0,) * state.players
        positions.append(_frame(state, number, 0, None, before))
        for index, event in enumerate(played.history, 1):
            state.play(event.move)
            positions.append(_frame(state, number, index, event, before))
    return positions


def _frame(
    state: GameState, hand: int, move: int, event: Event | None, before: tuple[int, ...]
) -> Position:
    hands = tuple(state.view(seat).hand for seat in range(state.players))
    return Position(hand, move, state.view(SPECTATOR), hands, event, state.result, before)
