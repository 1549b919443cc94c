"""Invariants of the FIDO engine over random games (hypothesis)."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pips.core.errors import IllegalMoveError
from pips.core.moves import At, Draw, Misdeal, Move, Pass, Play
from pips.core.outcome import Ending
from pips.core.tiles import double_set
from pips.core.view import SPECTATOR
from pips.games.fido import DealMode, DoublesInline, FidoOptions, FidoState
from pips.games.fido_count import DIVISORS, HAND_SIZES
from tests.helpers import any_play_brute_force, random_game, tiles_in_json

options_strategy = st.builds(
    FidoOptions,
    players=st.sampled_from(sorted(HAND_SIZES)),
    set=st.sampled_from(sorted(DIVISORS)),
    mother_theresa=st.booleans(),
    doubles_inline=st.sampled_from(list(DoublesInline)),
)
seeds = st.integers(0, 2**31)


def expected_count_change(move: Play, before: int) -> int:
    """F-05 to F-07 and F-23, written out once more from SPEC for the check."""
    tile = move.tile
    if move.at is At.OPEN:
        return 2 * tile.high  # F-10
    if move.at is At.SIDE:
        return before + tile.other(move.touching)  # F-07: + x
    if tile.is_double:
        return before if move.inline else before + tile.high  # F-23 / F-05: + v
    return before + tile.other(move.touching) - move.touching  # F-06: + (x - v)


@settings(max_examples=60, deadline=None)
@given(options_strategy, seeds)
def test_tiles_are_conserved_and_the_count_is_the_sum_of_open_ends(
    options: FidoOptions, seed: int
) -> None:
    full = Counter(double_set(options.top))
    for state, move, before in random_game(options, seed):
        where = Counter(t for h in state.hands for t in h)
        where.update(laid.tile for laid in state.layout.tiles)
        where.update(state.stock)
        assert where == full
        assert state.layout.count == sum(p.value for p in state.layout.open_ends)
        if isinstance(move, Play):
            event = state.history[-1]
            assert event.layout_count == state.layout.count == expected_count_change(move, before)
            d = options.divisor
            assert event.points == (
                event.layout_count // d if event.layout_count % d == 0 else 0
            )  # F-15
        else:
            assert state.layout.count == before


@settings(max_examples=60, deadline=None)
@given(options_strategy, seeds)
def test_hands_end_exactly_as_f19_and_f20_say(options: FidoOptions, seed: int) -> None:
    state = None
    for state, move, _ in random_game(options, seed):
        if isinstance(move, Pass):
            assert state.stock_size == 0  # F-18
        if not state.is_over and state.stock_size == 0:
            # C-10: while the hand goes on, somebody can still lay a tile.
            assert any(any_play_brute_force(state, s) for s in range(options.players))
    assert state is not None and state.result is not None
    result = state.result
    if result.ended is Ending.OUT:
        assert result.out is not None and not state.hands[result.out]
    else:
        assert state.stock_size == 0
        assert not any(any_play_brute_force(state, s) for s in range(options.players))
    assert result.points == tuple(state.scores)
    assert result.final == tuple(s - h.pips for s, h in zip(state.scores, state.hands, strict=True))
    assert sum(e.points for e in state.history) == sum(result.points)


@settings(max_examples=40, deadline=None)
@given(options_strategy, seeds)
def test_legal_moves_are_exactly_the_moves_play_accepts(options: FidoOptions, seed: int) -> None:
    """Every listed move is accepted; sampled unlisted ones are refused and change nothing."""
    rng = random.Random(seed)
    for state, _, _ in random_game(options, seed, stop_after=25):
        if state.is_over:
            break
        lazy = state.legal_moves()
        # Counting and indexing the lazy sequence gives the moves iteration gives.
        picked = [lazy[i] for i in range(len(lazy))]
        assert lazy[-1] == picked[-1]
        legal = list(state.legal_moves())
        assert picked == legal == state.legal_moves()
        assert legal and len(set(legal)) == len(legal)
        assert state.representative_moves() == [
            m
            for i, m in enumerate(legal)
            if not isinstance(m, Play)
            or all(
                not isinstance(o, Play)
                or (o.tile, o.touching, o.at, o.inline) != (m.tile, m.touching, m.at, m.inline)
                for o in legal[:i]
            )
        ]
        for move in legal:
            state.clone().play(move)
        seat = state.turn
        candidates: list[Move] = [Draw(), Pass()]
        candidates += [
            Play(tile, number, kind, point.id, inline)
            for tile in state.hands[seat]
            for number in {tile.high, tile.low}
            for point in state.layout.points
            for kind in (At.END, At.SIDE)
            for inline in (False, True)
        ]
        for move in rng.sample(candidates, min(12, len(candidates))):
            if move in legal:
                continue
            trial = state.clone()
            try:
                trial.play(move)
            except ValueError:
                assert trial.layout.count == state.layout.count
                assert len(trial.history) == len(state.history)
            else:
                raise AssertionError(f"{move} was accepted but is not listed: {legal}")


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(options_strategy, seeds)
def test_views_leak_no_hidden_tile(options: FidoOptions, seed: int) -> None:
    for number, (state, _, _) in enumerate(random_game(options, seed)):
        laid = {laid.tile for laid in state.layout.tiles}
        # The history's JSON grows with the hand: written whole every 8th position and
        # at the end (its events are checked at every position below).
        whole = number % 8 == 0 or state.is_over
        for seat in [*range(options.players), SPECTATOR]:
            view = state.view(seat)
            data = view.to_json(history=whole)
            own = set(state.hands[seat]) if seat != SPECTATOR else set()
            assert set(view.hand) == own
            assert "stock" not in data and view.stock_size == state.stock_size
            # Every tile a view names is the seat's own, laid, or drawn by the seat itself.
            own_draws = {
                e.move.tile
                for e in state.history
                if e.seat == seat and isinstance(e.move, Draw) and e.move.tile
            }
            assert tiles_in_json(data) <= own | laid | own_draws
            for event in view.history:
                if isinstance(event.move, Draw) and event.seat != seat:
                    assert event.move.tile is None


@given(options_strategy, seeds)
def test_f12_every_deal_has_a_double_and_the_opener_holds_the_highest(
    options: FidoOptions, seed: int
) -> None:
    state = FidoState.new_hand(options, random.Random(seed))
    held = [t for h in state.hands for t in h if t.is_double]
    assert held
    best = max(held)
    assert best in state.hands[state.turn]  # F-09
    assert state.legal_moves() == [Play(best, best.high, At.OPEN)]
    for voided_hands, _ in state.dealt.voided:
        assert not any(t.is_double for h in voided_hands for t in h)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(HAND_SIZES)), st.sampled_from([6, 9, 12]), seeds, st.data())
def test_f24_manual_deals_with_misdeals_conserve_tiles_and_score_consistently(
    players: int, top: int, seed: int, data: st.DataObject
) -> None:
    options = FidoOptions(players=players, set=top, deal_mode=DealMode.MANUAL)
    rng = random.Random(seed)
    order = list(double_set(top))
    rng.shuffle(order)
    sizes = [options.hand_size + data.draw(st.sampled_from([-1, 0, 0, 1])) for _ in range(players)]
    hands, start = [], 0
    for size in sizes:
        hands.append(order[start : start + size])
        start += size
    assume(any(t.is_double for h in hands for t in h))
    state = FidoState(options, hands)
    full = Counter(double_set(top))
    short = {s for s in range(players) if sizes[s] < options.hand_size}
    while True:
        if data.draw(st.integers(0, 9)) == 0:
            seat = data.draw(st.integers(0, players - 1))
            before = len(state.hands[seat])
            opened = bool(state.layout.tiles)
            if seat in short:
                # F-24.3: the missing tile is drawn; from an empty stock, nothing.
                drawn = (rng.choice(state.stock),) if state.stock_size else ()
                state.play(Misdeal(seat, drawn=drawn))
                short.discard(seat)
                assert len(state.hands[seat]) == before + len(drawn)
            elif opened or sizes[seat] == options.hand_size:
                try:
                    state.play(Misdeal(seat))
                except IllegalMoveError as exc:
                    assert exc.rule == "F-24"
                else:
                    raise AssertionError("an empty misdeal was accepted")
        if state.is_over:
            break
        move = rng.choice(state.legal_moves())
        if isinstance(move, Draw):
            move = Draw(rng.choice(state.stock))
        state.play(move)
        where = Counter(t for h in state.hands for t in h)
        where.update(laid.tile for laid in state.layout.tiles)
        where.update(state.stock)
        assert where == full
    result = state.result
    assert result is not None
    assert result.final == tuple(s - h.pips for s, h in zip(state.scores, state.hands, strict=True))
