"""How long a championship round's draw takes (issue 34): 120 FIDO players of twelve
clubs at tables of three to nine, six rounds.

    python -m benchmarks.championship_draw              # 120 players, 6 rounds, 5 seeds
    python -m benchmarks.championship_draw --players 240 --seeds 3

Per seed, in this process: round 1 by lot with 30 seeds and the clubs apart, then five
rounds by the standings (Swiss), each after a random result for every table; as the
baseline, the same rounds drawn by lot without clubs or seeds (the draw of a club
evening). Reported: the mean and worst time of a draw of each kind, the Swiss draw's
time as a ratio of the lot draw's, and how many pairs met again. The event service adds
reading the standings from the database to a draw; the full 120-player championship of
``tests/test_championship.py`` times that path.

Results go to ``benchmarks/results/championship_draw.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table as Grid

from pips.results.draws import Apart, RoundDraw, draw_round, draw_swiss_round
from pips.results.standings import TableResult, standings

console = Console()
OUT = Path(__file__).parent / "results"
SIZES = (3, 4, 5, 6, 7, 8, 9)


def championship(players: int, rounds: int, seed: int, *, swiss: bool) -> tuple[list[float], int]:
    """The draw times of one event's rounds, and how many pairs met again."""
    rng = random.Random(seed)
    names = [f"P{i:03d}" for i in range(players)]
    clubs = {n: f"club{i % 12}" for i, n in enumerate(names)} if swiss else {}
    seeds = {n: i + 1 for i, n in enumerate(names[:30])} if swiss else {}
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    results: list[TableResult] = []
    times: list[float] = []
    again = 0
    for number in range(1, rounds + 1):
        started = time.perf_counter()
        if swiss and number > 1:
            ranking = [s.name for s in standings(results)]
            drawn = draw_swiss_round(number, ranking, SIZES, rng, met, byes, Apart(clubs))
        else:
            apart = Apart(clubs, seeds if number == 1 else {})
            drawn = draw_round(number, names, SIZES, rng, met, byes, apart)
        times.append(time.perf_counter() - started)
        again += sum(met[pair] > 0 for pair in drawn.pairs())
        met.update(drawn.pairs())
        byes.update(drawn.byes)
        results += scores(drawn, rng)
    return times, again


def scores(drawn: RoundDraw, rng: random.Random) -> list[TableResult]:
    out = []
    for table in drawn.tables:
        finals = tuple(rng.randrange(-20, 90) for _ in table.seats)
        order = sorted(finals, reverse=True)
        places = tuple(1 + order.index(f) for f in finals)
        out.append(TableResult(drawn.number, table.number, table.seats, finals, places))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    kinds = {"lot (club evening)": False, "championship (seeds, clubs, Swiss)": True}
    times: dict[str, list[float]] = {name: [] for name in kinds}
    again: dict[str, int] = dict.fromkeys(kinds, 0)
    for name, swiss in kinds.items():
        for seed in range(args.seeds):
            drawn, repeats = championship(args.players, args.rounds, seed, swiss=swiss)
            times[name] += drawn
            again[name] += repeats
    grid = Grid(title=f"A round's draw, {args.players} players, {args.rounds} rounds")
    for column in ("draw", "mean ms", "worst ms", "pairs meeting again per event"):
        grid.add_column(column)
    report: dict[str, object] = {"players": args.players, "rounds": args.rounds}
    for name in kinds:
        mean, worst = statistics.mean(times[name]) * 1000, max(times[name]) * 1000
        grid.add_row(name, f"{mean:.0f}", f"{worst:.0f}", f"{again[name] / args.seeds:.1f}")
        report[name] = {"mean_ms": mean, "worst_ms": worst, "again": again[name] / args.seeds}
    lot, swiss_name = kinds
    ratio = statistics.mean(times[swiss_name]) / statistics.mean(times[lot])
    report["ratio"] = ratio
    console.print(grid)
    console.print(f"championship draw / lot draw: {ratio:.2f}x")
    OUT.mkdir(exist_ok=True)
    (OUT / "championship_draw.json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
