"""How fast random FIDO hands run through the public engine API.

For every set and 3, 5 and 9 players, random legal moves are played until the hand
ends (``FidoState.new_hand``, ``legal_moves``, ``play``), and the script reports hands per
second, moves per hand and microseconds per move. The cells are measured in several
interleaved rounds and the best round of each is kept, so a noisy neighbour slows all
cells alike instead of one.

The figure that matters is a ratio within this one run: the cost of a move with
double-18 over the cost with double-6, for each player count (target: at most 1.5).

    python benchmarks/fido_speed.py                 # about 30 seconds
    python benchmarks/fido_speed.py --rounds 2      # a quick look

Results go to ``benchmarks/results/fido_speed.json`` and ``fido_speed.png``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from pips import __version__
from pips.games.fido import FidoOptions, FidoState

SETS = (6, 9, 12, 15, 18)
PLAYERS = (3, 5, 9)
TARGET_RATIO = 1.5


def measure(options: FidoOptions, seconds: float, first_seed: int) -> dict[str, float]:
    """Play random hands for about ``seconds``; totals of hands, moves and time."""
    rng = random.Random(first_seed)
    hands = moves = 0
    elapsed = 0.0
    seed = first_seed
    while elapsed < seconds:
        start = time.perf_counter()
        state = FidoState.new_hand(options, random.Random(seed))
        while not state.is_over:
            legal = state.legal_moves()
            state.play(legal[0] if len(legal) == 1 else rng.choice(legal))
            moves += 1
        elapsed += time.perf_counter() - start
        hands += 1
        seed += 1
    return {"hands": hands, "moves": moves, "seconds": elapsed}


def run(seconds: float, rounds: int, out_dir: Path) -> dict[str, Any]:
    console = Console(stderr=True)
    cells = [(players, top) for players in PLAYERS for top in SETS]
    best: dict[tuple[int, int], dict[str, float]] = {}
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("random FIDO hands", total=len(cells) * rounds)
        for round_number in range(rounds):
            for players, top in cells:
                result = measure(
                    FidoOptions(players=players, set=top), seconds, 1000 * round_number
                )
                cost = result["seconds"] / result["moves"]
                kept = best.get((players, top))
                if kept is None or cost < kept["seconds"] / kept["moves"]:
                    best[(players, top)] = result
                progress.advance(task)

    rows: list[dict[str, Any]] = []
    for (players, top), result in sorted(best.items()):
        rows.append(
            {
                "players": players,
                "set": top,
                "hands_per_second": result["hands"] / result["seconds"],
                "moves_per_hand": result["moves"] / result["hands"],
                "microseconds_per_move": 1e6 * result["seconds"] / result["moves"],
                "hands_measured": result["hands"],
            }
        )
    per_move = {(r["players"], r["set"]): r["microseconds_per_move"] for r in rows}
    ratios = {players: per_move[(players, 18)] / per_move[(players, 6)] for players in PLAYERS}
    report = {
        "benchmark": "fido_speed",
        "pips": __version__,
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "seconds_per_cell": seconds,
        "rounds": rounds,
        "rows": rows,
        "ratio_per_move_double18_over_double6": {str(p): r for p, r in ratios.items()},
        "target_ratio": TARGET_RATIO,
        "met": all(r <= TARGET_RATIO for r in ratios.values()),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "fido_speed.json").write_text(json.dumps(report, indent=1) + "\n")
    draw(rows, ratios, out_dir / "fido_speed.png")

    table = Table(title="Random FIDO hands (best of rounds)")
    for column in ("players", "set", "hands/s", "moves/hand", "µs/move"):
        table.add_column(column, justify="right")
    for r in rows:
        table.add_row(
            str(r["players"]),
            f"double-{r['set']}",
            f"{r['hands_per_second']:.0f}",
            f"{r['moves_per_hand']:.1f}",
            f"{r['microseconds_per_move']:.1f}",
        )
    out = Console()
    out.print(table)
    for players, ratio in ratios.items():
        verdict = "met" if ratio <= TARGET_RATIO else "MISSED"
        out.print(
            f"{players} players: µs/move double-18 / double-6 = {ratio:.2f} "
            f"(target ≤ {TARGET_RATIO}: {verdict})"
        )
    out.print(f"written: {out_dir / 'fido_speed.json'}, {out_dir / 'fido_speed.png'}")
    return report


def draw(rows: list[dict[str, Any]], ratios: dict[int, float], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (cost, rate) = plt.subplots(1, 2, figsize=(10, 4))
    for players in PLAYERS:
        mine = [r for r in rows if r["players"] == players]
        sets = [r["set"] for r in mine]
        cost.plot(
            sets,
            [r["microseconds_per_move"] for r in mine],
            marker="o",
            label=f"{players} players (d18/d6 = {ratios[players]:.2f})",
        )
        rate.plot(
            sets, [r["hands_per_second"] for r in mine], marker="o", label=f"{players} players"
        )
    cost.set(
        title="Cost per move",
        xlabel="set (double-n)",
        ylabel="µs per move",
        xticks=SETS,
        ylim=(0, None),
    )
    rate.set(
        title="Random hands per second",
        xlabel="set (double-n)",
        ylabel="hands/s",
        xticks=SETS,
        yscale="log",
    )
    cost.legend()
    rate.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=0.25, help="time per cell and round")
    parser.add_argument("--rounds", type=int, default=8, help="interleaved rounds per cell")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    if args.seconds <= 0 or args.rounds < 1:
        parser.error("--seconds must be positive and --rounds at least 1")
    run(args.seconds, args.rounds, args.out)


if __name__ == "__main__":
    main()
