"""The playout kernel against the rules engine, move for move (issue: fast playouts).

Every test drives the engine and the kernel from the same position with the same
choices and compares the legal moves at every step, the points of every play and the
hand's result. Positions come from engine deals (start of a hand, later hands of a
match, a false knock under PT-08 ``penalize``) and from the kernel's own deals.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pips.bots import kernel as k
from pips.bots.base import GreedyBot
from pips.bots.fast import FastState, fast_rules, random_hands, random_source
from pips.core.moves import Pass
from pips.games.match import Match
from pips.games.registry import GameState, find_game

CASES: list[tuple[str, dict[str, Any]]] = [
    ("fido", {"players": 4, "set": 6}),
    ("fido", {"players": 5, "set": 12}),
    ("fido", {"players": 3, "set": 9, "mother_theresa": True}),
    ("fido", {"players": 6, "set": 15, "doubles_inline": "optional"}),
    ("fido", {"players": 9, "set": 18, "doubles_inline": "always", "mother_theresa": True}),
    ("family", {"players": 3}),
    ("family", {"players": 4, "doubles_branch": True}),
    ("draw", {"players": 2}),
    ("draw", {"players": 5, "match_scoring": True}),
    ("doubles", {"players": 4}),
    ("doubles", {"players": 3, "spinner": "none", "draw_rule": "no_draw"}),
    ("doubles", {"players": 6, "set_rule": "double_six"}),
    ("partnership", {}),
    ("partnership", {"block_points": "losers_only"}),
]
IDS = [f"{game}-{'-'.join(f'{k}={v}' for k, v in o.items())}" for game, o in CASES]
GREEDY, MIXED, RANDOM = 256, 128, 0


def new_hand(game: str, options: dict[str, Any], seed: int) -> GameState:
    spec = find_game(game)
    return spec.new_hand(spec.options_from_json(options), random.Random(seed))


def play_both(state: GameState, fast: FastState, greed: int, seed: int) -> int:
    """Play the hand to its end in both, the kernel's policy choosing; compare each step.
    Returns the number of moves."""
    rs = random_source(seed)
    played = 0
    while not state.is_over:
        legal = list(state.legal_moves())
        assert fast.legal() == legal, f"move {played}: legal moves differ"
        n = fast.legal_count()
        if greed == GREEDY:
            view = state.view(state.current_seat)  # type: ignore[arg-type]
            newer = k.choose(fast.game, fast.pos, n, greed, k.POLICY_NEWER, rs)
            assert legal[newer] == GreedyBot(newer=True).choose(view, legal, random.Random(0))
        i = k.choose(fast.game, fast.pos, n, greed, k.POLICY_GREEDY, rs)
        if greed == GREEDY:
            assert legal[i] == GreedyBot().choose(view, legal, random.Random(0))
        event = state.play(legal[i])
        assert fast.apply(i) == event.points, f"move {played}: points differ"
        played += 1
        assert fast.is_over == state.is_over
        if not state.is_over:
            assert fast.turn == state.current_seat
    assert state.result is not None
    assert fast.pips == list(state.result.pips)
    assert fast.out == state.result.out
    before = state.context.scores or (0,) * state.players
    assert fast.hand_points() == [f - b for f, b in zip(state.result.final, before, strict=True)]
    return played


@pytest.mark.parametrize(("game", "options"), CASES, ids=IDS)
@pytest.mark.parametrize("greed", [RANDOM, MIXED, GREEDY], ids=["random", "mixed", "greedy"])
def test_kernel_agrees_with_engine_move_for_move(
    game: str, options: dict[str, Any], greed: int
) -> None:
    for seed in range(12):
        state = new_hand(game, options, seed)
        play_both(state, FastState.of_engine(state), greed, seed)


@pytest.mark.parametrize(("game", "options"), CASES, ids=IDS)
def test_kernel_deals_are_legal_deals_with_the_engines_opener(
    game: str, options: dict[str, Any]
) -> None:
    """F-12, FA-02, DB-04, PT-04: the kernel's redeals leave only deals the engine takes,
    and it picks the same opener (F-09, FA-02, DR-02, DB-04, PT-05)."""
    spec = find_game(game)
    resolved = spec.options_from_json(options)
    rules = fast_rules(game, resolved)
    rs = random_source(7)
    for seed in range(25):
        fast = FastState.dealt(rules, rs)
        hands = [fast.hand_of(seat) for seat in range(rules.players)]
        stock_size = int(fast.state[k.S_STOCK])
        stock = [rules.tiles[int(t)] for t in reversed(fast.stock[:stock_size])]
        state = spec.from_deal(resolved, hands, stock)
        assert state.current_seat == fast.turn
        play_both(state, fast, MIXED, seed)


@pytest.mark.parametrize("game", ["family", "doubles", "partnership"])
def test_kernel_agrees_in_later_hands_of_a_match(game: str) -> None:
    """PT-05: after the first hand the next seat leads with any tile."""
    spec = find_game(game)
    options = spec.options_from_json({"players": 4} if game != "partnership" else {})
    for seed in range(6):
        match = Match(spec, options, random.Random(seed))
        rng = random.Random(seed)
        while len(match.hand_states) < 3 and not match.is_over:
            moves = match.current.legal_moves()
            match.play(rng.choice(list(moves)))
        if match.is_over:
            continue
        state = match.current
        play_both(state, FastState.of_engine(state), MIXED, seed)


def test_kernel_agrees_after_a_penalized_false_knock() -> None:
    """PT-08 ``penalize``: tiles set aside may be laid only once nothing else is held."""
    checked = 0
    for seed in range(40):
        state = new_hand("partnership", {"false_knock": "penalize"}, seed)
        rng = random.Random(seed)
        state.play(state.legal_moves()[0])
        while not state.is_over and checked <= seed:
            if any(m != Pass() for m in state.legal_moves()) and rng.random() < 0.3:
                state.play(Pass())  # a false knock: accepted and penalized
                if not state.is_over:
                    play_both(state, FastState.of_engine(state), RANDOM, seed)
                    checked += 1
                break
            state.play(rng.choice(list(state.legal_moves())))
    assert checked >= 20


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**31), greed=st.integers(0, 256))
def test_kernel_agrees_on_any_seed(case: tuple[str, dict[str, Any]], seed: int, greed: int) -> None:
    game, options = case
    state = new_hand(game, options, seed)
    # Start from a position some moves in, as the search bot does.
    rng = random.Random(seed)
    for _ in range(rng.randrange(6)):
        if state.is_over:
            break
        state.play(rng.choice(list(state.legal_moves())))
    if not state.is_over:
        play_both(state, FastState.of_engine(state), greed, seed)


def test_random_hands_conserve_and_score() -> None:
    """The benchmark's loop: partnership hands end with 1 or more points to one pair
    unless blocked level (PT-10 to PT-12), and the totals grow with the hands played."""
    rules = fast_rules("partnership", find_game("partnership").options_from_json({}))
    moves, gained = random_hands(rules, 500, 3)
    assert 500 * 7 <= moves <= 500 * 28 * 2
    assert gained[0] == gained[2] and gained[1] == gained[3]
    assert 500 <= gained[0] + gained[1] <= 500 * 17


_TRACE_SCRIPT = """
import json, sys
from pips.bots import kernel
from pips.bots.fast import fast_rules, FastState, random_source
import numpy as np
out = []
for game, options in json.loads(sys.argv[1]):
    from pips.games.registry import find_game
    rules = fast_rules(game, find_game(game).options_from_json(options))
    rs = random_source(11)
    for _ in range(3):
        fast = FastState.dealt(rules, rs)
        trace = np.zeros(400, np.int64)
        n = fast.playout(rs, 100, trace)
        out.append([trace[:n].tolist(), fast.hand_points()])
print(json.dumps({"compiled": kernel.COMPILED, "traces": out}))
"""


@pytest.mark.process
def test_pure_python_path_gives_the_same_playouts() -> None:
    """With ``PIPS_NO_JIT=1`` the same source runs uncompiled and plays the same moves."""
    cases = json.dumps([[game, options] for game, options in CASES[:1] + CASES[5:]])
    results = {}
    for no_jit in ("1", ""):
        env = {**os.environ, "PIPS_NO_JIT": no_jit}
        done = subprocess.run(
            [sys.executable, "-c", _TRACE_SCRIPT, cases],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        results[no_jit] = json.loads(done.stdout)
    assert results["1"]["compiled"] is False
    assert results["1"]["traces"] == results[""]["traces"]
    assert sum(len(trace) for trace, _ in results["1"]["traces"]) > 400


def test_random_source_is_reproducible() -> None:
    a, b = random_source(5), random_source(5)
    draws_a = [k.next_random(a, 1000) for _ in range(50)]
    assert draws_a == [k.next_random(b, 1000) for _ in range(50)]
    assert len(set(draws_a)) > 40
    assert np.all(a != 0)
