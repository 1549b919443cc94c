"""What the hidden tiles cost ``search:hard`` against the ``dominoes`` package's pair.

Issue 37 asks ``search:hard`` to win 70% of the decided hands of the partnership game
against the package's probabilistic alpha-beta pair (``benchmarks/strength.py``, cell
``partnership-dominoes``); it wins about 62%. This benchmark measures how much of what is
missing is information, by telling the same search more than its view on the same
duplicate deals:

* ``view``: ``search:hard`` as it plays anywhere, from its seat's view alone;
* ``partner``: ``search:hard`` told its partner's hand: the most that reading the
  partner's plays could ever give (each seat of the pair is told the other's hand);
* ``all-hard``: every hand told, searched as ``hard`` searches (playouts, then exact
  solving from 16 tiles left): what its search loses even where nothing is hidden
  (told its opponents' hands, a seat of the partnership game knows every hand, so this
  is also the most that reading the package's plays could give);
* ``all``: every hand told, each decision solved exactly: a pair that sees everything.

The told tiles reach the search as tiles held face up (``Knowledge.face_up``): its
sampled deals keep them where they are. These bots exist in this benchmark only; pips'
bots never see more than their view. Each deal is played twice, the pair in seats 0 and
2, then 1 and 3, every sight on the same deals; a hand is decided when one pair scored.

    python -m benchmarks.hidden_tiles               # 100 deals (about 12 minutes on 2 cores)
    python -m benchmarks.hidden_tiles --deals 20    # a quick look

Results: ``benchmarks/results/hidden_tiles.{json,png}``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from pips.bots.knowledge import Knowledge
from pips.bots.search import Budget, SearchBot
from pips.core.view import View
from pips.games.match import Match
from pips.games.registry import GameState, find_game
from pips.sim.seating import Seating
from pips.sim.tournament import Estimate

RESULTS = Path(__file__).parent / "results"
SIGHTS = ("view", "partner", "all-hard", "all")
OPTIONS = {"teams": "fixed", "target": 1}
SEED = 37
SEES_ALL = Budget(playouts=12000, solve_tiles=28, solve_deals=1, solve_nodes=20_000_000)
"""A pair that sees everything solves its one deal, the true one, from the first move."""


class Told(SearchBot):
    """``search:hard`` told the hands of some other seats (see the module's text)."""

    def __init__(self, sight: str, state: GameState) -> None:
        super().__init__("hard")
        self.sight = sight
        self.state = state
        if sight == "all":
            self.budget = SEES_ALL

    def knowledge(self, view: View) -> Knowledge:
        known = super().knowledge(view)
        players = len(view.hand_sizes)
        if self.sight == "partner":
            told = [(view.seat + 2) % players]
        elif self.sight in ("all", "all-hard"):
            told = [s for s in range(players) if s != view.seat]
        else:
            told = []
        for seat in told:
            tiles = set(self.state.hands[seat])
            known.face_up[seat] = known.face_up[seat] | tiles
            known.unseen -= tiles
        return known


def play_deal(sight: str, deal: int) -> list[dict[str, Any]]:
    """Both rotations of one deal with the pair told ``sight``: per hand the pair's
    points, the others', and the pair's seconds and decisions."""
    # Imported here: the module registers the package's bot, which Told's users
    # (tests/test_inference.py) must not find among pips' bots.
    from benchmarks.dominoes_bot import DominoesBot

    spec = find_game("partnership")
    options = spec.options_from_json(OPTIONS)
    seed = SEED * 1_000_003 + deal
    dealt = spec.deal(options, random.Random(seed))
    hands = []
    for first in (0, 1):
        state = spec.from_deal(options, dealt.hands, dealt.stock, dealt.voided)
        bots = [Told(sight, state) if seat % 2 == first else DominoesBot() for seat in range(4)]
        seating = Seating(Match.of_hand(spec, state), bots, f"{seed}:{first}")
        seating.play_bots(hand_only=True)
        result = state.result
        assert result is not None
        hands.append(
            {
                "pair": result.final[first],
                "others": result.final[1 - first],
                "seconds": sum(seating.seconds[first::2]),
                "decisions": sum(seating.decisions[first::2]),
            }
        )
    return hands


def _estimate(estimate: Estimate) -> dict[str, float]:
    return {"mean": estimate.mean, "low": estimate.low, "high": estimate.high}


def _outcome(hand: dict[str, Any]) -> float:
    """+1 for a hand the pair won, -1 lost, 0 tied."""
    return float((hand["pair"] > hand["others"]) - (hand["pair"] < hand["others"]))


def summarize(hands: list[dict[str, Any]], plain: list[dict[str, Any]]) -> dict[str, Any]:
    """``hands`` against ``plain`` (the same hands played from the view alone)."""
    decided = [1.0 if h["pair"] > h["others"] else 0.0 for h in hands if h["pair"] != h["others"]]
    share = Estimate.share(decided)
    margin = Estimate.of([float(h["pair"] - h["others"]) for h in hands])
    decisions = sum(h["decisions"] for h in hands)
    gains = [_outcome(h) - _outcome(p) for h, p in zip(hands, plain, strict=True)]
    # A deal's two hands share their tiles: the interval is over deals, not hands.
    gain = Estimate.of([(a + b) / 2 for a, b in zip(gains[::2], gains[1::2], strict=True)])
    return {
        "hands": len(hands),
        "decided": len(decided),
        "won_share": _estimate(share),
        "points_per_hand": _estimate(margin),
        "won_less_lost_per_hand_over_view": _estimate(gain),
        "seconds_per_decision": sum(h["seconds"] for h in hands) / max(1, decisions),
    }


def draw(summary: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sights = list(summary["sights"])
    shares = [summary["sights"][s]["won_share"] for s in sights]
    means = [100 * s["mean"] for s in shares]
    below = [100 * (s["mean"] - s["low"]) for s in shares]
    above = [100 * (s["high"] - s["mean"]) for s in shares]
    fig, ax = plt.subplots(figsize=(7, 3))
    ax.barh(sights, means, xerr=[below, above], color="#4c72b0", capsize=4)
    ax.axvline(70, color="#c44e52", linestyle="--", label="issue 37's target, 70%")
    ax.axvline(50, color="grey", linewidth=0.8)
    ax.set_xlim(0, 100)
    ax.set_xlabel("decided hands won against the dominoes package's pair (%, 95% interval)")
    ax.set_title(f"search:hard told more than its view, {summary['deals']} duplicate deals")
    ax.invert_yaxis()
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100, help="duplicate deals (default 100)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    args = parser.parse_args(argv)
    if not 1 <= args.deals <= 100_000:
        parser.error("--deals: give 1 to 100000")
    console = Console()
    played: dict[str, dict[int, list[dict[str, Any]]]] = {sight: {} for sight in SIGHTS}
    start = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool, Progress(console=console) as progress:
        task = progress.add_task("deals", total=args.deals * len(SIGHTS))
        futures = {
            pool.submit(play_deal, sight, deal): (sight, deal)
            for sight in SIGHTS
            for deal in range(args.deals)
        }
        for future in as_completed(futures):
            sight, deal = futures[future]
            played[sight][deal] = future.result()
            progress.advance(task)
    hands = {
        sight: [hand for deal in range(args.deals) for hand in played[sight][deal]]
        for sight in SIGHTS
    }
    summary = {
        "deals": args.deals,
        "seconds": round(time.perf_counter() - start, 1),
        "command": f"python -m benchmarks.hidden_tiles --deals {args.deals}",
        "sights": {sight: summarize(hands[sight], hands["view"]) for sight in SIGHTS},
        "hands": {sight: [[h["pair"], h["others"]] for h in hands[sight]] for sight in SIGHTS},
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "hidden_tiles.json").write_text(json.dumps(summary, indent=2) + "\n")
    draw(summary, RESULTS / "hidden_tiles.png")
    table = Table(title=f"search:hard against dominoes-pab, {args.deals} duplicate deals")
    columns = ("told", "decided hands won", "won - lost per hand, over view", "points per hand")
    for column in (*columns, "s per decision"):
        table.add_column(column)
    for sight, row in summary["sights"].items():
        share, margin = row["won_share"], row["points_per_hand"]
        gain = row["won_less_lost_per_hand_over_view"]
        table.add_row(
            sight,
            f"{100 * share['mean']:.1f}% [{100 * share['low']:.1f}, {100 * share['high']:.1f}]"
            f" of {row['decided']}",
            ""
            if sight == "view"
            else f"{gain['mean']:+.3f} [{gain['low']:+.3f}, {gain['high']:+.3f}]",
            f"{margin['mean']:+.2f} [{margin['low']:+.2f}, {margin['high']:+.2f}]",
            f"{row['seconds_per_decision']:.3f}",
        )
    console.print(table)


if __name__ == "__main__":
    main()
