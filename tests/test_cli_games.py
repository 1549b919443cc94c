"""The ``pips`` command for the family, draw, Doubles and partnership games."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from pips import record
from tests.test_cli import run

GAMES = [
    ["family", "--players", "3", "--target", "60", "--doubles-branch"],
    ["draw", "--players", "6"],
    ["draw", "--players", "3", "--match-scoring", "--direction", "counter-clockwise"],
    ["doubles", "--players", "4", "--spinner", "none", "--target", "50"],
    ["doubles", "--players", "3", "--draw-rule", "no_draw", "--set-rule", "double_six"],
    ["partnership", "--teams", "fixed", "--false-knock", "penalize", "--target", "10"],
    ["partnership", "--block-points", "losers_only"],
]


@pytest.mark.parametrize("argv", GAMES, ids=[" ".join(a) for a in GAMES])
def test_simulate_then_check_then_replay_every_game(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "games.jsonl"
    code, out, err = run(
        ["simulate", *argv, "--hands", "6", "--bots", "greedy,random", "--record", str(out_file)],
        capsys,
    )
    assert code == 0, err
    assert "win share" in out and "hands:" in out
    records = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert len(records) == 6  # --hands counts matches for the match games
    for data in records:
        replayed = record.replay(data)
        assert replayed.match.is_over
        if replayed.match.target is not None:
            assert max(replayed.match.scores) >= replayed.match.target
    code, out, _ = run(["check", str(out_file)], capsys)
    assert code == 0 and "6 record(s) OK" in out
    code, out, _ = run(["replay", str(out_file), "--game", "2"], capsys)
    assert code == 0 and "Hand 1: " in out


def test_simulate_records_lots_for_doubles_and_pairs_by_lot(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for game in (["doubles", "--players", "3"], ["partnership"]):
        out_file = tmp_path / f"{game[0]}.jsonl"
        code, _, err = run(["simulate", *game, "--hands", "3", "--record", str(out_file)], capsys)
        assert code == 0, err
        data = json.loads(out_file.read_text().splitlines()[0])
        assert set(data["lots"]) == {"draws", "seating"}
        data["lots"]["seating"] = data["lots"]["seating"][::-1]
        with pytest.raises(record.RecordError, match="lots"):
            record.replay(data)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "family", "--players", "5"], "2 to 4 players"),
        (["simulate", "fido", "--players", "4", "--target", "50"], "unknown option(s): target"),
        (["simulate", "partnership", "--teams", "random"], "teams must be one of lot, fixed"),
        (["simulate", "partnership", "--players", "3"], "for 4 players"),
        (["simulate", "doubles", "--players", "9"], "set must be chosen"),
        (["simulate", "draw", "--players", "6", "--set", "6"], "double-9"),
        (["simulate", "doubles", "--players", "3", "--target", "0"], "DB-13"),
        (["rules", "mahjong"], "unknown game"),
    ],
)
def test_bad_game_options_give_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2 and message in err and "Traceback" not in err + out
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("game", ["fido", "family", "draw", "doubles", "partnership"])
def test_rules_lists_every_option_with_default_and_values(
    game: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from pips.games.registry import find_game

    code, out, _ = run(["rules", game], capsys)
    assert code == 0
    for info in find_game(game).options.describe():
        assert f"--{info.name.replace('_', '-')}" in out and info.rule in out
    if game == "partnership":
        assert "all_hands" in out and "losers_only" in out and "prevent" in out


@pytest.mark.parametrize("game", ["family", "draw", "doubles", "partnership"])
def test_play_a_whole_match_from_the_keyboard(
    game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The person always answers 1 (the first legal move); the match runs to its end."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 3000))
    save = tmp_path / "mine.json"
    extra = ["--players", "3"] if game != "partnership" else ["--target", "5"]
    code, out, err = run(
        ["play", game, *extra, "--seed", "4", "--bots", "random", "--save", str(save)], capsys
    )
    assert code == 0, err
    assert "record saved" in out and "your turn" in out
    replayed = record.replay(json.loads(save.read_text()))
    assert replayed.match.is_over and "You" in replayed.seats
    if game != "draw":
        assert "match over" in out


def test_a_false_knock_at_the_keyboard_is_refused_or_penalized(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """PT-08 in `pips play`: with prevent the knock is refused and the seat plays on;
    with penalize it is accepted and the tiles are set aside."""
    for mode in ("prevent", "penalize"):
        # Knock at every turn (the opening lead is refused and played instead), then q.
        monkeypatch.setattr(sys, "stdin", io.StringIO("knock\n1\n" * 6 + "q\n"))
        save = tmp_path / f"{mode}.json"
        code, out, err = run(
            [
                "play",
                "partnership",
                "--teams",
                "fixed",
                "--false-knock",
                mode,
                "--seed",
                "2",
                "--save",
                str(save),
            ],
            capsys,
        )
        assert code == 0, err
        data = json.loads(save.read_text())
        knocks = [m for h in data["hands"] for m in h["moves"] if m.get("pass") and m["seat"] == 0]
        if mode == "prevent":
            assert "you can lay a tile and must play (PT-06)" in out
            assert all("set_aside" not in m for m in knocks)
        else:
            assert any(m.get("set_aside") for m in knocks)
            assert "set aside face up (PT-08)" in out
        record.replay(data)


@pytest.mark.parametrize("game", ["fido", "family", "draw", "doubles", "partnership"])
def test_simulate_with_expert_and_search_bots_writes_checkable_records(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "games.jsonl"
    extra = {
        "fido": ["--players", "3", "--set", "6"],
        "family": ["--players", "3", "--target", "30"],
        "draw": ["--players", "3"],
        "doubles": ["--players", "3", "--target", "30"],
        "partnership": ["--target", "3"],
    }[game]
    argv = ["simulate", game, *extra, "--hands", "2", "--bots", "search:easy,expert,greedy"]
    code, out, err = run([*argv, "--record", str(out_file)], capsys)
    assert code == 0, err
    assert "search:easy" in out and "expert" in out
    code, out, _ = run(["check", str(out_file)], capsys)
    assert code == 0 and "2 record(s) OK" in out


@pytest.mark.parametrize(
    ("bots", "message"),
    [("search:fast", "search level"), ("greedy:2", "takes no setting"), ("external", "command")],
)
def test_bad_bot_names_give_one_line_and_exit_2(
    bots: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["simulate", "family", "-p", "3", "--hands", "1", "--bots", bots], capsys)
    assert code == 2 and message in err and "Traceback" not in err + out


@pytest.mark.slow
def test_play_resume_goes_on_with_a_saved_game_and_refuses_bad_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    save = tmp_path / "game.json"
    answers = iter(["1", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    code, out, err = run(
        ["play", "family", "--players", "2", "--seed", "2", "--save", str(save), "--text"],
        capsys,
    )
    assert code == 0 and "unfinished game saved" in out, err
    started = json.loads(save.read_text())
    assert started["bots"] == [None, "greedy"] or started["bots"] == ["greedy", None]
    monkeypatch.setattr("builtins.input", lambda prompt="": "1")
    code, out, err = run(["play", "--resume", str(save), "--text"], capsys)
    assert code == 0 and "record saved" in out, err
    finished = record.replay(json.loads(save.read_text()))
    assert finished.match.is_over
    moves = [m for h in started["hands"] for m in h["moves"]]
    assert [m for h in json.loads(save.read_text())["hands"] for m in h["moves"]][
        : len(moves)
    ] == moves
    # A finished game, a game with options given again, and a file that is not a record.
    for argv, message in (
        (["play", "--resume", str(save)], "that game is over"),
        (["play", "family", "--resume", str(save)], "--resume takes the game"),
        (["play"], "name a game to play"),
        (["play", "fido", "--players", "3", "--delay", "9"], "--delay must be 0 to 5"),
    ):
        code, out, err = run(argv, capsys)
        assert code == 2 and message in err and "Traceback" not in err + out
    junk = tmp_path / "junk.json"
    junk.write_text('{"format": "pips.record/1"}')
    code, _, err = run(["play", "--resume", str(junk)], capsys)
    assert code == 2 and "game" in err and len(err.strip().splitlines()) == 1
