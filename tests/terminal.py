"""The real ``pips`` command in a real terminal: tmux, on a server of the test's own.

A :class:`Terminal` runs one command in a tmux window of a given size, reads the screen
as text, types keys, resizes the window and reads the command's exit status (the pane
stays after the command ends).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.tiers import starting_a_process

WAIT = 60.0
"""Seconds to wait for a screen: generous, for a busy machine; tests pass far sooner."""


def flat(screen: str) -> str:
    """A screen's words in one line, wherever the terminal wrapped them."""
    return " ".join(screen.split())


def pips_argv(*args: str) -> list[str]:
    """The installed command, run by this interpreter (the clone's .venv)."""
    return [sys.executable, "-m", "pips", *args]


class Terminal:
    def __init__(
        self,
        argv: Sequence[str],
        width: int,
        height: int,
        env: dict[str, str] | None = None,
    ) -> None:
        if shutil.which("tmux") is None:
            pytest.fail("tmux is missing: scripts/test installs it (Debian's tmux)")
        starting_a_process("a terminal (tmux)")
        self.socket = f"pips-test-{uuid.uuid4().hex[:12]}"
        self.name = "t"
        environment = {**os.environ, **(env or {}), "TERM": "xterm-256color"}
        environment.pop("TMUX", None)
        exports = " ".join(
            f"{key}={shlex.quote(value)}"
            for key, value in environment.items()
            if key.startswith(("PIPS_", "LANG", "LC_", "PYTHON", "HOME", "PATH", "TERM"))
        )
        # COLUMNS and LINES, which something in a test process may have set, would win
        # over the terminal's own size (shutil.get_terminal_size reads them first).
        # Run from a shell, as a person would, which notes the command's exit status.
        self.status_file = Path(tempfile.mkdtemp(prefix="pips-tmux-")) / "status"
        run = f"env -u COLUMNS -u LINES {exports} {shlex.join(argv)}"
        command = f"sh -c {shlex.quote(f'{run}; echo $? > {self.status_file}')}"
        # The window is made, sized and set up first, and only then is the command
        # started in it: started at once, it could read the size before tmux set it.
        self._tmux("new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), "cat")
        self._tmux("set-option", "-t", self.name, "remain-on-exit", "on")
        self._tmux("resize-window", "-t", self.name, "-x", str(width), "-y", str(height))
        self._tmux("respawn-pane", "-k", "-t", self.name, command)

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30
        )
        if done.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def screen(self, history: bool = False) -> str:
        """The visible screen, one line per row (after what scrolled off it, with
        ``history``)."""
        return self._tmux("capture-pane", "-p", "-t", self.name, *(["-S", "-"] if history else []))

    def keys(self, *keys: str, literal: bool = False) -> None:
        self._tmux("send-keys", "-t", self.name, *(["-l"] if literal else []), *keys)

    def resize(self, width: int, height: int) -> None:
        self._tmux("resize-window", "-t", self.name, "-x", str(width), "-y", str(height))

    def size(self) -> tuple[int, int]:
        said = self._tmux("display-message", "-p", "-t", self.name, "#{pane_width} #{pane_height}")
        width, height = said.split()
        return int(width), int(height)

    def wait_for(
        self, seen: Callable[[str], bool] | str, timeout: float = WAIT, settled: bool = False
    ) -> str:
        """The screen, once ``seen`` (a text on it, or a test of it) holds; with
        ``settled``, once it also stays the same for a moment (drawn to the end)."""
        # Words are looked for across line ends: the terminal wraps them anywhere.
        test = (lambda screen: seen in flat(screen)) if isinstance(seen, str) else seen
        end = time.monotonic() + timeout
        last = None
        while True:
            screen = self.screen()
            if test(screen) and (not settled or screen == last):
                return screen
            if time.monotonic() > end:
                raise AssertionError(f"not seen in {timeout} s: {seen!r}; the screen:\n{screen}")
            last = screen
            time.sleep(0.3 if settled else 0.1)

    def exit_status(self, timeout: float = WAIT) -> int:
        """The command's exit status, once it has ended."""
        end = time.monotonic() + timeout
        while True:
            if self.status_file.exists():
                said = self.status_file.read_text().strip()
                if said:
                    return int(said)
            if time.monotonic() > end:
                raise AssertionError(f"still running after {timeout} s:\n{self.screen()}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=30)
        shutil.rmtree(self.status_file.parent, ignore_errors=True)

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def home(tmp_path: Path) -> dict[str, str]:
    """An environment with a ``$PIPS_HOME`` of the test's own."""
    return {"PIPS_HOME": str(tmp_path / "home")}
