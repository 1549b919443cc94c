"""The ``search`` bot: determinized Monte Carlo over the kernel's playouts.

The bot sees only its view. For each decision it samples many deals of the hidden tiles
consistent with everything public (:class:`~pips.bots.knowledge.Knowledge`: tiles laid,
hand sizes, the stock's size, what a seat showed it lacks by knocking or drawing), and
in each sampled deal plays every candidate move followed by a playout to the end of the
hand, in compiled code (:func:`pips.bots.kernel.evaluate`). The candidate with the best
mean outcome is played: the mover's hand points minus the mean of the others', or in
the partnership game its pair's points minus the other pair's.

Playouts follow a mixed policy: most moves greedy (the play that scores most, else the
heaviest tile), some uniformly random, so that sampled futures are plausible without
being predictable.

The budget is a number of playouts per decision, so a decision replays exactly from the
seeded random source; levels name budgets. A time budget (``search:0.5s``) is offered
for interactive use; decisions made under it depend on the machine's speed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from pips.bots import kernel as k
from pips.bots.fast import FastRules, FastState, rules_of
from pips.bots.knowledge import Knowledge
from pips.core.errors import OptionError
from pips.core.legal import representatives
from pips.core.moves import Move
from pips.core.view import Event, View
from pips.games.registry import all_games, find_game
from pips.games.traits import HandScoring

LEVELS: dict[str, int] = {"easy": 300, "normal": 3000, "hard": 12000}
"""Playouts per decision for each level."""

GREED = 192
"""Out of 256: the share of greedy moves in a playout."""

PLAYOUTS_PER_SAMPLE = 2
"""Playouts per candidate in each sampled deal."""


@dataclass(frozen=True)
class Budget:
    playouts: int | None = None
    seconds: float | None = None

    @staticmethod
    def parse(text: str) -> Budget:
        """``easy``/``normal``/``hard``, a playout count (``5000``) or seconds (``0.5s``)."""
        word = text.strip().lower()
        if word in LEVELS:
            return Budget(playouts=LEVELS[word])
        try:
            if word.endswith("s"):
                seconds = float(word[:-1])
                if not 0 < seconds <= 600:
                    raise ValueError
                return Budget(seconds=seconds)
            playouts = int(word)
            if not 1 <= playouts <= 10_000_000:
                raise ValueError
            return Budget(playouts=playouts)
        except ValueError:
            raise OptionError(
                "bots",
                f"search level {text!r}: use easy, normal, hard, a playout count "
                "(1 to 10000000) or seconds like 0.5s",
            ) from None


class SearchBot:
    """Determinized Monte Carlo search (see the module's text)."""

    def __init__(self, level: str = "normal") -> None:
        self.budget = Budget.parse(level)
        self.level = level
        self.name = f"search:{level}" if level != "normal" else "search"
        self._rules: dict[tuple[str, str, bool], FastRules] = {}
        self.playouts_done = 0

    def reset(self, seat: int) -> None:
        """A new hand: nothing is carried over."""

    def observe(self, event: Event) -> None:
        """Everything the bot needs is in the view it is given at its turn."""

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move:
        candidates = representatives(moves)
        if len(candidates) == 1:
            return candidates[0]
        totals = self.evaluate(view, candidates, rng)
        best = int(np.argmax(totals))
        return candidates[best]

    def evaluate(self, view: View, candidates: Sequence[Move], rng: random.Random) -> np.ndarray:
        """The summed outcome of each candidate over the budget's playouts."""
        return self._search(view, candidates, rng)[0]

    def expected(self, view: View, candidates: Sequence[Move], rng: random.Random) -> np.ndarray:
        """The mean outcome of each candidate (the seat's points less the others' mean,
        or its pair's less the other pair's), as the search sees it from ``view``."""
        totals, playouts = self._search(view, candidates, rng)
        return totals / max(1, playouts)

    def _search(
        self, view: View, candidates: Sequence[Move], rng: random.Random
    ) -> tuple[np.ndarray, int]:
        """The summed outcomes and the playouts each candidate had."""
        rules = self._fast_rules(view)
        knowledge = Knowledge.of(view)
        base = FastState.of_view(rules, view, [], [])
        root = base.copy()
        work = FastState(rules)
        totals = np.zeros(len(candidates), np.float64)
        gained = np.zeros(rules.players, np.int64)
        rows = np.zeros((len(candidates), k.MOVE_WIDTH), np.int64)
        rs = np.array([rng.getrandbits(32) or 1], np.int64)
        pairs = 1 if find_game(view.game).pairs else 0
        per_sample = PLAYOUTS_PER_SAMPLE * len(candidates)
        budget, seconds = self.budget.playouts, self.budget.seconds
        deadline = None if seconds is None else time.perf_counter() + seconds
        done = 0
        while True:
            hands, stock = knowledge.sample(rng, view.stock_size)
            root.copy_from(base)
            root.set_hidden(hands, stock)
            n = root.legal_count()
            legal = [root.move(i) for i in range(n)]
            for c, move in enumerate(candidates):
                rows[c] = root.moves[legal.index(move)]
            k.evaluate(
                rules.arrays,
                root.pos,
                work.pos,
                rows,
                PLAYOUTS_PER_SAMPLE,
                GREED,
                rs,
                view.seat,
                pairs,
                gained,
                totals,
            )
            done += per_sample
            if budget is not None and done >= budget:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.playouts_done += done
        return totals, done // len(candidates)

    def _fast_rules(self, view: View) -> FastRules:
        first = view.hand_number == 1
        key = (view.game, repr(sorted(view.options.items())), first)
        rules = self._rules.get(key)
        if rules is None:
            traits = find_game(view.game).traits(view.options, first)
            if traits.scoring is HandScoring.PLACES_ONLY:
                # A hand that only ranks (DR-07) is searched for the score it would
                # have as in Doubles (DR-10): the same aim, going out, else the fewest
                # pips, measured in pips.
                traits = replace(traits, scoring=HandScoring.WINNER_TAKES)
            rules = self._rules[key] = rules_of(view.game, traits)
        return rules


def warm_up(game: str | None = None, options: dict[str, Any] | None = None) -> None:
    """Compile (or load) the kernel functions the search uses, with one tiny search
    (of ``game``, by default the first game pips knows: the functions are the same for
    every game)."""
    spec = all_games()[0] if game is None else find_game(game)
    chosen = dict(spec.defaults) if options is None else options
    state = spec.new_hand(spec.options_from_json(chosen), random.Random(0))
    seat = state.current_seat
    assert seat is not None
    SearchBot("2").evaluate(state.view(seat), list(state.legal_moves())[:1], random.Random(0))
