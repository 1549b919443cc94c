"""The bot protocol and the simple bots.

A bot is given its seat's :class:`~pips.core.view.View`, the legal moves and a seeded
``random.Random``, and returns one of the moves. It never sees the game state, so it
cannot see another seat's tiles or the order of the stock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from pips.core.errors import OptionError
from pips.core.moves import Move, Play
from pips.core.view import View
from pips.games.registry import find_game


class Bot(Protocol):
    name: str

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move: ...


class RandomBot:
    """Any legal move, uniformly."""

    name = "random"

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move:
        return moves[0] if len(moves) == 1 else rng.choice(moves)


class GreedyBot:
    """The play that scores most now; among equals, the heaviest tile (C-04).

    Ties left after that (the same tile on equivalent points) go to the first move in
    the engine's documented order, so the bot is deterministic.
    """

    name = "greedy"

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move:
        if len(moves) == 1:
            return moves[0]
        points = find_game(view.game).immediate_points

        def value(move: Move) -> tuple[int, int, int]:
            if not isinstance(move, Play):
                return (-1, 0, 0)
            return (points(view, move), move.tile.pips, move.tile.high)

        return max(moves, key=value)


_BOTS: dict[str, Callable[[], Bot]] = {"random": RandomBot, "greedy": GreedyBot}


def bot_names() -> list[str]:
    return list(_BOTS)


def make_bot(name: str) -> Bot:
    """A bot by name; :class:`OptionError` for an unknown one."""
    factory = _BOTS.get(name.strip().lower())
    if factory is None:
        raise OptionError("bots", f"unknown bot {name!r}; choose from {', '.join(_BOTS)}")
    return factory()
