"""The strongest public bot we know of as a pips player: the ``dominoes`` package's
probabilistic alpha-beta (``dominoes.players.probabilistic_alphabeta``), in the
partnership game, for the cross-play cell of :mod:`benchmarks.strength`.

The package's player sees what a seat sees: its own hand, the board's ends, every play
and pass, and the other hands' sizes. At each decision it samples ``samples`` deals of
the hidden tiles consistent with the passes, solves each by alpha-beta to the end of the
hand and plays the move most often best. Alpha-beta in pure Python from the first tile
takes minutes a decision, so the package offers ``start_move``: before it, its
``bota_gorda`` player lays the heaviest tile (as the package's own examples pair them).
:data:`START` and :data:`SAMPLES` keep its slowest decisions within about two seconds on
this project's machine (with 12 samples from four tiles laid a decision took up to
3.5 s; at six tiles, 1.5 s; docs/bots.md).

This bot is registered by the benchmarks only; it reads the view the seat is given and
nothing else (the hidden hands it hands the package are any split of the unseen tiles
by the hands' sizes: the package resamples them itself, only their pool and sizes count).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from pips.bots.base import BotKind, register_bot
from pips.core.legal import representatives
from pips.core.moves import Move, Pass, Play
from pips.core.view import View

START = 6
"""Tiles on the board before the alpha-beta takes over from laying the heaviest."""

SAMPLES = 12
"""Deals sampled and solved per decision."""

TOP = 6


def _dominoes() -> Any:
    try:
        import dominoes
    except ImportError:  # pragma: no cover - a benchmark's extra
        raise SystemExit(
            "the cross-play cell needs the dominoes package: pip install -e '.[bench]'"
        ) from None
    return dominoes


class DominoesBot:
    """The package's probabilistic alpha-beta (see the module's text)."""

    def __init__(self, samples: int = SAMPLES, start: int = START) -> None:
        self.samples = samples
        self.start = start
        self.name = f"dominoes-pab:{samples}@{start}"

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move:
        candidates = representatives(moves)
        if len(candidates) == 1:
            return candidates[0]
        dominoes = _dominoes()
        game = self._game(view)
        # The package samples with the module-level random: seeded per decision, so a
        # seeded tournament replays.
        random.seed(rng.getrandbits(64))
        if len(game.moves) - game.moves.count(None) < self.start:
            dominoes.players.bota_gorda(game)
        else:
            player = dominoes.players.probabilistic_alphabeta(sample_size=self.samples)
            player(game)
        domino, left = game.valid_moves[0]
        return self._pips_move(view, candidates, domino, left, game)

    @staticmethod
    def _game(view: View) -> Any:
        """The package's game as ``view``'s seat knows it."""
        dominoes = _dominoes()
        seat = view.seat
        board = dominoes.Board()
        moves: list[Any] = []
        unseen = {(a, b) for a in range(TOP + 1) for b in range(a, TOP + 1)}
        for event in view.history:
            move = event.move
            if isinstance(move, Pass):
                moves.append(None)
            elif isinstance(move, Play):
                tile = dominoes.Domino(*move.tile)
                left = _side(board, move.touching)
                board.add(tile, left)
                moves.append((tile, left))
                unseen.discard(tuple(sorted(move.tile)))
        mine = [dominoes.Domino(*t) for t in view.hand]
        for t in view.hand:
            unseen.discard(tuple(sorted(t)))
        pool = sorted(unseen)
        hands = []
        for other in range(4):
            if other == seat:
                hands.append(dominoes.Hand(mine))
            else:
                size = view.hand_sizes[other]
                hands.append(dominoes.Hand([dominoes.Domino(*t) for t in pool[:size]]))
                pool = pool[size:]
        first = view.history[0].seat if view.history else seat
        game = dominoes.Game(board, hands, moves, seat, (), first, None)
        if moves:
            game._update_valid_moves()
        else:
            game.valid_moves = tuple((d, True) for d in mine)
        return game

    @staticmethod
    def _pips_move(
        view: View, candidates: Sequence[Move], domino: Any, left: bool, game: Any
    ) -> Move:
        wanted = tuple(sorted((domino.first, domino.second)))
        touching = None
        if game.moves and any(m is not None for m in game.moves):
            touching = game.board.left_end() if left else game.board.right_end()
        for move in candidates:
            if not isinstance(move, Play) or tuple(sorted(move.tile)) != wanted:
                continue
            if touching is None or move.touching == touching:
                return move
        raise RuntimeError(f"the package chose {domino} {'left' if left else 'right'}: not legal")


def _side(board: Any, touching: int) -> bool:
    """Which end of the package's board a tile laid against ``touching`` goes to (the
    left when both ends show it: only the ends' values matter to the package)."""
    if not len(board):
        return True
    return bool(board.left_end() == touching)


register_bot(
    BotKind(
        "dominoes-pab",
        "the dominoes package's probabilistic alpha-beta (benchmarks only)",
        lambda setting: (
            DominoesBot(*(int(x) for x in setting.split("@"))) if setting else DominoesBot()
        ),
        "SAMPLES@START: deals solved per decision, tiles laid before the search starts",
    )
)
