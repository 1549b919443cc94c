"""Exact values of moves in a position whose hidden tiles are all known (one sampled deal).

The work is done by :func:`pips.bots.kernel.solve` (alpha-beta with a transposition
table, compiled); this module owns its memory: a stack of positions one level per move
still to come, the move-ordering scratch rows, the table and the Zobrist keys. One
:class:`Solver` serves every deal a bot samples in a game; :meth:`Solver.values` gives up
(``None``) past a number of positions, so a caller can fall back to playouts where a
position is too deep to solve in its budget.
"""

from __future__ import annotations

import numpy as np

from pips.bots import kernel as k
from pips.bots.fast import FastRules, FastState

TABLE_BITS = 18
"""The transposition table holds ``2**TABLE_BITS`` entries (4.5 MB)."""


class Solver:
    """Solves positions of one game's rules exactly (see :func:`pips.bots.kernel.solve`)."""

    def __init__(self, rules: FastRules, seed: int = 0) -> None:
        self.rules = rules
        players, size, top = rules.players, rules.size, rules.top
        noise = np.random.default_rng(seed)
        rows = 1 + 2 * players + 3 + 2 * (top + 1)
        self.zobrist = noise.integers(-(2**62), 2**62, size=(rows, size + 2), dtype=np.int64)
        self.tt_keys = np.zeros(1 << TABLE_BITS, np.int64)
        self.tt_values = np.zeros(1 << TABLE_BITS, np.int64)
        self.tt_flags = np.zeros(1 << TABLE_BITS, np.int8)
        self.counts = np.zeros((max(top + 1, players), 3), np.int64)
        self.nodes = np.zeros(2, np.int64)
        self.depth = 0
        self.stack: k.Position | None = None
        self.order_keys = np.zeros((0, 0), np.int64)
        self.frames = np.zeros((0, k.F_SIZE), np.int64)
        self.visited = 0
        """Positions visited over every call (for the benchmarks)."""

    def _reserve(self, depth: int) -> k.Position:
        """A stack of at least ``depth`` levels (grown, never shrunk)."""
        if self.stack is not None and depth <= self.depth:
            return self.stack
        depth = max(depth, self.depth * 2)
        shape = FastState(self.rules).pos
        self.stack = tuple(np.zeros((depth, *a.shape), a.dtype) for a in shape)  # type: ignore[assignment]
        self.order_keys = np.zeros((depth, shape[8].shape[0]), np.int64)
        self.frames = np.zeros((depth, k.F_SIZE), np.int64)
        self.depth = depth
        assert self.stack is not None
        return self.stack

    @staticmethod
    def moves_left(root: FastState) -> int:
        """An upper bound on the moves until the hand ends: every tile still held or in
        the stock is drawn and laid at most once, and between two lays each other seat
        knocks at most once."""
        players = root.rules.players
        held = int(root.seats[:, k.C_TILES].sum())
        stock = int(root.state[k.S_STOCK])
        return stock + (held + stock) * players + players

    def values(
        self,
        root: FastState,
        candidates: np.ndarray,
        me: int,
        pairs: bool,
        salt: int,
        node_limit: int,
    ) -> np.ndarray | None:
        """The exact value of each candidate row from ``root`` (every hand and the
        stock's order as they stand in it), in the search's units; ``None`` when that
        takes more than ``node_limit`` positions. ``salt`` must differ between deals."""
        stack = self._reserve(self.moves_left(root) + 2)
        for level, source in zip(stack, root.pos, strict=True):
            level[0] = source
        self.nodes[0] = 0
        self.nodes[1] = node_limit
        out = np.zeros(len(candidates), np.float64)
        solved = k.solve(
            self.rules.arrays,
            stack,
            self.order_keys,
            self.frames,
            candidates,
            me,
            1 if pairs else 0,
            self.tt_keys,
            self.tt_values,
            self.tt_flags,
            self.zobrist,
            salt,
            self.counts,
            self.nodes,
            out,
        )
        self.visited += int(min(self.nodes[0], node_limit))
        return out if solved else None
