"""The ``pips`` command, run as a user would: exit codes, output, files."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pips import record
from pips.cli import main
from pips.core.legal import LegalMoves
from pips.core.moves import At, Draw, Misdeal, Play
from pips.core.notation import read_move
from pips.core.tiles import Tile
from pips.games.fido import DealMode, FidoOptions, FidoState
from tests.helpers import tiles


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_simulate_writes_checkable_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "out.jsonl"
    code, out, _ = run(
        [
            "simulate",
            "fido",
            "--players",
            "5",
            "--set",
            "12",
            "--hands",
            "30",
            "--seed",
            "1",
            "--bots",
            "greedy,random",
            "--record",
            str(out_file),
        ],
        capsys,
    )
    assert code == 0
    assert "blocked:" in out and "moves per hand" in out and "greedy" in out
    lines = out_file.read_text().splitlines()
    assert len(lines) == 30
    first = json.loads(lines[0])
    assert first["seed"] == 1 and first["options"]["players"] == 5
    code, out, _ = run(["check", str(out_file)], capsys)
    assert code == 0 and "30 record(s) OK" in out


def test_simulate_is_reproducible(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        run(
            [
                "simulate",
                "fido",
                "--players",
                "4",
                "--set",
                "9",
                "--hands",
                "5",
                "--seed",
                "9",
                "--direction",
                "counter-clockwise",
                "--mother-theresa",
                "--doubles-inline",
                "optional",
                "--record",
                str(path),
            ],
            capsys,
        )

    def strip(path: Path) -> list[dict[str, object]]:
        games = [json.loads(line) for line in path.read_text().splitlines()]
        for game in games:
            game.pop("played_at")
        return games

    assert strip(a) == strip(b)
    options = strip(a)[0]["options"]
    assert options == {
        "set": 9,
        "players": 4,
        "direction": "counter-clockwise",
        "mother_theresa": True,
        "doubles_inline": "optional",
        "deal_mode": "automatic",
        "divisor": 5,
        "hand_size": 11,
    }


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "fido", "--players", "2"], "F-02: FIDO is played by 3 to 9 players"),
        (["simulate", "fido", "--players", "4", "--set", "7"], "F-01"),
        (["simulate", "fido", "--players", "4", "--set", "twelve"], "--set takes a set"),
        (["simulate", "fido", "--players", "4", "--doubles-inline", "maybe"], "doubles_inline"),
        (["simulate", "fido", "--players", "4", "--bots", "oracle"], "unknown bot"),
        (["simulate", "fido", "--players", "4", "--hands", "0"], "--hands must be"),
        (["simulate", "chess", "--players", "4"], "unknown game"),
        (["simulate", "fido"], "fido needs --players (3 to 9)"),
        (["play", "fido", "--players", "4", "--seat", "4"], "--seat must be"),
    ],
)
def test_bad_options_give_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err + out


def test_check_rejects_a_tampered_record_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.jsonl"
    run(
        ["simulate", "fido", "--players", "3", "--set", "6", "--hands", "3", "--record", str(path)],
        capsys,
    )
    games = [json.loads(line) for line in path.read_text().splitlines()]
    scoring = next(m for m in games[1]["hands"][0]["moves"] if m.get("points"))
    scoring["points"] += 1
    path.write_text("".join(record.dumps(g) + "\n" for g in games))
    code, _, err = run(["check", str(path)], capsys)
    assert code == 1
    assert "record 2" in err and "F-15" in err


def test_replay_shows_every_move_with_count_and_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "g.jsonl"
    run(
        ["simulate", "fido", "--players", "3", "--set", "6", "--hands", "2", "--record", str(path)],
        capsys,
    )
    game = json.loads(path.read_text().splitlines()[1])
    code, out, _ = run(["replay", str(path), "--game", "2"], capsys)
    assert code == 0
    moves = game["hands"][0]["moves"]
    plays = [m for m in moves if "play" in m]
    assert out.count(", S = ") == len(plays)
    assert f"S = {plays[0]['count']}" in out
    assert "Hand 1: " in out
    code, _, err = run(["replay", str(path), "--game", "3"], capsys)
    assert code == 2 and "--game must be 1 to 2" in err
    code, _, err = run(["replay", str(tmp_path / "missing.json")], capsys)
    assert code == 2 and "missing.json does not exist" in err


def test_play_a_whole_game_from_the_keyboard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A careless typist: nonsense, an impossible tile, then always the first move.
    answers = "hello\n0-0\n99\n" + "1\n" * 300
    monkeypatch.setattr(sys, "stdin", io.StringIO(answers))
    save = tmp_path / "mine.json"
    code, out, _ = run(
        [
            "play",
            "fido",
            "--players",
            "3",
            "--set",
            "6",
            "--seed",
            "4",
            "--bots",
            "greedy",
            "--name",
            "Ann",
            "--save",
            str(save),
        ],
        capsys,
    )
    assert code == 0
    assert "your hand:" in out and "divisor 3" in out
    assert "not a tile: 'hello'" in out and "there is no move 99" in out
    assert "Hand 1: " in out and f"record saved to {save}" in out
    replayed = record.replay(json.loads(save.read_text()))
    assert replayed.seats[0] == "Ann" and replayed.final.is_over


def test_quitting_saves_an_unfinished_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIPS_HOME", str(tmp_path))
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    code, out, _ = run(
        ["play", "fido", "--players", "4", "--set", "12", "--seed", "1", "--seat", "1"], capsys
    )
    assert code == 0 and "unfinished game saved" in out
    (saved,) = (tmp_path / "records").iterdir()
    replayed = record.replay(json.loads(saved.read_text()))
    assert not replayed.final.is_over


@pytest.mark.process
def test_the_installed_command_runs_without_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pips", "simulate", "fido", "--players", "10"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "error: F-02: FIDO is played by 3 to 9 players, not 10"


def test_enter_a_real_table_game_with_misdeals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """F-24 from the keyboard: C (seat 2) took 6 tiles, D (seat 3) only 4."""
    deal = [
        "6-6 0-0 1-0 2-0 3-0",
        "4-0 5-0 6-0 1-1 2-1",
        "3-1 4-1 5-5 6-1 2-2 3-2",
        "4-2 5-2 6-2 3-3",
    ]
    options = FidoOptions(players=4, set=6, deal_mode=DealMode.MANUAL)
    shadow = FidoState(options, [tiles(h) for h in deal])
    # The two hands of the wrong size are confirmed as dealt so (y), not typed again.
    lines = [deal[0], deal[1], deal[2], "y", deal[3], "y", "nonsense", "9-9"]
    while not shadow.is_over:
        moves = shadow.legal_moves()
        if isinstance(moves[0], Draw):
            drawn = (
                min(x for x in shadow.stock if x != Tile.of(5, 1))
                if (shadow.stock_size > 1)
                else shadow.stock[0]
            )
            lines.append(f"draw {drawn}")
            shadow.play(Draw(drawn))
        else:
            lines.append("1")
            shadow.play(moves[0])
        if len(shadow.history) == 3:
            lines += ["undo", "1"]  # take back the third entry and give it again
    late = next(x for x in shadow.stock if x == Tile.of(5, 1))
    lines += ["misdeal 2 draw 1-1", f"misdeal Di draw {late}", "q"]
    shadow.play(Misdeal(3, drawn=(late,)))
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    save = tmp_path / "table.json"
    code, out, _ = run(
        [
            "enter",
            "fido",
            "--players",
            "4",
            "--set",
            "6",
            "--names",
            "Ann,Bo,Cy,Di",
            "--save",
            str(save),
        ],
        capsys,
    )
    assert code == 0, out
    assert "type a move" in out or "not a tile" in out
    assert "9-9 cannot be played now" in out
    assert "last entry taken back" in out
    assert "keeps them" in out  # Cy's excess is kept (F-24.2)
    assert f"record saved to {save}" in out
    data = json.loads(save.read_text())
    assert data["options"]["deal_mode"] == "manual" and data["seats"][3] == "Di"
    replayed = record.replay(data).final
    assert isinstance(replayed, FidoState)
    assert replayed.result == shadow.result
    assert replayed.result is not None and Tile.of(5, 1) in replayed.hands[3]


def test_enter_checks_each_hand_as_it_is_typed_and_keeps_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tile outside the set, twice in a hand or in another hand is refused at once and
    only that hand is typed again; a wrong number of tiles is a misdeal (F-24.1) once
    confirmed, said again until corrected before the opening."""
    hands = ["6-6 5-5 4-4 3-3 2-2 1-1 0-0", "6-5 6-4 6-3 6-2 6-1 6-0 5-4", "5-3 5-2 5-1"]
    typed = [hands[0], "6-6 1-0", "9-9 1-0", "6-5 6-5", hands[1], hands[2], "y"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(typed) + "\n"))
    save = tmp_path / "entry.json"
    argv = ["enter", "fido", "--players", "3", "--set", "6", "--names", "Ann,Bo,Cy"]
    code, out, _ = run([*argv, "--save", str(save)], capsys)
    flat = " ".join(out.split())
    assert code == 0, out
    assert "6-6 is already in the hand of Ann; type the hand again" in flat
    assert "9-9 is not a tile of the double-6 set" in flat
    assert "6-5 is typed twice" in flat
    assert "Cy holds 3 tiles, not 7: was it dealt so (a misdeal" in flat
    assert "a hand is 7 tiles (F-02): Cy holds 3" in flat
    # Saved as it went: the deal is in the file, the entry unfinished, to go on with.
    assert f"pips enter --resume {save}" in flat
    data = json.loads(save.read_text())
    assert [" ".join(f"{a}-{b}" for a, b in h) for h in data["hands"][0]["deal"]] == hands
    # Going on: the misdeal is corrected by name, then the opening is entered.
    monkeypatch.setattr(
        sys, "stdin", io.StringIO("misdeal Zed draw 4-0\nmisdeal cy draw 4-0 4-1 4-2 4-3\n1\n")
    )
    code, out, _ = run(["enter", "--resume", str(save)], capsys)
    flat = " ".join(out.split())
    assert code == 0, out
    assert "there is no player 'zed' (ann, bo, cy, or a seat 0 to 2)" in flat.lower()
    replayed = record.replay(json.loads(save.read_text()))
    state = replayed.states[-1]
    assert len(state.hands[2]) == 7 and len(state.history) == 2  # the misdeal, the opening


def test_enter_refuses_to_overwrite_and_to_resume_what_was_not_entered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "kept.json"
    kept.write_text("{}", encoding="utf-8")
    code, _, err = run(["enter", "fido", "-p", "3", "--save", str(kept)], capsys)
    assert code == 2 and "--resume" in err and kept.read_text(encoding="utf-8") == "{}"
    code, _, err = run(["enter", "--resume", str(kept)], capsys)
    assert code == 2 and "format must be" in err


def test_ctrl_c_during_play_saves_the_game_so_far(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = iter(["1", "1"])

    def keyboard(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    monkeypatch.setattr("builtins.input", keyboard)
    save = tmp_path / "cut.json"
    code, _, err = run(
        ["play", "fido", "--players", "3", "--set", "6", "--seed", "2", "--save", str(save)], capsys
    )
    assert code == 130 and "unfinished game saved" in err and "--resume" in err
    replayed = record.replay(json.loads(save.read_text())).final
    assert not replayed.is_over and any(e.seat == 0 for e in replayed.history)


def test_a_tile_on_equivalent_places_needs_no_choice_but_different_places_do() -> None:
    six_five = Tile.of(6, 5)
    same = LegalMoves([Play(six_five, 6, At.END, 0), Play(six_five, 6, At.END, 1)])
    assert read_move("6-5", same) == Play(six_five, 6, At.END, 0)
    different = LegalMoves([Play(six_five, 6, At.END, 0), Play(six_five, 6, At.SIDE, 3)])
    with pytest.raises(ValueError, match="type one of 1, 2"):
        read_move("6-5", different)
    assert read_move("6-5 side", different) == Play(six_five, 6, At.SIDE, 3)
    with pytest.raises(ValueError, match="cannot be played now"):
        read_move("1-0", same)


def test_replay_step_by_step_shows_the_layout_and_stops_on_q(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "g.jsonl"
    run(
        ["simulate", "fido", "--players", "3", "--set", "6", "--hands", "1", "--record", str(path)],
        capsys,
    )
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n\nq\n"))
    code, out, _ = run(["replay", str(path), "--step"], capsys)
    assert code == 0
    assert out.count("open ends") == 3 and "naked sides" in out
    assert "Hand 1: " not in out
