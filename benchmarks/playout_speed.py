"""Random hands per second in the playout kernel, against the ``dominoes`` package.

The search bot's strength is playouts per second. This measures the kernel
(:mod:`pips.bots.kernel`, compiled by numba) dealing and playing uniformly random first
hands of every game on one core, and in the same command random games of the PyPI
``dominoes`` package (four players, double-six, no stock: the partnership hand; install
it with ``pip install -e '.[bench]'``). Target: partnership hands per second at least
100 times the package's games per second. For scale it also runs the pure-Python path of
the same kernel (``PIPS_NO_JIT=1``) in a child process, briefly.

Cells are measured in interleaved rounds and the best round of each is kept, so that a
noisy neighbour slows every cell alike.

    python benchmarks/playout_speed.py             # about 30 seconds (first run compiles)
    python benchmarks/playout_speed.py --rounds 2  # a quick look

Results go to ``benchmarks/results/playout_speed.json`` and ``playout_speed.png``.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.common import bar_chart, best_rounds, round_arguments
from benchmarks.line_speed import dominoes_games, measure
from pips import __version__
from pips.bots import kernel
from pips.bots.fast import fast_rules, random_hands
from pips.games.registry import find_game

CELLS: list[tuple[str, dict[str, Any]]] = [
    ("partnership", {"teams": "fixed"}),
    ("fido", {"players": 5, "set": 12}),
    ("family", {"players": 4}),
    ("draw", {"players": 4}),
    ("doubles", {"players": 4}),
]
TARGET_RATIO = 100.0
"""Kernel partnership hands per second over the ``dominoes`` package's games per second."""
BATCH = 20_000
"""Hands per kernel call: large enough that the call from Python costs nothing."""


def kernel_hands(game: str, options: dict[str, Any]) -> Callable[[int], int]:
    """``BATCH`` random first hands per call; returns the moves played."""
    spec = find_game(game)
    rules = fast_rules(game, spec.options_from_json(options))
    random_hands(rules, 10, 0)  # compile (or load the cache) outside the timing

    def batch(seed: int) -> int:
        return random_hands(rules, BATCH, seed)[0]

    return batch


def measure_batches(batch: Callable[[int], int], seconds: float, seed: int) -> dict[str, float]:
    result = measure(batch, seconds, seed)
    return {**result, "hands": result["hands"] * BATCH}


def pure_python_rate() -> float:
    """Partnership hands per second of the uncompiled kernel, in a child process."""
    code = (
        "import time; from pips.bots.fast import fast_rules, random_hands;"
        "from pips.games.partnership import PartnershipOptions as O;"
        "r = fast_rules('partnership', O()); t = time.perf_counter();"
        "random_hands(r, 20, 1); print(20 / (time.perf_counter() - t))"
    )
    env = {**os.environ, "PIPS_NO_JIT": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip())


def run(seconds: float, rounds: int, out_dir: Path) -> dict[str, Any]:
    console = Console(stderr=True)
    if not kernel.COMPILED:
        console.print("numba is not in use: the kernel runs as plain Python")
    runners: dict[str, tuple[Callable[[int], int], bool]] = {
        f"{game} (kernel)": (kernel_hands(game, options), True) for game, options in CELLS
    }
    try:
        runners["dominoes (PyPI)"] = (dominoes_games(), False)
    except ImportError:
        console.print("the dominoes package is not installed: pip install -e '.[bench]'")
    best = best_rounds(
        {
            name: functools.partial(measure_batches if batched else measure, one, seconds)
            for name, (one, batched) in runners.items()
        },
        rounds,
        console,
    )
    rows: list[dict[str, Any]] = [
        {
            "cell": name,
            "hands_per_second": r["hands"] / r["seconds"],
            "moves_per_hand": r["moves"] / r["hands"],
            "nanoseconds_per_move": 1e9 * r["seconds"] / r["moves"],
            "hands_measured": r["hands"],
        }
        for name, r in best.items()
    ]
    pure = pure_python_rate()
    rows.append(
        {
            "cell": "partnership (kernel, pure Python)",
            "hands_per_second": pure,
            "moves_per_hand": None,
            "nanoseconds_per_move": None,
            "hands_measured": 20,
        }
    )
    rate = {r["cell"]: r["hands_per_second"] for r in rows}
    baseline = rate.get("dominoes (PyPI)")
    ratio = rate["partnership (kernel)"] / baseline if baseline else None
    report = {
        "benchmark": "playout_speed",
        "pips": __version__,
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "compiled": kernel.COMPILED,
        "seconds_per_cell": seconds,
        "rounds": rounds,
        "measured": "deal + uniformly random play + hand points, one core, best round",
        "rows": rows,
        "partnership_over_dominoes": ratio,
        "target_ratio": TARGET_RATIO,
        "met": ratio is not None and ratio >= TARGET_RATIO,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "playout_speed.json").write_text(json.dumps(report, indent=1) + "\n")
    draw(rows, ratio, out_dir / "playout_speed.png")

    table = Table(title="Random hands per second, one core (best round)")
    for column in ("cell", "hands/s", "moves/hand", "ns/move"):
        table.add_column(column, justify="left" if column == "cell" else "right")
    for r in rows:
        table.add_row(
            r["cell"],
            f"{r['hands_per_second']:.0f}",
            "" if r["moves_per_hand"] is None else f"{r['moves_per_hand']:.1f}",
            "" if r["nanoseconds_per_move"] is None else f"{r['nanoseconds_per_move']:.0f}",
        )
    out = Console()
    out.print(table)
    if ratio is not None:
        verdict = "met" if ratio >= TARGET_RATIO else "MISSED"
        out.print(
            f"partnership kernel hands/s over dominoes games/s = {ratio:.0f} "
            f"(target ≥ {TARGET_RATIO:.0f}: {verdict})"
        )
    out.print(f"written: {out_dir / 'playout_speed.json'}, {out_dir / 'playout_speed.png'}")
    return report


def draw(rows: list[dict[str, Any]], ratio: float | None, path: Path) -> None:
    names = [r["cell"] for r in rows]
    colours = ["tab:gray" if "dominoes" in n else "tab:blue" for n in names]
    title = "Random hands per second, one core (log scale; baseline grey)"
    if ratio is not None:
        title += f"\npartnership kernel / dominoes = {ratio:.0f} (target ≥ {TARGET_RATIO:.0f})"
    bar_chart(names, [r["hands_per_second"] for r in rows], colours, title, path, log=True)


def main() -> None:
    args = round_arguments(__doc__ or "", 1.0, 5)
    start = time.perf_counter()
    run(args.seconds, args.rounds, args.out)
    Console(stderr=True).print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
