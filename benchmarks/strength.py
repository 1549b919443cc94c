"""How strong the bots are: duplicate tournaments for the strength targets.

Targets (issues 4 and 19):

* partnership game: a ``search`` (``normal``) pair wins at least 75% of the hands won
  against a ``greedy`` pair, at no more than 0.25 s per decision; ``search:hard`` beats
  ``search``, ``search`` beats ``search:easy`` and ``expert``;
* FIDO double-12 with five players and double-9 with four: the same ladder
  (``search:hard`` > ``search`` > ``expert`` > ``greedy``);
* the playout policy (``greedy:newer``) beats ``greedy``, and ``search`` beats the same
  search with greedy playouts (``search-greedy-playouts``, registered here only);
* family, draw (with match scoring, so hands score) and Doubles: ``search`` beats
  ``greedy``.

Cross-play (issue 37): in the partnership game ``search:hard`` wins at least 70% of the
hands won by one side against the ``dominoes`` package's probabilistic alpha-beta
(:mod:`benchmarks.dominoes_bot`, ``pip install -e '.[bench]'``) at no more than 0.15 s a
decision, and significantly above ``search`` (normal) there: ``search`` plays the package
on the same deals and its cell compares the two paired by deal (``Cell.same_deals``).

Two cells measure what was tried and is not the default: ``ismcts`` against ``search``,
and in FIDO ``search-pointed`` (deals weighed as if every seat laid what scores most)
against ``search``. ``benchmarks.decision_quality`` measures the levels' choices apart
from the luck of the table.

"Beats" means the margin in points per hand, paired by deal, has a 95% interval above
zero. Each cell is one ``pips tournament`` (the same code, :mod:`pips.sim.tournament`),
played on every core; its folder under ``benchmarks/results/strength/`` keeps the deals,
so an interrupted run resumes. A hand is one deal played from one rotation of the seats.

    python -m benchmarks.strength                 # every cell (hours on 2 cores)
    python -m benchmarks.strength --cells fido    # one cell
    python -m benchmarks.strength --scale 0.1     # a tenth of the deals, a quick look

Results: ``benchmarks/results/strength.json`` and one ``summary.png`` per cell.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress

import benchmarks.dominoes_bot  # registers the dominoes package's bot
from pips.bots import kernel as k
from pips.bots.base import BotKind, register_bot
from pips.bots.knowledge import LINE_MODEL, POINTEDNESS, UNIFORM, PlayModel, SeatModels
from pips.bots.search import Budget, SearchBot
from pips.core.view import View
from pips.games.options import GameOptions
from pips.games.registry import Game, find_game
from pips.sim import tournament as tour

register_bot(
    BotKind(
        "search-greedy-playouts",
        "search at normal with the greedy bot's playouts (the policy before issue 19)",
        lambda _setting: SearchBot("normal", policy=k.POLICY_GREEDY),
    )
)
register_bot(
    BotKind(
        "search-pointed",
        "search at normal weighing deals as if every seat laid what scores most",
        lambda _setting: SearchBot("normal", model=PlayModel(pointedness=POINTEDNESS)),
    )
)


SOLVE_24 = Budget(playouts=12000, solve_tiles=24, solve_deals=64, solve_nodes=300_000, halving=4)
"""``hard`` solving from 24 tiles left (64 deals) instead of 16 (96): tried in issue 37,
weaker against the dominoes package (docs/bots.md), not used."""


def _solve_24(_setting: str | None) -> SearchBot:
    bot = SearchBot("hard")
    bot.budget = SOLVE_24
    bot.name = "search-hard-solve24"
    return bot


register_bot(
    BotKind("search-hard-solve24", "search at hard, solving from 24 tiles left", _solve_24)
)


class KnowsItsOpponents(SearchBot):
    """``search:hard`` told how the dominoes package's player chooses (issue 37's
    "opponent modelling kept out of the bot itself"): while fewer than
    :data:`benchmarks.dominoes_bot.START` tiles are laid it lays its heaviest fitting
    tile (weighed here as a tile one pip heavier being ``exp(SHARPNESS)`` times as
    likely), after that it solves sampled deals, which says nothing of weight
    (uniform). The partner is taken to play as search's own model says."""

    SHARPNESS = 3.0

    def __init__(self) -> None:
        super().__init__("hard")
        self.name = "search-hard-knows-pab"

    def weighing(self, view: View) -> PlayModel | SeatModels:
        seats = len(view.hand_sizes)
        sharp = PlayModel(heaviness=self.SHARPNESS)
        opponent = [(s - view.seat) % 2 == 1 for s in range(seats)]
        return SeatModels(
            tuple(sharp if o else LINE_MODEL for o in opponent),
            tuple(UNIFORM if o else LINE_MODEL for o in opponent),
            tuple(benchmarks.dominoes_bot.START if o else 0 for o in opponent),
        )


register_bot(
    BotKind(
        "search-hard-knows-pab",
        "search at hard, told how the dominoes package's player chooses",
        lambda _setting: KnowsItsOpponents(),
    )
)


@dataclass(frozen=True)
class Cell:
    name: str
    game: str
    options: dict[str, Any]
    seats: tuple[str, ...]
    deals: int
    checks: tuple[tuple[str, str], ...]
    """Pairs (a, b): a must beat b in points per hand, the interval excluding zero."""
    decided_share: tuple[str, float] | None = None
    """A bot that must win at least this share of the hands won by one side."""
    seconds: tuple[str, float] | None = None
    """A bot that may spend at most this many seconds per decision on average."""
    same_deals: tuple[str, str] | None = None
    """``(cell, bot)``: that bot of that earlier cell, played on the same deals, must win
    more hands less hands lost than this cell's first seat (paired by deal)."""

    @property
    def spec(self) -> Game:
        return find_game(self.game)

    @property
    def chosen(self) -> GameOptions:
        """The cell's options, read where they enter (this table of cells)."""
        chosen: GameOptions = self.spec.options_from_json(self.options)
        return chosen


PARTNERSHIP = {"teams": "fixed", "target": 1}

CELLS = [
    Cell(
        "partnership-dominoes",
        "partnership",
        PARTNERSHIP,
        ("search:hard", "dominoes-pab"),
        500,
        (("search:hard", "dominoes-pab"),),
        ("search:hard", 0.70),
        ("search:hard", 0.15),
    ),
    Cell(
        "partnership-dominoes-solve24",
        "partnership",
        PARTNERSHIP,
        ("search-hard-solve24", "dominoes-pab"),
        500,
        (("search-hard-solve24", "dominoes-pab"),),
        ("search-hard-solve24", 0.70),
        ("search-hard-solve24", 0.15),
    ),
    Cell(
        "partnership-dominoes-knows",
        "partnership",
        PARTNERSHIP,
        ("search-hard-knows-pab", "dominoes-pab"),
        500,
        (("search-hard-knows-pab", "dominoes-pab"),),
        ("search-hard-knows-pab", 0.70),
        ("search-hard-knows-pab", 0.15),
    ),
    Cell(
        "partnership-dominoes-normal",
        "partnership",
        PARTNERSHIP,
        ("search", "dominoes-pab"),
        500,
        (("search", "dominoes-pab"),),
        same_deals=("partnership-dominoes", "search:hard"),
    ),
    Cell(
        "partnership",
        "partnership",
        PARTNERSHIP,
        ("search", "greedy"),
        1000,
        (("search", "greedy"),),
        ("search", 0.75),
        ("search", 0.25),
    ),
    Cell(
        "partnership-expert",
        "partnership",
        PARTNERSHIP,
        ("search", "expert"),
        500,
        (("search", "expert"),),
    ),
    Cell(
        "partnership-hard",
        "partnership",
        PARTNERSHIP,
        ("search:hard", "search"),
        500,
        (("search:hard", "search"),),
    ),
    Cell(
        "partnership-easy",
        "partnership",
        PARTNERSHIP,
        ("search", "search:easy"),
        500,
        (("search", "search:easy"),),
    ),
    Cell(
        "partnership-policy",
        "partnership",
        PARTNERSHIP,
        ("greedy:newer", "greedy"),
        2000,
        (("greedy:newer", "greedy"),),
    ),
    Cell(
        "partnership-playouts",
        "partnership",
        PARTNERSHIP,
        ("search", "search-greedy-playouts"),
        500,
        (("search", "search-greedy-playouts"),),
    ),
    Cell(
        "fido-policy",
        "fido",
        {"players": 5, "set": 12},
        ("greedy:newer", "greedy", "greedy", "greedy", "greedy"),
        1000,
        (("greedy:newer", "greedy"),),
    ),
    Cell(
        "fido-9",
        "fido",
        {"players": 4, "set": 9},
        ("search", "expert", "greedy", "expert"),
        200,
        (("search", "expert"), ("expert", "greedy")),
    ),
    Cell(
        "fido",
        "fido",
        {"players": 5, "set": 12},
        ("search", "expert", "greedy", "expert", "greedy"),
        200,
        (("search", "expert"), ("expert", "greedy")),
    ),
    Cell(
        "fido-9-pointed",
        "fido",
        {"players": 4, "set": 9},
        ("search-pointed", "search", "search", "search"),
        100,
        (("search-pointed", "search"),),
    ),
    Cell(
        "fido-9-hard",
        "fido",
        {"players": 4, "set": 9},
        ("search:hard", "search", "search", "search"),
        400,
        (("search:hard", "search"),),
    ),
    Cell(
        "fido-hard",
        "fido",
        {"players": 5, "set": 12},
        ("search:hard", "search", "search", "search", "search"),
        60,
        (("search:hard", "search"),),
    ),
    Cell(
        "fido-ismcts",
        "fido",
        {"players": 5, "set": 12},
        ("ismcts", "search", "search", "search", "search"),
        60,
        (("ismcts", "search"),),
    ),
    Cell(
        "fido-9-ismcts",
        "fido",
        {"players": 4, "set": 9},
        ("ismcts", "search", "search", "search"),
        100,
        (("ismcts", "search"),),
    ),
    Cell(
        "family",
        "family",
        {"players": 4, "target": 1},
        ("search", "greedy"),
        500,
        (("search", "greedy"),),
    ),
    Cell(
        "draw",
        "draw",
        {"players": 4, "match_scoring": True},
        ("search", "greedy"),
        500,
        (("search", "greedy"),),
    ),
    Cell(
        "doubles",
        "doubles",
        {"players": 4, "target": 1},
        ("search", "greedy"),
        500,
        (("search", "greedy"),),
    ),
]


def hand_winner(hand: dict[str, Any]) -> str | None:
    """The bot whose seats alone ranked first in a hand, ``None`` when the hand was
    shared (a tie, or one bot on both sides)."""
    winners = {hand["seats"][s] for s, r in enumerate(hand["ranks"]) if r == 1}
    return winners.pop() if len(winners) == 1 else None


def decided_interval(rows: list[dict[str, Any]], bot: str) -> tuple[float, float]:
    """A 95% interval of ``bot``'s share of the hands won by one side alone, by a
    bootstrap over deals (a deal's hands share their tiles, so they are resampled
    together; seeded, so a rerun gives the same interval)."""
    per_deal = []
    for row in rows:
        won = decided = 0
        for hand in row["hands"]:
            winner = hand_winner(hand)
            if winner is not None:
                decided += 1
                won += winner == bot
        per_deal.append((won, decided))
    rng = random.Random(2026)
    shares = []
    for _ in range(2000):
        sample = [per_deal[rng.randrange(len(per_deal))] for _ in per_deal]
        total = sum(d for _, d in sample)
        shares.append(sum(w for w, _ in sample) / total if total else 0.0)
    shares.sort()
    return shares[int(0.025 * len(shares))], shares[int(0.975 * len(shares)) - 1]


def won_less_lost(row: dict[str, Any], bot: str) -> int:
    """A deal's hands ``bot``'s side won alone less those the other side won alone."""
    winners = [hand_winner(hand) for hand in row["hands"]]
    return sum(1 if w == bot else -1 for w in winners if w is not None)


def same_deals_check(cell: Cell, rows: list[dict[str, Any]], out_dir: Path) -> dict[str, Any]:
    """How much more ``cell.same_deals``'s bot won, less lost, per hand than this cell's
    first seat on the deals both cells played (a deal's two hands count together; 95%
    interval by a seeded bootstrap over deals). Against the same opponents on the same
    deals, this compares two bots without the luck of the deal."""
    assert cell.same_deals is not None
    name, other_bot = cell.same_deals
    other = next(c for c in CELLS if c.name == name)
    setup = tour.Tournament.of(other.spec, other.chosen, list(other.seats), 1, seed=2026)
    theirs = tour.finished(out_dir / name, setup)
    bot = cell.seats[0]
    differences = [
        (won_less_lost(theirs[row["deal"]], other_bot) - won_less_lost(row, bot))
        / len(row["hands"])
        for row in rows
        if row["deal"] in theirs
    ]
    claim = f"{other_bot} beats {bot} on the same deals (won less lost per hand)"
    if not differences:
        raise SystemExit(f"{cell.name} and {name} have no deal in common: run {name} further")
    rng = random.Random(2026)
    means = sorted(
        sum(rng.choice(differences) for _ in differences) / len(differences) for _ in range(2000)
    )
    low, high = means[int(0.025 * len(means))], means[int(0.975 * len(means)) - 1]
    return {
        "claim": claim,
        "deals": len(differences),
        "margin": sum(differences) / len(differences),
        "low95": low,
        "high95": high,
        "met": low > 0,
    }


def run_cell(cell: Cell, scale: float, out_dir: Path, console: Console) -> dict[str, Any]:
    if cell.same_deals is not None and not (out_dir / cell.same_deals[0] / tour.RESULTS).exists():
        # Said before the cell's minutes of play, not after.
        raise SystemExit(
            f"{cell.name} compares with the cell {cell.same_deals[0]} on the same deals: "
            "run that cell first (with the same --out)"
        )
    deals = max(2, round(cell.deals * scale))
    setup = tour.Tournament.of(cell.spec, cell.chosen, list(cell.seats), deals, seed=2026)
    folder = out_dir / cell.name
    start = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(cell.name, total=deals)
        rows = tour.run(
            setup, folder, progress=lambda done, total: progress.update(task, completed=done)
        )
    summary = tour.summarize(setup, rows)
    tour.write_outputs(summary, folder)
    checks = []
    for a, b in cell.checks:
        key = f"{a} - {b}" if f"{a} - {b}" in summary.differences else f"{b} - {a}"
        estimate = summary.differences[key]
        sign = 1 if key.startswith(a + " ") else -1
        low, high = sorted((sign * estimate.low, sign * estimate.high))
        checks.append(
            {
                "claim": f"{a} beats {b}",
                "margin": sign * estimate.mean,
                "low95": low,
                "high95": high,
                "met": low > 0,
            }
        )
    if cell.decided_share is not None:
        bot, share = cell.decided_share
        got = next(b.decided_wins for b in summary.bots if b.bot == bot)
        low, high = decided_interval(rows, bot)
        checks.append(
            {
                "claim": f"{bot} wins >= {share:.0%} of decided hands",
                "share": got,
                "low95": low,
                "high95": high,
                "met": got >= share,
            }
        )
    if cell.seconds is not None:
        bot, limit = cell.seconds
        per_move = 1 / next(b.moves_per_second for b in summary.bots if b.bot == bot)
        checks.append(
            {
                "claim": f"{bot} spends <= {limit} s per decision",
                "seconds": per_move,
                "met": per_move <= limit,
            }
        )
    if cell.same_deals is not None:
        checks.append(same_deals_check(cell, rows, out_dir))
    hands = sum(len(r["hands"]) for r in rows)
    return {
        "cell": cell.name,
        "command": (
            f"pips tournament --game {cell.game} "
            + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in cell.options.items())
            + f" --bots {','.join(cell.seats)} --hands {deals} --seed 2026 --out {folder}"
        ),
        "deals": deals,
        "hands": hands,
        "seconds": round(time.perf_counter() - start, 1),
        "seconds_per_decision": {
            b.bot: round(1 / b.moves_per_second, 5) for b in summary.bots if b.moves_per_second
        },
        "summary": summary.to_json(),
        "checks": checks,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", default=",".join(c.name for c in CELLS))
    parser.add_argument("--scale", type=float, default=1.0, help="share of each cell's deals")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    args = parser.parse_args()
    console = Console()
    wanted = [c for c in CELLS if c.name in args.cells.split(",")]
    report_path = args.out / "strength.json"
    report: dict[str, Any] = {}
    if report_path.exists():
        report = json.loads(report_path.read_text())
    for cell in wanted:
        result = run_cell(cell, args.scale, args.out / "strength", console)
        report[cell.name] = result
        args.out.mkdir(parents=True, exist_ok=True)
        report_path.write_text(json.dumps(report, indent=1) + "\n")
        for check in result["checks"]:
            if "margin" in check:
                detail = (
                    f"margin {check['margin']:.2f} [{check['low95']:.2f}, {check['high95']:.2f}]"
                )
            elif "share" in check:
                detail = f"share {check['share']:.1%} [{check['low95']:.1%}, {check['high95']:.1%}]"
            else:
                detail = f"{check['seconds']:.3f} s per decision"
            verdict = "met" if check["met"] else "MISSED"
            console.print(
                f"{cell.name}: {check['claim']}: {detail} over {result['hands']} hands ({verdict})"
            )
    console.print(f"written: {report_path}")


if __name__ == "__main__":
    main()
