"""Playing whole games between bots, reproducibly (see :mod:`pips.sim.seating`)."""

from __future__ import annotations

import random
import signal
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from pips.bots.base import Bot
from pips.games.match import Match
from pips.games.options import GameOptions
from pips.games.registry import Game
from pips.sim.seating import Seating


def deal_seed(seed: int, game_number: int) -> int:
    """The seed of the ``game_number``-th game (from 0) of a run started with ``seed``."""
    return seed + game_number


def play_game(spec: Game, options: GameOptions, bots: Sequence[Bot], seed: int) -> Match:
    """Let ``bots`` play a whole game (every hand of a match) from ``seed``.

    ``bots`` are given per entrant; where lots seat the players, each bot plays from the
    seat its lot gave it. The lots and deals come from ``random.Random(seed)`` and every
    bot decision from the seating driver's stream for its position, so the whole game
    replays from the seed alone.
    """
    match = Match(spec, options, random.Random(seed))
    seating = Seating(match, [bots[entrant] for entrant in match.seating], seed)
    seating.play_bots()
    return match


@contextmanager
def uninterrupted() -> Iterator[None]:
    """Hold Ctrl-C back while the block runs (a finished unit of work written down and
    counted as one step): it takes effect right after, never half way."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
