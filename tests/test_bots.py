"""Bots: the protocol, the registry, what they may know, and that they play to rule."""

from __future__ import annotations

import dataclasses
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pips.bots.base import GreedyBot, RandomBot, bot_names, make_bot
from pips.bots.expert import ExpertBot
from pips.bots.external import BotError, ExternalBot
from pips.bots.ismcts import IsmctsBot
from pips.bots.knowledge import Knowledge
from pips.bots.search import Budget, SearchBot
from pips.core.errors import OptionError
from pips.core.legal import representatives
from pips.core.moves import Play
from pips.core.view import View
from pips.games.registry import GameState, find_game
from pips.sim import play_game

BOTS = Path(__file__).parent / "bots"
GAMES: list[tuple[str, dict[str, Any]]] = [
    ("fido", {"players": 5, "set": 12}),
    ("fido", {"players": 3, "set": 6, "mother_theresa": True}),
    ("family", {"players": 3, "target": 40}),
    ("draw", {"players": 4}),
    ("doubles", {"players": 4, "target": 40}),
    ("doubles", {"players": 3, "draw_rule": "no_draw", "spinner": "none", "target": 30}),
    ("partnership", {"target": 4}),
]
IDS = [game + "-" + "-".join(f"{v}" for v in o.values()) for game, o in GAMES]


def test_registry_names_and_settings() -> None:
    assert bot_names() == ["random", "greedy", "expert", "search", "external", "ismcts"]
    assert isinstance(make_bot("Greedy"), GreedyBot)
    assert make_bot("search:hard").name == "search:hard"
    assert Budget.parse("0.25s").seconds == 0.25
    assert Budget.parse("0.25s").playouts is None
    assert Budget.parse("750").playouts == 750
    assert Budget.parse("750").solve_deals == Budget.parse("normal").solve_deals > 0
    assert isinstance(make_bot("greedy:newer"), GreedyBot)
    assert make_bot("greedy:newer").name == "greedy:newer"
    assert make_bot("ismcts:hard").name == "ismcts:hard"
    assert IsmctsBot("500").budget.playouts == 500
    bad_names = ("nobody", "greedy:3", "search:fast", "search:0", "search:-1s", "external")
    for bad in (*bad_names, "ismcts:0", "ismcts:fast"):
        with pytest.raises(OptionError, match="bots"):
            make_bot(bad)


@pytest.mark.parametrize(("game", "options"), GAMES, ids=IDS)
@pytest.mark.parametrize("bot", ["expert", "search:easy", "ismcts:40"])
def test_bot_plays_whole_matches_legally(game: str, options: dict[str, Any], bot: str) -> None:
    """Every choice is one of the legal moves (the engine would refuse anything else),
    and the same seed gives the same match: decisions replay."""
    spec = find_game(game)
    resolved = spec.options_from_json(options)
    players = resolved.players
    entrants = [bot, "greedy", "random", "greedy", "random"][:players]

    def finals(seed: int) -> list[Any]:
        match = play_game(spec, resolved, [make_bot(b) for b in entrants], seed)
        return [h.result.final for h in match.hand_states if h.result is not None]

    first = finals(3)
    assert first == finals(3)
    assert len(first) >= 1


def views_after(game: str, options: dict[str, Any], seed: int) -> list[tuple[GameState, View]]:
    """Random positions of a random hand, each with the view of the seat to play."""
    spec = find_game(game)
    state = spec.new_hand(spec.options_from_json(options), random.Random(seed))
    rng = random.Random(seed)
    out = []
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None
        out.append((state.clone(), state.view(seat)))
        state.play(rng.choice(list(state.legal_moves())))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(GAMES), seed=st.integers(0, 2**30))
def test_knowledge_is_sound(case: tuple[str, dict[str, Any]], seed: int) -> None:
    """What a seat infers is true of the real deal: the unseen tiles are exactly the
    others' hands and the stock; no seat holds more tiles it was shown to lack than it
    drew since; and every sampled deal fits the public facts."""
    game, options = case
    rng = random.Random(seed)
    for state, view in views_after(game, options, seed)[::3]:
        knowledge = Knowledge.of(view)
        me = view.seat
        hidden = {t for s, h in enumerate(state.hands) if s != me for t in h}
        face_up = set().union(*knowledge.face_up)
        assert knowledge.unseen == (hidden | set(state.stock)) - face_up
        for seat, hand in enumerate(state.hands):
            if seat != me:
                assert len(set(hand) & knowledge.lacks[seat]) <= knowledge.free[seat]
        hands, stock = knowledge.sample(rng, view.stock_size)
        assert hands[me] == list(view.hand)
        assert [len(h) for h in hands] == list(view.hand_sizes)
        assert len(stock) == view.stock_size
        dealt = [t for h in hands for t in h] + stock
        assert len(dealt) == len(set(dealt))
        assert set(dealt) == set(view.hand) | knowledge.unseen | face_up
        for seat, sampled in enumerate(hands):
            if seat != me:
                assert len(set(sampled) & knowledge.lacks[seat]) <= knowledge.free[seat]


def test_knocks_are_learned_in_the_partnership_game() -> None:
    """PT-07: a seat that knocks lacks every tile that would have fitted."""
    learned = 0
    for seed in range(20):
        for state, view in views_after("partnership", {}, seed):
            knowledge = Knowledge.of(view)
            for seat, lacks in enumerate(knowledge.lacks):
                if seat != view.seat:
                    assert not lacks & set(state.hands[seat])
                    learned += len(lacks)
    assert learned > 100


@pytest.mark.parametrize(
    "bot", [RandomBot(), GreedyBot(), ExpertBot(), SearchBot("easy"), IsmctsBot("200")]
)
def test_bots_decide_from_the_view_alone(bot: Any) -> None:
    """C-06: two deals that look the same from seat 0 (two other seats' tiles swapped)
    get the same decision from the same random state."""
    spec = find_game("fido")
    options = spec.options_from_json({"players": 4, "set": 9})
    compared = 0
    for seed in range(30):
        dealt = spec.deal(options, random.Random(seed))
        a = spec.from_deal(options, dealt.hands, dealt.stock)
        rng = random.Random(seed)
        played = []
        while a.current_seat != 0 and not a.is_over:
            move = rng.choice(list(a.legal_moves()))
            a.play(move)
            played.append(move)
        laid = {m.tile for m in played if isinstance(m, Play)}
        hands = [list(h) for h in dealt.hands]
        two = [t for t in hands[2] if t not in laid]
        three = [t for t in hands[3] if t not in laid]
        if a.is_over or not two or not three:
            continue
        i, j = hands[2].index(two[0]), hands[3].index(three[0])
        hands[2][i], hands[3][j] = three[0], two[0]
        try:
            b = spec.from_deal(options, hands, dealt.stock)
            for move in played:
                b.play(move)
        except ValueError:
            continue  # the swap changed what some seat could do: not the same view
        assert a.view(0) == b.view(0)
        choice_a = bot.choose(a.view(0), a.legal_moves(), random.Random(1))
        choice_b = bot.choose(b.view(0), b.legal_moves(), random.Random(1))
        assert choice_a == choice_b
        compared += 1
    assert compared >= 5


@pytest.mark.slow
def test_expert_scores_when_it_can_and_says_why() -> None:
    """F-15: with a scoring play available the expert usually takes it, and its advice
    names its reasons."""
    spec = find_game("fido")
    options = spec.options_from_json({"players": 4, "set": 12})
    scored = chances = 0
    for seed in range(30):
        state = spec.new_hand(options, random.Random(seed))
        rng = random.Random(seed)
        while not state.is_over:
            seat = state.current_seat
            assert seat is not None
            view, moves = state.view(seat), state.legal_moves()
            best = max(spec.immediate_points(view, m) for m in moves)
            advice = ExpertBot().advise(view, moves)
            if best >= 2:
                chances += 1
                scored += spec.immediate_points(view, advice.move) == best
                assert advice.reasons
            state.play(advice.move if seat == 0 else rng.choice(list(moves)))
    assert chances > 20 and scored / chances > 0.8


@pytest.mark.slow
@pytest.mark.parametrize("level", ["search:easy", "ismcts:300"])
def test_search_beats_random_in_duplicate_partnership_hands(level: str) -> None:
    """A small fixed sample, both pairings of every deal: the search outscores random."""
    spec = find_game("partnership")
    options = spec.options_from_json({"teams": "fixed", "target": 1})
    margin = 0
    for seed in range(12):
        for search_pair in (0, 1):
            bots = [make_bot(level) if s % 2 == search_pair else RandomBot() for s in range(4)]
            match = play_game(spec, options, bots, seed)
            result = match.hand_states[0].result
            assert result is not None
            final = result.final
            margin += final[search_pair] - final[1 - search_pair]
    assert margin > 0


# -- external bots --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [f"{sys.executable} {BOTS / 'heaviest.py'}", f"sh {BOTS / 'first_move.sh'}"],
    ids=["python", "shell"],
)
def test_external_bots_play_whole_games(command: str) -> None:
    spec = find_game("fido")
    options = spec.options_from_json({"players": 3, "set": 9})
    external = ExternalBot(command)
    try:
        match = play_game(spec, options, [external, GreedyBot(), external], 4)
    finally:
        external.close()
    assert match.is_over


def test_external_bot_heaviest_plays_the_heaviest_tile() -> None:
    spec = find_game("partnership")
    state = spec.new_hand(spec.options_from_json({}), random.Random(2))
    bot = ExternalBot(f"{sys.executable} {BOTS / 'heaviest.py'}")
    try:
        state.play(state.legal_moves()[0])
        seat = state.current_seat
        assert seat is not None
        moves = state.legal_moves()
        move = bot.choose(state.view(seat), moves, random.Random(0))
    finally:
        bot.close()
    plays = [m for m in moves if isinstance(m, Play)]
    if plays:
        assert isinstance(move, Play)
        assert move.tile.pips == max(m.tile.pips for m in plays)


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("garbage", "not JSON"),
        ("index", "there are"),
        ("illegal", "not legal"),
        ("shape", "must answer"),
        ("exit", "exited"),
        ("slow", "no answer in"),
    ],
)
def test_external_bot_errors_are_clear_and_change_nothing(how: str, message: str) -> None:
    spec = find_game("family")
    state = spec.new_hand(spec.options_from_json({"players": 3}), random.Random(1))
    seat = state.current_seat
    assert seat is not None
    before = state.view(seat)
    bot = ExternalBot(f"{sys.executable} {BOTS / 'broken.py'} {how}", timeout=1.0)
    try:
        with pytest.raises(BotError, match=message):
            bot.choose(before, state.legal_moves(), random.Random(0))
    finally:
        bot.close()
    assert state.view(seat) == before


def test_external_bot_that_cannot_start() -> None:
    with pytest.raises(BotError, match="could not start"):
        ExternalBot("/nonexistent/bot").choose(
            find_game("partnership")
            .new_hand(find_game("partnership").options_from_json({}), random.Random(0))
            .view(0),
            [],
            random.Random(0),
        )


def _fido_decision(seed: int) -> tuple[View, list[Any]]:
    """A FIDO double-9 decision with at least four different moves, reached by greedy play."""
    spec = find_game("fido")
    options = spec.options_from_json({"players": 4, "set": 9})
    rng = random.Random(seed)
    state = spec.new_hand(options, rng)
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None
        view = state.view(seat)
        moves = list(state.legal_moves())
        if len(representatives(moves)) >= 4 and view.layout.tiles:
            return view, moves
        state.play(GreedyBot().choose(view, moves, rng))
    raise AssertionError("no decision with four moves")


@pytest.mark.parametrize("seed", range(4))
def test_successive_halving_spends_the_budget_on_the_best_and_decides_among_them(
    seed: int,
) -> None:
    """``Budget.halving``: the same playouts in all, the worse half dropped each round;
    the move chosen is the best of the last kept, and one round is the flat search."""
    view, moves = _fido_decision(seed)
    candidates = representatives(moves)
    flat, one_round, halving = SearchBot("2000"), SearchBot("2000"), SearchBot("2000")
    one_round.budget = dataclasses.replace(flat.budget, halving=1)
    halving.budget = dataclasses.replace(flat.budget, halving=4)
    means = flat.expected(view, candidates, random.Random(seed))
    assert flat.kept is not None and len(flat.kept) == len(candidates)
    assert np.array_equal(one_round.expected(view, candidates, random.Random(seed)), means)
    halving.choose(view, moves, random.Random(seed))
    kept = halving.kept
    assert kept is not None and 2 <= len(kept) <= (len(candidates) + 1) // 2
    assert 2000 <= halving.playouts_done < 2000 + 2 * len(candidates)
    values = halving.expected(view, candidates, random.Random(seed))
    chosen = halving.choose(view, moves, random.Random(seed))
    assert halving.kept is not None and np.array_equal(halving.kept, kept)
    best_kept = max(kept, key=lambda i: values[i])
    assert chosen == candidates[best_kept]
    # Every candidate still has a value (the analysis shows them all).
    assert np.isfinite(values).all()
