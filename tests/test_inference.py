"""Weighing sampled deals by the others' plays (issue 19): Knowledge.likelihood."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from benchmarks.hidden_tiles import Told
from hypothesis import given, settings
from hypothesis import strategies as st

from pips.bots.base import GreedyBot
from pips.bots.knowledge import (
    HEAVINESS,
    LINE_MODEL,
    POINTEDNESS,
    UNIFORM,
    Choices,
    Knowledge,
    PlayModel,
    SeatModels,
)
from pips.bots.search import SearchBot
from pips.core.legal import representatives
from pips.core.moves import Draw, Play
from pips.core.tiles import Tile
from pips.core.view import View
from pips.games.registry import GameState, find_game

SIZE = 28  # double-6


def ordinal(text: str) -> int:
    return Tile.parse(text).ordinal


def knowledge_with(choices: Choices) -> Knowledge:
    return Knowledge(0, [], set(), [7, 7, 7, 7], [set()] * 4, choices=choices)


def one_play(
    seat: int, played: str, fitting: list[str], later: list[str], laid: int = 3
) -> Choices:
    rows = Choices(
        np.array([seat]),
        np.array([ordinal(played)]),
        np.zeros((1, SIZE), np.int8),
        np.zeros((1, SIZE), np.int8),
        np.zeros((1, SIZE), np.float64),
        np.array([laid]),
    )
    rows.fitting[0, [ordinal(t) for t in fitting]] = 1
    rows.later[0, [ordinal(t) for t in [played, *later]]] = 1
    return rows


def hands_with(seat: int, tiles: list[str]) -> np.ndarray:
    hands = np.zeros((4, SIZE), np.int8)
    hands[seat, [ordinal(t) for t in tiles]] = 1
    return hands


def test_a_light_play_makes_a_heavier_fitting_tile_in_that_hand_unlikely() -> None:
    # Seat 1 laid 1-0 on an end of 1 where 6-1 would have fitted too.
    known = knowledge_with(one_play(1, "1-0", ["1-0", "6-1", "1-1"], []))
    without = known.likelihood(hands_with(1, ["5-5", "3-2"]))
    holding = known.likelihood(hands_with(1, ["6-1", "3-2"]))
    assert without == pytest.approx(1.0)  # it held nothing else that fitted
    odds = [math.exp(HEAVINESS * pips) for pips in (1, 7)]
    assert holding == pytest.approx(odds[0] / sum(odds))
    assert holding < without


def test_a_tile_laid_later_was_in_the_hand_then() -> None:
    # 6-1 is gone from seat 1's hand now, but seat 1 laid it after the 1-0: it held it.
    known = knowledge_with(one_play(1, "1-0", ["1-0", "6-1"], ["6-1"]))
    assert known.likelihood(hands_with(1, ["3-2"])) < 1.0
    assert known.likelihood(hands_with(1, ["3-2"]), UNIFORM) == 1.0


def test_a_model_per_seat_and_moment_weighs_each_play_by_its_own() -> None:
    """SeatModels: a seat known to lay its heaviest tile early, and to choose otherwise
    later (the dominoes package's player in benchmarks/strength.py)."""
    sharp = PlayModel(heaviness=3.0)
    models = SeatModels(
        (LINE_MODEL, sharp, LINE_MODEL, LINE_MODEL),
        (LINE_MODEL, UNIFORM, LINE_MODEL, LINE_MODEL),
        (0, 6, 0, 0),
    )
    holding = hands_with(1, ["6-1", "3-2"])
    early = knowledge_with(one_play(1, "1-0", ["1-0", "6-1"], [], laid=2))
    late = knowledge_with(one_play(1, "1-0", ["1-0", "6-1"], [], laid=6))
    odds = [math.exp(3.0 * pips) for pips in (1, 7)]
    assert early.likelihood(holding, models) == pytest.approx(odds[0] / sum(odds))
    assert late.likelihood(holding, models) == pytest.approx(0.5)  # uniform: 1 of 2
    # The same model for every seat and moment is the plain model.
    same = SeatModels((LINE_MODEL,) * 4, (LINE_MODEL,) * 4, (0,) * 4)
    assert early.likelihood(holding, same) == pytest.approx(early.likelihood(holding))
    assert not SeatModels((UNIFORM,) * 4, (UNIFORM,) * 4, (0,) * 4).weighs


def test_no_plays_weigh_every_deal_alike() -> None:
    assert Knowledge(0, [], set(), [7] * 4, [set()] * 4).likelihood(hands_with(1, [])) == 1.0


@given(seed=st.integers(0, 2**31), moves=st.integers(2, 20))
@settings(max_examples=25, deadline=None)
def test_the_true_deal_is_possible_and_rows_follow_the_history(seed: int, moves: int) -> None:
    """From a real partnership hand: the true hands have a likelihood in (0, 1], every
    row's tile fitted when it was laid, and a seat's rows stop at its draws (none here)."""
    spec = find_game("partnership")
    options = spec.options_from_json({**spec.defaults, "teams": "fixed", "target": 1})
    rng = random.Random(seed)
    state = spec.new_hand(options, rng)
    bot = GreedyBot()
    for _ in range(moves):
        seat = state.current_seat
        if seat is None or state.is_over:
            break
        state.play(bot.choose(state.view(seat), list(state.legal_moves()), rng))
    if state.is_over or state.current_seat is None:
        return
    view = state.view(state.current_seat)
    known = Knowledge.of(view, weigh=True)
    assert Knowledge.of(view).choices is None
    hands = np.zeros((4, SIZE), np.int8)
    for seat, hand in enumerate(state.hands):
        hands[seat, [t.ordinal for t in hand]] = 1
    likely = known.likelihood(hands)
    assert 0.0 < likely <= 1.0
    if known.choices is not None:
        rows = known.choices
        assert all(rows.fitting[i, rows.played[i]] == 1 for i in range(len(rows.played)))
        assert all(rows.later[i, rows.played[i]] == 1 for i in range(len(rows.played)))
        assert view.seat not in rows.seats.tolist()


def test_a_pointed_model_makes_a_held_scoring_tile_unlikely_after_a_dull_play() -> None:
    """PlayModel(pointedness): seat 1 laid 1-0 for nothing where 6-1 would have scored 4
    (F-15); a deal giving it 6-1 then is exp(4 p) times less likely than one without."""
    rows = one_play(1, "1-0", ["1-0", "6-1"], [])
    rows.points[0, ordinal("6-1")] = 4
    known = knowledge_with(rows)
    model = PlayModel(pointedness=POINTEDNESS)
    assert known.likelihood(hands_with(1, ["3-2"]), model) == pytest.approx(1.0)
    holding = known.likelihood(hands_with(1, ["6-1"]), model)
    assert holding == pytest.approx(1 / (1 + math.exp(4 * POINTEDNESS)))
    # The heaviness model alone does not look at points.
    assert known.likelihood(hands_with(1, ["6-1"])) == pytest.approx(
        math.exp(HEAVINESS) / (math.exp(HEAVINESS) + math.exp(7 * HEAVINESS))
    )


@given(seed=st.integers(0, 2**31), moves=st.integers(3, 40))
@settings(max_examples=25, deadline=None)
def test_fido_rows_hold_what_each_fitting_tile_would_have_scored(seed: int, moves: int) -> None:
    """In FIDO each row keeps, per fitting tile, the most it would have scored then
    (F-15), nothing for a tile that did not fit, and for the tile laid at least what
    the play scored; a seat's rows are its plays since its last draw, in order."""
    spec = find_game("fido")
    options = spec.options_from_json({"players": 4, "set": 9})
    rng = random.Random(seed)
    state = spec.new_hand(options, rng)
    bot = GreedyBot()
    since_draw: dict[int, list[tuple[int, int]]] = {seat: [] for seat in range(4)}
    for _ in range(moves):
        seat = state.current_seat
        if seat is None or state.is_over:
            return
        view = state.view(seat)
        move = bot.choose(view, list(state.legal_moves()), rng)
        if isinstance(move, Play) and view.layout.tiles:
            since_draw[seat].append((move.tile.ordinal, spec.immediate_points(view, move)))
        elif isinstance(move, Draw):
            since_draw[seat] = []
        state.play(move)
    seat = state.current_seat
    if seat is None or state.is_over:
        return
    known = Knowledge.of(state.view(seat), weigh=True)
    expected = {s: plays for s, plays in since_draw.items() if s != seat}
    if known.choices is None:
        assert not any(expected.values())
        return
    rows = known.choices
    assert np.all(rows.points[rows.fitting == 0] == 0)
    for other, plays in expected.items():
        mine = [i for i in range(len(rows.seats)) if rows.seats[i] == other]
        assert [int(rows.played[i]) for i in mine] == [tile for tile, _ in plays]
        for i, (_tile, points) in zip(mine, plays, strict=True):
            assert rows.points[i, rows.played[i]] >= points


class _Recorded(Told):
    """benchmarks/hidden_tiles.py's search, keeping every deal it samples."""

    def __init__(self, sight: str, state: GameState) -> None:
        super().__init__(sight, state)
        self.sampled: list[list[list[Tile]]] = []

    def knowledge(self, view: View) -> Knowledge:
        known = super().knowledge(view)
        sample = known.sample

        def recorded(rng: random.Random, stock_size: int) -> tuple[list[list[Tile]], list[Tile]]:
            hands, stock = sample(rng, stock_size)
            self.sampled.append(hands)
            return hands, stock

        known.sample = recorded  # type: ignore[method-assign]
        return known


def test_a_search_samples_its_deals_from_the_knowledge_it_is_given() -> None:
    """The search draws every deal from :meth:`SearchBot.knowledge`, which reads the view
    alone unless a subclass says more (benchmarks/hidden_tiles.py): told its partner's
    hand, every deal it samples gives the partner its true hand and the opponents varied
    ones; told every hand (solving or searching as ``hard``), every deal is the true
    one; left to its view, its deals differ from the truth."""
    spec = find_game("partnership")
    options = spec.options_from_json({**spec.defaults, "teams": "fixed", "target": 1})
    state = spec.new_hand(options, random.Random(5))
    bot = GreedyBot()
    for _ in range(3):
        seat = state.current_seat
        assert seat is not None
        state.play(bot.choose(state.view(seat), list(state.legal_moves()), random.Random(0)))
    seat = state.current_seat
    assert seat is not None
    view = state.view(seat)
    candidates = representatives(state.legal_moves())
    truth = [sorted(hand) for hand in state.hands]
    partner, opponent = (seat + 2) % 4, (seat + 1) % 4
    told = _Recorded("partner", state)
    told.expected(view, candidates, random.Random(1))
    assert told.sampled and all(sorted(h[partner]) == truth[partner] for h in told.sampled)
    assert any(sorted(h[opponent]) != truth[opponent] for h in told.sampled)
    for sight in ("all", "all-hard"):
        everything = _Recorded(sight, state)
        everything.expected(view, candidates, random.Random(1))
        assert everything.sampled
        assert all([sorted(h) for h in hands] == truth for hands in everything.sampled)
    known = SearchBot("normal").knowledge(view)
    assert known.unseen == Knowledge.of(view).unseen
    deals = [known.sample(random.Random(i), 0)[0] for i in range(20)]
    assert any([sorted(h) for h in hands] != truth for hands in deals)
