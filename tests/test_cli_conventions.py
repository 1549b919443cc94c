"""The conventions of the ``pips`` command (docs/cli.md), checked on the real command:
help that reads well at 80 columns, shell completion, no file overwritten without
``--force``, file problems in plain words, one meaning per exit status, ``--json``
that parses, ``pips enter`` that asks before a misdeal and undoes, and German output
without English words."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from pips.cli import app
from tests.test_cli import run

PLACEHOLDERS = re.compile(r"<(bool|str|int|float|path|list\[.*?\]|Path)>", re.I)


def pips(
    *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pips", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "COLUMNS": "80", **(env or {})},
    )


class Here:
    """The command run in this process (its entry point, :func:`pips.cli.main`, as the
    installed ``pips`` runs it): the same answers, without starting Python each time."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        code, out, err = run(list(args), self.capsys)
        return subprocess.CompletedProcess(["pips", *args], code, out, err)


@pytest.fixture
def here(capsys: pytest.CaptureFixture[str]) -> Here:
    return Here(capsys)


def command_paths() -> list[list[str]]:
    """Every command and sub-command of ``pips``, as the words that call it."""
    found: list[list[str]] = [[]]

    def walk(node: Any, path: list[str]) -> None:
        for name, child in getattr(node, "commands", {}).items():
            found.append([*path, name])
            walk(child, [*path, name])

    walk(typer.main.get_command(app), [])
    return found


@pytest.mark.slow
def test_every_help_takes_h_and_reads_well_at_80_columns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    paths = command_paths()
    assert len(paths) > 30
    for number, path in enumerate(paths):
        code, long, _ = run([*path, "-h"], capsys)
        assert code == 0, path
        if number < 4:  # -h is --help (one option of the framework, tried on a few)
            assert run([*path, "--help"], capsys)[1] == long, path
        assert not PLACEHOLDERS.search(long), (path, PLACEHOLDERS.search(long))
        cut = [line for line in long.splitlines() if re.search(r"…\s*│?\s*$", line)]
        assert not cut, (path, cut)  # nothing cut short
        assert all(len(line) <= 80 for line in long.splitlines()), path
        flat = " ".join(long.split())
        # Every option of the command is named in full.
        command: Any = typer.main.get_command(app)
        for word in path:
            command = command.commands[word]
        for param in command.params:
            for name in [*param.opts, *param.secondary_opts]:
                if name.startswith("--"):
                    assert name in flat, (path, name)


def test_help_sentences_run_on_and_values_have_words(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(["simulate", "-h"], capsys)
    assert code == 0
    # The docstring's second paragraph, written over two source lines, is one line.
    assert (
        "Ctrl-C stops at once: the summary covers the games finished (their records are"
        " kept), and the command that plays the others is shown." in out
    )
    assert "--record FILE" in out and "--hands N" in out and "--bots TEXT" in out
    assert re.search(r"--force\s{2,}", out)  # a switch has no placeholder
    assert "Usage: pips simulate [OPTIONS] {GAME}" in out  # {required}, [optional]
    # An option's own placeholder is kept; a list of words is not FILE (issue 51).
    code, out, _ = run(["serve", "-h"], capsys)
    assert code == 0 and "--limit NAME=BURST/PER_MINUTE" in out and "--limit FILE" not in out


@pytest.mark.process
def test_the_shell_completes_commands_options_and_games(tmp_path: Path) -> None:
    def complete(words: str, index: int) -> list[str]:
        done = pips(
            env={"_PIPS_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(index)}
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert complete("pips sim", 1) == ["simulate"]
    assert complete("pips simulate f", 2) == ["fido", "family"]
    assert "--players" in complete("pips simulate fido --pl", 3)
    installed = pips("--install-completion", env={"HOME": str(tmp_path), "SHELL": "/bin/bash"})
    assert installed.returncode == 0, installed.stderr
    assert "_PIPS_COMPLETE" in (tmp_path / ".bash_completions" / "pips.sh").read_text()
    assert "pips.sh" in (tmp_path / ".bashrc").read_text()


@pytest.mark.slow
def test_no_file_is_overwritten_without_force(tmp_path: Path, here: Here) -> None:
    games = tmp_path / "games.jsonl"
    analyses = tmp_path / "analysis"
    database = f"sqlite:///{tmp_path / 'pips.db'}"
    writers = {
        "simulate": (
            games,
            ["simulate", "fido", "-p", "3", "--set", "6", "--hands", "2", "--record", str(games)],
        ),
        "analyse": (
            analyses / "analysis-1.json",
            ["analyse", str(games), "--level", "1", "--out", str(analyses)],
        ),
        "sheet": (
            tmp_path / "sheet.pdf",
            ["sheet", "fido", "--players", "4", "--out", str(tmp_path / "sheet.pdf")],
        ),
        "event sheets": (
            tmp_path / "round.pdf",
            [
                *["event", "sheets", "fido", "--players", "8", "--seed", "7"],
                *["--out", str(tmp_path / "round.pdf")],
            ],
        ),
        "ranking export": (
            tmp_path / "month.csv",
            [
                *["ranking", "export", "--month", "2026-10", "--database", database],
                *["--out", str(tmp_path / "month.csv")],
            ],
        ),
    }
    made = here(*writers["simulate"][1])  # the games the analysis reads
    assert made.returncode == 0, made.stderr
    for name, (path, argv) in writers.items():
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"kept")
        refused = here(*argv)
        assert refused.returncode == 2, (name, refused.stderr)
        assert "exists: add --force to overwrite it" in refused.stderr, name
        assert "Traceback" not in refused.stderr
        assert path.read_bytes() == b"kept", name  # changed nothing
        forced = here(*argv, "--force")
        assert forced.returncode == 0 and path.read_bytes() != b"kept", (name, forced.stderr)
    # A record file of games can also be added to.
    before = len(games.read_text().splitlines())
    more = here(*writers["simulate"][1], "--append", "--seed", "3")
    assert more.returncode == 0 and len(games.read_text().splitlines()) == before + 2
    both = here(*writers["simulate"][1], "--append", "--force")
    assert both.returncode == 2 and "--force and --append" in both.stderr


def test_file_problems_are_said_in_plain_words(tmp_path: Path, here: Here) -> None:
    latin = tmp_path / "Ergebnisse.json"
    latin.write_bytes("Jürgen".encode("cp1252"))
    cases = {
        ("check", str(latin)): "is not UTF-8 text (byte 0xfc at position 1)",
        ("replay", str(tmp_path / "none.json")): "none.json does not exist",
        ("analyse", str(tmp_path)): "is a folder, not a file",
        ("play", "--resume", str(latin)): "is not UTF-8 text",
    }
    for argv, said in cases.items():
        done = here(*argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert said in done.stderr and "codec" not in done.stderr, (argv, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_each_exit_status_has_one_meaning(tmp_path: Path, here: Here) -> None:
    good = tmp_path / "good.jsonl"
    made = here("simulate", "fido", "-p", "3", "--set", "6", "--hands", "1", "--record", str(good))
    assert made.returncode == 0, made.stderr
    assert here("check", str(good)).returncode == 0
    bad = tmp_path / "bad.json"
    data = json.loads(good.read_text().splitlines()[0])
    data["hands"][0]["moves"][0]["play"] = [9, 9]
    bad.write_text(json.dumps(data))
    assert here("check", str(bad)).returncode == 1  # a failed check
    assert here("check", str(tmp_path / "none.json")).returncode == 2  # bad input
    assert here("simulate", "fido", "--bogus").returncode == 2  # bad usage
    two = here("event", "draw", "fido", "--names", "Anna,Bernd")
    assert two.returncode == 2 and "at least 3" in two.stderr


def test_json_output_parses_and_says_what_the_tables_say(tmp_path: Path, here: Here) -> None:
    games = tmp_path / "games.jsonl"
    simulated = here(
        "simulate", "fido", "-p", "3", "--set", "6", "--hands", "4", "--bots", "greedy",
        "--record", str(games), "--json",
    )  # fmt: skip
    summary = json.loads(simulated.stdout)
    assert summary["games"] == 4 and summary["seeds"] == [1, 4] and summary["records"]
    assert abs(sum(e["win_share"] for e in summary["entrants"]) - 1) < 1e-9
    checked = json.loads(here("check", str(games), "--json").stdout)
    assert checked["files"][0]["records"] == 4 and checked["files"][0]["seeded"] == 4
    analysed = json.loads(
        here("analyse", str(games), "--game", "2", "--level", "1", "--json").stdout
    )
    assert analysed["analyses"][0]["record"] == 2 and analysed["analyses"][0]["decisions"]
    toured = here(
        "tournament", "--game", "fido", "-p", "3", "--set", "6", "--bots", "greedy,random",
        "--hands", "3", "--out", str(tmp_path / "tour"), "--workers", "1", "--json",
    )  # fmt: skip
    assert json.loads(toured.stdout)["tournament"]["deals"] == 3
    database = f"sqlite:///{tmp_path / 'pips.db'}"
    ranked = here(
        "ranking", "compute", "--month", "2026-10", "--preview", "--database", database, "--json"
    )
    assert json.loads(ranked.stdout) == {
        "month": "2026-10",
        "published": False,
        "lists": [],
        "explanation": json.loads(ranked.stdout)["explanation"],
    }


@pytest.mark.process
def test_enter_asks_before_a_misdeal_and_undo_takes_back_the_last_input(tmp_path: Path) -> None:
    save = tmp_path / "table.json"
    typed = [
        "6-6 6-5 6-4 6-3",  # a slip: four tiles
        "",  # not dealt so: type it again
        "6-6 6-5 6-4 6-3 6-2",
        "5-5 5-4 5-3 5-2 5-1",
        "undo",  # the hand of Bo taken back
        "5-5 5-4 5-3 5-2 5-0",
        "4-4 4-3 4-2 4-1 4-0 3-3",  # six tiles, really dealt so
        "y",
        "3-2 3-1 3-0 2-2 2-1",
        "undo",  # before the first move: the last hand of the deal again
        "3-2 3-1 3-0 2-2 2-0",
        "q",
    ]
    done = pips(
        "enter", "fido", "--players", "4", "--set", "6", "--names", "Anna,Bo,Cy,Di",
        "--save", str(save), stdin="\n".join(typed) + "\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert "Anna holds 4 tiles, not 5: was it dealt so" in said
    assert "the hand of Bo taken back" in said
    assert "the hand of Di taken back: type it again" in said
    hands = json.loads(save.read_text())["hands"][0]["deal"]
    assert hands[1][-1] == [5, 0] and len(hands[2]) == 6 and hands[3][-1] == [2, 0]


ENGLISH = {
    "the", "and", "your", "you", "tile", "tiles", "score", "scores", "points", "lays",
    "draws", "passes", "knocks", "opens", "went", "wins", "win", "match", "blocked",
    "lots", "seats", "turn", "move", "moves", "side", "press", "quit", "player", "players",
    "layout", "empty", "left", "over", "options", "saved", "record", "end", "to", "of",
    "with", "is", "at", "on", "knock", "pass", "draw",
}  # fmt: skip
"""English words that no German line of a game has (names and tiles aside)."""


@pytest.mark.process
@pytest.mark.parametrize(
    "game",
    [
        ["fido", "--players", "3", "--set", "6"],
        ["family", "--players", "3", "--target", "20"],
        ["draw", "--players", "3"],
        ["doubles", "--players", "3", "--target", "30"],
        ["partnership", "--target", "3"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_whole_game_in_german_has_no_english_word(tmp_path: Path, game: list[str]) -> None:
    save = tmp_path / "game.json"
    done = pips(
        "--lang", "de", "play", *game, "--seed", "4", "--text", "--name", "Anna",
        "--save", str(save), stdin="1\n" * 400,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Datensatz gespeichert" in done.stdout or "gespeichert" in done.stdout
    names = {"Anna", "greedy"}
    found = set()
    for line in done.stdout.replace(str(tmp_path), "").splitlines():
        for word in re.findall(r"[A-Za-zÄÖÜäöüß]+", line):
            if word.lower() in ENGLISH and word not in names:
                found.add((word, line.strip()))
    assert not found, sorted(found)[:20]


def test_serve_names_its_backups_option_a_folder() -> None:
    """`pips serve --help` showed `--backups FILE` for a folder."""
    from typer.testing import CliRunner

    shown = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"}).output
    after = shown.split("--backups", 1)[1].split()
    assert after[0] == "DIR", after[:3]
