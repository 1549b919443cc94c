"""What a finished game's sheet usually says: the spread of running points and pips left
at each game, set and number of players, measured from games the expert bot plays
against itself.

The results service warns about an entered value far outside this spread ("unusual:
550 running points; most games at this size end under 150 — check the sheet",
:mod:`pips.results.plausible`): a typo the hard bounds of the rules cannot catch,
because 550 points is possible in a hand of double-12, only never seen.

The figures live in ``pips/results/data/typical.json``, written by
``python -m pips.sim.typical`` (about 15 minutes on two cores); the test suite plays
fresh games and checks that the figures still describe them.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pips.bots.base import make_bot
from pips.games.registry import all_games, find_game
from pips.sim import play_game

QUANTILES = (0.5, 0.9, 0.99, 0.995)
"""The quantiles kept of each column: the median, and how high the usual goes."""

BOT = "expert"
DATA = Path(__file__).resolve().parents[1] / "results" / "data" / "typical.json"


@dataclass(frozen=True)
class Size:
    """A game at one set and one number of players."""

    game: str
    top: int
    players: int

    @property
    def key(self) -> str:
        return f"{self.game}/{self.top}/{self.players}"


def sizes() -> Iterator[Size]:
    """Every game, set and number of players a result can be entered for."""
    for spec in all_games():
        for top in spec.sets:
            for players in spec.player_counts:
                try:
                    spec.example.changed(players=players, set=top)
                except Exception:  # a set too small for so many players
                    continue
                yield Size(spec.name, top, players)


def sheet_lines(size: Size, seed: int) -> list[tuple[int, int]]:
    """The (points, pips) each player of one bot game writes on the sheet, as a
    result from a record is read (:func:`~pips.results.entry_formats.entry_from_record`)."""
    spec = find_game(size.game)
    options = spec.example.changed(players=size.players, set=size.top)
    match = play_game(spec, options, [make_bot(BOT)] * size.players, seed)
    states = match.hand_states
    last = states[-1].result
    assert last is not None
    if spec.entry.pips and len(states) == 1:
        points = last.points if spec.entry.points else (0,) * size.players
        return [(int(points[seat]), int(last.pips[seat])) for seat in range(size.players)]
    result = match.result
    assert result is not None
    final = result.final
    return [(int(final[seat]), 0) for seat in range(size.players)]


def quantile(values: Sequence[int], q: float) -> int:
    """The ``q`` quantile of ``values`` (nearest rank, so always a value seen)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def measure(size: Size, games: int, first_seed: int) -> dict[str, Any]:
    points: list[int] = []
    pips: list[int] = []
    for seed in range(first_seed, first_seed + games):
        for p, q in sheet_lines(size, seed):
            points.append(p)
            pips.append(q)
    return {
        "games": games,
        "points": [quantile(points, q) for q in QUANTILES],
        "pips": [quantile(pips, q) for q in QUANTILES],
    }


def _measure_one(args: tuple[Size, int, int]) -> tuple[str, dict[str, Any]]:
    size, games, seed = args
    return size.key, measure(size, games, seed)


def build(chosen: Iterable[Size], games: int, seed: int, workers: int) -> dict[str, Any]:
    from rich.progress import Progress

    work = [(size, games, seed) for size in chosen]
    found: dict[str, Any] = {}
    with ProcessPoolExecutor(workers) as pool, Progress() as progress:
        task = progress.add_task("games played", total=len(work))
        for key, figures in pool.map(_measure_one, work):
            found[key] = figures
            progress.advance(task)
    return {
        "bot": BOT,
        "quantiles": list(QUANTILES),
        "seed": seed,
        "sizes": dict(sorted(found.items())),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games per size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args(argv)
    data = build(sizes(), args.games, args.seed, args.workers)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"{len(data['sizes'])} sizes written to {args.out}")


if __name__ == "__main__":
    main()
