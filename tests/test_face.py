"""The game's face: its traits agree with its engine, its notation reads what it writes,
and the one seating driver tells every bot the same things wherever it sits."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from pips.bots.base import GreedyBot
from pips.core.errors import OptionError
from pips.core.moves import Move, Play
from pips.core.notation import NotationError, move_text, read_move
from pips.core.tiles import double_set
from pips.core.view import MoveEvent, View
from pips.games.registry import all_games, find_game
from pips.games.traits import fits
from pips.server.accounts.identity import Identity
from pips.server.round import TableError
from pips.sim import play_game
from pips.sim.seating import decision_rng
from tests.server_helpers import new_round

CASES: list[tuple[str, dict[str, Any]]] = [
    ("fido", {"players": 4, "set": 6}),
    ("fido", {"players": 5, "set": 12, "doubles_inline": "optional"}),
    ("fido", {"players": 3, "set": 9, "mother_theresa": True}),
    ("family", {"players": 3, "doubles_branch": True}),
    ("draw", {"players": 4}),
    ("doubles", {"players": 3}),
    ("doubles", {"players": 4, "spinner": "none", "set_rule": "double_six"}),
    ("partnership", {}),
]


def positions(game: str, options: dict[str, Any], seed: int) -> list[Any]:
    """Every position of a random hand (clones), the hand played by random moves."""
    spec = find_game(game)
    state = spec.new_hand(spec.options_from_json(options), random.Random(seed))
    rng = random.Random(seed)
    out = []
    while not state.is_over:
        out.append(state.clone())
        state.play(rng.choice(list(state.legal_moves())))
    return out


@settings(max_examples=30, deadline=None)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**30))
def test_what_fits_is_what_the_engine_lists(case: tuple[str, dict[str, Any]], seed: int) -> None:
    """The traits' rule of what fits where (F-07, F-13, DB-06) names exactly the tiles
    the engine lists at each point, for the seat to move."""
    game, options = case
    for state in positions(game, options, seed)[1:]:
        seat = state.current_seat
        listed = {(m.end, m.tile) for m in state.legal_moves() if isinstance(m, Play)}
        if state.options.to_json().get("mother_theresa"):
            # F-22 narrows the naked sides further; what fits is the wider set.
            assert listed <= {
                (p.id, t)
                for p in state.layout.iter_points()
                for t in state.hands[seat]
                if fits(state.traits, state.layout, p, t)
            }
            continue
        fitting = {
            (p.id, t)
            for p in state.layout.iter_points()
            for t in state.hands[seat]
            if fits(state.traits, state.layout, p, t)
        }
        assert listed == fitting


@settings(max_examples=30, deadline=None)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**30))
def test_notation_reads_back_every_move_it_writes(
    case: tuple[str, dict[str, Any]], seed: int
) -> None:
    """A move written relative to its position names a move equivalent for the rules
    (same tile, same half touching, same kind of place, same way across)."""
    game, options = case
    for state in positions(game, options, seed):
        legal = state.legal_moves()
        for move in legal:
            read = read_move(move_text(move, legal), legal)
            if isinstance(move, Play):
                assert isinstance(read, Play)
                assert (read.tile, read.touching, read.at, read.inline) == (
                    move.tile,
                    move.touching,
                    move.at,
                    move.inline,
                )
            else:
                assert read == move


def test_notation_refuses_what_names_no_move_or_several() -> None:
    state = positions("fido", {"players": 4, "set": 6}, 3)[0]
    legal = state.legal_moves()
    listed = {m.tile for m in legal if isinstance(m, Play)}
    unplayable = next(t for t in double_set(6) if t not in listed)
    with pytest.raises(NotationError, match="cannot be played now"):
        read_move(str(unplayable), legal)
    with pytest.raises(NotationError, match="there is no move"):
        read_move(str(len(legal) + 1), legal)
    with pytest.raises(NotationError, match="not a tile"):
        read_move("hello", legal)


class Recorder:
    """A bot that keeps everything it is told, and plays greedily."""

    name = "recorder"

    def __init__(self) -> None:
        self.told: list[tuple[str, Any]] = []

    def reset(self, seat: int) -> None:
        self.told.append(("reset", seat))

    def observe(self, event: MoveEvent) -> None:
        self.told.append(("observe", event))

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move:
        self.told.append(("choose", (view.hand, len(view.history), len(moves))))
        return GreedyBot().choose(view, moves, rng)


@pytest.mark.parametrize("game", [spec.name for spec in all_games()])
def test_a_bot_is_told_the_same_in_a_simulation_and_at_a_server_table(game: str) -> None:
    """The seating driver is the one loop: ``pips simulate`` and a server table's round
    reset, show and ask each bot the same things, and draw the same random streams."""
    spec = find_game(game)
    options = spec.options_from_json(dict(spec.defaults) or {"players": 4})
    seed = 11
    simulated = [Recorder() for _ in range(options.players)]
    match = play_game(spec, options, simulated, seed)
    # The same game at a server table, every seat a recorder, played by round commands.
    game_round = new_round(
        spec.name,
        options.to_json(),
        [{"kind": "bot", "bot": "greedy"} for _ in range(options.players)],
        Identity(),
        seed,
    )
    game_round.start()
    assert game_round.seating is not None
    served = [Recorder() for _ in range(options.players)]
    for seat, bot in enumerate(served):
        game_round.seating.bots[seat] = bot
        bot.reset(seat)  # seated before the first move, as the driver does at start
    while game_round.status == "playing":
        move = game_round.bot_decision()
        assert move is not None
        game_round.apply(move)
    assert game_round.match is not None and game_round.match.scores == match.scores
    for seat, entrant in enumerate(match.seating):
        assert served[seat].told == simulated[entrant].told


def test_decision_streams_are_keyed_by_seed_and_position() -> None:
    assert decision_rng(5, 1, 3).random() == decision_rng(5, 1, 3).random()
    assert decision_rng(5, 1, 3).random() != decision_rng(5, 2, 3).random()
    assert decision_rng("5:0", 1, 3).random() != decision_rng("5:1", 1, 3).random()


def test_a_round_refuses_bad_commands_and_changes_nothing() -> None:
    """The round alone (no server, no database): a move out of turn, from a stale list,
    or out of range is refused and the round is as it was."""
    with pytest.raises(TableError, match="seats"):
        new_round("fido", {"players": 4}, [{"kind": "me"}], Identity(name="Ann"), 1)
    with pytest.raises(TableError, match="one seat"):
        new_round("partnership", {}, [{"kind": "me"}] * 4, Identity(name="Ann"), 1)
    with pytest.raises(ValidationError, match="union_tag_invalid"):
        new_round("partnership", {}, [{"kind": "robot"}] * 4, Identity(name="Ann"), 1)
    ann, bo = Identity(guest="a", name="Ann"), Identity(guest="b", name="Bo")
    seats = [{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}, {"kind": "bot"}]
    game_round = new_round("partnership", {"teams": "fixed"}, seats, ann, 7)
    with pytest.raises(TableError, match="not being played"):
        game_round.apply_choice(0, 0, 0)
    assert not game_round.ready
    game_round.join(bo)
    with pytest.raises(TableError, match="already have a seat"):
        game_round.join(bo)
    assert game_round.ready
    game_round.start()
    match = game_round.match
    assert match is not None
    seat = match.current_seat
    assert seat is not None
    other = (seat + 1) % 4
    before = (game_round.moves_made, len(match.current.history))
    for who, choice, made, why in [
        (other, 0, 0, "not your turn"),
        (seat, 0, 5, "out of date"),
        (seat, 99, 0, "move must be"),
        (-1, 0, 0, "spectators"),
    ]:
        with pytest.raises(TableError, match=why):
            game_round.apply_choice(who, choice, made)
        assert (game_round.moves_made, len(match.current.history)) == before
    if not game_round.is_bot(seat):
        played = game_round.apply_choice(seat, 0, 0)
        assert played.number == 0 and game_round.moves_made == 1


def test_every_game_declares_its_face() -> None:
    """What the edges ask is declared by every game, and consistent with its options."""
    for spec in all_games():
        options = spec.options_from_json(dict(spec.defaults) or {"players": spec.player_counts[0]})
        traits = spec.traits(options)
        assert traits.players == options.players and traits.top == options.set
        again = spec.options_from_json(options.to_json())  # as a record keeps them
        assert again == options and spec.traits(again) == traits
        assert spec.new_layout(options).tiles == []
        assert options.set in spec.sets
        assert all(len(team) == (2 if spec.pairs else 1) for team in spec.teams(4))
        assert spec.explain_hand.__doc__


def test_what_a_game_is_no_option_changes() -> None:
    """Pairs and scoring plays are read from the traits of a game's example options: every
    option's every offered value leaves them as they are (a form's choices, and a
    number's both bounds), so the edges may ask the game without asking its options."""
    for spec in all_games():
        base = spec.example.to_json()
        tried = 0
        for form in spec.form():
            values = form.choices or (form.minimum, form.maximum)
            for value in values:
                try:
                    options = spec.options_from_json({**base, form.name: value})
                except OptionError:
                    continue  # a value that needs another option to change with it
                for first in (True, False):
                    traits = spec.traits(options, first)
                    assert traits.pairs == spec.pairs, (spec.name, form.name, value)
                    assert traits.scores_during_hand == spec.scores_during_hand
                tried += 1
        assert tried >= len(spec.form()), spec.name


def test_every_whole_number_option_is_bounded_both_ways() -> None:
    """Issue 32: no option of any game is unbounded (a target of 10^12 once made a table
    play for ever); a value past either bound is refused with the bound."""
    from pips.core.errors import OptionError

    for spec in all_games():
        base = dict(spec.defaults) or {"players": spec.player_counts[0]}
        for info in spec.options.describe():
            if info.kind is not int:
                continue
            assert info.minimum is not None and info.maximum is not None, (spec.name, info.name)
            assert info.minimum <= info.maximum
            if info.name in ("players", "set", "hand_size"):
                continue  # bounded by the rules themselves first (F-02, DB-02 ...)
            with pytest.raises(OptionError, match=f"at most {info.maximum}"):
                spec.options_from_json({**base, info.name: info.maximum + 1})
            with pytest.raises(OptionError, match=f"at least {info.minimum}"):
                spec.options_from_json({**base, info.name: info.minimum - 1})
            assert (
                getattr(spec.options_from_json({**base, info.name: info.maximum}), info.name)
                == info.maximum
            )


@settings(max_examples=20, deadline=None)
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**30))
def test_the_position_after_a_move_is_the_engines(
    case: tuple[str, dict[str, Any]], seed: int
) -> None:
    """What the game says a move leads to (for a seat that sees only its view) is the
    layout the engine makes when the move is played."""
    game, options = case
    spec = find_game(game)
    for state in positions(game, options, seed)[:12]:
        seat = state.current_seat
        view = state.view(seat)
        for move in list(state.legal_moves())[:4]:
            if not isinstance(move, Play):
                continue
            after = spec.layout_after(view, move)
            played = state.clone()
            played.play(move)
            assert after.snapshot() == played.layout.snapshot()
