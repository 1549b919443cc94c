"""The worked examples of SPEC sections 2 to 5, and the rules they illustrate."""

from __future__ import annotations

import random

import pytest

from pips.core.errors import DealError, IllegalMoveError, OptionError
from pips.core.lots import LotDraw, LotRule, replay_lots
from pips.core.moves import At, Draw, Pass, Play
from pips.core.tiles import Tile
from pips.core.view import SPECTATOR
from pips.games import doubles, draw, family, partnership
from pips.games.common import HandContext, places_by_pips
from pips.games.doubles import DoublesOptions, DoublesState, DrawingRule, SetRule, Spinner
from pips.games.draw import DrawOptions, DrawState
from pips.games.family import FamilyOptions, FamilyState
from pips.games.match import Match
from pips.games.options import GameOptions
from pips.games.partnership import FalseKnock, PartnershipOptions, PartnershipState, Teams
from pips.games.registry import find_game
from tests.helpers import arranged_line_deal, ends, play, t, tiles

# -- section 2: the family game ---------------------------------------------------------


def test_fa01_stock_sizes_and_fa02_redeal_without_a_double() -> None:
    for players, stock in family.STOCK_SIZES.items():
        state = family.GAME.new_hand(FamilyOptions(players=players), random.Random(players))
        assert state.stock_size == stock and {len(h) for h in state.hands} == {5}
    seed = next(
        s for s in range(1000) if family.deal(FamilyOptions(players=2), random.Random(s)).voided
    )
    dealt = family.deal(FamilyOptions(players=2), random.Random(seed))
    for hands, _ in dealt.voided:
        assert not any(tile.is_double for hand in hands for tile in hand)
        with pytest.raises(DealError, match="FA-02"):
            FamilyState(FamilyOptions(players=2), hands, _)


def test_fa_e1_e2_e3_scoring() -> None:
    assert family.hand_points([12, 18, 11], None) == [0, 0, 8]  # FA-E1
    assert family.hand_points([5, 9, 13, 0], 3) == [0, 0, 0, 27]  # FA-E2
    assert family.hand_points([7, 7, 12], None) == [0, 0, 0]  # FA-E3
    # A player who went out wins even against a hand of 0-0 (FA-09's note).
    assert family.hand_points([0, 0, 4], 1) == [0, 4, 0]


def fa_e4_state() -> FamilyState:
    hands = {
        0: tiles("5-5 6-1 6-3 4-0 3-0"),
        1: tiles("5-2 6-0 4-3 1-0 3-1"),
        2: tiles("2-2 4-4 1-1 6-4 4-1"),
    }
    return arranged_line_deal(
        FamilyState, FamilyOptions(players=3), hands, stock_top=tiles("6-6 5-4")
    )


def test_fa_e4_draw_and_wait() -> None:
    """FA-06: the drawn tile cannot be laid on the same turn; from the next turn it must."""
    state = fa_e4_state()
    assert state.turn == 0  # FA-02: 5-5 is the highest double held
    play(state, "5-5", At.OPEN)
    assert state.turn == 1  # FA-03: the player to the left
    play(state, "5-2", At.END)
    play(state, "2-2", At.END)
    assert ends(state) == [2, 5]
    assert list(state.legal_moves()) == [Draw()]
    state.play(Draw())  # seat 0 draws 6-6
    assert state.legal_moves() == [Draw()] and state.turn == 1
    event = state.play(Draw())
    assert event.move == Draw(t("5-4"))
    assert state.turn == 2  # the turn ended: 5-4 waits for seat 1's next turn


def test_fa_e4_the_waiting_tile_must_be_laid_next_turn() -> None:
    state = fa_e4_state()
    for move in ("5-5", "5-2", "2-2"):
        play(state, move, At.OPEN if move == "5-5" else At.END)
    state.play(Draw())  # seat 0: 6-6
    state.play(Draw())  # seat 1: 5-4, waits
    assert state.turn == 2
    state.play(Draw())  # seat 2 has no 5 or 2 either
    assert state.legal_moves() == [Draw()]  # seat 0 still has no 5 or 2
    state.play(Draw())
    assert state.turn == 1
    moves = state.legal_moves()
    assert Play(t("5-4"), 5, At.END, state.layout.ends_with(5)[0]) in moves
    with pytest.raises(IllegalMoveError, match="FA-05: seat 1 can lay a tile and must play"):
        state.play(Draw())


def test_fa07_the_hand_goes_on_while_the_stock_holds_tiles() -> None:
    """FA-07: with tiles in the stock the hand is not blocked, even if nothing can fit."""
    rng = random.Random(5)
    for seed in range(200):
        state = family.GAME.new_hand(FamilyOptions(players=2), random.Random(seed))
        while not state.is_over:
            state.play(rng.choice(state.legal_moves()))
        if state.result is not None and state.result.ended == "blocked":
            assert state.stock_size == 0
            assert all(not state._has_play(s) for s in range(2))


def test_fa_e5_opener_and_match_end() -> None:
    options = FamilyOptions(players=3)
    state = arranged_line_deal(
        FamilyState,
        options,
        {1: tiles("4-4")},
        avoid={0: {5, 6}, 2: {5, 6}},
        stock_top=tiles("6-6 5-5"),
    )
    assert state.turn == 1 and state.legal_moves() == [Play(t("4-4"), 4, At.OPEN)]
    state.play(state.legal_moves()[0])
    assert state.turn == 2  # the player to the left of the opener


def test_fa04_doubles_branch_option_opens_two_ends() -> None:
    for branching, expected in ((False, [3, 4]), (True, [3, 4, 4])):
        options = FamilyOptions(players=2, doubles_branch=branching)
        state = arranged_line_deal(
            FamilyState,
            options,
            {0: tiles("6-6 4-4"), 1: tiles("6-4 6-3")},
            avoid={1: {4}},
        )
        play(state, "6-6", At.OPEN)
        play(state, "6-4", At.END)
        play(state, "4-4", At.END)
        play(state, "6-3", At.END)
        assert ends(state) == expected


# -- section 3: the draw game --------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "top", "size", "stock"),
    [(2, 6, 7, 14), (3, 6, 6, 10), (4, 6, 5, 8), (5, 6, 5, 3), (6, 9, 5, 25)],
)
def test_dr_e1_hand_sizes(players: int, top: int, size: int, stock: int) -> None:
    state = draw.GAME.new_hand(DrawOptions(players=players), random.Random(players))
    assert state.options.top == top
    assert {len(h) for h in state.hands} == {size} and state.stock_size == stock


def test_dr_six_players_need_double_nine() -> None:
    with pytest.raises(OptionError, match="double-9"):
        DrawOptions(players=6, set=6)
    assert DrawOptions(players=3, set=9).hand_size == 6


def dr_state() -> DrawState:
    hands = {0: tiles("6-3 6-2 6-1 6-0 3-2 3-1 3-0"), 1: tiles("5-4 5-2 4-2 4-1 5-1 2-0 1-0")}
    return arranged_line_deal(
        DrawState, DrawOptions(players=2), hands, stock_top=tiles("2-1 4-0 5-3")
    )


def test_dr_e2_opener_without_doubles() -> None:
    state = dr_state()
    assert state.turn == 0
    assert state.legal_moves() == [Play(t("6-3"), 6, At.OPEN)]  # 6-3 beats 5-4 on halves
    with pytest.raises(IllegalMoveError, match="DR-02"):
        state.play(Play(t("6-2"), 6, At.OPEN))


def test_dr_e3_draw_until_a_tile_fits_and_lay_it() -> None:
    state = dr_state()
    state.play(state.legal_moves()[0])
    assert ends(state) == [3, 6]
    assert state.legal_moves() == [Draw()]
    assert state.play(Draw()).move == Draw(t("2-1")) and state.turn == 1
    assert state.play(Draw()).move == Draw(t("4-0")) and state.turn == 1
    assert state.play(Draw()).move == Draw(t("5-3")) and state.turn == 1
    assert [m.tile for m in state.legal_moves() if isinstance(m, Play)] == [t("5-3")]
    with pytest.raises(IllegalMoveError, match="DR-04"):
        state.play(Draw())
    play(state, "3-5", At.END)
    assert ends(state) == [5, 6] and state.turn == 0
    assert {t("2-1"), t("4-0")} <= set(state.hands[1])


def test_dr_e4_block_and_tie() -> None:
    assert places_by_pips([11, 8], None) == (2, 1)
    assert places_by_pips([8, 8], None) == (1, 1)  # DR-08: joint winners


# -- section 4: Doubles --------------------------------------------------------------------


def test_db_e1_lots() -> None:
    draws = [
        LotDraw(0, t("4-2")),
        LotDraw(1, t("6-3")),
        LotDraw(2, t("5-4")),
        LotDraw(1, t("2-0")),
        LotDraw(2, t("3-1")),
    ]
    lots = replay_lots(3, LotRule.FIRST_PLAYER, draws)
    assert lots.seating == (2, 0, 1)  # the 3-1 player takes seat 0, the order is kept
    with pytest.raises(ValueError, match="before they are decided"):
        replay_lots(3, LotRule.FIRST_PLAYER, draws[:4])


def db_e2_state() -> DoublesState:
    hands = {
        0: tiles("5-5 6-3"),
        1: tiles("5-3 6-2 5-1"),
        2: tiles("4-3 3-3 2-1"),
    }
    # The example gives P2 3-6 and lets P0 lay 6-3 later: one tile cannot be in two
    # hands (C-01), so P2's unplayable 3-tile is 4-3 here (docs/rules/interpretations.md).
    return arranged_line_deal(
        DoublesState, DoublesOptions(players=3), hands, stock_top=tiles("6-6 4-4")
    )


def test_db_e2_set_spinner_and_the_doubles_rule() -> None:
    state = db_e2_state()
    assert state.turn == 0  # 5-5 is the highest double held; 6-6 is in the boneyard
    play(state, "5-5", At.OPEN)
    layout = state.layout
    assert [(p.kind, p.value) for p in layout.points] == [(At.SIDE, 5), (At.SIDE, 5)]
    assert all(isinstance(m, Play) and m.at is At.SIDE for m in state.legal_moves())
    play(state, "5-3", At.SIDE)
    assert sorted((p.kind.value, p.value) for p in layout.points) == [("end", 3), ("side", 5)]
    three = layout.ends_with(3)[0]
    with pytest.raises(IllegalMoveError, match="DB-06: 4-3 may not go on the 3"):
        state.play(Play(t("4-3"), 3, At.END, three))
    assert Play(t("3-3"), 3, At.END, three) in state.legal_moves()
    play(state, "3-3", At.END)
    play(state, "3-6", At.END)  # legal now that 3-3 is laid
    assert sorted(p.value for p in layout.points) == [5, 6]
    six = layout.ends_with(6)[0]
    with pytest.raises(IllegalMoveError, match="DB-06"):
        state.play(Play(t("6-2"), 6, At.END, six))
    play(state, "5-1", At.SIDE)
    assert sorted((p.kind.value, p.value) for p in layout.points) == [
        ("end", 1),
        ("end", 5),
        ("end", 5),
        ("end", 6),
    ]


def test_db05_spinner_none_is_a_plain_line() -> None:
    state = arranged_line_deal(
        DoublesState,
        DoublesOptions(players=3, spinner=Spinner.NONE),
        {0: tiles("5-5")},
        stock_top=tiles("6-6"),
    )
    play(state, "5-5", At.OPEN)
    assert [(p.kind, p.value) for p in state.layout.points] == [(At.END, 5), (At.END, 5)]


def test_db_e3_e4_scoring_and_match_end() -> None:
    assert doubles.hand_points([8, 15, 20], None) == [35, 0, 0]
    assert doubles.hand_points([8, 8, 20], None) == [0, 0, 0]
    assert doubles.hand_points([12, 0, 7], 1) == [0, 19, 0]


def test_db08_no_draw_passes_and_the_double_six_set_rule() -> None:
    options = DoublesOptions(players=2, draw_rule=DrawingRule.NO_DRAW, set_rule=SetRule.DOUBLE_SIX)
    state = doubles.GAME.new_hand(options, random.Random(1))
    assert state.legal_moves()[0].tile == Tile.of(6, 6)  # type: ignore[union-attr]
    while not state.is_over:
        moves = state.legal_moves()
        assert Draw() not in moves
        state.play(moves[0])


@pytest.mark.parametrize(
    ("kwargs", "rule"),
    [
        ({"players": 1}, "§4.1"),
        ({"players": 8}, "DB-02"),
        ({"players": 2, "hand_size": 6}, "DB-02"),
        ({"players": 7, "set": 9, "hand_size": 8}, "DB-02"),
        ({"players": 3, "set": 5, "set_rule": "double_six"}, "DB-04"),
        ({"players": 3, "target": 0}, "DB-13"),
        ({"players": 3, "spinner": "every_double"}, "DB-05"),
    ],
)
def test_doubles_options_out_of_range(kwargs: dict[str, object], rule: str) -> None:
    with pytest.raises(OptionError) as caught:
        DoublesOptions(**kwargs)  # type: ignore[arg-type]
    assert caught.value.rule == rule


# -- section 5: the partnership game ------------------------------------------------------


def test_pt_e1_first_hand_and_going_out() -> None:
    state = arranged_line_deal(
        PartnershipState,
        PartnershipOptions(teams=Teams.FIXED),
        {0: tiles("6-6"), 1: tiles("6-2")},
    )
    assert state.turn == 0 and state.legal_moves() == [Play(t("6-6"), 6, At.OPEN)]
    play(state, "6-6", At.OPEN)
    assert state.turn == 1  # counter-clockwise: the player to the right
    play(state, "6-2", At.END)
    assert ends(state) == [2, 6]
    assert partnership.hand_points([0, 11, 5, 9], 0) == [3, 0, 3, 0]
    assert [partnership.points_for(p) for p in (0, 9, 10, 19, 20)] == [1, 1, 2, 2, 3]


def test_pt_e2_blocked_hand() -> None:
    pips = [12, 12, 9, 14]  # seats 0/2: 21, seats 1/3: 26
    assert partnership.hand_points(pips, None) == [5, 0, 5, 0]
    losers = partnership.BlockPoints.LOSERS_ONLY
    assert partnership.hand_points(pips, None, losers) == [3, 0, 3, 0]
    assert partnership.hand_points([12, 12, 9, 9], None) == [0, 0, 0, 0]


def pt_e3_state(false_knock: str) -> PartnershipState:
    return arranged_line_deal(
        PartnershipState,
        PartnershipOptions(teams=Teams.FIXED, false_knock=FalseKnock(false_knock)),
        {0: tiles("5-2"), 1: tiles("5-1")},
        avoid={1: {5, 2}},
        context=HandContext(2, 3, (0, 0, 0, 0)),
    )


def test_pt_e3_false_knock_prevented_by_default() -> None:
    state = pt_e3_state("prevent")
    play(state, "5-2", At.OPEN)
    with pytest.raises(IllegalMoveError, match="PT-06: seat 1 can lay a tile and must play"):
        state.play(Pass())
    assert state.turn == 1 and not state.history[1:]


def test_pt_e3_false_knock_penalized() -> None:
    state = pt_e3_state("penalize")
    play(state, "5-2", At.OPEN)
    assert ends(state) == [2, 5]
    event = state.play(Pass())
    assert event.set_aside == (t("5-1"),) and state.turn == 2
    assert state.view(SPECTATOR).set_aside[1] == (t("5-1"),)  # face up, visible to all
    rng = random.Random(3)
    while not state.is_over:
        moves = state.legal_moves()
        if state.turn == 1:
            held = set(state.hands[1])
            plays = {m.tile for m in moves if isinstance(m, Play)}
            if held != {t("5-1")}:
                assert t("5-1") not in plays
            elif state.layout.ends_with(5) or state.layout.ends_with(1):
                assert plays == {t("5-1")}
            else:
                assert moves == [Pass()]
        state.play(rng.choice(moves))
    result = state.result
    assert result is not None
    if t("5-1") in state.hands[1]:
        assert result.pips[1] == sum(x.pips for x in state.hands[1])


def test_pt_e4_five_doubles_and_the_second_hand() -> None:
    options = PartnershipOptions(teams=Teams.FIXED)
    five = {3: tiles("6-6 4-4 3-3 1-1 0-0 5-2 6-1")}
    with pytest.raises(DealError, match="PT-04"):
        arranged_line_deal(PartnershipState, options, five, context=HandContext(2, 0))
    seed = next(s for s in range(2000) if partnership.deal(options, random.Random(s)).voided)
    dealt = partnership.deal(options, random.Random(seed))
    assert any(sum(x.is_double for x in h) >= 5 for h in dealt.voided[0][0])
    state = arranged_line_deal(
        PartnershipState, options, {1: tiles("5-1")}, context=HandContext(2, 0)
    )
    assert state.turn == 1  # right of hand 1's opener, still the opener after a redeal
    assert {m.tile for m in state.legal_moves()} == set(state.hands[1])  # type: ignore[union-attr]
    play(state, "5-1", At.OPEN)
    assert [p.value for p in state.layout.points] == [5, 1]


def finish_with_scores(spec_name: str, options: GameOptions, before: int, seed: int) -> Match:
    """Play one random hand from ``seed`` in a match whose winning side had ``before``
    points, so that the example's sums can be checked against a real hand."""
    spec = find_game(spec_name)
    probe = Match(spec, options, random.Random(seed))
    hand = probe.current
    rng = random.Random(seed)
    moves = []
    while not hand.is_over:
        moves.append(rng.choice(hand.legal_moves()))
        probe.play(moves[-1])
    assert hand.result is not None
    winners = [s for s, p in enumerate(hand.result.points) if p]
    match = Match(spec, options)
    match.scores = [before if s in winners else 0 for s in range(len(match.scores))]
    match.add_hand(*hand.dealt)
    for move in moves:
        match.play(move)
    return match


@pytest.mark.parametrize(("target", "short"), [(30, 0), (30, 1), (10, 0), (10, 1)])
def test_pt_e5_match_end_and_tournament_target(target: int, short: int) -> None:
    """PT-13: the first pair to reach the target at the end of a hand wins."""
    options = PartnershipOptions(teams=Teams.FIXED, target=target)
    probe = finish_with_scores("partnership", options, 0, 8)
    gained = max(probe.scores)
    assert gained > 0
    match = finish_with_scores("partnership", options, target - gained - short, 8)
    assert match.is_over is (short == 0)
    assert max(match.scores) == target - short


@pytest.mark.parametrize(("game", "target"), [("family", 100), ("doubles", 101), ("doubles", 150)])
def test_fa_e5_db_e4_match_ends_at_the_target(game: str, target: int) -> None:
    """FA-11, DB-13: 94 + 8 = 102 and 93 + 19 = 112 reach 100 (and 101), not 150."""
    options = find_game(game).options_from_json({"players": 3, "target": target})
    gained = max(finish_with_scores(game, options, 0, 11).scores)
    for before in (target - gained, target - gained - 1):
        match = finish_with_scores(game, options, before, 11)
        assert match.is_over is (before + gained >= target)


@pytest.mark.parametrize(
    ("draws", "seating"),
    [
        # Highest and lowest are partners; a tie in the middle needs no redraw.
        ([(0, "6-6"), (1, "3-2"), (2, "1-0"), (3, "4-1")], (0, 1, 2, 3)),
        # A tie for highest: only the tied draw again.
        ([(0, "6-4"), (1, "5-5"), (2, "0-0"), (3, "2-1"), (0, "1-1"), (1, "3-0")], (1, 0, 2, 3)),
        # A tie for lowest: only the tied draw again.
        ([(0, "6-6"), (1, "5-5"), (2, "2-0"), (3, "1-1"), (2, "4-4"), (3, "3-1")], (0, 1, 3, 2)),
    ],
)
def test_pt01_pairs_by_lot(draws: list[tuple[int, str]], seating: tuple[int, ...]) -> None:
    lots = replay_lots(4, LotRule.PAIRS, [LotDraw(e, t(tile)) for e, tile in draws])
    assert lots.seating == seating
    hi, lo = lots.seating[0], lots.seating[2]
    assert (hi, lo) == (
        max(range(4), key=lambda e: [x.tile.pips for x in lots.draws if x.entrant == e]),
        min(range(4), key=lambda e: [x.tile.pips for x in lots.draws if x.entrant == e]),
    )
