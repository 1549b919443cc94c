"""Invariants of the family, draw, Doubles and partnership games, over random matches."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pips import record
from pips.core.moves import Draw, Pass, Play
from pips.core.outcome import Ending
from pips.core.tiles import double_set
from pips.core.view import SPECTATOR
from pips.games import doubles, draw, family, partnership
from pips.games.common import HandState, places_by_pips
from pips.games.match import Match
from pips.games.registry import find_game
from tests.helpers import tiles_in_json

games = st.one_of(
    st.tuples(
        st.just("family"),
        st.fixed_dictionaries(
            {"players": st.integers(2, 4), "doubles_branch": st.booleans()},
            optional={"target": st.sampled_from([30, 100])},
        ),
    ),
    st.tuples(
        st.just("draw"),
        st.fixed_dictionaries(
            {
                "players": st.integers(2, 6),
                "doubles_branch": st.booleans(),
                "match_scoring": st.booleans(),
                "direction": st.sampled_from(["clockwise", "counter-clockwise"]),
            }
        ),
    ),
    st.tuples(
        st.just("doubles"),
        st.fixed_dictionaries(
            {
                "players": st.integers(2, 7),
                "spinner": st.sampled_from(["set_double", "none"]),
                "draw_rule": st.sampled_from(["draw_until_playable", "no_draw"]),
                "set_rule": st.sampled_from(["highest_double", "double_six"]),
                "target": st.sampled_from([50, 100]),
            }
        ),
    ),
    st.tuples(
        st.just("partnership"),
        st.fixed_dictionaries(
            {
                "teams": st.sampled_from(["lot", "fixed"]),
                "block_points": st.sampled_from(["all_hands", "losers_only"]),
                "false_knock": st.sampled_from(["prevent", "penalize"]),
                "target": st.sampled_from([10, 30]),
            }
        ),
    ),
)


def check_hand_invariants(state: HandState) -> None:
    """Tiles conserved (C-02); the open points are the free halves of the layout."""
    laid = [laid.tile for laid in state.layout.tiles]
    held = [t for hand in state.hands for t in hand]
    assert Counter([*laid, *held, *state.stock]) == Counter(double_set(state.options.top))


def play_match(game: str, options: dict[str, Any], seed: int) -> Match:
    """A whole match of random moves, checking every step; false knocks now and then."""
    spec = find_game(game)
    match = Match(spec, spec.options_from_json(options), random.Random(seed))
    rng = random.Random(seed + 1)
    penalize = options.get("false_knock") == "penalize"
    while not match.is_over:
        state = match.current
        assert isinstance(state, HandState)
        seat = state.turn
        moves = state.legal_moves()
        assert moves and len(moves) == len(set(moves))
        assert len(state.representative_moves()) <= len(moves)
        move = rng.choice(moves)
        if penalize and state.layout.tiles and isinstance(move, Play) and rng.random() < 0.1:
            move = Pass()  # PT-08: a false knock, accepted and penalized
        stock_before = state.stock_size
        scores_before = list(match.scores)
        hands_before = len(match.hand_states)
        event = match.play(move)
        if isinstance(move, Draw):
            assert stock_before == state.stock_size + 1
            assert game != "partnership"  # PT-07: no drawing
        if event.set_aside:
            assert penalize and set(event.set_aside) <= set(state.hands[seat])
        check_hand_invariants(state)
        if state.is_over:
            check_result(game, state, scores_before)
            assert len(match.hand_states) == hands_before + (0 if match.is_over else 1)
        else:
            assert match.scores == scores_before  # points only at the end of a hand
            assert not ended_by_rules(state)
    return match


def ended_by_rules(state: HandState) -> bool:
    """Whether the hand must be over: someone is out, or nobody can draw and nobody can
    lay a tile (C-10, FA-07, DR-06, DB-09, PT-09), computed apart from the engine."""
    if any(len(h) == 0 for h in state.hands):
        return True
    if state.stock_size > 0 and state.draw_rule.value != "none":
        return False
    values = [p.value for p in state.layout.points]
    for seat, hand in enumerate(state.hands):
        aside = state.set_aside[seat]
        usable = [t for t in hand if t not in aside] if len(aside) < len(hand) else list(hand)
        for tile in usable:
            for v in values:
                doubles_rule = state.game == "doubles" and not state.layout.contains_double(v)
                if tile.contains(v) and (not doubles_rule or tile.is_double):
                    return False
    return True


def check_result(game: str, state: HandState, before: list[int]) -> None:
    result = state.result
    assert result is not None
    pips = [h.pips for h in state.hands]
    assert list(result.pips) == pips
    out = result.out
    if result.ended is Ending.OUT:
        assert out is not None and pips[out] == 0
    else:
        assert out is None and ended_by_rules(state)
    options = state.options
    if game == "family":
        expected = family.hand_points(pips, out)
    elif game == "doubles" or (isinstance(options, draw.DrawOptions) and options.match_scoring):
        expected = doubles.hand_points(pips, out)
    elif isinstance(options, partnership.PartnershipOptions):
        expected = partnership.hand_points(pips, out, options.block_points)
    else:
        expected = [0] * len(pips)
    assert list(result.points) == expected
    assert list(result.final) == [b + g for b, g in zip(before, expected, strict=True)]
    if game != "partnership":
        assert result.ranks == places_by_pips(pips, out)
    if game == "partnership" and result.ended is Ending.BLOCKED and not any(state.set_aside):
        # PT-09's note: a block shows one number at both ends, all seven tiles laid.
        values = {p.value for p in state.layout.points}
        assert len(values) == 1
        (v,) = values
        assert sum(laid.tile.contains(v) for laid in state.layout.tiles) == 7


@settings(max_examples=60, deadline=None)
@given(games, st.integers(0, 2**31))
def test_random_matches_keep_every_rule(game: tuple[str, dict[str, Any]], seed: int) -> None:
    name, options = game
    match = play_match(name, options, seed)
    result = match.result
    assert result is not None
    if match.target is not None:
        # A match ends exactly at its target: no earlier hand reached it.
        assert max(match.scores) >= match.target
        running = [0] * match.players
        for hand in match.hand_states[:-1]:
            assert hand.result is not None
            running = list(hand.result.final)
            assert max(running) < match.target
    else:
        assert len(match.hand_states) == 1


@settings(max_examples=40, deadline=None)
@given(games, st.integers(0, 2**31))
def test_records_round_trip(game: tuple[str, dict[str, Any]], seed: int) -> None:
    name, options = game
    match = play_match(name, options, seed)
    names = [f"p{i}" for i in range(match.players)]
    data = record.write_record(match, names, seed=seed)
    again = record.replay(json.loads(record.dumps(data)))
    assert len(again.match.hand_states) == len(match.hand_states)
    for ours, theirs in zip(match.hand_states, again.match.hand_states, strict=True):
        assert ours.history == theirs.history and ours.result == theirs.result
    assert again.match.result == match.result and again.match.lots == match.lots
    rewritten = record.write_record(again.match, names, seed=seed)
    rewritten["played_at"] = data["played_at"]
    assert rewritten == data


@settings(max_examples=30, deadline=None)
@given(games, st.integers(0, 2**31))
def test_views_leak_no_hidden_tile(game: tuple[str, dict[str, Any]], seed: int) -> None:
    name, options = game
    spec = find_game(name)
    match = Match(spec, spec.options_from_json(options), random.Random(seed))
    rng = random.Random(seed)
    for _ in range(60):
        if match.is_over:
            break
        state = match.current
        assert isinstance(state, HandState)
        for seat in [SPECTATOR, *range(state.players)]:
            seen = tiles_in_json(state.view(seat).to_json())
            allowed = {laid.tile for laid in state.layout.tiles}
            allowed |= {t for aside in state.set_aside for t in aside}
            if seat != SPECTATOR:
                allowed |= set(state.hands[seat])
                allowed |= {
                    e.move.tile
                    for e in state.history
                    if e.seat == seat and isinstance(e.move, Draw) and e.move.tile
                }
            assert seen <= allowed
        match.play(rng.choice(match.legal_moves()))
