"""How long an analysis takes.

* Per hand (``pips analyse``, issue 19): seconds per analysed hand for FIDO double-12
  with five players and for a partnership hand, at the search's ``normal`` level, each
  against a baseline in the same process: the search bot *playing* the same hands (one
  search per decision of every seat, as analysis does one per decision).
* On screen (issue 37): a real ``pips serve`` plays a FIDO double-12 game for five (bots
  at the server's pace, 0.6 s a move) and the page's request for its analysis is timed
  from the moment the game is over; for each revision given (``.``: this tree), in turn,
  so the server before analyses were made during play and the one after are measured in
  the same command. Target: on screen within 5 s.

    python -m benchmarks.analysis_speed                            # 4 hands of each
    python -m benchmarks.analysis_speed --hands 10 --games 0
    python -m benchmarks.analysis_speed --hands 0 --games 3 --revisions 6e33a53 .

Results: ``benchmarks/results/analysis_speed.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from tests.server_helpers import Browser, Server

from benchmarks.common import source_tree
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
    while len(match.hand_states) == 1 and not match.current.is_over:
        seating.play(seating.decide())
    seconds = time.perf_counter() - started
    return record.write_record(match, [f"{bot}-{i}" for i in range(players)], seed=seed), seconds


SCREEN_GAME = ("fido", {"players": 5, "set": 12})


def on_screen(tree: Path, seed: int, console: Console) -> dict[str, Any]:
    """Seconds from a served game's end until its analysis is answered."""
    with tempfile.TemporaryDirectory() as home:
        os.environ["PYTHONPATH"] = str(tree / "src")
        # The server as it is run (its own default for analyses during play); bots at
        # its default pace.
        server = Server(Path(home), bot_delay=0.6, analyse_while_playing=None).start()
        try:
            ann = Browser(server, "Ann")
            game, options = SCREEN_GAME
            table = ann.create(game, options, [{"kind": "bot", "bot": "greedy"}] * 5, seed=seed)
            started = time.monotonic()
            with console.status(f"{tree.name}: game {seed + 1} at the server's pace"):
                while ann.http.get(f"/api/records/{table}").status_code != 200:
                    time.sleep(0.05)
            ended = time.monotonic()
            answer = ann.http.get(f"/api/records/{table}/analysis", timeout=600)
            seconds = time.monotonic() - ended
            assert answer.status_code == 200, answer.text
            return {
                "seed": seed,
                "game_seconds": round(ended - started, 1),
                "decisions": len(answer.json()["decisions"]),
                "seconds_to_screen": round(seconds, 2),
            }
        finally:
            server.stop()


def screen_cells(revisions: list[str], games: int, console: Console) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with contextlib.ExitStack() as stack:
        trees = {r: stack.enter_context(source_tree(r)) for r in revisions}
        for seed in range(games):
            for revision, tree in trees.items():
                found = on_screen(tree, seed, console)
                out.setdefault(revision, []).append(found)
                console.print(
                    f"{revision}: game {seed + 1}: {found['decisions']} decisions, analysis "
                    f"on screen {found['seconds_to_screen']} s after the game's end"
                )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=4, help="hands analysed per game (0: none)")
    parser.add_argument("--games", type=int, default=2, help="served games per revision (0: none)")
    parser.add_argument("--revisions", nargs="+", default=["."])
    args = parser.parse_args()
    if not 0 <= args.hands <= 1000 or not 0 <= args.games <= 100:
        parser.error("--hands is 0 to 1000, --games 0 to 100")
    console = Console()
    out: dict[str, Any] = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    if args.games:
        served = screen_cells(args.revisions, args.games, console)
        out["on screen after a served FIDO double-12 game for five"] = served
        table = Table(title="The analysis of a finished game, seconds after its end")
        for column in ("revision", "games", "decisions", "mean s", "max s"):
            table.add_column(column, justify="left" if column == "revision" else "right")
        for revision, runs in served.items():
            times = [r["seconds_to_screen"] for r in runs]
            table.add_row(
                revision,
                str(len(runs)),
                str(round(sum(r["decisions"] for r in runs) / len(runs))),
                f"{sum(times) / len(times):.2f}",
                f"{max(times):.2f}",
            )
        console.print(table)
    if args.hands:
        out.update(per_hand(args.hands, console))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    console.print(f"written: {RESULTS}")


def per_hand(hands: int, console: Console) -> dict[str, Any]:
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
        for seed in range(hands):
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
            console.print(f"{name}: hand {seed + 1} of {hands}", style="dim")
        cell = {
            "hands": hands,
            "decisions_per_hand": decisions / hands,
            "analysis_seconds_per_hand": analysed / hands,
            "search_play_seconds_per_hand": played / hands,
            "ratio": analysed / played,
        }
        out[name] = cell
        table.add_row(
            name,
            str(hands),
            f"{cell['decisions_per_hand']:.0f}",
            f"{cell['analysis_seconds_per_hand']:.2f}",
            f"{cell['search_play_seconds_per_hand']:.2f}",
            f"{cell['ratio']:.2f}",
        )
    console.print(table)
    return out


if __name__ == "__main__":
    main()
