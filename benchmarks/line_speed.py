"""Random hands per second for the family, draw, Doubles and partnership games.

Every hand goes through pips' full public API: the game's ``new_hand``, ``legal_moves``
and ``play`` for every move, then ``record.write_record`` and ``record.dumps`` for the
finished hand, as a program that stores its games would. For the partnership game the
same command also plays random games of the ``dominoes`` package (the same four-player,
double-six, no-stock hand; install it with ``pip install -e '.[bench]'``) and reports
pips' rate as a ratio to it (target: at least 2).

Cells are measured in interleaved rounds and the best round of each is kept, so that a
noisy neighbour slows every cell alike.

    python -m benchmarks.line_speed               # about 20 seconds
    python -m benchmarks.line_speed --rounds 2    # a quick look

Results go to ``benchmarks/results/line_speed.json`` and ``line_speed.png``.
"""

from __future__ import annotations

import functools
import json
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.common import bar_chart, best_rounds, round_arguments
from pips import __version__, record
from pips.games.registry import find_game

CELLS: list[tuple[str, dict[str, Any]]] = [
    ("family", {"players": 4}),
    ("draw", {"players": 4}),
    ("doubles", {"players": 4}),
    ("partnership", {"teams": "fixed"}),
]
TARGET_RATIO = 2.0
"""Partnership hands per second through pips' public API over the ``dominoes`` package."""


def pips_hands(game: str, options: dict[str, Any], recorded: bool = True) -> Callable[[int], int]:
    """One random hand per call (seeded), recorded unless told; returns the moves."""
    spec = find_game(game)
    resolved = spec.options_from_json(options)
    names = [f"p{i}" for i in range(resolved.players)]

    def one(seed: int) -> int:
        rng = random.Random(seed)
        state = spec.new_hand(resolved, rng)
        moves = 0
        while not state.is_over:
            legal = state.legal_moves()
            state.play(legal[0] if len(legal) == 1 else rng.choice(legal))
            moves += 1
        if recorded:
            record.dumps(record.write_record(state, names, seed=seed))
        return moves

    return one


def dominoes_games() -> Callable[[int], int]:
    """One random game of the ``dominoes`` package per call, as its own random player
    plays it."""
    import dominoes

    def one(seed: int) -> int:
        random.seed(seed)  # the package draws from the global random module
        game = dominoes.Game.new()
        moves = 0
        while game.result is None:
            dominoes.players.random(game)
            game.make_move(*game.valid_moves[0])
            moves += 1
        return moves

    return one


def measure(one: Callable[[int], int], seconds: float, first_seed: int) -> dict[str, float]:
    hands = moves = 0
    elapsed = 0.0
    seed = first_seed
    while elapsed < seconds:
        start = time.perf_counter()
        moves += one(seed)
        elapsed += time.perf_counter() - start
        hands += 1
        seed += 1
    return {"hands": hands, "moves": moves, "seconds": elapsed}


def run(seconds: float, rounds: int, out_dir: Path) -> dict[str, Any]:
    console = Console(stderr=True)
    runners: dict[str, Callable[[int], int]] = {
        game: pips_hands(game, options) for game, options in CELLS
    }
    # The same partnership hands without writing records: how the time divides.
    runners["partnership, no record"] = pips_hands("partnership", {"teams": "fixed"}, False)
    try:
        runners["dominoes (PyPI)"] = dominoes_games()
    except ImportError:
        console.print("the dominoes package is not installed: pip install -e '.[bench]'")
    best = best_rounds(
        {name: functools.partial(measure, one, seconds) for name, one in runners.items()},
        rounds,
        console,
    )
    rows: list[dict[str, Any]] = [
        {
            "game": name,
            "hands_per_second": r["hands"] / r["seconds"],
            "moves_per_hand": r["moves"] / r["hands"],
            "microseconds_per_move": 1e6 * r["seconds"] / r["moves"],
            "hands_measured": r["hands"],
        }
        for name, r in best.items()
    ]
    rate = {r["game"]: r["hands_per_second"] for r in rows}
    ratio = rate["partnership"] / rate["dominoes (PyPI)"] if "dominoes (PyPI)" in rate else None
    report = {
        "benchmark": "line_speed",
        "pips": __version__,
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "seconds_per_cell": seconds,
        "rounds": rounds,
        "measured": "new_hand + legal_moves + play per move + write_record + dumps per hand",
        "rows": rows,
        "partnership_over_dominoes": ratio,
        "target_ratio": TARGET_RATIO,
        "met": ratio is not None and ratio >= TARGET_RATIO,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "line_speed.json").write_text(json.dumps(report, indent=1) + "\n")
    draw(rows, ratio, out_dir / "line_speed.png")

    table = Table(title="Random hands through the public API, records included (best round)")
    for column in ("game", "hands/s", "moves/hand", "µs/move"):
        table.add_column(column, justify="left" if column == "game" else "right")
    for r in rows:
        table.add_row(
            r["game"],
            f"{r['hands_per_second']:.0f}",
            f"{r['moves_per_hand']:.1f}",
            f"{r['microseconds_per_move']:.1f}",
        )
    out = Console()
    out.print(table)
    if ratio is not None:
        verdict = "met" if ratio >= TARGET_RATIO else "MISSED"
        out.print(
            f"partnership hands/s over dominoes games/s = {ratio:.2f} "
            f"(target ≥ {TARGET_RATIO}: {verdict})"
        )
    out.print(f"written: {out_dir / 'line_speed.json'}, {out_dir / 'line_speed.png'}")
    return report


def draw(rows: list[dict[str, Any]], ratio: float | None, path: Path) -> None:
    names = [r["game"] for r in rows]
    colours = [
        "tab:gray" if "dominoes" in n else "tab:cyan" if "no record" in n else "tab:blue"
        for n in names
    ]
    title = "Random hands per second (pips with records; without: cyan; baseline: grey)"
    if ratio is not None:
        title += f"\npartnership / dominoes = {ratio:.2f} (target ≥ {TARGET_RATIO})"
    bar_chart(names, [r["hands_per_second"] for r in rows], colours, title, path)


def main() -> None:
    args = round_arguments(__doc__ or "", 0.5, 6)
    run(args.seconds, args.rounds, args.out)


if __name__ == "__main__":
    main()
