"""How many scoring plays a FIDO game has, per set and player count: the rows the
printed score sheet needs (``pips.results.sheet.SCORING_ROWS``).

Plays simulated games between bots (half greedy, half expert, seeded, so the run
replays) and prints the median, 99th percentile and maximum of the scoring plays of a
game, and the table to paste. Run: ``python scripts/scoring_plays.py --games 200``.
"""

from __future__ import annotations

import argparse
import statistics

from rich.progress import Progress

from pips.bots.base import make_bot
from pips.games.fido import DIVISORS, HAND_SIZES
from pips.games.registry import find_game
from pips.sim import play_game


def scoring_plays(top: int, players: int, games: int, seed: int) -> list[int]:
    spec = find_game("fido")
    options = spec.options_from_json({"players": players, "set": top})
    counts = []
    for number in range(games):
        kinds = ["greedy" if (seat + number) % 2 else "expert" for seat in range(players)]
        match = play_game(spec, options, [make_bot(k) for k in kinds], seed + number)
        counts.append(sum(1 for event in match.hands[0].history if event.points > 0))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sets", type=int, nargs="*", default=list(DIVISORS))
    parser.add_argument("--players", type=int, nargs="*", default=list(HAND_SIZES))
    args = parser.parse_args()
    table: dict[tuple[int, int], int] = {}
    cells = [(top, players) for top in args.sets for players in args.players]
    with Progress() as progress:
        task = progress.add_task("simulating", total=len(cells))
        for top, players in cells:
            counts = sorted(scoring_plays(top, players, args.games, args.seed))
            p99 = counts[min(len(counts) - 1, round(0.99 * (len(counts) - 1)))]
            table[(top, players)] = p99
            progress.console.print(
                f"double-{top} {players} players: median {statistics.median(counts)}, "
                f"99th percentile {p99}, most {counts[-1]}"
            )
            progress.advance(task)
    print("SCORING_ROWS = {")
    for (top, players), p99 in table.items():
        print(f"    ({top}, {players}): {p99},")
    print("}")


if __name__ == "__main__":
    main()
