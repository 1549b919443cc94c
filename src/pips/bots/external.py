"""Bots in any language: a program that reads and writes JSON lines (docs/bots.md).

For every decision pips writes one line to the program's standard input::

    {"protocol": "pips.bot/1", "type": "decide", "view": {...}, "legal": [{...}, ...]}

``view`` is the seat's view (:meth:`pips.core.view.View.to_json`) and ``legal`` the
legal moves in the record format's words. The program answers with one line on its
standard output: ``{"move": 2}`` (an index into ``legal``) or ``{"move": {...}}`` (one
of the moves of ``legal``, written as given). Anything else, a late answer or a program
that exits is a :class:`BotError` naming what went wrong; the game is not changed.
"""

from __future__ import annotations

import json
import random
import selectors
import shlex
import subprocess
import time
from collections.abc import Sequence
from typing import IO, Any

from pips.core.moves import Move
from pips.core.view import View, move_to_json

PROTOCOL = "pips.bot/1"
MAX_LINE = 1 << 20
"""The longest answer accepted, in characters."""


class BotError(RuntimeError):
    """An external bot broke the protocol: it exited, was late, or answered nonsense."""


class ExternalBot:
    """A bot played by another program over standard input and output."""

    def __init__(self, command: str, timeout: float = 30.0) -> None:
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise BotError("external bot: empty command")
        self.name = f"external:{command}"
        self.timeout = timeout
        self._process: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            try:
                self._process = subprocess.Popen(
                    self.argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    bufsize=1,
                )
            except OSError as error:
                raise BotError(f"external bot {self.command!r} could not start: {error}") from None
        return self._process

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move:
        # The number is the protocol's, across the boundary to the program's process
        # (a line of JSON each way); it is turned back into the move at once, so the
        # server's table is handed a move as from any other bot.
        legal = [move_to_json(view.seat, move) for move in moves]
        return moves[self.decide(view.to_json(), legal)]

    def decide(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> int:
        """The index in ``legal`` the program chooses for the seat whose ``view`` this
        is (the one decide line of the protocol; ``pips bot`` sends the server's)."""
        message = {"protocol": PROTOCOL, "type": "decide", "view": view, "legal": legal}
        process = self._start()
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise BotError(f"external bot {self.command!r} exited before its turn") from None
        line = self._read_line(process.stdout)
        return self._parse(line, legal)

    def _read_line(self, stream: IO[str]) -> str:
        deadline = time.monotonic() + self.timeout
        with selectors.DefaultSelector() as selector:
            selector.register(stream, selectors.EVENT_READ)
            if not selector.select(max(0.0, deadline - time.monotonic())):
                self.close()
                raise BotError(f"external bot {self.command!r} gave no answer in {self.timeout} s")
        line = stream.readline(MAX_LINE)
        if not line:
            raise BotError(f"external bot {self.command!r} exited without answering")
        return line

    def _parse(self, line: str, legal: list[dict[str, Any]]) -> int:
        try:
            answer = json.loads(line)
        except json.JSONDecodeError:
            raise BotError(
                f"external bot answered with something not JSON: {line[:80]!r}"
            ) from None
        if not isinstance(answer, dict) or "move" not in answer:
            raise BotError(f'external bot must answer {{"move": ...}}, not {line[:80]!r}')
        move = answer["move"]
        if isinstance(move, int) and not isinstance(move, bool):
            if 0 <= move < len(legal):
                return move
            raise BotError(f"external bot chose move {move}; there are {len(legal)} (from 0)")
        if isinstance(move, dict) and move in legal:
            return legal.index(move)
        raise BotError(f"external bot chose a move that is not legal: {json.dumps(move)[:120]}")

    def close(self) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        self._process = None

    def __del__(self) -> None:
        self.close()
