"""Playing whole games between bots, reproducibly."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from pips.bots.base import Bot, observe, reset
from pips.games.match import Match
from pips.games.registry import GameSpec

BOT_STREAM = 0x9E3779B1
"""Mixed into a game's seed to give the bots a random stream apart from the deal's."""


def deal_seed(seed: int, game_number: int) -> int:
    """The seed of the ``game_number``-th game (from 0) of a run started with ``seed``."""
    return seed + game_number


def play_game(spec: GameSpec, options: Any, bots: Sequence[Bot], seed: int) -> Match:
    """Let ``bots`` play a whole game (every hand of a match) from ``seed``.

    ``bots`` are given per entrant; where lots seat the players, each bot plays from the
    seat its lot gave it. The lots and deals come from ``random.Random(seed)`` and every
    bot decision from a second stream derived from the same seed, so the whole game
    replays from the seed alone.
    """
    match = Match(spec, options, random.Random(seed))
    seated = [bots[entrant] for entrant in match.seating]
    bot_rng = random.Random(seed ^ BOT_STREAM)
    hand = None
    while not match.is_over:
        state = match.current
        if state is not hand:
            hand = state
            for place, bot in enumerate(seated):
                reset(bot, place)
        seat = state.current_seat
        assert seat is not None
        moves = state.legal_moves()
        move = (
            moves[0] if len(moves) == 1 else seated[seat].choose(state.view(seat), moves, bot_rng)
        )
        event = match.play(move)
        for other, bot in enumerate(seated):
            observe(bot, event.seen_by(other))
    return match
