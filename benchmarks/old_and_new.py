"""The same measurements of an older revision of pips and of this tree, in one command.

A change of structure must change no figure: this runs, for each tree in turn and in
interleaved rounds (so a noisy neighbour slows both alike), in a process of its own:

* the engine: random FIDO hands (double-12, five players) and partnership hands
  through the public API (``new_hand``, ``legal_moves``, ``play``), moves per second;
* the bots: one seeded match per game between ``search``, ``expert`` and ``greedy``
  (``pips simulate``'s driver): the final scores must be equal, move for move the same
  decisions, and the seconds they took are compared;
* the records: every game written and replayed (``write_record``, ``replay``).

It reports each figure of both trees and the ratio new / old (1.0: the same speed), and
whether the bots' results are identical.

    python -m benchmarks.old_and_new 14faae1          # the revision to compare with
    python -m benchmarks.old_and_new 14faae1 --rounds 3

Results: ``benchmarks/results/old_and_new.json`` and ``old_and_new.png``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from benchmarks.common import ROOT, source_tree

PROBE = r"""
import json, random, sys, time
import pips
from pips import record
from pips.bots.base import make_bot
from pips.games.registry import find_game
from pips.sim import play_game

assert pips.__file__.startswith(sys.argv[1]), pips.__file__
seed = int(sys.argv[2])
out = {}

def options_of(spec, data):
    return spec.options_from_json(data)

def engine(game, data, seconds):
    spec = find_game(game)
    options = options_of(spec, data)
    rng = random.Random(seed)
    moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = spec.new_hand(options, rng)
        while not state.is_over:
            legal = state.legal_moves()
            state.play(legal[rng.randrange(len(legal))])
            moves += 1
    out[f"engine {game}: moves/s"] = moves / (time.perf_counter() - start)

engine("fido", {"players": 5, "set": 12}, 1.5)
engine("partnership", {"players": 4}, 1.5)

results = {}
bot_seconds = 0.0
record_seconds = 0.0
for game, data, bots in (
    ("fido", {"players": 3, "set": 9}, ("search:easy", "expert", "greedy")),
    ("partnership", {"players": 4}, ("search:easy", "greedy", "expert", "greedy")),
    ("doubles", {"players": 3, "target": 50}, ("search:easy", "expert", "greedy")),
):
    spec = find_game(game)
    options = options_of(spec, data)
    start = time.perf_counter()
    match = play_game(spec, options, [make_bot(b) for b in bots], seed)
    bot_seconds += time.perf_counter() - start
    names = [f"p{i}" for i in range(len(bots))]
    again = record.replay(json.loads(record.dumps(record.write_record(match, names, seed=seed))))
    start = time.perf_counter()  # after a first pass: what is imported on first use is not timed
    for _ in range(10):
        written = record.write_record(match, names, seed=seed)
        again = record.replay(json.loads(record.dumps(written)))
    record_seconds += time.perf_counter() - start
    results[game] = [list(match.scores), len(again.match.hand_states)]
out["bots' matches: seconds"] = bot_seconds
out["records written and replayed (10 times): seconds"] = record_seconds
out["results"] = results
print(json.dumps(out))
"""


def measure(tree: Path, seed: int) -> dict[str, Any]:
    """One round of every figure, in a process that imports pips from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tree / "src"), str(seed)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the probe failed in {tree}:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revision", help="the older revision (a commit, tag or branch)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds per tree")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args()
    console = Console()
    with source_tree(args.revision) as old:
        figures = compare({"old": old, "new": ROOT}, args.rounds, console)
    report(figures, args.revision, args.out, console)


def compare(trees: dict[str, Path], rounds: int, console: Console) -> dict[str, Any]:
    best: dict[str, dict[str, float]] = {name: {} for name in trees}
    results: dict[str, list[Any]] = {name: [] for name in trees}
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("old and new, in turns", total=rounds * len(trees))
        for round_number in range(rounds):
            for name, tree in trees.items():
                found = measure(tree, 1 + round_number)
                results[name].append(found.pop("results"))
                for figure, value in found.items():
                    kept = best[name].get(figure)
                    if kept is None or (value > kept if figure.endswith("/s") else value < kept):
                        best[name][figure] = value
                progress.advance(task)
    return {"best": best, "identical": results["old"] == results["new"]}


def report(figures: dict[str, Any], revision: str, folder: Path, console: Console) -> None:
    best = figures["best"]
    table = Table(title=f"{revision} (old) and this tree (new), the best of each")
    for column in ("figure", "old", "new", "new / old"):
        table.add_column(column, justify="left" if column == "figure" else "right")
    ratios = {}
    for figure, old in best["old"].items():
        new = best["new"][figure]
        ratios[figure] = new / old
        table.add_row(figure, f"{old:,.2f}", f"{new:,.2f}", f"{new / old:.3f}")
    console.print(table)
    same = "identical" if figures["identical"] else "DIFFERENT"
    console.print(f"the bots' matches and the replayed records: {same} in every round")
    folder.mkdir(parents=True, exist_ok=True)
    data = {"revision": revision, **figures, "ratios": ratios}
    (folder / "old_and_new.json").write_text(json.dumps(data, indent=2) + "\n")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 3))
    names = list(ratios)
    axes.barh(names, [ratios[n] for n in names], color="#4c72b0")
    axes.axvline(1.0, color="black", linewidth=0.8)
    axes.set_xlabel("new / old (speed: higher is faster; seconds: lower is faster)")
    axes.set_title(f"this tree against {revision}")
    figure.tight_layout()
    figure.savefig(folder / "old_and_new.png", dpi=120)
    console.print(f"written to {folder / 'old_and_new.json'} and old_and_new.png")


if __name__ == "__main__":
    main()
