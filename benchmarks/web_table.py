"""The browser table's weight and speed: what the table page costs to load, and how long
until its board is drawn, for a new game and for the largest layout pips has (nine
players, double-18, played to the end), in Debian's chromium.

Reported per page: the bytes transferred (HTML, CSS, scripts, icon), the time from
navigation to the board drawn, and that time as a ratio to the page's own
DOMContentLoaded in the same load (the board waits for the websocket's first state);
and the milliseconds one redraw of the board takes. Best of ``--rounds`` loads.

Then the layout engine (``static/layout.js``) beside the one before it (``--before``, a
commit), in one chromium, on the same layouts: the final layouts of simulated FIDO
hands of nine players on double-18, and every layout of such hands move by move (as a
table draws them: the new engine from the last board, the old one anew each time).
Reported: the milliseconds to lay out (mean and worst), overlapping pairs of tiles, and
the share of the board the tiles cover; the new engine's time as a ratio to the old.

    .venv/bin/python -m benchmarks.web_table   # benchmarks/results/web_table.{json,png}
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, sync_playwright
from rich.console import Console
from rich.progress import track
from rich.table import Table
from tests.server_helpers import Server
from tests.web_helpers import CHROMIUM

RESULTS = Path(__file__).parent / "results"


def table_of_bots(server: Server, game: str, options: dict[str, Any], players: int) -> str:
    web = httpx.Client(base_url=server.url, timeout=30)
    csrf = web.get("/api/session").json()["csrf"]
    web.post("/guest", data={"name": f"Bench {game} {players}", "csrf": csrf})
    csrf = web.get("/api/session").json()["csrf"]
    seats = [{"kind": "bot", "bot": "greedy"}] * players
    answer = web.post(
        "/api/tables",
        json={"game": game, "options": options, "seats": seats},
        headers={"X-CSRF-Token": csrf},
    )
    answer.raise_for_status()
    table = str(answer.json()["id"])
    while web.get(f"/api/tables/{table}").json()["table"]["status"] != "finished":
        time.sleep(0.2)
    return table


def load(page: Page, url: str) -> dict[str, float]:
    sizes: list[int] = []
    page.on("response", lambda r: sizes.append(len(r.body())) if r.ok else None)
    page.goto(url)
    page.wait_for_selector("#layout svg.board")
    board = page.evaluate("performance.now()")
    ready = page.evaluate("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
    drawn = page.evaluate("document.querySelectorAll('#layout svg.board g.laid').length")
    # One redraw of the whole table (board, hand, seats) as after every move.
    timing = page.evaluate(
        """() => { const t0 = performance.now(), n = 10;
                  for (let i = 0; i < n; i++) window.pipsRedraw();
                  return (performance.now() - t0) / n; }"""
    )
    return {
        "bytes": float(sum(sizes)),
        "board_ms": float(board),
        "ready_ms": float(ready),
        "ratio": float(board) / max(float(ready), 1e-6),
        "tiles": float(drawn),
        "redraw_ms": float(timing),
    }


STATIC = Path(__file__).parent.parent / "src" / "pips" / "server" / "static"
BEFORE = "d30c30b"
"""The last commit with the engine before this one (arms that never turned)."""

ENGINE = """
(args) => {
  const [finals, hands, aspect, chained] = args;
  const overlapsIn = (g) => {
    const r = [...g.tiles, ...g.points];
    let n = 0;
    for (let i = 0; i < r.length; i++) for (let j = i + 1; j < r.length; j++) {
      const a = r[i], b = r[j], e = 0.01;
      if (a.x + a.w > b.x + e && b.x + b.w > a.x + e &&
          a.y + a.h > b.y + e && b.y + b.h > a.y + e) n++;
    }
    return n;
  };
  // The share of the board the tiles cover (the old engine had no board: the tiles'
  // bounding box stands for it).
  const used = (g) => {
    const r = g.tiles;
    const box = g.box || {
      w: Math.max(...r.map((t) => t.x + t.w)) - Math.min(...r.map((t) => t.x)),
      h: Math.max(...r.map((t) => t.y + t.h)) - Math.min(...r.map((t) => t.y)) };
    return r.reduce((s, t) => s + t.w * t.h, 0) / (box.w * box.h);
  };
  const out = { final: [], moves: [] };
  for (const layout of finals) {
    const t0 = performance.now();
    const g = layoutGeometry(layout, aspect);
    out.final.push({ ms: performance.now() - t0, overlaps: overlapsIn(g), used: used(g) });
  }
  for (const hand of hands) {
    let from = null;
    for (const layout of hand) {
      const t0 = performance.now();
      const g = chained ? layoutGeometry(layout, aspect, from) : layoutGeometry(layout, aspect);
      out.moves.push({ ms: performance.now() - t0, overlaps: overlapsIn(g) });
      from = g;
    }
  }
  return out;
}
"""


def fido_hands(count: int) -> tuple[list[Any], list[list[Any]]]:
    """The final layouts, and every layout move by move, of ``count`` simulated FIDO
    hands of nine players on double-18 (greedy bots, seeds 0, 1, ...)."""
    from pips.bots.base import GreedyBot
    from pips.display import layouts_move_by_move
    from pips.games.registry import find_game
    from pips.sim import play_game

    spec = find_game("fido")
    options = spec.options_from_json({"players": 9, "set": 18})
    finals, hands = [], []
    for seed in range(count):
        played = play_game(spec, options, [GreedyBot() for _ in range(9)], seed).hand_states[0]
        layouts = layouts_move_by_move(played)
        finals.append(layouts[-1])
        hands.append(layouts)
    return finals, hands


def engines(console: Console, hands: int) -> dict[str, Any]:
    """The engine now and the one of ``BEFORE``, on the same layouts (desktop board)."""
    import subprocess

    old = subprocess.run(
        ["git", "show", f"{BEFORE}:src/pips/server/static/layout.js"],
        capture_output=True,
        text=True,
        check=True,
        cwd=STATIC,
    ).stdout
    finals, moves = fido_hands(hands)
    found: dict[str, Any] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for name, source, chained in (
            ("before", old, False),
            ("now", (STATIC / "layout.js").read_text(encoding="utf-8"), True),
        ):
            page = browser.new_page()
            page.set_content("<html><body></body></html>")
            page.add_script_tag(content="function t(s) { return s; }")
            page.add_script_tag(content=(STATIC / "tiles.js").read_text(encoding="utf-8"))
            page.add_script_tag(content=source)
            with console.status(f"laying out with the engine {name}"):
                found[name] = page.evaluate(ENGINE, [finals, moves, 1280 / 560, chained])
            page.close()
        browser.close()
    summary: dict[str, Any] = {}
    for name, result in found.items():
        final, per_move = result["final"], result["moves"]
        summary[name] = {
            "final_mean_ms": sum(r["ms"] for r in final) / len(final),
            "final_worst_ms": max(r["ms"] for r in final),
            "final_overlapping_pairs": sum(r["overlaps"] for r in final),
            "final_used": sum(r["used"] for r in final) / len(final),
            "move_mean_ms": sum(r["ms"] for r in per_move) / len(per_move),
            "move_worst_ms": max(r["ms"] for r in per_move),
            "move_overlapping_pairs": sum(r["overlaps"] for r in per_move),
            "layouts": len(final) + len(per_move),
        }
    now, before = summary["now"], summary["before"]
    summary["ratio_move_mean"] = now["move_mean_ms"] / max(before["move_mean_ms"], 1e-6)
    summary["ratio_final_mean"] = now["final_mean_ms"] / max(before["final_mean_ms"], 1e-6)
    shown = Table(
        "engine",
        "final: mean / worst ms",
        "overlapping pairs",
        "board used",
        "per move: mean / worst ms",
        "overlapping pairs",
    )
    for name in ("before", "now"):
        m = summary[name]
        shown.add_row(
            name,
            f"{m['final_mean_ms']:.1f} / {m['final_worst_ms']:.0f}",
            f"{m['final_overlapping_pairs']}",
            f"{m['final_used']:.3f}",
            f"{m['move_mean_ms']:.1f} / {m['move_worst_ms']:.0f}",
            f"{m['move_overlapping_pairs']}",
        )
    console.print(shown)
    console.print(
        f"now / before: {summary['ratio_final_mean']:.2f} for a final layout laid out anew, "
        f"{summary['ratio_move_mean']:.2f} per move"
    )
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hands", type=int, default=6, help="FIDO hands for the engines")
    args = parser.parse_args()
    console = Console()
    engine = engines(console, args.hands)
    home = Path(tempfile.mkdtemp())
    server = Server(home, bot_delay=0.0).start()
    try:
        pages = {
            "new draw game (2 bots)": table_of_bots(server, "draw", {"players": 2}, 2),
            "FIDO 9 players double-18, finished": table_of_bots(
                server, "fido", {"players": 9, "set": 18}, 9
            ),
        }
        best: dict[str, dict[str, float]] = {}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            for _ in track(range(args.rounds), description="loads", console=console):
                for name, table in pages.items():
                    context = browser.new_context(viewport={"width": 1280, "height": 900})
                    measured = load(context.new_page(), f"{server.url}/t/{table}")
                    context.close()
                    if name not in best or measured["board_ms"] < best[name]["board_ms"]:
                        best[name] = measured
            browser.close()
    finally:
        server.stop()
    shown = Table(
        "page",
        "bytes",
        "board drawn (ms)",
        "DOMContentLoaded (ms)",
        "ratio",
        "tiles",
        "redraw (ms)",
    )
    for name, m in best.items():
        shown.add_row(
            name,
            f"{m['bytes']:.0f}",
            f"{m['board_ms']:.0f}",
            f"{m['ready_ms']:.0f}",
            f"{m['ratio']:.2f}",
            f"{m['tiles']:.0f}",
            f"{m['redraw_ms']:.1f}",
        )
    console.print(shown)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "web_table.json").write_text(
        json.dumps({"pages": best, "engine": engine}, indent=2) + "\n"
    )
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(9, 4))
    names = list(best)
    axes.barh(names, [best[n]["ready_ms"] for n in names], label="DOMContentLoaded")
    axes.barh(
        names,
        [best[n]["board_ms"] - best[n]["ready_ms"] for n in names],
        left=[best[n]["ready_ms"] for n in names],
        label="until the board is drawn",
    )
    axes.set(xlabel="ms from navigation (best of rounds)", title="The table page in chromium")
    axes.legend()
    figure.tight_layout()
    figure.savefig(RESULTS / "web_table.png", dpi=100)
    plt.close(figure)


if __name__ == "__main__":
    main()
