"""The ``ismcts`` bot: information-set Monte Carlo tree search (issue 19).

Flat determinized search (:mod:`pips.bots.search`) values each candidate by playouts
that follow a fixed policy after it: it never looks at what the others would answer.
Where a hand is too long to solve exactly (FIDO with five players and a stock, say),
this bot grows a tree instead, as Cowling, Powley and Whitehouse's single-observer
ISMCTS does: every iteration samples a deal consistent with the seat's view
(:class:`~pips.bots.knowledge.Knowledge`), walks down the tree choosing, at each seat's
turn, among the moves legal *in that deal* by UCB1 (counting how often each move was
available, since hidden tiles make moves come and go), adds one node, plays the hand
out with the compiled playout policy and backs up every seat's result to the nodes its
moves led to. Nodes are keyed by the move alone, so one tree holds what the seat can
know, not one tree per guessed deal, and the others' replies are searched from their
point of view in the sampled deals.

Once few tiles are left it solves sampled deals exactly, as ``search`` does. Levels name
iterations (:data:`LEVELS`), so a decision replays from its seed.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from pips.bots.fast import FastState, random_source
from pips.bots.knowledge import UNIFORM, PlayModel
from pips.bots.search import GREED, Budget, SearchBot, _Decision
from pips.bots.search import LEVELS as SEARCH_LEVELS
from pips.core.errors import OptionError
from pips.core.legal import representatives
from pips.core.moves import Move
from pips.core.phrase import phrase
from pips.core.view import View

EXPLORATION = 0.7
"""UCB1's exploration constant, in units of the spread of the results seen so far."""

LEVELS: dict[str, Budget] = {
    "normal": replace(SEARCH_LEVELS["normal"], playouts=1500),
    "hard": replace(SEARCH_LEVELS["hard"], playouts=6000, halving=0),
}
"""Iterations per decision (each one sampled deal, one path, one playout) and the
exact endgame of the ``search`` level of the same name."""


class _Node:
    __slots__ = ("available", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[bytes, _Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0
        """The summed result of the seat whose move led here."""


class IsmctsBot(SearchBot):
    """Single-observer information-set MCTS (see the module's text)."""

    def __init__(self, level: str = "normal") -> None:
        budget = LEVELS.get(level.strip().lower())
        if budget is None:
            try:
                iterations = int(level)
                if not 1 <= iterations <= 1_000_000:
                    raise ValueError
            except ValueError:
                raise OptionError(
                    "bots",
                    phrase(
                        "ismcts level {text!r}: use normal, hard or a number of iterations",
                        text=level,
                    ),
                ) from None
            budget = replace(LEVELS["normal"], playouts=iterations)
        super().__init__("normal")
        self.budget = budget
        self.level = level
        self.name = f"ismcts:{level}" if level != "normal" else "ismcts"
        self._last_visits: np.ndarray | None = None

    def weighing(self, view: View) -> PlayModel:
        # Deals are sampled uniformly: the tree's statistics are per move, and a deal
        # weight would have to be carried through every node it passes.
        return UNIFORM

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move:
        candidates = representatives(moves)
        if len(candidates) == 1:
            return candidates[0]
        self._last_visits = None
        means = self.expected(view, candidates, rng)
        if self._last_visits is not None:
            # The most visited move (the "robust child"): its mean is the best estimated.
            return candidates[int(np.argmax(self._last_visits))]
        return candidates[int(np.argmax(means))]

    def _playouts(self, at: _Decision) -> np.ndarray:
        """Each candidate's mean result in the tree grown from the seat's view."""
        view, candidates, rng, rules = at.view, at.candidates, at.rng, at.rules
        knowledge, base, deadline, pairs = at.knowledge, at.base, at.deadline, at.pairs
        players = rules.players
        state = FastState(rules)
        rs = random_source(rng.getrandbits(31))
        root = _Node()
        rows = np.zeros((len(candidates), base.moves.shape[1]), np.int64)
        allowed: set[bytes] = set()
        low, high = math.inf, -math.inf
        iterations = self.budget.playouts or 0
        done = 0
        while True:
            hands, stock = knowledge.sample(rng, view.stock_size)
            state.copy_from(base)
            state.set_hidden(hands, stock)
            if not allowed:
                self._rows(state, candidates, rows)
                allowed = {row.tobytes() for row in rows}
            node, path = root, []
            while not state.is_over:
                count = state.legal_count()
                keys = [state.moves[i].tobytes() for i in range(count)]
                if node is root:
                    choices = [i for i, key in enumerate(keys) if key in allowed]
                else:
                    choices = list(range(count))
                mover = state.turn
                untried = [i for i in choices if keys[i] not in node.children]
                for i in choices:
                    child = node.children.get(keys[i])
                    if child is not None:
                        child.available += 1
                if untried:
                    pick = untried[rng.randrange(len(untried))]
                    child = node.children[keys[pick]] = _Node()
                    child.available = 1
                    state.apply(pick)
                    path.append((child, mover))
                    break
                spread = (high - low) if high > low else 1.0
                best, best_score = choices[0], -math.inf
                for i in choices:
                    child = node.children[keys[i]]
                    score = child.total / child.visits + EXPLORATION * spread * math.sqrt(
                        math.log(child.available) / child.visits
                    )
                    if score > best_score:
                        best, best_score = i, score
                node = node.children[keys[best]]
                state.apply(best)
                path.append((node, mover))
            if not state.is_over:
                state.playout(rs, GREED, policy=self.policy)
            gained = state.hand_points()
            results: list[float]
            if pairs:
                results = [gained[s] - gained[(s + 1) % players] for s in range(players)]
            else:
                whole = sum(gained)
                results = [g - (whole - g) / (players - 1) for g in gained]
            for child, mover in path:
                child.visits += 1
                child.total += results[mover]
            low, high = min(low, *results), max(high, *results)
            done += 1
            if iterations and done >= iterations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.playouts_done += done
        means = np.zeros(len(candidates), np.float64)
        visits = np.zeros(len(candidates), np.float64)
        for c, row in enumerate(rows):
            child = root.children.get(row.tobytes())
            if child is not None and child.visits:
                means[c] = child.total / child.visits
                visits[c] = child.visits
        self._last_visits = visits
        return means
