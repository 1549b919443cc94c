"""Fast positions for playouts: a hand of any game as the kernel's arrays.

:class:`FastRules` translates a game's options into the kernel's rules vector once;
:class:`FastState` holds one position and plays it. A position comes from a live engine
state (tests, benchmarks), from a seat's :class:`~pips.core.view.View` plus a guess of
the hidden tiles (the search bot), or from a fresh seeded deal. Moves map back to the
engine's :class:`~pips.core.moves.Move` values, so a search result is an engine move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pips.bots import kernel as k
from pips.core.legal import Doubles
from pips.core.moves import At, Draw, Move, Pass, Play
from pips.core.tiles import Tile, double_set
from pips.core.view import View
from pips.games.common import HandState
from pips.games.options import GameOptions
from pips.games.registry import find_game
from pips.games.traits import (
    DrawRule,
    Fit,
    HandScoring,
    HandTraits,
    LayoutKind,
    Opening,
    Redeal,
)

_KIND_OF_AT = {At.OPEN: k.OPEN, At.END: k.END, At.SIDE: k.SIDE}
_AT_OF_KIND = {k.OPEN: At.OPEN, k.END: At.END, k.SIDE: At.SIDE}


@dataclass(frozen=True, eq=False)
class FastRules:
    """One game with fixed options, as the kernel reads it."""

    game: str
    rules: np.ndarray
    high: np.ndarray
    low: np.ndarray
    with_number: np.ndarray
    traits: HandTraits

    @property
    def arrays(self) -> k.GameArrays:
        """What the kernel's functions take as ``game``."""
        return (self.rules, self.high, self.low, self.with_number)

    @property
    def players(self) -> int:
        return int(self.rules[k.R_PLAYERS])

    @property
    def top(self) -> int:
        return int(self.rules[k.R_TOP])

    @property
    def size(self) -> int:
        return int(self.high.shape[0])

    @property
    def tiles(self) -> tuple[Tile, ...]:
        """The set in ordinal order: ``tiles[i]`` is the tile of ordinal ``i``."""
        return double_set(self.top)


@lru_cache(maxsize=64)
def _tables(top: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return k.tables(top)


_LAYOUT = {
    LayoutKind.CROSS: k.LAYOUT_CROSS,
    LayoutKind.LINE: k.LAYOUT_LINE,
    LayoutKind.SPINNER: k.LAYOUT_SPINNER,
}
_DRAW = {
    DrawRule.NONE: k.DRAW_NONE,
    DrawRule.ONE_AND_WAIT: k.DRAW_ONE,
    DrawRule.UNTIL_PLAYABLE: k.DRAW_UNTIL_PLAYABLE,
}
_FIT = {Fit.PLAIN: k.FIT_PLAIN, Fit.DOUBLE_OPENS: k.FIT_DOUBLE_OPENS}
_OPEN = {
    Opening.HIGHEST_DOUBLE: k.OPEN_HIGHEST_DOUBLE,
    Opening.SIX_SIX: k.OPEN_SIX_SIX,
    Opening.DOUBLE_OR_HEAVIEST: k.OPEN_DOUBLE_OR_HEAVIEST,
    Opening.ANY_TILE: k.OPEN_ANY,
}
_SCORING = {
    HandScoring.DIVISOR: k.SCORE_FIDO,
    HandScoring.WINNER_GAINS_DIFFERENCE: k.SCORE_FAMILY,
    HandScoring.WINNER_TAKES: k.SCORE_WINNER_TAKES,
    HandScoring.PLACES_ONLY: k.SCORE_NONE,
    HandScoring.PAIRS_ALL_HANDS: k.SCORE_PAIRS_ALL,
    HandScoring.PAIRS_LOSERS_ONLY: k.SCORE_PAIRS_LOSERS,
}
_REDEAL = {
    Redeal.NEVER: k.REDEAL_NONE,
    Redeal.NO_DOUBLE: k.REDEAL_NO_DOUBLE,
    Redeal.NO_SIX_SIX: k.REDEAL_NO_SIX_SIX,
    Redeal.FIVE_DOUBLES: k.REDEAL_FIVE_DOUBLES,
}
_INLINE = {Doubles.ACROSS: 0, Doubles.ACROSS_OR_INLINE: 1, Doubles.INLINE: 2}
"""F-23 as the kernel counts it: never, optional, always."""


def kernel_rules(traits: HandTraits) -> np.ndarray:
    """The kernel's rule vector of a hand with these traits."""
    rules = np.zeros(k.R_SIZE, np.int64)
    rules[k.R_PLAYERS] = traits.players
    rules[k.R_TOP] = traits.top
    rules[k.R_HAND_SIZE] = traits.hand_size
    rules[k.R_DIVISOR] = traits.divisor or 1
    rules[k.R_MOTHER_THERESA] = int(traits.mother_theresa)
    rules[k.R_INLINE] = _INLINE[traits.doubles_at_end]
    rules[k.R_LAYOUT] = _LAYOUT[traits.layout]
    rules[k.R_BRANCHING] = int(traits.branching)
    rules[k.R_DRAW] = _DRAW[traits.draw]
    rules[k.R_FIT] = _FIT[traits.fit]
    rules[k.R_OPEN] = _OPEN[traits.opening]
    rules[k.R_SCORING] = _SCORING[traits.scoring]
    rules[k.R_REDEAL] = _REDEAL[traits.redeal]
    return rules


def fast_rules(game: str, options: GameOptions, first_hand: bool = True) -> FastRules:
    """The kernel's rules for a hand of ``game`` with ``options`` (the game's typed
    options); ``first_hand`` matters only to who opens (PT-05)."""
    return rules_of(game, find_game(game).traits(options, first_hand))


def rules_of(game: str, traits: HandTraits) -> FastRules:
    """The kernel's rules for a hand of ``game`` with the given traits."""
    high, low, with_number = _tables(traits.top)
    return FastRules(game, kernel_rules(traits), high, low, with_number, traits)


class FastState:
    """One position of a hand, as arrays the kernel plays on."""

    __slots__ = (
        "aside",
        "game",
        "hand",
        "laid_double",
        "laid_with",
        "moves",
        "n_moves",
        "order",
        "points",
        "pos",
        "rules",
        "seats",
        "state",
        "stock",
    )

    def __init__(self, rules: FastRules) -> None:
        self.rules = rules
        players, size, top = rules.players, rules.size, rules.top
        self.state = np.zeros(k.S_SIZE, np.int64)
        self.seats = np.zeros((players, k.C_SIZE), np.int64)
        self.hand = np.zeros((players, size), np.int8)
        self.aside = np.zeros((players, size), np.int8)
        # At most two ends and two sides per laid tile, and a few from the opening.
        self.points = np.zeros((3 * size + 8, 3), np.int64)
        self.laid_with = np.zeros(top + 1, np.int64)
        self.laid_double = np.zeros(top + 1, np.int8)
        self.stock = np.zeros(size, np.int64)
        self.order = np.zeros(size, np.int64)
        # Each held tile fits at most the points of its two numbers, twice for F-23.
        self.moves = np.zeros((4 * size * (top + 6) + 8, k.MOVE_WIDTH), np.int64)
        self.n_moves = -1
        self.game = rules.arrays
        self.pos: k.Position = (
            self.state,
            self.seats,
            self.hand,
            self.aside,
            self.points,
            self.laid_with,
            self.laid_double,
            self.stock,
            self.moves,
            self.order,
        )

    # -- building -------------------------------------------------------------------

    @classmethod
    def dealt(cls, rules: FastRules, rs: np.ndarray) -> FastState:
        """A fresh first hand dealt with the kernel's random source ``rs``."""
        fast = cls(rules)
        k.deal_into(rules.arrays, fast.pos, rs)
        return fast

    @classmethod
    def of_engine(cls, state: HandState) -> FastState:
        """The position of a live engine hand (hidden tiles included: tests only)."""
        rules = fast_rules(state.game, state.options, state.context.previous_opener is None)
        view = state.view(0)
        return cls.of_view(
            rules, view, [list(h) for h in state.hands], state.stock, state.layout.next_point_id
        )

    @classmethod
    def of_view(
        cls,
        rules: FastRules,
        view: View,
        hands: Sequence[Sequence[Tile]],
        stock: Sequence[Tile],
        next_point_id: int | None = None,
    ) -> FastState:
        """The position ``view`` shows, with ``hands`` for every seat and ``stock``
        (next to draw first): the seat's own hand and a guess at the others'. Empty
        ``hands`` leave the hands to :meth:`set_hidden`."""
        fast = cls(rules)
        state, seats = fast.state, fast.seats
        for seat, tiles in enumerate(view.set_aside):
            for tile in tiles:
                fast.aside[seat, tile.ordinal] = 1
            seats[seat, k.C_ASIDE] = len(tiles)
            state[k.S_ASIDE] += len(tiles)
        if rules.traits.scoring is HandScoring.DIVISOR:
            seats[:, k.C_RUNNING] = view.scores  # F-15: the hand's running points
        layout = view.layout
        for laid in layout.tiles:
            tile = laid.tile
            fast.laid_with[tile.high] += 1
            if tile.high == tile.low:
                fast.laid_double[tile.high] = 1
            else:
                fast.laid_with[tile.low] += 1
        ids = [p.id for p in layout.points]
        for i, point in enumerate(layout.points):
            fast.points[i] = (point.id, point.value, _KIND_OF_AT[point.kind])
        state[k.S_POINTS] = len(ids)
        if next_point_id is None:
            next_point_id = max(ids, default=-1) + 1
        state[k.S_NEXT_ID] = next_point_id
        state[k.S_LAID] = len(layout.tiles)
        state[k.S_COUNT] = sum(p.value for p in layout.points if p.kind is At.END)
        if layout.tiles and rules.rules[k.R_LAYOUT] == k.LAYOUT_SPINNER:
            state[k.S_SPINNER] = layout.tiles[0].tile.high
            # Only the spinner's long sides are ever sides; both taken, its ends open.
            state[k.S_SIDES_LEFT] = sum(p.kind is At.SIDE for p in layout.points)
        fast.set_hidden(hands, stock)
        if view.result is not None:
            state[k.S_RESULT] = k.RESULT_OUT if view.result.out is not None else k.RESULT_BLOCKED
            state[k.S_OUT] = -1 if view.result.out is None else view.result.out
        else:
            assert view.turn is not None
            state[k.S_TURN] = view.turn
        return fast

    def set_hidden(self, hands: Sequence[Sequence[Tile]], stock: Sequence[Tile]) -> None:
        """Put ``hands`` (every seat's, face-up tiles included) and ``stock`` (next to
        draw first) into the position."""
        self.hand[:] = 0
        for seat, tiles in enumerate(hands):
            ordinals = [t.ordinal for t in tiles]
            self.hand[seat, ordinals] = 1
            self.seats[seat, k.C_TILES] = len(ordinals)
            self.seats[seat, k.C_PIPS] = sum(t.pips for t in tiles)
        self.state[k.S_STOCK] = len(stock)
        self.stock[: len(stock)] = [t.ordinal for t in reversed(stock)]
        self.n_moves = -1

    def copy_from(self, other: FastState) -> None:
        """Become ``other`` (same rules), reusing this position's arrays."""
        np.copyto(self.state, other.state)
        np.copyto(self.seats, other.seats)
        np.copyto(self.hand, other.hand)
        np.copyto(self.aside, other.aside)
        np.copyto(self.points, other.points)
        np.copyto(self.laid_with, other.laid_with)
        np.copyto(self.laid_double, other.laid_double)
        np.copyto(self.stock, other.stock)
        self.n_moves = -1

    def copy(self) -> FastState:
        clone = FastState(self.rules)
        clone.copy_from(self)
        return clone

    # -- reading --------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return int(self.state[k.S_RESULT]) != k.RESULT_NONE

    @property
    def turn(self) -> int:
        return int(self.state[k.S_TURN])

    @property
    def out(self) -> int | None:
        """The seat that went out, once the hand is over that way."""
        return int(self.state[k.S_OUT]) if self.state[k.S_RESULT] == k.RESULT_OUT else None

    @property
    def pips(self) -> list[int]:
        return [int(p) for p in self.seats[:, k.C_PIPS]]

    @property
    def running(self) -> list[int]:
        """FIDO's running points in this hand (F-15)."""
        return [int(p) for p in self.seats[:, k.C_RUNNING]]

    def hand_of(self, seat: int) -> list[Tile]:
        tiles = self.rules.tiles
        return [tiles[int(i)] for i in np.flatnonzero(self.hand[seat])]

    def legal_count(self) -> int:
        """How many legal moves the seat to play has (listed in the engine's order)."""
        self.n_moves = k.legal_moves(self.game, self.pos)
        return int(self.n_moves)

    def move(self, i: int) -> Move:
        """The ``i``-th legal move as the engine's move."""
        if self.n_moves < 0:
            self.legal_count()
        if not 0 <= i < self.n_moves:
            raise IndexError(f"there are {self.n_moves} legal moves, not {i + 1}")
        row = self.moves[i]
        kind = int(row[2])
        if kind == k.DRAW:
            return Draw()
        if kind == k.PASS:
            return Pass()
        tile = self.rules.tiles[int(row[0])]
        at = _AT_OF_KIND[kind]
        point = -1 if kind == k.OPEN else int(self.points[int(row[3]), 0])
        return Play(tile, int(row[1]), at, point, bool(row[4]))

    def legal(self) -> list[Move]:
        return [self.move(i) for i in range(self.legal_count())]

    def hand_points(self) -> list[int]:
        """The finished hand's change to each seat's match score (FIDO: the final)."""
        out = np.zeros(self.rules.players, np.int64)
        k.hand_points(self.game, self.pos, out)
        return [int(x) for x in out]

    # -- playing --------------------------------------------------------------------

    def apply(self, i: int) -> int:
        """Play the ``i``-th legal move; return the points it scored at once."""
        if self.n_moves < 0:
            self.legal_count()
        scored = k.apply_move(self.game, self.pos, i)
        self.n_moves = -1
        return int(scored)

    def playout(
        self,
        rs: np.ndarray,
        greed: int = 0,
        trace: np.ndarray | None = None,
        policy: int = k.POLICY_GREEDY,
    ) -> int:
        """Play to the end of the hand with the playout policy (``greed``/256 moves of
        ``policy``, the rest uniformly random); return the number of moves played."""
        if trace is None:
            trace = _NO_TRACE
        played = k.playout(self.game, self.pos, greed, policy, rs, trace)
        self.n_moves = -1
        return int(played)


_NO_TRACE = np.zeros(0, np.int64)


def random_source(seed: int) -> np.ndarray:
    """The kernel's random source from a seed (xorshift state, never 0)."""
    x = (seed * 2654435761 + 0x9E3779B9) & k.MASK32
    return np.array([x or 1], np.int64)


def random_hands(rules: FastRules, hands: int, seed: int) -> tuple[int, list[int]]:
    """Deal and play ``hands`` uniformly random first hands in the kernel; return the
    moves played and every seat's summed points (the benchmark's unit of work)."""
    fast = FastState(rules)
    gained = np.zeros(rules.players, np.int64)
    moves = k.random_hands(
        rules.arrays,
        fast.pos,
        hands,
        random_source(seed),
        np.zeros(rules.players, np.int64),
        gained,
    )
    return int(moves), [int(g) for g in gained]
