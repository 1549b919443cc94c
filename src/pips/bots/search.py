"""The ``search`` bot: determinized search over deals sampled from the seat's view.

The bot sees only its view. For each decision it samples deals of the hidden tiles
consistent with everything public (:class:`~pips.bots.knowledge.Knowledge`: tiles laid,
hand sizes, the stock's size, what a seat showed it lacks by knocking or drawing) and
weighs each by how likely it makes the other seats' past plays
(:meth:`~pips.bots.knowledge.Knowledge.likelihood`). In each deal it values every
candidate move:

* once few tiles are left (``Budget.solve_tiles``), exactly: the deal is a game of
  perfect information and :class:`~pips.bots.solver.Solver` solves it (alpha-beta with
  a transposition table, compiled);
* before that, by playouts to the end of the hand in compiled code
  (:func:`pips.bots.kernel.evaluate`), mostly by the policy ``greedy:newer`` (the most
  points now, the heaviest tile, a tile that fits two ends on the newer), partly
  uniformly random, so that sampled futures are plausible without being predictable.

The candidate with the best weighted mean is played. The outcome measured is the
mover's hand points less the mean of the others', or in the partnership game its pair's
points less the other pair's.

Levels name budgets (:data:`LEVELS`): playouts per decision and deals solved, so a
decision replays exactly from the seeded random source. A time budget
(``search:0.5s``) is offered for interactive use; decisions made under it depend on the
machine's speed.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from pips.bots import kernel as k
from pips.bots.fast import FastRules, FastState, random_hands, random_source, rules_of
from pips.bots.knowledge import LINE_MODEL, UNIFORM, Knowledge, PlayModel, SeatModels
from pips.bots.solver import Solver
from pips.core.errors import OptionError
from pips.core.legal import representatives
from pips.core.moves import Move
from pips.core.phrase import phrase
from pips.core.view import MoveEvent, Options, View
from pips.games.options import GameOptions
from pips.games.registry import all_games, find_game
from pips.games.traits import HandScoring

GREED = 192
"""Out of 256: the share of policy moves in a playout (the rest are uniformly random)."""

POLICY = k.POLICY_NEWER
"""The playouts' policy: greedy, a tile that fits several places to the newest."""

PLAYOUTS_PER_SAMPLE = 2
"""Playouts per candidate in each sampled deal."""


@dataclass(frozen=True)
class Budget:
    """What a decision may spend. Playouts (or seconds) for the Monte Carlo part; once
    at most ``solve_tiles`` tiles are held or in the stock, ``solve_deals`` sampled
    deals are each solved exactly instead, falling back to playouts when a deal takes
    more than ``solve_nodes`` positions."""

    playouts: int | None = None
    seconds: float | None = None
    solve_tiles: int = 0
    solve_deals: int = 0
    solve_nodes: int = 0
    halving: int = 0
    """Rounds of successive halving over the candidates (0 or 1: none)."""

    @staticmethod
    def parse(text: str) -> Budget:
        """``easy``/``normal``/``hard``, a playout count (``5000``) or seconds (``0.5s``);
        the last two solve as ``normal`` does."""
        word = text.strip().lower()
        if word in LEVELS:
            return LEVELS[word]
        solving = LEVELS["normal"]
        try:
            if word.endswith("s"):
                seconds = float(word[:-1])
                if not 0 < seconds <= 600:
                    raise ValueError
                return replace(solving, playouts=None, seconds=seconds, solve_deals=10_000)
            playouts = int(word)
            if not 1 <= playouts <= 10_000_000:
                raise ValueError
            return replace(solving, playouts=playouts)
        except ValueError:
            raise OptionError(
                "bots",
                phrase(
                    "search level {text!r}: use easy, normal, hard, a playout count (1 to 10000000)"
                    " or seconds like 0.5s",
                    text=text,
                ),
            ) from None

    def describe(self) -> str:
        """The budget in words, for help texts and docs."""
        spend = f"{self.playouts:,} playouts" if self.seconds is None else f"{self.seconds} s"
        if self.halving > 1:
            spend += f" in {self.halving} rounds, the worse half of the moves dropped after each"
        if not self.solve_deals:
            return spend
        return (
            f"{spend}; with at most {self.solve_tiles} tiles left, {self.solve_deals} deals "
            f"solved exactly (up to {self.solve_nodes:,} positions each)"
        )


LEVELS: dict[str, Budget] = {
    "easy": Budget(playouts=300),
    "normal": Budget(playouts=3000, solve_tiles=12, solve_deals=24, solve_nodes=20_000),
    "hard": Budget(playouts=12000, solve_tiles=16, solve_deals=96, solve_nodes=100_000, halving=4),
}
"""What each level spends on a decision."""


@dataclass(frozen=True)
class _Decision:
    """What one decision's search works from."""

    view: View
    candidates: Sequence[Move]
    rng: random.Random
    rules: FastRules
    knowledge: Knowledge
    base: FastState
    deadline: float | None
    pairs: bool


class SearchBot:
    """Determinized search (see the module's text)."""

    def __init__(
        self,
        level: str = "normal",
        policy: int = POLICY,
        model: PlayModel | SeatModels | None = None,
    ) -> None:
        self.budget = Budget.parse(level)
        self.level = level
        self.policy = policy
        self.model = model
        """The model of play that weighs sampled deals (``None``: the game's, see
        :meth:`weighing`)."""
        self.name = f"search:{level}" if level != "normal" else "search"
        self._rules: dict[tuple[Options, bool], FastRules] = {}
        self._solvers: dict[int, Solver] = {}
        self.playouts_done = 0
        self.deals_solved = 0
        self.kept: np.ndarray | None = None
        """The candidates still in play when the last playout search ended (indices;
        ``None`` after an exact solve)."""

    def weighing(self, view: View) -> PlayModel | SeatModels:
        """How sampled deals are weighed by the others' plays. In the line games a seat
        is taken to shed heavy tiles (:data:`LINE_MODEL`). Where plays score as they are
        made (FIDO, F-15) deals are not weighed: the heavier-is-likelier model misled
        there (FIDO double-9 for four against ``expert``, 100 deals x 4: search with it
        -2.5 [-4.6, -0.4] points per hand, without it +1.0 [-1.0, 3.1]), and so did a
        model of players who lay what scores most (``PlayModel(pointedness=...)``,
        measured in docs/bots.md)."""
        if self.model is not None:
            return self.model
        return UNIFORM if find_game(view.game).scores_during_hand else LINE_MODEL

    def knowledge(self, view: View) -> Knowledge:
        """What the search knows of the hidden tiles: the view's public facts
        (:meth:`Knowledge.of`). A benchmark that measures what hidden tiles cost tells a
        subclass more (``benchmarks/hidden_tiles.py``); pips' own bots never see more
        than their view."""
        return Knowledge.of(view, weigh=self.weighing(view).weighs)

    def reset(self, seat: int) -> None:
        """A new hand: nothing is carried over."""

    def observe(self, event: MoveEvent) -> None:
        """Everything the bot needs is in the view it is given at its turn."""

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move:
        candidates = representatives(moves)
        if len(candidates) == 1:
            return candidates[0]
        self.kept = None
        means = self.expected(view, candidates, rng)
        if self.kept is not None:
            best = self.kept[int(np.argmax(means[self.kept]))]
            return candidates[int(best)]
        return candidates[int(np.argmax(means))]

    def expected(self, view: View, candidates: Sequence[Move], rng: random.Random) -> np.ndarray:
        """The expected outcome of each candidate (the seat's points less the others'
        mean, or its pair's less the other pair's), as the search sees it from ``view``:
        averaged over sampled deals, each weighted by its likelihood
        (:meth:`Knowledge.likelihood`)."""
        rules = self._fast_rules(view)
        knowledge = self.knowledge(view)
        base = FastState.of_view(rules, view, [], [])
        budget = self.budget
        deadline = None if budget.seconds is None else time.perf_counter() + budget.seconds
        pairs = find_game(view.game).pairs
        held = int(sum(view.hand_sizes)) + view.stock_size
        at = _Decision(view, candidates, rng, rules, knowledge, base, deadline, pairs)
        if budget.solve_deals and held <= budget.solve_tiles:
            solved = self._solve(at)
            if solved is not None:
                return solved
        return self._playouts(at)

    def _solve(self, at: _Decision) -> np.ndarray | None:
        """Each candidate's weighted mean over exactly solved deals; ``None`` when a
        deal was too deep for the budget's positions."""
        view, candidates, rng, rules = at.view, at.candidates, at.rng, at.rules
        knowledge, base, deadline, pairs = at.knowledge, at.base, at.deadline, at.pairs
        model = self.weighing(view)
        solver = self._solvers.get(id(rules))
        if solver is None:
            solver = self._solvers[id(rules)] = Solver(rules)
        root = base.copy()
        rows = np.zeros((len(candidates), k.MOVE_WIDTH), np.int64)
        totals = np.zeros(len(candidates), np.float64)
        weights = 0.0
        for _ in range(self.budget.solve_deals):
            hands, stock = knowledge.sample(rng, view.stock_size)
            root.copy_from(base)
            root.set_hidden(hands, stock)
            self._rows(root, candidates, rows)
            values = solver.values(
                root, rows, view.seat, pairs, rng.getrandbits(62), self.budget.solve_nodes
            )
            if values is None:
                return None
            weight = knowledge.likelihood(root.hand, model)
            totals += weight * values
            weights += weight
            self.deals_solved += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        return totals / weights if weights > 0 else totals

    def _playouts(self, at: _Decision) -> np.ndarray:
        """Each candidate's weighted mean outcome over playouts from sampled deals.

        With ``Budget.halving`` rounds, the playouts are spent in that many equal rounds,
        and after each round the worse half of the candidates still in play is dropped
        (successive halving): the moves that decide are compared over more deals than a
        flat split would give them. The decision is among the last kept
        (:attr:`kept`)."""
        view, candidates, rng, rules = at.view, at.candidates, at.rng, at.rules
        knowledge, base, deadline, pairs = at.knowledge, at.base, at.deadline, at.pairs
        model = self.weighing(view)
        root = base.copy()
        work = FastState(rules)
        n = len(candidates)
        totals = np.zeros(n, np.float64)
        weights = np.zeros(n, np.float64)
        gained = np.zeros(rules.players, np.int64)
        rs = np.array([rng.getrandbits(32) or 1], np.int64)
        budget = self.budget.playouts
        rounds = max(1, self.budget.halving)
        kept = np.arange(n)
        done = 0
        for round_number in range(rounds):
            share = None if budget is None else budget * (round_number + 1) // rounds
            alive = [candidates[int(i)] for i in kept]
            rows = np.zeros((len(alive), k.MOVE_WIDTH), np.int64)
            sums = np.zeros(len(alive), np.float64)
            weighed = 0.0
            while True:
                hands, stock = knowledge.sample(rng, view.stock_size)
                root.copy_from(base)
                root.set_hidden(hands, stock)
                self._rows(root, alive, rows)
                weight = knowledge.likelihood(root.hand, model)
                k.evaluate(
                    rules.arrays,
                    root.pos,
                    work.pos,
                    rows,
                    PLAYOUTS_PER_SAMPLE,
                    GREED,
                    self.policy,
                    rs,
                    view.seat,
                    1 if pairs else 0,
                    weight,
                    gained,
                    sums,
                )
                weighed += weight * PLAYOUTS_PER_SAMPLE
                done += PLAYOUTS_PER_SAMPLE * len(alive)
                if share is not None and done >= share:
                    break
                if deadline is not None and time.perf_counter() >= deadline:
                    break
            totals[kept] += sums
            weights[kept] += weighed
            if round_number + 1 < rounds and len(kept) > 2:
                means = totals[kept] / np.maximum(weights[kept], 1e-300)
                # A stable sort keeps the earlier candidate of equal means, as argmax does.
                order = np.argsort(-means, kind="stable")
                kept = np.sort(kept[order[: max(2, (len(kept) + 1) // 2)]])
        self.playouts_done += done
        self.kept = kept
        return np.where(weights > 0, totals / np.maximum(weights, 1e-300), totals)

    @staticmethod
    def _rows(root: FastState, candidates: Sequence[Move], rows: np.ndarray) -> None:
        """The kernel's move rows of ``candidates`` in ``root`` (the compiled kernel
        plays array rows, not moves: the row is the search's artefact, and its answer
        is a move again, :meth:`choose`)."""
        n = root.legal_count()
        legal = [root.move(i) for i in range(n)]
        for c, move in enumerate(candidates):
            rows[c] = root.moves[legal.index(move)]

    def _fast_rules(self, view: View) -> FastRules:
        first = view.hand_number == 1
        key = (view.options, first)
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


def warm_up(game: str | None = None, options: GameOptions | None = None) -> None:
    """Compile (or load from numba's cache) every kernel function, with one tiny search
    and one of each other use (of ``game``, by default the first game pips knows: the
    functions are the same for every game). Cold, this takes half a minute of one core;
    ``scripts/test`` runs it once before the tests, so that the test processes load the
    cache instead of each compiling the same functions."""
    spec = all_games()[0] if game is None else find_game(game)
    state = spec.new_hand(spec.example if options is None else options, random.Random(0))
    seat = state.current_seat
    assert seat is not None
    view = state.view(seat)
    moves = list(state.legal_moves())[:1]
    SearchBot("2").expected(view, moves, random.Random(0))
    rules = rules_of(spec.name, spec.traits(view.options, True))
    solver = Solver(rules)
    root = FastState.of_view(rules, view, [], [])
    knowledge = Knowledge.of(view)
    hands, stock = knowledge.sample(random.Random(0), view.stock_size)
    root.set_hidden(hands, stock)
    rows = np.zeros((1, k.MOVE_WIDTH), np.int64)
    SearchBot._rows(root, moves, rows)
    solver.values(root, rows, seat, spec.pairs, 1, 1)
    # What the information-set search and the benchmarks use besides.
    dealt = FastState.dealt(rules, random_source(0))
    dealt.hand_points()
    dealt.apply(0)
    random_hands(rules, 1, 0)
