"""What the speed benchmarks share: interleaved best-of rounds, a bar chart, and an
older revision's source beside this tree."""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import Progress

ROOT = Path(__file__).resolve().parents[1]

Measure = Callable[[int], dict[str, float]]
"""Runs one cell for one round from a seed; returns ``hands``, ``moves``, ``seconds``."""


def best_rounds(
    cells: Mapping[str, Measure], rounds: int, console: Console
) -> dict[str, dict[str, float]]:
    """Every cell once per round, rounds interleaved, the fastest round of each kept:
    a noisy neighbour slows every cell alike, and the best round is the least disturbed."""
    best: dict[str, dict[str, float]] = {}
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("random hands", total=len(cells) * rounds)
        for round_number in range(rounds):
            for name, measure in cells.items():
                result = measure(1000 * round_number)
                kept = best.get(name)
                if kept is None or result["hands"] / result["seconds"] > (
                    kept["hands"] / kept["seconds"]
                ):
                    best[name] = result
                progress.advance(task)
    return best


def bar_chart(
    names: Sequence[str],
    values: Sequence[float],
    colours: Sequence[str],
    title: str,
    path: Path,
    log: bool = False,
) -> None:
    """Hands per second as bars, written to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(10, 4.5))
    axes.bar(names, values, color=colours)
    if log:
        axes.set_yscale("log")
    axes.set(title=title, ylabel="hands/s")
    axes.tick_params(axis="x", labelrotation=15)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def round_arguments(doc: str, seconds: float, rounds: int) -> argparse.Namespace:
    """``--seconds``, ``--rounds`` and ``--out`` of a speed benchmark, checked."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=seconds, help="time per cell and round")
    parser.add_argument("--rounds", type=int, default=rounds, help="interleaved rounds per cell")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    if args.seconds <= 0 or args.rounds < 1:
        parser.error("--seconds must be positive and --rounds at least 1")
    return args


@contextlib.contextmanager
def source_tree(revision: str) -> Iterator[Path]:
    """The source of ``revision`` (``.``: this tree, as it is) in a worktree of its own
    for the time of the run."""
    if revision == ".":
        yield ROOT
        return
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "tree"
        git = ["git", "-C", str(ROOT), "worktree"]
        subprocess.run(
            [*git, "add", "--detach", str(tree), revision], check=True, capture_output=True
        )
        try:
            yield tree
        finally:
            subprocess.run([*git, "remove", "--force", str(tree)], check=False, capture_output=True)
