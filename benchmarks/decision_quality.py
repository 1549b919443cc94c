"""How well each search level decides, apart from how the table then falls (issue 19).

A tournament's margin mixes two things: how good a level's choices are, and the luck of
the deal and of the others' play, which in FIDO is large (a hand's points spread about
ten points per deal between two seats, so 100 deals leave an interval of about +-2
points). This benchmark measures the first alone. Hands of FIDO double-9 for four (or
another game) are played by ``search`` seats; at every third decision where both levels
decide by playouts (more tiles left than ``hard`` solves exactly) and there is a choice,
a reference search of ``--reference`` playouts values every candidate, and each level
chooses twice from its own seeds. A choice's *loss* is the reference value of the best
candidate less that of the chosen one, in points of the search's outcome (the seat's
points less the others' mean). The reference has the same model of play as the levels
(the ``greedy:newer`` playouts): the loss measures what more search buys within that
model, not how good the model is.

    python -m benchmarks.decision_quality                         # 20 deals, FIDO d9 x4
    python -m benchmarks.decision_quality --deals 4 --reference 30000   # a quick look

Results: ``benchmarks/results/decision_quality.{json,png}``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from pips.bots.search import LEVELS, SearchBot
from pips.core.legal import representatives
from pips.games.registry import find_game

RESULTS = Path(__file__).parent / "results"
REPEATS = 2
"""Choices per level at each decision, from different seeds."""


def one_deal(
    game: str, options: dict[str, Any], seed: int, levels: list[str], reference: int
) -> dict[str, list[float]]:
    """Every level's losses at the measured decisions of one hand (seeded)."""
    spec = find_game(game)
    state = spec.new_hand(spec.options_from_json(options), random.Random(seed))
    player = SearchBot("normal")
    judge = SearchBot(str(reference))
    bots = {level: SearchBot(level) for level in levels}
    solving = max(bot.budget.solve_tiles for bot in bots.values())
    losses: dict[str, list[float]] = {level: [] for level in levels}
    move = 0
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None
        view = state.view(seat)
        moves = list(state.legal_moves())
        candidates = representatives(moves)
        held = sum(view.hand_sizes) + view.stock_size
        if len(candidates) > 1 and held > solving and move % 3 == 0:
            values = judge.expected(view, candidates, random.Random(f"judge/{seed}/{move}"))
            best = float(values.max())
            for level, bot in bots.items():
                for repeat in range(REPEATS):
                    rng = random.Random(f"{level}/{seed}/{move}/{repeat}")
                    chosen = candidates.index(bot.choose(view, moves, rng))
                    losses[level].append(best - float(values[chosen]))
        state.play(player.choose(view, moves, random.Random(f"play/{seed}/{move}")))
        move += 1
    return losses


def interval(values: list[float]) -> dict[str, float]:
    """Mean and 95% interval (normal approximation)."""
    n = len(values)
    mean = sum(values) / n
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / max(1, n - 1))
    half = 1.96 * spread / math.sqrt(n)
    return {"mean": mean, "low": mean - half, "high": mean + half, "n": n}


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = list(report["levels"])
    means = [report["levels"][level]["mean"] for level in levels]
    errors = [
        [m - report["levels"][level]["low"] for level, m in zip(levels, means, strict=True)],
        [report["levels"][level]["high"] - m for level, m in zip(levels, means, strict=True)],
    ]
    figure, axes = plt.subplots(figsize=(7, 4))
    axes.bar(levels, means, yerr=errors, capsize=6, color=["#8a9bb0", "#2d5f8b", "#c0703a"])
    axes.set(
        title=f"{report['game']} "
        + " ".join(f"{k}={v}" for k, v in report["options"].items())
        + f": loss per decision against {report['reference']:,} playouts",
        ylabel="points lost per decision (95% interval)",
    )
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="fido")
    parser.add_argument("--options", default='{"players": 4, "set": 9}', type=json.loads)
    parser.add_argument("--levels", default="easy,normal,hard")
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--reference", type=int, default=150_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    levels = [level for level in args.levels.split(",") if level in LEVELS]
    console = Console()
    start = time.perf_counter()
    losses: dict[str, list[float]] = {level: [] for level in levels}
    with (
        Progress(console=console, transient=True) as progress,
        ProcessPoolExecutor(args.workers) as pool,
    ):
        task = progress.add_task("deals", total=args.deals)
        jobs = [
            pool.submit(one_deal, args.game, args.options, seed, levels, args.reference)
            for seed in range(args.deals)
        ]
        # In seed order, so that the pairs below line up whatever finished first.
        done: dict[int, dict[str, list[float]]] = {}
        for job in as_completed(jobs):
            done[jobs.index(job)] = job.result()
            progress.advance(task)
    for seed in sorted(done):
        for level in levels:
            losses[level] += done[seed][level]
    report: dict[str, Any] = {
        "command": "python -m benchmarks.decision_quality "
        f"--game {args.game} --options '{json.dumps(args.options)}' --levels {args.levels} "
        f"--deals {args.deals} --reference {args.reference}",
        "game": args.game,
        "options": args.options,
        "reference": args.reference,
        "deals": args.deals,
        "seconds": round(time.perf_counter() - start, 1),
        "levels": {level: interval(losses[level]) for level in levels},
        "differences": {
            f"{a} - {b}": interval([x - y for x, y in zip(losses[a], losses[b], strict=True)])
            for a, b in itertools.pairwise(levels)
        },
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "decision_quality.json").write_text(json.dumps(report, indent=1) + "\n")
    plot(report, args.out / "decision_quality.png")
    table = Table("level", "loss per decision", "95% interval", "decisions")
    for level, got in report["levels"].items():
        table.add_row(
            level, f"{got['mean']:.3f}", f"[{got['low']:.3f}, {got['high']:.3f}]", str(got["n"])
        )
    console.print(table)
    for pair, got in report["differences"].items():
        console.print(f"{pair}: {got['mean']:+.3f} [{got['low']:+.3f}, {got['high']:+.3f}]")
    console.print(f"written: {args.out / 'decision_quality.json'} ({report['seconds']} s)")


if __name__ == "__main__":
    main()
