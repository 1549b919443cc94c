"""The exact solver (issue 19) against a plain minimax over the kernel's positions.

The solver prunes (alpha-beta), remembers positions (a transposition table keyed by a
Zobrist hash) and keeps its own stack; the reference here does none of that: it tries
every move of every seat to the end of the hand. Both read the same utility: the mover's
points less the others' mean (or its pair's less the other pair's), maximised by the
mover and its partner and minimised by everyone else.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pips.bots import kernel as k
from pips.bots.fast import FastState, random_source, rules_of
from pips.bots.solver import Solver
from pips.games.registry import find_game

CASES = [
    ("partnership", {"teams": "fixed", "target": 1}, 9),
    ("draw", {"players": 2, "match_scoring": True}, 9),
    ("family", {"players": 3, "target": 1}, 8),
    ("doubles", {"players": 3, "target": 1}, 8),
    ("fido", {"players": 3, "set": 6}, 8),
    ("fido", {"players": 4, "set": 9, "mother_theresa": True}, 9),
]


def utility(values: list[int], me: int, pairs: bool) -> float:
    players = len(values)
    if pairs:
        return float(values[me] - values[(me + 1) % players])
    return values[me] - sum(v for s, v in enumerate(values) if s != me) / (players - 1)


def minimax(fast: FastState, me: int, pairs: bool) -> float:
    """The utility of the hand's end under best play, by trying everything."""
    if fast.is_over:
        return utility(fast.hand_points(), me, pairs)
    seat = fast.turn
    ours = seat == me or (pairs and seat % 2 == me % 2)
    results = []
    for i in range(fast.legal_count()):
        child = fast.copy()
        child.legal_count()
        child.apply(i)
        results.append(minimax(child, me, pairs))
    return max(results) if ours else min(results)


def endgame(game: str, options: dict[str, object], left: int, seed: int) -> FastState:
    """A position of a hand dealt and played at random until at most ``left`` tiles
    are held or in the stock."""
    spec = find_game(game)
    resolved = spec.options_from_json({**spec.defaults, **options})
    rules = rules_of(game, spec.traits(resolved, True))
    rs = random_source(seed)
    while True:
        fast = FastState.dealt(rules, rs)
        while not fast.is_over:
            held = int(fast.seats[:, k.C_TILES].sum() + fast.state[k.S_STOCK])
            if held <= left and fast.legal_count() > 1:
                return fast
            n = fast.legal_count()
            fast.apply(int(k.next_random(rs, n)))


@pytest.mark.parametrize(("game", "options", "left"), CASES, ids=[c[0] for c in CASES])
@given(seed=st.integers(1, 2**31))
@settings(max_examples=6, deadline=None)
def test_solver_values_equal_plain_minimax(
    game: str, options: dict[str, object], left: int, seed: int
) -> None:
    fast = endgame(game, options, left, seed)
    me = fast.turn
    pairs = find_game(game).pairs
    n = fast.legal_count()
    rows = fast.moves[:n].copy()
    root_running = utility(fast.running, me, pairs)
    expected = []
    for i in range(n):
        child = fast.copy()
        child.legal_count()
        child.apply(i)
        expected.append(minimax(child, me, pairs) - root_running)
    solver = Solver(fast.rules)
    got = solver.values(fast, rows, me, pairs, salt=seed, node_limit=10**7)
    assert got is not None
    assert got.tolist() == pytest.approx(expected)
    # The table is shared between calls: a second deal's salt must not reuse the first's.
    again = solver.values(fast, rows, me, pairs, salt=seed + 1, node_limit=10**7)
    assert again is not None and again.tolist() == pytest.approx(expected)


def test_solver_gives_up_past_its_node_limit() -> None:
    fast = endgame("partnership", {"teams": "fixed", "target": 1}, 20, 5)
    n = fast.legal_count()
    solver = Solver(fast.rules)
    assert solver.values(fast, fast.moves[:n].copy(), fast.turn, True, 1, 50) is None
    solved = solver.values(fast, fast.moves[:n].copy(), fast.turn, True, 1, 10**8)
    assert solved is not None and np.all(np.isfinite(solved))


def test_solver_leaves_the_position_unchanged() -> None:
    fast = endgame("fido", {"players": 4, "set": 9}, 14, 3)
    before = [a.copy() for a in fast.pos[:8]]
    n = fast.legal_count()
    Solver(fast.rules).values(fast, fast.moves[:n].copy(), fast.turn, False, 9, 10**7)
    for was, now in zip(before, fast.pos[:8], strict=False):
        assert np.array_equal(was, now)


def test_a_searched_decision_replays_from_its_seed() -> None:
    """A solved decision (and one by playouts) is the same from the same seed."""
    from pips.bots.search import SearchBot

    spec = find_game("partnership")
    options = spec.options_from_json({**spec.defaults, "teams": "fixed", "target": 1})
    rng = random.Random(4)
    state = spec.new_hand(options, rng)
    for _ in range(12):
        seat = state.current_seat
        assert seat is not None
        legal = list(state.legal_moves())
        state.play(legal[rng.randrange(len(legal))])
        if state.is_over:
            break
    seat = state.current_seat
    assert seat is not None
    view = state.view(seat)
    legal = list(state.legal_moves())
    first = SearchBot("normal").expected(view, legal, random.Random(1))
    second = SearchBot("normal").expected(view, legal, random.Random(1))
    assert first.tolist() == second.tolist()
