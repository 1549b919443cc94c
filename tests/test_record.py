"""The pips.record/1 format: round trips, and tampered records rejected with a reason."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pips import record
from pips.bots.base import GreedyBot, RandomBot
from pips.core.moves import Draw, Misdeal
from pips.games.fido import DealMode, DoublesInline, FidoOptions, FidoState
from pips.games.registry import find_game
from pips.record import FORMAT, RecordError
from pips.sim import play_game
from tests.helpers import tiles

options_strategy = st.builds(
    FidoOptions,
    players=st.integers(3, 9),
    set=st.sampled_from([6, 9, 12, 15, 18]),
    mother_theresa=st.booleans(),
    doubles_inline=st.sampled_from(list(DoublesInline)),
)


def finished(options: FidoOptions, seed: int) -> tuple[FidoState, dict[str, Any]]:
    bots = [GreedyBot() if i % 2 else RandomBot() for i in range(options.players)]
    state = play_game(find_game("fido"), options, bots, seed).current
    assert isinstance(state, FidoState)
    names = [f"p{i}" for i in range(options.players)]
    return state, record.write_record(state, names, seed=seed)


def test_record_has_the_documented_fields() -> None:
    state, data = finished(FidoOptions(players=5, set=12), 7)
    assert data["format"] == FORMAT == "pips.record/1"
    assert data["game"] == "fido"
    assert data["options"] == {
        "set": 12,
        "players": 5,
        "direction": "clockwise",
        "mother_theresa": False,
        "doubles_inline": "never",
        "deal_mode": "automatic",
        "divisor": 7,
        "hand_size": 15,
    }
    assert data["seats"] == ["p0", "p1", "p2", "p3", "p4"] and data["seed"] == 7
    hand = data["hands"][0]
    assert [len(h) for h in hand["deal"]] == [15] * 5 and len(hand["stock"]) == 16
    first = hand["moves"][0]
    assert first["at"] == "open" and first["play"][0] == first["play"][1]
    assert set(first) == {"seat", "play", "at", "points", "count"}
    kinds = {next(k for k in ("play", "draw", "pass") if k in m) for m in hand["moves"]}
    assert kinds <= {"play", "draw", "pass"}
    assert set(hand["result"]) >= {"ended", "pips", "points", "final", "ranks"}
    assert state.result is not None
    assert data["result"] == {"final": list(state.result.final), "ranks": list(state.result.ranks)}


@settings(max_examples=40, deadline=None)
@given(options_strategy, st.integers(0, 2**31))
def test_write_read_replay_round_trip(options: FidoOptions, seed: int) -> None:
    state, data = finished(options, seed)
    text = record.dumps(data)
    again = record.replay(json.loads(text))
    final = again.final
    assert isinstance(final, FidoState)
    assert final.history == state.history
    assert final.result == state.result
    assert final.layout.snapshot() == state.layout.snapshot()
    rewritten = record.write_record(final, again.seats, seed=seed)
    rewritten["played_at"] = data["played_at"]
    assert rewritten == data


def scoring_move_indexes(data: dict[str, Any]) -> list[int]:
    return [i for i, m in enumerate(data["hands"][0]["moves"]) if m.get("points")]


@settings(max_examples=40, deadline=None)
@given(options_strategy, st.integers(0, 2**31), st.data())
def test_a_tampered_record_is_rejected_with_hand_move_and_rule(
    options: FidoOptions, seed: int, data: st.DataObject
) -> None:
    _, good = finished(options, seed)
    bad = copy.deepcopy(good)
    moves = bad["hands"][0]["moves"]
    kind = data.draw(st.sampled_from(["points", "tile", "pass", "deal", "seat", "result"]))
    if kind == "points":
        index = data.draw(st.sampled_from([i for i, m in enumerate(moves) if "play" in m]))
        moves[index]["points"] += 1
        expected_rule = "F-15"
    elif kind == "tile":
        # Lay again a tile that is already in the layout.
        index = data.draw(st.integers(1, len(moves) - 1))
        moves[index] = {
            "seat": moves[index]["seat"],
            "play": moves[0]["play"],
            "at": "end",
            "end": 0,
            "points": 0,
        }
        expected_rule = None
    elif kind == "pass":
        plays = [i for i, m in enumerate(moves) if "play" in m and i > 0]
        index = data.draw(st.sampled_from(plays))
        moves[index] = {"seat": moves[index]["seat"], "pass": True}
        expected_rule = None  # F-16 (could play) or F-17 (must draw)
    elif kind == "deal":
        hand = bad["hands"][0]
        hand["deal"][0][0], hand["stock"][0] = hand["stock"][0], hand["deal"][0][0]
        index = -1
        expected_rule = "C-06"
    elif kind == "seat":
        index = data.draw(st.integers(0, len(moves) - 1))
        moves[index]["seat"] = (moves[index]["seat"] + 1) % options.players
        expected_rule = "C-05"
    else:
        bad["result"]["final"][0] += 1
        index = -1
        expected_rule = "F-21"
    with pytest.raises(RecordError) as caught:
        record.replay(bad)
    error = caught.value
    if expected_rule is not None:
        assert error.rule == expected_rule, str(error)
    if index >= 0:
        assert error.hand == 1 and error.move == index + 1, str(error)
    assert str(error)


def test_record_error_messages_name_hand_move_and_rule() -> None:
    _, data = finished(FidoOptions(players=4, set=6), 3)
    data["hands"][0]["moves"][1]["points"] = 99
    with pytest.raises(RecordError, match=r"^hand 1, move 2: F-15: points 99 should be \d+$"):
        record.replay(data)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(format="pips.record/0"), "format must be"),
        (lambda d: d.update(game="chess"), "unknown game"),
        (lambda d: d["options"].update(players=2), "F-02"),
        (lambda d: d["options"].update(divisor=5), "divisor 5 does not fit"),
        (lambda d: d["options"].update(colour="red"), "unknown option"),
        (lambda d: d.update(seats=["a"]), "seats must list 4 names"),
        (lambda d: d["hands"][0]["deal"][0].append([6, 6]), "F-03|twice"),
        (lambda d: d["hands"][0]["deal"][0].__setitem__(0, [7, 1]), "not in the double-6"),
        (lambda d: d["hands"][0]["deal"][0].__setitem__(0, "6-6"), "C-01"),
        (lambda d: d["hands"][0]["moves"].append({"seat": 0, "pass": True}), "F-19"),
        (lambda d: d["hands"][0]["moves"][0].update(at="corner"), "must be open, end or side"),
        (lambda d: d["hands"][0]["moves"][0].update(draw=[1, 1]), "exactly one of"),
        (lambda d: d.update(hands=[]), "hands must list"),
        (lambda d: d["hands"].append(d["hands"][0]), "is one hand"),
        (lambda d: d.update(seed="x"), "seed must be an integer"),
    ],
)
def test_malformed_records_get_a_clear_error(mutate: Any, message: str) -> None:
    _, data = finished(FidoOptions(players=4, set=6), 11)
    mutate(data)
    with pytest.raises(RecordError, match=message):
        record.replay(data)


def test_files_of_one_or_many_records(tmp_path: Path) -> None:
    games = [finished(FidoOptions(players=3, set=9), seed)[1] for seed in range(3)]
    many = tmp_path / "games.jsonl"
    record.save(games, many)
    assert record.check_file(many).records == 3
    one = tmp_path / "game.json"
    record.save(games[:1], one)
    assert record.check_file(one).records == 1
    assert list(record.load(one)) == games[:1]
    broken = tmp_path / "broken.jsonl"
    broken.write_text(many.read_text().replace('"points":', '"points":1', 1)[:-40] + "\n")
    with pytest.raises(RecordError):
        record.check_file(broken)
    (tmp_path / "empty.json").write_text("")
    with pytest.raises(RecordError, match="empty"):
        list(record.load(tmp_path / "empty.json"))


def test_unfinished_game_round_trips_and_continues() -> None:
    state = FidoState.new_hand(FidoOptions(players=4, set=12), random.Random(5))
    rng = random.Random(1)
    for _ in range(10):
        state.play(rng.choice(state.legal_moves()))
    data = record.write_record(state, ["a", "b", "c", "d"], seed=5)
    assert "result" not in data and "result" not in data["hands"][0]
    again = record.replay(data).final
    assert isinstance(again, FidoState)
    assert again.history == state.history and again.turn == state.turn
    again.play(again.legal_moves()[0])


def test_manual_deal_record_with_misdeal_round_trips() -> None:
    options = FidoOptions(players=4, set=6, deal_mode=DealMode.MANUAL)
    hands = [
        tiles("6-6 0-0 1-0 2-0 3-0"),
        tiles("4-0 5-0 6-0 1-1 2-1"),
        tiles("3-1 4-1 5-5 6-1 2-2 3-2"),
        tiles("4-2 5-2 6-2 3-3"),
    ]
    state = FidoState(options, hands)
    rng = random.Random(4)
    while not state.is_over:
        move = rng.choice(state.legal_moves())
        if isinstance(move, Draw):
            move = Draw(state.stock[-1])
        state.play(move)
    if state.stock:
        state.play(Misdeal(3, drawn=(state.stock[0],)))
    data = record.write_record(state, ["A", "B", "C", "D"])
    assert data["options"]["deal_mode"] == "manual" and "seed" not in data
    again = record.replay(json.loads(record.dumps(data))).final
    assert again.result == state.result


def test_a_seeded_record_whose_deal_was_redealt_keeps_the_voided_deals() -> None:
    # F-12: with 9 players and double-6 some seeds deal no double at all.
    options = FidoOptions(players=9, set=6)
    seed = next(
        s for s in range(100_000) if FidoState.new_hand(options, random.Random(s)).dealt.voided
    )
    state, data = finished(options, seed)
    assert data["hands"][0]["redeals"]
    assert record.replay(data).final.result == state.result
    data["hands"][0]["redeals"] = []
    with pytest.raises(RecordError, match="C-06"):
        record.replay(data)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 30) | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value, as a path of keys and indexes."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*prefix, index))
    return found


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 50), st.data())
def test_any_corrupted_record_is_refused_cleanly_or_still_valid(
    seed: int, data: st.DataObject
) -> None:
    """Fuzzing the reader: whatever is changed, it answers a RecordError or a replay."""
    _, good = finished(FidoOptions(players=3, set=6), seed)
    refused_cleanly_or_valid(copy.deepcopy(good), data)


def refused_cleanly_or_valid(bad: dict[str, Any], data: st.DataObject) -> None:
    """Change, drop or replace one place of a record; reading it must either replay or
    raise a RecordError with a message, nothing else."""
    path = data.draw(st.sampled_from(paths(bad)[1:]))
    parent: Any = bad
    for key in path[:-1]:
        parent = parent[key]
    if data.draw(st.booleans()):
        parent[path[-1]] = data.draw(json_values)
    elif isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent.pop(path[-1])
    try:
        record.replay(bad)
    except RecordError as exc:
        assert str(exc)


def test_records_written_before_the_reshaping_replay_and_are_written_again_byte_for_byte() -> None:
    """Records of every game and its variants, written by revision 14faae1 (before the
    games' declarations and options were reshaped, issue 36): each replays, and the
    match it replays to is written again as exactly the same bytes."""
    from datetime import datetime

    path = Path(__file__).parent / "data" / "records_14faae1.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len({json.loads(line)["game"] for line in lines}) == 5
    for line in lines:
        data = json.loads(line)
        replayed = record.replay(data)
        again = record.write_record(
            replayed.match,
            replayed.seats,
            seed=replayed.seed,
            played_at=datetime.fromisoformat(data["played_at"]),
            bots=replayed.bots,
        )
        assert record.dumps(again) == line, data["game"]
