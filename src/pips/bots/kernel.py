"""The playout kernel: all five rule systems over flat integer arrays.

Search is only as strong as its playouts per second, and a rules engine built for
clarity and checking (:mod:`pips.games`) costs microseconds per move. This module plays
the same rules over numpy arrays, with a tile as its dense ordinal, and is compiled by
numba when it is installed. The source is the pure-Python path too: with numba missing,
or ``PIPS_NO_JIT=1``, the same functions run uncompiled and give the same results
(``tests/test_fast_playouts.py`` plays both against the engine move for move).

A position is a handful of arrays (see :class:`pips.bots.fast.FastState`, which owns
them), passed as one tuple so numba can compile every function. Moves are
rows of five integers: tile, touching half, kind (:data:`OPEN` ... :data:`PASS`), the
index of the open point in the points table, and the in-line flag (F-23). The legal
moves come out in the engine's documented order (point id, then tile, across before in
line), so the n-th move here is the engine's n-th move.

The random source is a 32-bit xorshift kept in a one-element array: it gives the same
numbers compiled or not, and a playout replays from its seed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

F = TypeVar("F", bound=Callable[..., Any])

_njit: Any
try:  # numba is optional: without it the kernel runs as plain Python.
    from numba import njit as _njit
except ImportError:  # pragma: no cover - exercised where numba is not installed
    _njit = None

COMPILED = _njit is not None and os.environ.get("PIPS_NO_JIT", "") != "1"
"""Whether the kernel is compiled (numba installed and ``PIPS_NO_JIT`` unset)."""

# No reference counting (``_nrt``): the kernel never allocates, and counting every array
# passed between functions cost three quarters of the time. No Python error model: the
# divisions are by the divisor or a count, never zero.
_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False, "error_model": "numpy"}


def kernel(fn: F) -> F:
    """Compile ``fn`` with numba when available; ``fn.py_func`` is always the source."""
    if COMPILED:
        compiled: F = _njit(**_OPTIONS)(fn)
        return compiled
    fn.py_func = fn  # type: ignore[attr-defined]
    return fn


def helper(fn: F) -> F:
    """A small kernel function, inlined into its callers when compiled (a call that
    passes a dozen arrays costs more than the work in it)."""
    if COMPILED:
        compiled: F = _njit(**_OPTIONS, inline="always")(fn)
        return compiled
    fn.py_func = fn  # type: ignore[attr-defined]
    return fn


# -- the rules vector -------------------------------------------------------------------

R_PLAYERS = 0
R_TOP = 1
R_DIVISOR = 2
R_MOTHER_THERESA = 3
R_INLINE = 4  # F-23: 0 never, 1 optional, 2 always
R_LAYOUT = 5
R_BRANCHING = 6
R_DRAW = 7
R_FIT = 8
R_OPEN = 9
R_HAND_SIZE = 10
R_SCORING = 11
R_REDEAL = 12
R_SIZE = 13

LAYOUT_CROSS = 0  # FIDO, F-04 to F-10
LAYOUT_LINE = 1  # FA-04, DR-03, PT-06
LAYOUT_SPINNER = 2  # DB-05

DRAW_NONE = 0  # PT-07, DB-08 no_draw
DRAW_ONE = 1  # FA-06, F-17: draw one and the turn ends
DRAW_UNTIL_PLAYABLE = 2  # DR-05, DB-08

FIT_PLAIN = 0
FIT_DOUBLE_OPENS = 1  # DB-06

OPEN_HIGHEST_DOUBLE = 0  # F-09, FA-02, DB-04
OPEN_SIX_SIX = 1  # PT-05 first hand, DB-04 double_six
OPEN_DOUBLE_OR_HEAVIEST = 2  # DR-02
OPEN_ANY = 3  # PT-05 later hands

SCORE_FIDO = 0  # F-21: running points minus pips left
SCORE_FAMILY = 1  # FA-08, FA-09
SCORE_WINNER_TAKES = 2  # DB-10 to DB-12, DR-10
SCORE_NONE = 3  # the draw game without match scoring
SCORE_PAIRS_ALL = 4  # PT-10, PT-11 all_hands
SCORE_PAIRS_LOSERS = 5  # PT-11 losers_only

REDEAL_NONE = 0
REDEAL_NO_DOUBLE = 1  # F-12, FA-02, DB-04
REDEAL_NO_SIX_SIX = 2  # DB-04 double_six
REDEAL_FIVE_DOUBLES = 3  # PT-04

# -- the scalars of a position ----------------------------------------------------------

S_TURN = 0
S_LAID = 1
S_POINTS = 2
S_NEXT_ID = 3
S_COUNT = 4
S_STOCK = 5
S_SIDES_LEFT = 6
S_SPINNER = 7
S_RESULT = 8
S_OUT = 9
S_ASIDE = 10
S_SIZE = 11

RESULT_NONE = 0
RESULT_OUT = 1
RESULT_BLOCKED = 2

# Per-seat columns.
C_TILES = 0
C_PIPS = 1
C_RUNNING = 2
C_ASIDE = 3
C_SIZE = 4

# Point kinds and move kinds.
END = 1
SIDE = 2
OPEN = 0
DRAW = 3
PASS = 4

MOVE_WIDTH = 5
MASK32 = 0xFFFFFFFF


def tables(top: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``high``, ``low`` per ordinal, and per number the ordinals holding it in tile
    order (``high``, ``low``), which is ascending ordinal order."""
    size = (top + 1) * (top + 2) // 2
    high = np.zeros(size, np.int64)
    low = np.zeros(size, np.int64)
    with_number = np.zeros((top + 1, top + 1), np.int64)
    filled = np.zeros(top + 1, np.int64)
    for a in range(top + 1):
        for b in range(a + 1):
            t = a * (a + 1) // 2 + b
            high[t] = a
            low[t] = b
    for t in range(size):
        a, b = int(high[t]), int(low[t])
        with_number[a, filled[a]] = t
        filled[a] += 1
        if b != a:
            with_number[b, filled[b]] = t
            filled[b] += 1
    return high, low, with_number


# -- how the arrays travel ----------------------------------------------------------------
#
# ``game`` (a ``GameArrays``) is ``(rules, high, low, with_number)``: fixed for a game
# and its options.
# ``pos`` is ``(state, seats, hand, aside, points, laid_with, laid_double, stock, moves,
# order)``: one position, with its list of legal moves and a scratch row for dealing.
# Tuples keep the signatures short; compiled, they cost nothing.

GameArrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
Position = tuple[
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
    np.ndarray,
]


@helper
def next_random(rs: np.ndarray, n: int) -> int:
    """A number in ``range(n)`` from the xorshift state ``rs[0]`` (never 0)."""
    x = rs[0]
    x ^= (x << 13) & MASK32
    x ^= x >> 17
    x ^= (x << 5) & MASK32
    rs[0] = x
    return int((x * n) >> 32)  # multiply-shift: no division, x < 2**32


# -- reading a position -----------------------------------------------------------------


@helper
def _fits(game: GameArrays, pos: Position, seat: int, tile: int, value: int) -> bool:
    """Whether ``tile`` (held by ``seat``, containing ``value``) may go on a ``value``."""
    rules, high, low, _ = game
    _, seats, _, aside, _, _, laid_double, _, _, _ = pos
    if rules[R_FIT] == FIT_DOUBLE_OPENS and laid_double[value] == 0:
        if high[tile] != low[tile]:
            return False  # DB-06: the suit is closed until its double is laid
    if seats[seat, C_ASIDE] > 0 and aside[seat, tile] != 0:
        # PT-08: set-aside tiles only once nothing else is held.
        return bool(seats[seat, C_TILES] <= seats[seat, C_ASIDE])
    return True


@helper
def _write(
    out: np.ndarray, n: int, tile: int, touching: int, kind: int, k: int, inline: int
) -> None:
    out[n, 0] = tile
    out[n, 1] = touching
    out[n, 2] = kind
    out[n, 3] = k
    out[n, 4] = inline


@helper
def _opening(game: GameArrays, pos: Position, seat: int) -> int:
    """The legal first tiles of ``seat`` (who opens): F-09, FA-02, DR-02, DB-04, PT-05."""
    rules, high, low, _ = game
    hand, out = pos[2], pos[8]
    size = high.shape[0]
    how = rules[R_OPEN]
    if how == OPEN_ANY:
        n = 0
        for t in range(size):
            if hand[seat, t] != 0:
                _write(out, n, t, high[t], OPEN, -1, 0)
                n += 1
        return n
    best = -1
    if how == OPEN_SIX_SIX:
        best = 27
    else:
        for v in range(rules[R_TOP], -1, -1):
            t = v * (v + 1) // 2 + v
            if hand[seat, t] != 0:
                best = t
                break
        if best < 0 and how == OPEN_DOUBLE_OR_HEAVIEST:
            weight = -1
            for t in range(size):
                if hand[seat, t] != 0:
                    w = (high[t] + low[t]) * 64 + high[t]
                    if w > weight:
                        weight = w
                        best = t
    if best < 0:
        return 0
    _write(out, 0, best, high[best], OPEN, -1, 0)
    return 1


@helper
def legal_moves(game: GameArrays, pos: Position) -> int:
    """Write the legal moves of the seat to play into ``pos``'s move rows; return how
    many."""
    rules, high, low, with_number = game
    state, seats, hand, _, points, _, _, _, out, _ = pos
    if state[S_RESULT] != RESULT_NONE:
        return 0
    seat = state[S_TURN]
    if state[S_LAID] == 0:
        return _opening(game, pos, seat)
    # Read once: the compiler must otherwise reload them after every write to ``out``.
    top = rules[R_TOP]
    cross = rules[R_LAYOUT] == LAYOUT_CROSS
    inline = rules[R_INLINE] if cross else 0
    second = cross and state[S_LAID] == 1
    checked = not cross and (rules[R_FIT] != FIT_PLAIN or seats[seat, C_ASIDE] > 0)
    n = 0
    for k in range(state[S_POINTS]):
        value = points[k, 1]
        kind = points[k, 2]
        if second and kind == END:
            continue  # F-13: the second tile goes to a naked side
        if not cross and not checked:
            # Every held tile of the number fits: written always and counted when
            # held, since a branch on a random hand mispredicts half the time.
            for j in range(top + 1):
                t = with_number[value, j]
                _write(out, n, t, value, kind, k, 0)
                n += hand[seat, t]
            continue
        for j in range(top + 1):
            t = with_number[value, j]
            if hand[seat, t] == 0:
                continue
            if cross and high[t] == low[t]:
                if kind == SIDE:
                    continue  # F-07: never a double at a naked side
                if inline != 0:
                    if inline == 1:  # F-23 optional: across, then in line
                        _write(out, n, t, value, kind, k, 0)
                        n += 1
                    _write(out, n, t, value, kind, k, 1)
                    n += 1
                    continue
            elif checked and not _fits(game, pos, seat, t, value):
                continue
            _write(out, n, t, value, kind, k, 0)
            n += 1
    if cross and n > 0 and rules[R_MOTHER_THERESA] != 0 and state[S_LAID] > 1:
        n = _mother_theresa(game, pos, n)
    if n == 0:
        _write(out, 0, -1, 0, DRAW if _can_draw(game, pos) else PASS, -1, 0)
        n = 1
    return n


@helper
def _scores_at_side(game: GameArrays, pos: Position, i: int) -> bool:
    """F-22: whether naked-side play ``i`` makes the count divisible."""
    rules, high, low, _ = game
    state, out = pos[0], pos[8]
    t = out[i, 0]
    free = low[t] if high[t] == out[i, 1] else high[t]
    count = state[S_COUNT] + free
    return bool(count > 0 and count % rules[R_DIVISOR] == 0)


@helper
def _mother_theresa(game: GameArrays, pos: Position, n: int) -> int:
    """F-22: a naked side that does not score only when nothing else is legal."""
    out = pos[8]
    kept = 0
    for i in range(n):
        if out[i, 2] != SIDE or _scores_at_side(game, pos, i):
            kept += 1
    if kept == 0:
        return n
    m = 0
    for i in range(n):
        if out[i, 2] != SIDE or _scores_at_side(game, pos, i):
            for c in range(MOVE_WIDTH):
                out[m, c] = out[i, c]
            m += 1
    return m


@helper
def _can_draw(game: GameArrays, pos: Position) -> bool:
    return bool(game[0][R_DRAW] != DRAW_NONE and pos[0][S_STOCK] > 0)


@helper
def has_play(game: GameArrays, pos: Position, seat: int) -> bool:
    """Whether ``seat`` could lay a tile now (C-10), without listing the moves."""
    rules, high, low, with_number = game
    state, _, hand, _, points, _, _, _, _, _ = pos
    if state[S_LAID] == 0:
        return True
    top = rules[R_TOP]
    cross = rules[R_LAYOUT] == LAYOUT_CROSS
    for k in range(state[S_POINTS]):
        value = points[k, 1]
        kind = points[k, 2]
        if cross and kind == END and state[S_LAID] == 1:
            continue
        for j in range(top + 1):
            t = with_number[value, j]
            if hand[seat, t] == 0:
                continue
            if cross:
                if kind == SIDE and high[t] == low[t]:
                    continue
                return True
            if _fits(game, pos, seat, t, value):
                return True
    return False


# -- changing a position ----------------------------------------------------------------


@helper
def _open_point(pos: Position, value: int, kind: int) -> None:
    state, points = pos[0], pos[4]
    k = state[S_POINTS]
    points[k, 0] = state[S_NEXT_ID]
    points[k, 1] = value
    points[k, 2] = kind
    state[S_POINTS] = k + 1
    state[S_NEXT_ID] += 1
    if kind == END:
        state[S_COUNT] += value


@helper
def _close_point(pos: Position, k: int) -> None:
    state, points = pos[0], pos[4]
    if points[k, 2] == END:
        state[S_COUNT] -= points[k, 1]
    last = state[S_POINTS] - 1
    # Points stay in id order, as the engine lists them.
    for i in range(k, last):
        points[i, 0] = points[i + 1, 0]
        points[i, 1] = points[i + 1, 1]
        points[i, 2] = points[i + 1, 2]
    state[S_POINTS] = last


@helper
def apply_move(game: GameArrays, pos: Position, i: int) -> int:
    """Apply legal move ``i`` of ``pos``'s move rows for the seat to play; return the
    points it scored."""
    rules, high, low, _ = game
    state, seats, hand, aside, points, laid_with, laid_double, stock, moves, _ = pos
    seat = state[S_TURN]
    kind = moves[i, 2]
    scored = 0
    players = rules[R_PLAYERS]
    if kind == DRAW:
        state[S_STOCK] -= 1
        t = stock[state[S_STOCK]]
        hand[seat, t] = 1
        seats[seat, C_TILES] += 1
        seats[seat, C_PIPS] += high[t] + low[t]
    elif kind != PASS:
        t = moves[i, 0]
        touching = moves[i, 1]
        hand[seat, t] = 0
        seats[seat, C_TILES] -= 1
        seats[seat, C_PIPS] -= high[t] + low[t]
        if aside[seat, t] != 0:
            aside[seat, t] = 0
            seats[seat, C_ASIDE] -= 1
            state[S_ASIDE] -= 1
        a = high[t]
        b = low[t]
        double = a == b
        laid_with[a] += 1
        if double:
            laid_double[a] = 1
        else:
            laid_with[b] += 1
        free = b if a == touching else a
        layout = rules[R_LAYOUT]
        if kind == OPEN:
            if layout == LAYOUT_CROSS:  # F-10
                _open_point(pos, a, END)
                _open_point(pos, a, END)
                _open_point(pos, a, SIDE)
                _open_point(pos, a, SIDE)
            elif layout == LAYOUT_SPINNER:  # DB-05
                _open_point(pos, a, SIDE)
                _open_point(pos, a, SIDE)
                state[S_SIDES_LEFT] = 2
                state[S_SPINNER] = a
            else:
                _open_point(pos, a, END)
                _open_point(pos, b, END)
        else:
            k = moves[i, 3]
            on_side = points[k, 2] == SIDE
            _close_point(pos, k)
            if layout == LAYOUT_CROSS and double and not on_side and moves[i, 4] == 0:
                _open_point(pos, a, END)  # F-05: across, both halves open
                _open_point(pos, a, END)
                _open_point(pos, a, SIDE)
            elif layout == LAYOUT_LINE and double and rules[R_BRANCHING] != 0:
                _open_point(pos, a, END)  # FA-04 doubles_branch
                _open_point(pos, a, END)
            else:
                _open_point(pos, free, END)
                if layout == LAYOUT_SPINNER and on_side:
                    state[S_SIDES_LEFT] -= 1
                    if state[S_SIDES_LEFT] == 0:
                        _open_point(pos, state[S_SPINNER], END)
                        _open_point(pos, state[S_SPINNER], END)
        state[S_LAID] += 1
        if layout == LAYOUT_CROSS:
            count = state[S_COUNT]
            if count % rules[R_DIVISOR] == 0:  # F-15
                scored = count // rules[R_DIVISOR]
                seats[seat, C_RUNNING] += scored
        if seats[seat, C_TILES] == 0:
            state[S_RESULT] = RESULT_OUT
            state[S_OUT] = seat
            return scored
    if not (kind == DRAW and rules[R_DRAW] == DRAW_UNTIL_PLAYABLE):
        state[S_TURN] = seat + 1 if seat + 1 < players else 0
    if kind == PASS:
        # A knock changes nothing that C-10 looks at, and the position before it was
        # checked already.
        return scored
    _check_blocked(game, pos)
    return scored


@helper
def _check_blocked(game: GameArrays, pos: Position) -> None:
    """C-10 (F-20, FA-07, DR-06, DB-09, PT-09): the hand ends once nobody can play and
    nobody can draw."""
    rules = game[0]
    state, points, laid_with = pos[0], pos[4], pos[5]
    if rules[R_LAYOUT] == LAYOUT_CROSS:
        if state[S_STOCK] > 0:
            return
    elif _can_draw(game, pos):
        return
    if (
        rules[R_LAYOUT] != LAYOUT_CROSS
        and rules[R_FIT] == FIT_PLAIN
        and state[S_STOCK] == 0
        and state[S_ASIDE] == 0
    ):
        # Every tile not laid is in a hand and fits any end of its number (PT-09's note).
        full = rules[R_TOP] + 1
        for k in range(state[S_POINTS]):
            if points[k, 2] == END and laid_with[points[k, 1]] != full:
                return
        state[S_RESULT] = RESULT_BLOCKED
        return
    players = rules[R_PLAYERS]
    for i in range(players):
        if has_play(game, pos, (state[S_TURN] + i) % players):
            return
    state[S_RESULT] = RESULT_BLOCKED


# -- scoring ----------------------------------------------------------------------------


@helper
def hand_points(game: GameArrays, pos: Position, out: np.ndarray) -> None:
    """What each seat's match score changes by for the finished hand (the engine's
    ``final`` minus the score before): F-21, FA-08/09, DB-10..12, DR-10, PT-10..12."""
    rules = game[0]
    state, seats = pos[0], pos[1]
    players = rules[R_PLAYERS]
    scoring = rules[R_SCORING]
    for s in range(players):
        out[s] = 0
    if scoring == SCORE_NONE:
        return
    if scoring == SCORE_FIDO:
        for s in range(players):
            out[s] = seats[s, C_RUNNING] - seats[s, C_PIPS]
        return
    if scoring == SCORE_PAIRS_ALL or scoring == SCORE_PAIRS_LOSERS:
        pair0 = seats[0, C_PIPS] + seats[2, C_PIPS]
        pair1 = seats[1, C_PIPS] + seats[3, C_PIPS]
        if state[S_RESULT] == RESULT_OUT:
            winners = state[S_OUT] % 2
            lost = pair1 if winners == 0 else pair0
        elif pair0 == pair1:
            return
        else:
            winners = 0 if pair0 < pair1 else 1
            lost = pair1 if winners == 0 else pair0
            if scoring == SCORE_PAIRS_ALL:
                lost = pair0 + pair1
        for s in range(players):
            if s % 2 == winners:
                out[s] = lost // 10 + 1
        return
    winner = -1
    if state[S_RESULT] == RESULT_OUT:
        winner = state[S_OUT]
    else:
        least = seats[0, C_PIPS]
        for s in range(1, players):
            least = min(least, seats[s, C_PIPS])
        holders = 0
        for s in range(players):
            if seats[s, C_PIPS] == least:
                holders += 1
                winner = s
        if holders != 1:
            return  # FA-09, DB-11: a tied block scores nothing
    total = 0
    for s in range(players):
        if s != winner:
            if scoring == SCORE_FAMILY:
                total += seats[s, C_PIPS] - seats[winner, C_PIPS]
            else:
                total += seats[s, C_PIPS]
    out[winner] = total


# -- playouts ---------------------------------------------------------------------------


POLICY_GREEDY = 0
"""The ``greedy`` bot: most points now, then the heaviest tile, the first place in the
engine's order on ties (the older end)."""
POLICY_NEWER = 1
"""The same, but a tile that fits several places goes to the newest (``greedy:newer``,
the search's playouts): it beat ``greedy`` on duplicate deals (docs/bots.md)."""


@helper
def choose(game: GameArrays, pos: Position, n: int, greed: int, policy: int, rs: np.ndarray) -> int:
    """The playout policy: with probability ``greed``/256 the move of ``policy``
    (:data:`POLICY_GREEDY` or :data:`POLICY_NEWER`), else any move, uniformly."""
    if n == 1:
        return 0
    if greed < 256 and (greed == 0 or next_random(rs, 256) >= greed):
        return next_random(rs, n)
    rules, high, low, _ = game
    moves = pos[8]
    best = 0
    best_key = -1
    cross = rules[R_LAYOUT] == LAYOUT_CROSS
    newer = policy == POLICY_NEWER
    for i in range(n):
        t = moves[i, 0]
        if t < 0:
            continue
        points = _points_if(game, pos, i) if cross else 0
        key = (points * 256 + high[t] + low[t]) * 32 + high[t]
        # Moves come in point-id order, so the last of equal keys is the newest place.
        if key > best_key or (newer and key == best_key):
            best_key = key
            best = i
    return best


@helper
def _points_if(game: GameArrays, pos: Position, i: int) -> int:
    """F-15 for a FIDO play before it is made (``count_after`` of the engine)."""
    rules, high, low, _ = game
    state, moves = pos[0], pos[8]
    t = moves[i, 0]
    touching = moves[i, 1]
    kind = moves[i, 2]
    a = high[t]
    b = low[t]
    free = b if a == touching else a
    count = state[S_COUNT]
    if kind == OPEN:
        count = a + b
    elif kind == SIDE:
        count += free
    elif a == b:
        if moves[i, 4] == 0:
            count += a
    else:
        count += free - touching
    divisor = rules[R_DIVISOR]
    return count // divisor if count % divisor == 0 else 0


@kernel
def playout(
    game: GameArrays, pos: Position, greed: int, policy: int, rs: np.ndarray, trace: np.ndarray
) -> int:
    """Play the hand out with the playout policy (:func:`choose`); record each chosen
    move's index in ``trace`` (when it has room) and return how many moves were played."""
    state = pos[0]
    played = 0
    while state[S_RESULT] == RESULT_NONE:
        n = legal_moves(game, pos)
        i = choose(game, pos, n, greed, policy, rs)
        if played < trace.shape[0]:
            trace[played] = i
        apply_move(game, pos, i)
        played += 1
    return played


@helper
def deal_into(game: GameArrays, pos: Position, rs: np.ndarray) -> None:
    """Shuffle and deal a fresh first hand, again while the game's redeal rule asks
    (F-12, FA-02, DB-04, PT-04); the opener is set by the game's rule."""
    rules, high, low, _ = game
    state, seats, hand, aside, _, laid_with, laid_double, stock, _, order = pos
    players = rules[R_PLAYERS]
    size = high.shape[0]
    per = rules[R_HAND_SIZE]
    redeal = rules[R_REDEAL]
    while True:
        for t in range(size):
            order[t] = t
        # Fisher-Yates, with next_random's xorshift kept in a local for speed.
        x = rs[0]
        for t in range(size - 1, 0, -1):
            x ^= (x << 13) & MASK32
            x ^= x >> 17
            x ^= (x << 5) & MASK32
            j = (x * (t + 1)) >> 32
            tmp = order[t]
            order[t] = order[j]
            order[j] = tmp
        rs[0] = x
        if redeal == REDEAL_NONE:
            break
        ok = redeal != REDEAL_NO_DOUBLE and redeal != REDEAL_NO_SIX_SIX
        for s in range(players):
            doubles = 0
            for j in range(per):
                t = order[s * per + j]
                if high[t] == low[t]:
                    doubles += 1
                    if redeal == REDEAL_NO_DOUBLE or (redeal == REDEAL_NO_SIX_SIX and t == 27):
                        ok = True
            if redeal == REDEAL_FIVE_DOUBLES and doubles >= 5:
                ok = False
        if ok:
            break
    # Plain loops: numba's slice assignment costs more than the deal itself.
    for s in range(players):
        for t in range(size):
            hand[s, t] = 0
            aside[s, t] = 0
        for c in range(seats.shape[1]):
            seats[s, c] = 0
    for v in range(laid_with.shape[0]):
        laid_with[v] = 0
        laid_double[v] = 0
    for s in range(players):
        for j in range(per):
            t = order[s * per + j]
            hand[s, t] = 1
            seats[s, C_TILES] += 1
            seats[s, C_PIPS] += high[t] + low[t]
    dealt = players * per
    left = size - dealt
    # The engine pops the next tile off the end of its stock list.
    for j in range(left):
        stock[left - 1 - j] = order[dealt + j]
    for c in range(state.shape[0]):
        state[c] = 0
    state[S_STOCK] = left
    state[S_TURN] = opener(game, pos)


@helper
def opener(game: GameArrays, pos: Position) -> int:
    """The seat that opens a first hand (F-09, FA-02, DR-02, DB-04, PT-05)."""
    rules, high, low, _ = game
    hand = pos[2]
    players = rules[R_PLAYERS]
    size = high.shape[0]
    how = rules[R_OPEN]
    if how == OPEN_SIX_SIX:
        for s in range(players):
            if hand[s, 27] != 0:
                return s
        return 0
    for v in range(rules[R_TOP], -1, -1):
        t = v * (v + 1) // 2 + v
        for s in range(players):
            if hand[s, t] != 0:
                return s
    best = -1
    seat = 0
    for t in range(size):
        w = (high[t] + low[t]) * 64 + high[t]
        for s in range(players):
            if hand[s, t] != 0 and w > best:
                best = w
                seat = s
    return seat


@kernel
def random_hands(
    game: GameArrays,
    pos: Position,
    hands: int,
    rs: np.ndarray,
    points_of: np.ndarray,
    gained: np.ndarray,
) -> int:
    """Deal and play ``hands`` random first hands; return the moves played (and leave
    every seat's summed points in ``gained``, so the work cannot be skipped)."""
    total = 0
    players = game[0][R_PLAYERS]
    no_trace = pos[7][:0]
    for s in range(players):
        gained[s] = 0
    for _ in range(hands):
        deal_into(game, pos, rs)
        total += playout(game, pos, 0, POLICY_GREEDY, rs, no_trace)
        hand_points(game, pos, points_of)
        for s in range(players):
            gained[s] += points_of[s]
    return total


# -- search -----------------------------------------------------------------------------


@helper
def copy_position(source: Position, target: Position) -> None:
    """Copy a position into another's arrays (only the rows in use)."""
    state, seats, hand, aside, points, laid_with, laid_double, stock, _, _ = source
    w_state, w_seats, w_hand, w_aside, w_points, w_laid_with, w_laid_double, w_stock, _, _ = target
    for c in range(state.shape[0]):
        w_state[c] = state[c]
    for s in range(seats.shape[0]):
        for c in range(seats.shape[1]):
            w_seats[s, c] = seats[s, c]
        for t in range(hand.shape[1]):
            w_hand[s, t] = hand[s, t]
            w_aside[s, t] = aside[s, t]
    for k in range(state[S_POINTS]):
        w_points[k, 0] = points[k, 0]
        w_points[k, 1] = points[k, 1]
        w_points[k, 2] = points[k, 2]
    for v in range(laid_with.shape[0]):
        w_laid_with[v] = laid_with[v]
        w_laid_double[v] = laid_double[v]
    for i in range(state[S_STOCK]):
        w_stock[i] = stock[i]


@kernel
def evaluate(
    game: GameArrays,
    root: Position,
    work: Position,
    candidates: np.ndarray,
    playouts: int,
    greed: int,
    policy: int,
    rs: np.ndarray,
    me: int,
    pairs: int,
    weight: float,
    gained: np.ndarray,
    totals: np.ndarray,
) -> None:
    """Play each candidate move (a row like the move rows) from ``root``, then
    ``playouts`` playouts after it, adding ``weight`` times the mover's utility to
    ``totals``: its points minus the others' mean, or with ``pairs`` its pair's points
    minus the other pair's (PT-10)."""
    players = game[0][R_PLAYERS]
    w_moves = work[8]
    no_trace = work[7][:0]
    for c in range(candidates.shape[0]):
        for _ in range(playouts):
            copy_position(root, work)
            for col in range(MOVE_WIDTH):
                w_moves[0, col] = candidates[c, col]
            apply_move(game, work, 0)
            playout(game, work, greed, policy, rs, no_trace)
            hand_points(game, work, gained)
            if pairs != 0:
                value = float(gained[me] - gained[(me + 1) % players])
            else:
                others = 0
                for s in range(players):
                    if s != me:
                        others += gained[s]
                value = gained[me] - others / (players - 1)
            totals[c] += weight * value


# -- exact solving ----------------------------------------------------------------------
#
# With every hand and the stock's order fixed (one sampled deal), a hand is a game of
# perfect information, and the rest of it is small enough to solve exactly once few
# tiles are left (a whole 7-tile partnership hand included). The solver is alpha-beta
# over the mover's utility in whole units: ``players - 1`` times its points less the
# others' sum (the search's "points less the others' mean", scaled to stay an integer),
# or its pair's points less the other pair's. The mover (and its partner) maximise it,
# every other seat minimises it: exact for pairs and two players, and the cautious
# ("paranoid") reading of a table of three or more.
#
# A node's value is what the rest of the hand adds to the utility, so it depends on the
# position alone and goes into a transposition table keyed by a Zobrist hash of the
# hands, the turn, the open points (as a multiset: their ids only order the moves), the
# stock's size and the spinner's sides left. The table is shared by the candidates of
# one sampled deal; a new ``salt`` per deal retires the old entries without clearing.
#
# Positions live in a stack of arrays with the depth as first axis: each level is a
# copy of the one above with one move applied, so nothing is undone.

TT_EXACT = 1
TT_LOWER = 2
TT_UPPER = 3
SOLVE_INFINITY = 1 << 40


@helper
def _level(stack: Position, d: int) -> Position:
    return (
        stack[0][d],
        stack[1][d],
        stack[2][d],
        stack[3][d],
        stack[4][d],
        stack[5][d],
        stack[6][d],
        stack[7][d],
        stack[8][d],
        stack[9][d],
    )


@helper
def _units(game: GameArrays, values: np.ndarray, me: int, pairs: int) -> int:
    """The utility of per-seat ``values`` for ``me``, in whole units."""
    players = game[0][R_PLAYERS]
    if pairs != 0:
        mine = 0
        for s in range(players):
            mine += values[s] if s % 2 == me % 2 else -values[s]
        return mine // 2  # both partners carry the pair's points
    total = 0
    for s in range(players):
        total += (players - 1) * values[s] if s == me else -values[s]
    return total


@helper
def _scored_units(game: GameArrays, seat: int, scored: int, me: int, pairs: int) -> int:
    """What ``scored`` points for ``seat`` during the hand (F-15) add to the utility."""
    if scored == 0:
        return 0
    if pairs != 0:
        return scored if seat % 2 == me % 2 else -scored
    return (game[0][R_PLAYERS] - 1) * scored if seat == me else -scored


@helper
def _zobrist(game: GameArrays, pos: Position, zobrist: np.ndarray, counts: np.ndarray) -> int:
    """The position's hash (see the section's text); ``counts`` is scratch space."""
    rules, high, _, _ = game
    state, _, hand, aside, points = pos[0], pos[1], pos[2], pos[3], pos[4]
    players = rules[R_PLAYERS]
    size = high.shape[0]
    top = rules[R_TOP]
    h = zobrist[0, 0]
    for s in range(players):
        row = 1 + s
        for t in range(size):
            if hand[s, t] != 0:
                h ^= zobrist[row, t]
            if aside[s, t] != 0:
                h ^= zobrist[row + players, t]
    base = 1 + 2 * players
    h ^= zobrist[base, state[S_TURN]]
    h ^= zobrist[base + 1, state[S_STOCK]]
    h ^= zobrist[base + 2, state[S_SIDES_LEFT]]
    for v in range(top + 1):
        counts[v, 0] = 0
        counts[v, 1] = 0
    for k in range(state[S_POINTS]):
        counts[points[k, 1], points[k, 2] - 1] += 1
    for v in range(top + 1):
        for kind in range(2):
            c = counts[v, kind]
            if c != 0:
                h ^= zobrist[base + 3 + kind * (top + 1) + v, c]
    return int(h)


# The columns of a level's frame in :func:`solve_node`'s explicit stack (numba cannot
# load a cached recursive function, so the search keeps its own stack).
F_MOVES = 0
F_TRIED = 1
F_LOW = 2
F_HIGH = 3
F_BEST = 4
F_ALPHA = 5
F_BETA = 6
F_KEY = 7
F_GAIN = 8
F_MAX = 9
F_SIZE = 10


@helper
def _fold(frame: np.ndarray, value: int) -> None:
    """A child's ``value`` (from the child on) into its parent's frame."""
    value += frame[F_GAIN]
    if frame[F_MAX] != 0:
        if value > frame[F_BEST]:
            frame[F_BEST] = value
        if frame[F_BEST] > frame[F_LOW]:
            frame[F_LOW] = frame[F_BEST]
    else:
        if value < frame[F_BEST]:
            frame[F_BEST] = value
        if frame[F_BEST] < frame[F_HIGH]:
            frame[F_HIGH] = frame[F_BEST]


@kernel
def solve_node(
    game: GameArrays,
    stack: Position,
    order_keys: np.ndarray,
    frames: np.ndarray,
    top_level: int,
    me: int,
    pairs: int,
    alpha: int,
    beta: int,
    tt_keys: np.ndarray,
    tt_values: np.ndarray,
    tt_flags: np.ndarray,
    zobrist: np.ndarray,
    salt: int,
    counts: np.ndarray,
    nodes: np.ndarray,
) -> int:
    """The value (in utility units) of the rest of the hand from level ``top_level`` of
    ``stack``, exact when it lies strictly between ``alpha`` and ``beta``, else a bound
    on the side it falls. ``nodes[0]`` counts the positions visited; once it passes
    ``nodes[1]`` the search gives up and the value means nothing."""
    rules, high, low, _ = game
    players = rules[R_PLAYERS]
    cross = rules[R_LAYOUT] == LAYOUT_CROSS
    mask = tt_keys.shape[0] - 1
    d = top_level
    entering = True
    value = 0
    while True:
        if entering:
            # A new position at level d, searched within (alpha, beta).
            pos = _level(stack, d)
            state, seats = pos[0], pos[1]
            nodes[0] += 1
            if nodes[0] > nodes[1]:
                return 0
            entering = False
            if state[S_RESULT] != RESULT_NONE:
                values = counts[:, 2]
                hand_points(game, pos, values)
                final = _units(game, values, me, pairs)
                for s in range(players):
                    values[s] = seats[s, C_RUNNING]
                value = final - _units(game, values, me, pairs)
            else:
                key = _zobrist(game, pos, zobrist, counts) ^ salt
                slot = key & mask
                hit = False
                if tt_flags[slot] != 0 and tt_keys[slot] == key:
                    stored = tt_values[slot]
                    flag = tt_flags[slot]
                    if (
                        flag == TT_EXACT
                        or (flag == TT_LOWER and stored >= beta)
                        or (flag == TT_UPPER and stored <= alpha)
                    ):
                        value = stored
                        hit = True
                if not hit:
                    n = legal_moves(game, pos)
                    moves = pos[8]
                    keys = order_keys[d]
                    for i in range(n):
                        t = moves[i, 0]
                        if t < 0:
                            keys[i] = 0
                        else:
                            points = _points_if(game, pos, i) if cross else 0
                            keys[i] = (points * 256 + high[t] + low[t]) * 32 + high[t] + 1
                    seat = state[S_TURN]
                    maximising = seat == me or (pairs != 0 and seat % 2 == me % 2)
                    frame = frames[d]
                    frame[F_MOVES] = n
                    frame[F_TRIED] = 0
                    frame[F_LOW] = alpha
                    frame[F_HIGH] = beta
                    frame[F_BEST] = -SOLVE_INFINITY if maximising else SOLVE_INFINITY
                    frame[F_ALPHA] = alpha
                    frame[F_BETA] = beta
                    frame[F_KEY] = key
                    frame[F_MAX] = 1 if maximising else 0
                    value = SOLVE_INFINITY + 1  # no value yet: go down to a child
            if value != SOLVE_INFINITY + 1:
                # Back up to the parent with the value found here.
                if d == top_level:
                    return value
                d -= 1
                _fold(frames[d], value)
        # Level d has a frame: try its next move, or finish it.
        frame = frames[d]
        n = frame[F_MOVES]
        if frame[F_TRIED] < n and frame[F_LOW] < frame[F_HIGH]:
            frame[F_TRIED] += 1
            pos = _level(stack, d)
            moves = pos[8]
            keys = order_keys[d]
            # The likeliest best move first: the most points now, then the heaviest.
            i = 0
            for j in range(1, n):
                if keys[j] > keys[i]:
                    i = j
            keys[i] = -1
            child = _level(stack, d + 1)
            copy_position(pos, child)
            child_moves = child[8]
            for col in range(MOVE_WIDTH):
                child_moves[0, col] = moves[i, col]
            seat = pos[0][S_TURN]
            scored = apply_move(game, child, 0)
            gain = _scored_units(game, seat, scored, me, pairs)
            frame[F_GAIN] = gain
            alpha = frame[F_LOW] - gain
            beta = frame[F_HIGH] - gain
            d += 1
            entering = True
            continue
        best = frame[F_BEST]
        if best <= frame[F_ALPHA]:
            flag = TT_UPPER
        elif best >= frame[F_BETA]:
            flag = TT_LOWER
        else:
            flag = TT_EXACT
        key = frame[F_KEY]
        slot = key & mask
        tt_keys[slot] = key
        tt_values[slot] = best
        tt_flags[slot] = flag
        if d == top_level:
            return int(best)
        d -= 1
        _fold(frames[d], best)


@kernel
def solve(
    game: GameArrays,
    stack: Position,
    order_keys: np.ndarray,
    frames: np.ndarray,
    candidates: np.ndarray,
    me: int,
    pairs: int,
    tt_keys: np.ndarray,
    tt_values: np.ndarray,
    tt_flags: np.ndarray,
    zobrist: np.ndarray,
    salt: int,
    counts: np.ndarray,
    nodes: np.ndarray,
    values: np.ndarray,
) -> bool:
    """The exact value of each candidate move (rows like the move rows) from level 0 of
    ``stack``, in the search's units (points less the others' mean, or the pair's less
    the other pair's), counted from the position on; ``False`` when the search passed
    ``nodes[1]`` positions and gave up."""
    rules = game[0]
    players = rules[R_PLAYERS]
    root = _level(stack, 0)
    child = _level(stack, 1)
    seat = root[0][S_TURN]
    scale = 1 if pairs != 0 else players - 1
    for c in range(candidates.shape[0]):
        copy_position(root, child)
        for col in range(MOVE_WIDTH):
            child[8][0, col] = candidates[c, col]
        scored = apply_move(game, child, 0)
        gain = _scored_units(game, seat, scored, me, pairs)
        value = gain + solve_node(
            game,
            stack,
            order_keys,
            frames,
            1,
            me,
            pairs,
            -SOLVE_INFINITY,
            SOLVE_INFINITY,
            tt_keys,
            tt_values,
            tt_flags,
            zobrist,
            salt,
            counts,
            nodes,
        )
        if nodes[0] > nodes[1]:
            return False
        values[c] = value / scale
    return True
