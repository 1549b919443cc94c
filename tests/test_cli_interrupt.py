"""Ctrl-C as terminal users expect it, sent to the real ``pips`` command as a terminal
sends it (SIGINT to every process of the command): the first stops the work, keeps what
was finished and says how to go on; a second one ends at once; no traceback; exit
status 130. Then the work goes on from what was kept and ends as if never stopped."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest

from tests.terminal import WAIT, Terminal, home, pips_argv

pytestmark = pytest.mark.process  # interrupts real processes, as Ctrl-C does


class Running:
    """``pips`` started as a terminal's foreground job (a process group of its own),
    its output gathered as it comes."""

    def __init__(self, args: list[str], env: dict[str, str], stdin: int | None = None) -> None:
        self.process = subprocess.Popen(
            pips_argv(*args),
            stdin=stdin if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env={**os.environ, **env, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"},
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self.gatherers = [
            threading.Thread(target=self._gather, args=(stream, sink), daemon=True)
            for stream, sink in ((self.process.stdout, self.out), (self.process.stderr, self.err))
        ]
        for gatherer in self.gatherers:
            gatherer.start()

    @staticmethod
    def _gather(stream: IO[bytes], sink: list[str]) -> None:
        # As it comes, not by lines: a prompt waits without its line's end.
        while chunk := os.read(stream.fileno(), 65536):
            sink.append(chunk.decode("utf-8", "replace"))

    def ctrl_c(self) -> None:
        os.killpg(self.process.pid, signal.SIGINT)

    def wait_until(self, happened: Callable[[], bool]) -> None:
        end = time.monotonic() + WAIT
        while not happened():
            assert self.process.poll() is None, "".join(self.err)
            assert time.monotonic() < end, "".join(self.out + self.err)
            time.sleep(0.05)

    def finish(self) -> tuple[int, str, str]:
        code = self.process.wait(timeout=WAIT)
        # Every last line, however busy the machine: the gatherers end at the pipes' end
        # (a fixed pause here once lost the last line on a loaded machine).
        for gatherer in self.gatherers:
            gatherer.join(timeout=WAIT)
        return code, "".join(self.out), " ".join("".join(self.err).split())


def games_in(path: Path) -> list[dict[str, object]]:
    """The records of a file, but for when each was played."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [{**json.loads(line), "played_at": None} for line in lines]


def lines_in(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def processes_with(text: str) -> list[int]:
    """The processes whose command line names ``text`` (a test's own folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if text.encode() in cmdline:
                found.append(int(entry.name))
    return found


def no_processes_left(text: str) -> None:
    end = time.monotonic() + WAIT
    while processes_with(text):
        assert time.monotonic() < end, f"left running: {processes_with(text)}"
        time.sleep(0.1)


TOURNAMENT = ["--game", "fido", "--players", "3", "--set", "6", "--bots", "greedy,random"]


def test_ctrl_c_on_a_tournament_keeps_every_finished_deal_and_it_goes_on(
    tmp_path: Path,
) -> None:
    out = tmp_path / "tour"
    argv = ["tournament", *TOURNAMENT, "--out", str(out), "--workers", "2"]
    running = Running([*argv, "--hands", "500000"], home(tmp_path))
    running.wait_until(lambda: lines_in(out / "results.jsonl") > 20)
    running.ctrl_c()
    code, _, err = running.finish()
    assert code == 130 and "Traceback" not in err, err
    said = re.search(r"interrupted after (\d+) of 500000 deals", err)
    assert said is not None and "run the same command again to go on" in err, err
    kept = int(said.group(1))
    rows = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    # What it said it kept is in the file, every row whole and once.
    deals = [json.loads(row)["deal"] for row in rows]
    assert len(deals) == len(set(deals)) == kept
    no_processes_left(str(out))
    # Going on: the same tournament, to a few more deals than were kept.
    done = subprocess.run(
        pips_argv(*argv, "--hands", str(kept + 3)),
        capture_output=True,
        text=True,
        timeout=WAIT * 2,
        env={**os.environ, **home(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    rows = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    assert sorted(json.loads(row)["deal"] for row in rows)[: kept + 3] == list(range(kept + 3))


def test_a_second_ctrl_c_ends_a_tournament_at_once_with_its_workers(tmp_path: Path) -> None:
    out = tmp_path / "tour"
    argv = ["tournament", *TOURNAMENT, "--out", str(out), "--workers", "2", "--hands", "500000"]
    running = Running(argv, home(tmp_path))
    running.wait_until(lambda: lines_in(out / "results.jsonl") > 5)
    running.ctrl_c()
    running.ctrl_c()
    code, _, err = running.finish()
    assert code == 130 and "Traceback" not in err and "interrupted" in err, err
    no_processes_left(str(out))


def test_ctrl_c_on_a_simulation_keeps_its_records_and_says_how_to_play_the_rest(
    tmp_path: Path,
) -> None:
    path = tmp_path / "games.jsonl"
    game = ["simulate", "fido", "--players", "3", "--set", "6", "--bots", "greedy,random"]
    running = Running([*game, "--hands", "1000000", "--record", str(path)], home(tmp_path))
    running.wait_until(lambda: lines_in(path) >= 5)
    running.ctrl_c()
    code, out, err = running.finish()
    assert code == 130 and "Traceback" not in err, err
    said = re.search(r"interrupted after (\d+) of 1000000 games", err)
    assert said is not None, err
    kept = int(said.group(1))
    assert lines_in(path) == kept and f"{kept} games" in out  # the summary of those kept
    command = err.split("to play the other ")[1].split(": ", 1)[1]
    assert f"--seed {1 + kept}" in command and "--append" in command, command
    # The command shown plays on; two more games make the same file as one whole run.
    shown = command.split()[1:]
    shown[shown.index("--hands") + 1] = "2"
    again = subprocess.run(
        pips_argv(*shown), capture_output=True, text=True, timeout=WAIT, env=os.environ
    )
    assert again.returncode == 0, again.stderr
    whole = tmp_path / "whole.jsonl"
    subprocess.run(
        pips_argv(*game, "--hands", str(kept + 2), "--record", str(whole)),
        capture_output=True,
        timeout=WAIT * 2,
        check=True,
    )
    assert games_in(path) == games_in(whole)


def test_ctrl_c_on_an_analysis_keeps_the_valued_decisions_and_it_goes_on(
    tmp_path: Path,
) -> None:
    games = tmp_path / "games.jsonl"
    subprocess.run(
        pips_argv(
            *["simulate", "fido", "--players", "5", "--set", "12", "--hands", "3"],
            *["--bots", "expert", "--record", str(games)],
        ),
        capture_output=True,
        timeout=WAIT * 2,
        check=True,
    )
    analyse = ["analyse", str(games), "--level", "easy"]
    whole = subprocess.run(
        pips_argv(*analyse),
        capture_output=True,
        text=True,
        timeout=WAIT * 4,
        env={**os.environ, "PIPS_HOME": str(tmp_path / "whole"), "COLUMNS": "200"},
    )
    assert whole.returncode == 0, whole.stderr
    kept = tmp_path / "home" / "analyses"
    running = Running(analyse, home(tmp_path))
    running.wait_until(lambda: sum(lines_in(p) for p in kept.glob("*.jsonl")) >= 2)
    running.ctrl_c()
    code, _, err = running.finish()
    assert code == 130 and "Traceback" not in err, err
    assert "are valued and kept; run the same command again to go on" in err, err
    resumed = subprocess.run(
        pips_argv(*analyse),
        capture_output=True,
        text=True,
        timeout=WAIT * 4,
        env={**os.environ, **home(tmp_path), "COLUMNS": "200"},
    )
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == whole.stdout
    assert not list(kept.glob("*.jsonl"))  # forgotten once whole


def test_ctrl_c_in_text_play_saves_the_game_and_says_how_to_resume(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    argv = ["play", "fido", "--players", "3", "--set", "6", "--seed", "3", "--text"]
    running = Running([*argv, "--save", str(save)], home(tmp_path), stdin=subprocess.PIPE)
    running.wait_until(lambda: "your move" in "".join(running.out))
    running.ctrl_c()
    code, _, err = running.finish()
    assert code == 130 and "Traceback" not in err, err
    assert f"unfinished game saved to {save}; go on with: pips play --resume {save}" in err
    assert save.exists()


def test_ctrl_c_in_the_full_screen_client_saves_the_game_and_says_how_to_resume(
    tmp_path: Path,
) -> None:
    save = tmp_path / "game.json"
    argv = ["play", "fido", "--players", "3", "--set", "6", "--seed", "3", "--delay", "0"]
    with Terminal(pips_argv(*argv, "--save", str(save)), 80, 24, home(tmp_path)) as terminal:
        terminal.wait_for("Your turn", settled=True)
        terminal.keys("C-c")
        assert terminal.exit_status() == 130
        screen = "".join(terminal.screen(history=True).splitlines())
    assert "unfinished game saved to" in screen and "--resume" in screen, screen
    assert save.exists()
