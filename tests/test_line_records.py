"""Records of matches: tampering with any part is refused with its hand, move and rule."""

from __future__ import annotations

import copy
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pips import record
from pips.bots.base import GreedyBot, RandomBot
from pips.core.moves import Pass, Play
from pips.games.match import Match
from pips.games.registry import find_game
from pips.record import RecordError
from pips.sim import play_game
from tests.test_cli import run
from tests.test_record import refused_cleanly_or_valid


def match_record(game: str, options: dict[str, Any], seed: int) -> dict[str, Any]:
    spec = find_game(game)
    resolved = spec.options_from_json(options)
    bots = [GreedyBot() if i % 2 else RandomBot() for i in range(resolved.players)]
    match = play_game(spec, resolved, bots, seed)
    return record.write_record(match, [f"p{i}" for i in range(resolved.players)], seed=seed)


def first_move(data: dict[str, Any], kind: str, hand: int = 0) -> int:
    return next(i for i, m in enumerate(data["hands"][hand]["moves"]) if kind in m)


@pytest.mark.parametrize(
    ("game", "options", "tamper", "message"),
    [
        ("family", {"players": 3}, lambda d: d["options"].update(hand_size=6), "hand_size"),
        ("family", {"players": 3}, lambda d: d["hands"][1]["moves"].pop(0), "hand 2, move 1"),
        (
            "family",
            {"players": 3},
            lambda d: d["hands"].append(copy.deepcopy(d["hands"][-1])),
            "C-09",
        ),
        ("family", {"players": 3}, lambda d: d["result"].update(final=[0, 0, 0]), "result final"),
        (
            "family",
            {"players": 3},
            lambda d: d["hands"][0]["result"].update(points=[1, 2, 3]),
            "result points",
        ),
        (
            "doubles",
            {"players": 3},
            lambda d: d["lots"]["draws"].pop(),
            "DB-01: lots",
        ),
        ("doubles", {"players": 3}, lambda d: d.pop("lots"), "DB-01"),
        (
            "doubles",
            {"players": 3},
            lambda d: d["hands"][0]["moves"][0].update(play=[0, 0]),
            "DB-07: 0-0 is not in seat 0's hand",
        ),
        (
            "partnership",
            {"teams": "fixed"},
            lambda d: d.update(lots={"draws": [], "seating": [0, 1, 2, 3]}),
            "draws no lots",
        ),
        (
            "partnership",
            {"teams": "fixed"},
            lambda d: d["hands"][0]["moves"].insert(
                1, {"seat": d["hands"][0]["moves"][1]["seat"], "draw": None}
            ),
            "PT-07: there is no drawing",
        ),
        (
            "partnership",
            {"teams": "lot"},
            lambda d: d["hands"][0].update(deal=d["hands"][0]["deal"][::-1]),
            "C-06",
        ),
        (
            "draw",
            {"players": 2},
            lambda d: d["hands"][0]["moves"][1].update(at="side"),
            "DR-04: there is no open side",
        ),
    ],
)
def test_a_tampered_match_record_is_refused(
    game: str, options: dict[str, Any], tamper: Any, message: str
) -> None:
    data = match_record(game, options, 21)
    record.replay(data)  # the untouched record reads
    tamper(data)
    with pytest.raises(RecordError, match=message):
        record.replay(data)


def penalized_record() -> dict[str, Any]:
    """A partnership hand with a false knock (PT-08), written as the engine saw it."""
    spec = find_game("partnership")
    options = spec.options_from_json({"teams": "fixed", "false_knock": "penalize"})
    for seed in range(100):
        match = Match(spec, options)
        state = match.add_hand(*spec.deal(options, __import__("random").Random(seed)))
        knocked = False
        while not state.is_over:
            moves = state.legal_moves()
            plays = [m for m in moves if isinstance(m, Play)]
            if not knocked and state.layout.tiles and plays:
                match.play(Pass())
                knocked = True
            else:
                match.play(moves[0])
        if knocked:
            return record.write_record(match, ["a", "b", "c", "d"])
    raise AssertionError("no false knock happened")


def test_a_penalized_knock_is_recorded_with_its_tiles_and_checked() -> None:
    data = penalized_record()
    knock = next(m for m in data["hands"][0]["moves"] if "set_aside" in m)
    assert knock["pass"] is True and knock["set_aside"]
    again = record.replay(json.loads(record.dumps(data)))
    assert again.final.history == record.replay(data).final.history
    knock["set_aside"] = [[0, 0]]
    with pytest.raises(RecordError, match="PT-08: the knock sets aside"):
        record.replay(data)


def test_a_false_knock_is_refused_under_prevent(tmp_path: Path) -> None:
    data = penalized_record()
    data["options"]["false_knock"] = "prevent"
    with pytest.raises(RecordError, match=r"PT-06: seat \d can lay a tile and must play"):
        record.replay(data)


def test_enter_is_for_fido_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, _, err = run(["enter", "family", "--players", "3"], capsys)
    assert code == 2 and "FIDO" in err


MATCHES = {
    "family": {"players": 2, "target": 20},
    "doubles": {"players": 3, "target": 30},
    "partnership": {"target": 3},
    "draw": {"players": 3},
}


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(MATCHES)), st.integers(0, 30), st.data())
def test_any_corrupted_match_record_is_refused_cleanly_or_still_valid(
    game: str, seed: int, data: st.DataObject
) -> None:
    """Fuzzing the reader on match records: a RecordError or a replay, nothing else."""
    refused_cleanly_or_valid(match_record(game, MATCHES[game], seed), data)
