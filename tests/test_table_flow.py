"""What a table tells its players beyond the moves, on the pure round: only places that
differ are offered, the hand that has just ended with every hand face up, the running
match sheet, hints and where they are given; and the lobby's form and one-line summary
from the games' option declarations."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pips.core.legal import distinct
from pips.core.moves import Move, Pass, Play
from pips.core.view import SPECTATOR
from pips.games.match import Match
from pips.games.registry import all_games, find_game
from pips.server import telling
from pips.server.accounts.identity import Identity
from pips.server.round import ForBot, Played, Round, TableError
from pips.server.settings import Settings
from pips.server.tables import Tables
from pips.store.db import Database
from tests.protocol_schema import check_server_message
from tests.server_helpers import new_round

ANN = Identity(guest="token-ann", name="Ann")


def greedy_seats(n: int) -> list[dict[str, Any]]:
    return [{"kind": "bot", "bot": "greedy"}] * n


def played_to(game: str, options: dict[str, Any], seed: int, moves: int) -> Match:
    spec = find_game(game)
    match = Match(spec, spec.options_from_json(options), random.Random(seed))
    rng = random.Random(seed)
    for _ in range(moves):
        if match.is_over:
            break
        match.play(rng.choice(list(match.legal_moves())))
    return match


@settings(max_examples=60, deadline=None)
@given(
    game=st.sampled_from(["fido", "doubles", "partnership", "family"]),
    seed=st.integers(0, 10_000),
    moves=st.integers(0, 40),
)
def test_every_place_left_out_of_the_choices_makes_no_difference(
    game: str, seed: int, moves: int
) -> None:
    """A move not offered (``distinct``) leads to the same open ends and sides, count and
    points as the offered move that stands for it: nobody is asked to choose between
    places that differ in nothing that follows."""
    options = {"players": 4} if game != "partnership" else {}
    match = played_to(game, options, seed, moves)
    if match.is_over:
        return
    legal = list(match.legal_moves())
    offered = distinct(legal)
    assert offered == sorted(set(offered)) and offered[0] == 0

    def outcome(move: Any) -> tuple[Any, ...]:
        state = match.current.clone()
        event = state.play(move)
        points = sorted((p.value, p.kind.value) for p in state.layout.points)
        return (points, state.layout.count, event.points)

    for number, move in enumerate(legal):
        if number in offered or not isinstance(move, Play):
            continue
        stands_for = next(
            legal[i]
            for i in offered
            if isinstance(legal[i], Play)
            and (legal[i].tile, legal[i].touching, legal[i].at, legal[i].inline)  # type: ignore[union-attr]
            == (move.tile, move.touching, move.at, move.inline)
        )
        assert outcome(move) == outcome(stands_for)


def test_two_ends_showing_the_same_number_are_one_choice() -> None:
    """The case players met 8 times in 10 FIDO turns: both halves of 9-9 across showing
    9; a tile that fits them is offered there once."""
    spec = find_game("fido")
    for seed in range(300):
        match = played_to("fido", {"players": 3, "set": 9}, seed, 1 + seed % 12)
        if match.is_over:
            continue
        legal = list(match.legal_moves())
        ends = [m for m in legal if isinstance(m, Play) and m.at.value == "end"]
        twice = [
            m
            for m in ends
            if sum(
                1
                for o in ends
                if o.tile == m.tile and o.touching == m.touching and o.inline == m.inline
            )
            > 1
        ]
        if not twice:
            continue
        offered = [legal[i] for i in distinct(legal)]
        for m in twice:
            assert (
                sum(
                    1
                    for o in offered
                    if isinstance(o, Play)
                    and o.at.value == "end"
                    and (o.tile, o.touching, o.inline) == (m.tile, m.touching, m.inline)
                )
                == 1
            )
        assert spec.name == "fido"
        return
    pytest.fail("no position had two ends of one number")


def test_the_hand_that_has_just_ended_is_shown_to_every_seat_alike() -> None:
    table = new_round(
        "family", {"players": 2, "target": 100}, [{"kind": "me"}, *greedy_seats(1)], ANN, seed=4
    )
    table.start()
    match = table.match
    assert match is not None
    summary = telling.summary(table, "t", False, None)
    while len(match.hand_states) < 2:
        assert "hand_over" not in telling.shared_part(table, summary)
        table.apply(match.legal_moves()[0])
    shared = telling.shared_part(table, summary)
    over = shared["hand_over"]
    ended = match.hand_states[0]
    assert ended.result is not None
    assert over["hand"] == 1 and over["scores"] == list(ended.result.final)
    # Every hand face up, as the finished hand holds them; the layout as it was left.
    assert over["hands"] == [[t.to_json() for t in ended.view(s).hand] for s in range(2)]
    assert len(over["layout"]["tiles"]) == len(ended.layout.tiles)
    assert over["sheet"]["title"].startswith("Hand 1: ")
    assert over["match_over"] is False
    assert shared["hands"] == [
        {
            "hand": 1,
            "ended": ended.result.ended.value,
            "out": ended.result.out,
            "change": list(ended.result.final),
            "totals": list(ended.result.final),
        }
    ]
    check_server_message(telling.message_for(table, 0, shared), built=True)
    # Once someone moves in the new hand, the sheet is no longer sent.
    table.apply(match.legal_moves()[0])
    assert "hand_over" not in telling.shared_part(table, summary)


def test_a_seat_sees_the_moves_of_its_hand_without_another_seats_draws() -> None:
    table = new_round("draw", {"players": 2}, [{"kind": "me"}, *greedy_seats(1)], ANN, seed=8)
    table.start()
    match = table.match
    assert match is not None
    while not any("draws" in line for line in telling.log(table, SPECTATOR)) and not match.is_over:
        table.apply(match.legal_moves()[0])
    for seat in (0, 1, SPECTATOR):
        for line, event in zip(
            telling.log(table, seat), match.current.view(seat).history, strict=True
        ):
            if event.seat != seat and "draws" in line:
                assert not re.search(r"\d+-\d+", line), line  # the tile drawn stays hidden


def test_hints_are_given_where_no_other_person_plays() -> None:
    alone = new_round(
        "doubles", {"players": 2}, [{"kind": "me"}, *greedy_seats(1)], ANN, key="ab" * 32
    )
    assert alone.hints
    alone.start()
    match = alone.match
    assert match is not None
    seat = alone.seat_of(ANN)
    while match.current_seat != seat:
        alone.apply(match.legal_moves()[0])
    hint = telling.hint(alone, seat)
    assert 0 <= hint["move"] < len(match.legal_moves()) and hint["reasons"]
    assert hint["moves_made"] == alone.moves_made
    check_server_message(hint, built=True)
    with pytest.raises(TableError):
        alone.advice(1 - seat)  # not its turn
    two = new_round(
        "doubles", {"players": 2}, [{"kind": "me"}, {"kind": "open"}], ANN, key="cd" * 32
    )
    two.join(Identity(guest="token-bo", name="Bo"))
    two.start()
    assert not two.hints
    with pytest.raises(TableError, match="practice tables"):
        telling.hint(two, 0)
    practice = new_round("doubles", {"players": 2}, [{"kind": "me"}, {"kind": "open"}], ANN, seed=3)
    assert practice.hints


@pytest.mark.parametrize("spec", all_games(), ids=lambda s: s.name)
def test_the_form_offers_each_option_with_the_control_of_its_kind(spec: Any) -> None:
    fields = {f.name: f for f in spec.form()}
    for info in spec.options.describe():
        field = fields[info.name]
        if info.kind is bool:
            assert field.control == "checkbox"
        elif field.control == "choice":
            assert field.choices and (field.default is None or field.default in field.choices)
        else:
            assert field.control == "number" and info.kind is int
    assert fields["players"].choices == spec.player_counts
    assert fields["players"].fixed == (len(spec.player_counts) == 1)
    # Every default the form shows makes a valid game, summed up in one line.
    chosen = {f.name: f.default for f in fields.values() if f.default is not None}
    options = spec.options_from_json(chosen)
    brief = spec.in_brief(options)
    assert brief.startswith(spec.title) and f"{options.players} players" in brief


def test_the_fido_summary_names_the_divisor_of_the_set() -> None:
    spec = find_game("fido")
    brief = spec.in_brief(spec.options_from_json({"players": 5, "set": 15}))
    assert "double-15" in brief and "multiple of 9" in brief and "one hand" in brief  # F-01


@pytest.mark.parametrize("false_knock", ["prevent", "penalize"])
def test_a_false_knock_is_offered_at_the_table_only_under_penalize(false_knock: str) -> None:
    """PT-08: with ``penalize`` the knock is offered beside the plays at every turn
    after the lead, and taking it sets aside every tile that fitted (PT-E3); with
    ``prevent`` it is offered only when nothing fits."""
    options = {"false_knock": false_knock, "target": 30}
    table = new_round("partnership", options, [{"kind": "me"}, *greedy_seats(3)], ANN, seed=4)
    table.start()
    match = table.match
    assert match is not None
    seat = table.seat_of(ANN)
    knocked = False
    while not match.is_over and not knocked:
        mover = match.current_seat
        assert mover is not None
        offered = list(table.offered())
        plays = [m for m in offered if isinstance(m, Play)]
        knocks = [i for i, m in enumerate(offered) if not isinstance(m, Play)]
        if mover != seat:
            table.apply(table.bot_decision())  # type: ignore[arg-type]
            continue
        sent = telling.message_for(
            table, seat, telling.shared_part(table, telling.summary(table, "t", False, None))
        )
        assert len(sent["legal"]) == len(offered)
        if plays and match.current.layout.tiles:
            if false_knock == "prevent":
                assert knocks == []
            else:
                assert knocks == [len(offered) - 1]
                fitting = {m.tile for m in plays}
                played = table.apply_choice(seat, knocks[0], table.moves_made)
                assert set(played.event.set_aside) == fitting
                knocked = True
                continue
        table.apply_choice(seat, 0, table.moves_made)
    assert knocked == (false_knock == "penalize")


def test_a_move_made_in_the_server_is_applied_as_the_move_it_is() -> None:
    """A bot's move and the timer's reach the round as moves (issue 54), checked as a
    client's number is: the seat to move, in the position it was made for, among the
    moves offered; a refused one changes nothing."""
    table = new_round("draw", {"players": 2}, greedy_seats(2), ANN, seed=5)
    table.start()
    match = table.match
    assert match is not None
    seat = match.current_seat
    assert seat is not None
    move = table.timed_out_move(seat)
    assert move in match.legal_moves()
    for who, made in ((1 - seat, 0), (seat, 1)):
        with pytest.raises(TableError):
            table.apply_move(who, move, made)
    # The first move of a hand lays a tile: a knock is not among the moves offered.
    assert Pass() not in table.offered()
    with pytest.raises(TableError, match="not legal"):
        table.apply_move(seat, Pass(), 0)
    assert table.moves_made == 0
    played = table.apply_move(seat, move, 0)
    assert played.event.move == move and table.moves_made == 1


def test_a_bots_turn_at_a_live_table_never_goes_through_a_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot decides a move in its lane and the table applies that move: no index
    into the legal moves and back on the way (only a client's move is a number)."""
    applied: list[Move] = []
    apply_move = Round.apply_move

    def recording(self: Round, seat: int, move: Move, moves_made: int) -> Played:
        applied.append(move)
        return apply_move(self, seat, move, moves_made)

    def numbered(self: Round, seat: int, choice: int, moves_made: int) -> Played:
        raise AssertionError("a move made in the server went through a number")

    monkeypatch.setattr(Round, "apply_move", recording)
    monkeypatch.setattr(Round, "apply_choice", numbered)

    async def scene() -> None:
        defaults = Settings()
        db = Database(f"sqlite:///{tmp_path / 'p.db'}")
        tables = Tables(db, bot_delay=3600, grace=defaults.grace, unattended=defaults.unattended)
        db.upgrade()
        table = await tables.create(
            find_game("draw"),
            find_game("draw").options_from_json({"players": 2}),
            [ForBot("greedy"), ForBot("random")],
            ANN,
            seed=7,
        )
        await table.start_if_ready()
        # Each turn played here at once (the table's own pace waits an hour).
        for _turn in range(6):
            match = table.round.match
            assert match is not None and match.current_seat is not None
            await table.pace._bot_turn(match.current_seat, table.round.moves_made, 0)
        await table.close()
        tables.work.close()

    asyncio.run(scene())
    assert len(applied) == 6 and all(isinstance(m, Move) for m in applied)
