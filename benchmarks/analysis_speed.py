"""How long an analysis takes (`pips analyse`, issue 19): seconds per analysed hand for
FIDO double-12 with five players and for a partnership hand, at the search's ``normal``
level, each against a baseline in the same process: the search bot *playing* the same
hands (one search per decision of every seat, as analysis does one per decision).

    python -m benchmarks.analysis_speed            # 4 hands of each
    python -m benchmarks.analysis_speed --hands 10

Results: ``benchmarks/results/analysis_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from pips import record
from pips.bots.analysis import analyse
from pips.bots.base import make_bot
from pips.bots.search import warm_up
from pips.games.match import Match
from pips.games.registry import find_game
from pips.sim.seating import Seating

CELLS: dict[str, tuple[str, dict[str, Any]]] = {
    "FIDO double-12, 5 players": ("fido", {"players": 5, "set": 12}),
    "partnership": ("partnership", {"target": 1}),
}
RESULTS = Path(__file__).parent / "results" / "analysis_speed.json"


def one_hand(game: str, options: dict[str, Any], seed: int, bot: str) -> tuple[Any, float]:
    """A one-hand game played by ``bot`` in every seat: its record and the seconds."""
    spec = find_game(game)
    match = Match(spec, spec.options_from_json(options), random.Random(seed))
    players = match.current.players
    seating = Seating(match, [make_bot(bot) for _ in range(players)], seed)
    started = time.perf_counter()
    while len(match.hands) == 1 and not match.current.is_over:
        seating.play(seating.decide())
    seconds = time.perf_counter() - started
    return record.write_record(match, [f"{bot}-{i}" for i in range(players)], seed=seed), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=4)
    args = parser.parse_args()
    console = Console()
    warm_up()
    out: dict[str, Any] = {}
    table = Table(title="Analysis at search normal, per hand")
    for column in (
        "game",
        "hands",
        "decisions/hand",
        "analysis s/hand",
        "search play s/hand",
        "ratio",
    ):
        table.add_column(column, justify="left" if column == "game" else "right")
    for name, (game, options) in CELLS.items():
        analysed = played = 0.0
        decisions = 0
        for seed in range(args.hands):
            # The baseline: the search plays the hand; then the greedy record of the
            # same deal is analysed (the analysis does not depend on who played).
            _, seconds = one_hand(game, options, seed, "search")
            played += seconds
            data, _ = one_hand(game, options, seed, "greedy")
            replayed = record.replay(data)
            started = time.perf_counter()
            found = analyse(replayed, "normal", seed=1)
            analysed += time.perf_counter() - started
            decisions += sum(1 for d in found.decisions if d.hand == 1)
            console.print(f"{name}: hand {seed + 1} of {args.hands}", style="dim")
        cell = {
            "hands": args.hands,
            "decisions_per_hand": decisions / args.hands,
            "analysis_seconds_per_hand": analysed / args.hands,
            "search_play_seconds_per_hand": played / args.hands,
            "ratio": analysed / played,
        }
        out[name] = cell
        table.add_row(
            name,
            str(args.hands),
            f"{cell['decisions_per_hand']:.0f}",
            f"{cell['analysis_seconds_per_hand']:.2f}",
            f"{cell['search_play_seconds_per_hand']:.2f}",
            f"{cell['ratio']:.2f}",
        )
    console.print(table)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    console.print(f"written: {RESULTS}")


if __name__ == "__main__":
    main()
