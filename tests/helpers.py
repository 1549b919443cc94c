"""Building positions for tests: deals chosen tile by tile, and independent checks."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeVar

from pips.core.moves import At, Draw, Move, Pass, Play
from pips.core.tiles import Tile, double_set
from pips.games.common import HandContext, HandState
from pips.games.fido import DealMode, FidoOptions, FidoState


def t(text: str) -> Tile:
    return Tile.parse(text)


def tiles(text: str) -> list[Tile]:
    return [Tile.parse(part) for part in text.split()]


S = TypeVar("S", bound=HandState)


def _arranged_hands(
    options: Any,
    fixed: Mapping[int, Iterable[Tile]],
    avoid: Mapping[int, set[int]] | None,
    stock_top: Iterable[Tile],
) -> tuple[list[list[Tile]], list[Tile]]:
    avoid = avoid or {}
    top = list(stock_top)
    taken = {tile for group in fixed.values() for tile in group} | set(top)
    free = [tile for tile in double_set(options.top) if tile not in taken]
    hands: list[list[Tile]] = [list(fixed.get(seat, ())) for seat in range(options.players)]
    size = options.hand_size
    # Seats with constraints choose first, so they find tiles that fit them.
    order = sorted(range(options.players), key=lambda s: (s not in avoid, s))
    for seat in order:
        banned = avoid.get(seat, set())
        while len(hands[seat]) < size:
            pick = next(x for x in free if x.high not in banned and x.low not in banned)
            free.remove(pick)
            hands[seat].append(pick)
    return hands, [*top, *free]


def arranged_deal(
    options: FidoOptions,
    fixed: Mapping[int, Iterable[Tile]],
    avoid: Mapping[int, set[int]] | None = None,
    stock_top: Iterable[Tile] = (),
) -> FidoState:
    """A deal in which seat ``s`` holds ``fixed[s]``; the rest of every hand is filled in
    set order with tiles containing none of ``avoid[s]``; ``stock_top`` is drawn first."""
    hands, stock = _arranged_hands(options, fixed, avoid, stock_top)
    return FidoState(options, hands, stock)


def arranged_line_deal(
    state: type[S],
    options: Any,
    fixed: Mapping[int, Iterable[Tile]],
    avoid: Mapping[int, set[int]] | None = None,
    stock_top: Iterable[Tile] = (),
    context: HandContext = HandContext(),
) -> S:
    """:func:`arranged_deal` for the line games: ``state`` is the game's state class."""
    hands, stock = _arranged_hands(options, fixed, avoid, stock_top)
    return state(options, hands, stock, (), context)


def ends(state: Any) -> list[int]:
    return sorted(p.value for p in state.layout.open_ends)


def naked(state: FidoState) -> list[int]:
    return sorted(p.value for p in state.layout.naked_sides)


def play(state: Any, text: str, at: At, value: int | None = None, inline: bool = False) -> int:
    """Lay the tile ``text`` ('touching-free') at the oldest point of ``value``; the points."""
    tile = t(text)
    touching = int(text.split("-")[0])
    if at is At.OPEN:
        return int(state.play(Play(tile, touching, At.OPEN)).points)
    value = touching if value is None else value
    ids = state.layout.ends_with(value) if at is At.END else state.layout.sides_with(value)
    assert ids, f"no open {at.value} of {value}"
    return int(state.play(Play(tile, touching, at, ids[0], inline)).points)


def random_game(
    options: FidoOptions,
    seed: int,
    stop_after: int | None = None,
) -> Iterator[tuple[FidoState, Move, int]]:
    """Play random legal moves from a seeded deal; yields (state, move, count before)."""
    state = FidoState.new_hand(options, random.Random(seed))
    rng = random.Random(seed + 1)
    played = 0
    while not state.is_over and (stop_after is None or played < stop_after):
        moves = state.legal_moves()
        move = rng.choice(moves)
        before = state.layout.count
        if options.deal_mode is DealMode.MANUAL and isinstance(move, Draw):
            move = Draw(state.stock[0])
        state.play(move)
        played += 1
        yield state, move, before


def played_out(options: FidoOptions, seed: int) -> FidoState:
    """The state at the end of :func:`random_game`."""
    state = FidoState.new_hand(options, random.Random(seed))
    for state, _, _ in random_game(options, seed):  # noqa: B007 - the last one is wanted
        pass
    return state


def any_play_brute_force(state: FidoState, seat: int) -> bool:
    """Whether ``seat`` could lay any tile, by trying every tile on every point (F-14)."""
    laid = len(state.layout.tiles)
    if laid == 0:
        return True
    for tile in state.hands[seat]:
        for point in state.layout.points:
            if not tile.contains(point.value):
                continue
            if point.kind is At.SIDE and tile.is_double:
                continue
            if laid == 1 and point.kind is not At.SIDE:
                continue
            return True
    return False


def tiles_in_json(data: Any) -> set[Tile]:
    """Every tile written as [a, b] under a tile-bearing key of a JSON value."""
    found: set[Tile] = set()

    def walk(value: Any, key: str | None) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            if (
                key in {"tile", "play", "draw", "hand", "returned", "drawn"}
                and len(value) == 2
                and all(isinstance(x, int) for x in value)
            ):
                found.add(Tile.of(value[0], value[1]))
            else:
                for item in value:
                    walk(item, key)

    walk(json.loads(json.dumps(data)), None)
    return found


def brute_force_legal(state: FidoState) -> set[Move]:
    """F-09 to F-23 written out once more, by trying every tile at every point.

    Independent of the engine's generator, to check it (tests/test_perft.py).
    """
    if state.is_over:
        return set()
    options = state.options
    seat = state.turn
    hand = list(state.hands[seat])
    laid = len(state.layout.tiles)
    if laid == 0:
        best = max(tile for h in state.hands for tile in h if tile.is_double)
        return {Play(best, best.high, At.OPEN)}
    plays: set[Move] = set()
    for tile in hand:
        for point in state.layout.points:
            if not tile.contains(point.value):
                continue
            if laid == 1 and point.kind is not At.SIDE:  # F-13
                continue
            if point.kind is At.SIDE:
                if not tile.is_double:  # F-07
                    plays.add(Play(tile, point.value, At.SIDE, point.id))
                continue
            if not tile.is_double or options.doubles_inline.value != "always":
                plays.add(Play(tile, point.value, At.END, point.id))
            if tile.is_double and options.doubles_inline.value != "never":
                plays.add(Play(tile, point.value, At.END, point.id, True))
    if options.mother_theresa and laid > 1:  # F-22

        def scores(play: Move) -> bool:
            assert isinstance(play, Play)
            count = state.layout.count + play.tile.other(play.touching)
            return count > 0 and count % options.divisor == 0

        others: set[Move] = {
            p for p in plays if isinstance(p, Play) and (p.at is At.END or scores(p))
        }
        if others:
            plays = others
    if plays:
        return plays
    return {Draw()} if state.stock_size else {Pass()}


def perft(state: Any, depth: int) -> int:
    """How many move sequences of length ``depth`` (shorter where the hand ends)."""
    if depth == 0 or state.is_over:
        return 1
    moves = state.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = state.clone()
        child.play(move)
        total += perft(child, depth - 1)
    return total


def walk(state: Any, depth: int, expected: Any) -> int:
    """Visit every node to ``depth``, checking the legal moves against ``expected(state)``
    (an independent generator); the number of nodes visited."""
    moves = state.legal_moves()
    assert set(moves) == expected(state) and len(moves) == len(set(moves))
    if depth == 0 or state.is_over:
        return 1
    visited = 1
    for move in moves:
        child = state.clone()
        child.play(move)
        visited += walk(child, depth - 1, expected)
    return visited
