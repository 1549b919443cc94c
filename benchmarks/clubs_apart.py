"""How many club-mates meet at a table, per round, at each strength of the organiser's
setting for keeping clubs apart (issue 50, item 7): 120 FIDO players of twelve clubs
(ten each), tables of three to nine, round 1 by lot (30 seeds apart), then Swiss rounds
by the standings after a random result for every table.

    python -m benchmarks.clubs_apart                 # 7 rounds, 10 seeds per strength
    python -m benchmarks.clubs_apart --seeds 3 --rounds 5

Counts, not times: per strength, the mean club-mate pairs at the tables of a round
(round 1 and the Swiss rounds apart), pairs meeting again per event, and how far a Swiss
draw moved anyone from their table by the standings (never more than one). As the
baseline, the same rounds with nobody's club known: the club-mate pairs chance seats.

Results go to ``benchmarks/results/clubs_apart.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table as Grid

from pips.results.draws import CLUBS_APART, Apart, RoundDraw, draw_round, draw_swiss_round
from pips.results.standings import TableResult, standings

console = Console()
OUT = Path(__file__).parent / "results"
SIZES = (3, 4, 5, 6, 7, 8, 9)
CLUBS = 12


def club_pairs(drawn: RoundDraw, clubs: dict[str, str]) -> int:
    return sum(1 for pair in drawn.pairs() if len({clubs[p] for p in pair}) == 1)


def moved(drawn: RoundDraw, ranking: list[str]) -> int:
    """The farthest anyone sits from their table by the standings (Swiss)."""
    home, start = {}, 0
    for index, table in enumerate(drawn.tables):
        home.update(dict.fromkeys(ranking[start : start + len(table.seats)], index))
        start += len(table.seats)
    return max(abs(home[p] - index) for index, t in enumerate(drawn.tables) for p in t.seats)


def event(players: int, rounds: int, seed: int, cost: int | None) -> tuple[list[int], int, int]:
    """One event: club-mate pairs per round, pairs meeting again, the farthest move.
    ``cost`` ``None``: clubs unknown to the draw (the baseline)."""
    rng = random.Random(seed)
    names = [f"P{i:03d}" for i in range(players)]
    clubs = {n: f"club{i % CLUBS}" for i, n in enumerate(names)}
    known = clubs if cost is not None else {}
    seeds = {n: i + 1 for i, n in enumerate(names[:30])}
    met: Counter[frozenset[str]] = Counter()
    byes: Counter[str] = Counter()
    results: list[TableResult] = []
    pairs, again, farthest = [], 0, 0
    for number in range(1, rounds + 1):
        if number == 1:
            apart = Apart(known, seeds, club_cost=cost or 0)
            drawn = draw_round(number, names, SIZES, rng, met, byes, apart)
        else:
            ranking = [s.name for s in standings(results)]
            apart = Apart(known, club_cost=cost or 0)
            drawn = draw_swiss_round(number, ranking, SIZES, rng, met, byes, apart)
            farthest = max(farthest, moved(drawn, ranking))
        pairs.append(club_pairs(drawn, clubs))
        again += sum(met[pair] > 0 for pair in drawn.pairs())
        met.update(drawn.pairs())
        byes.update(drawn.byes)
        for table in drawn.tables:
            finals = tuple(rng.randrange(-20, 90) for _ in table.seats)
            order = sorted(finals, reverse=True)
            places = tuple(1 + order.index(f) for f in finals)
            results.append(TableResult(number, table.number, table.seats, finals, places))
    return pairs, again, farthest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    settings: dict[str, int | None] = {"clubs unknown (baseline)": None, **CLUBS_APART}
    grid = Grid(
        title=f"Club-mate pairs per round: {args.players} players of {CLUBS} clubs, "
        f"{args.rounds} rounds, {args.seeds} events each"
    )
    for column in ("setting", "round 1", "Swiss rounds", "worst round", "again/event", "moved"):
        grid.add_column(column)
    report: dict[str, object] = {"players": args.players, "clubs": CLUBS, "rounds": args.rounds}
    for name, cost in settings.items():
        first, swiss, again, farthest = [], [], [], 0
        for seed in range(args.seeds):
            pairs, repeats, far = event(args.players, args.rounds, seed, cost)
            first.append(pairs[0])
            swiss += pairs[1:]
            again.append(repeats)
            farthest = max(farthest, far)
        row = {
            "round_1": statistics.mean(first),
            "swiss": statistics.mean(swiss),
            "worst": max(first + swiss),
            "again_per_event": statistics.mean(again),
            "farthest_move": farthest,
        }
        report[name] = row
        grid.add_row(
            name,
            f"{row['round_1']:.1f}",
            f"{row['swiss']:.1f}",
            str(row["worst"]),
            f"{row['again_per_event']:.1f}",
            str(farthest),
        )
    console.print(grid)
    OUT.mkdir(exist_ok=True)
    (OUT / "clubs_apart.json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
