"""The layout engine of the browser table (``static/layout.js``), held to its promise on
thousands of layouts: the final layout of simulated games of every game, every FIDO set
and player count among them, laid out on a desktop's board and a phone's, with no two
tiles or open-end places drawn over each other, every open end with a place of its own,
and everything on the board. A piece the engine could not lay against its place (its
last resort: laid apart and linked to it) is counted; it stays under 1 % of the
layouts. The engine runs in Debian's chromium, as in a player's
browser; how much of the board the layouts use is written to
``test-artifacts/layout-area.json`` (benchmarks/web_table.py reports it too)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from playwright.sync_api import Browser, Page

from pips.bots.base import GreedyBot, RandomBot
from pips.core.errors import OptionError
from pips.display import layouts_move_by_move
from pips.games.registry import find_game
from pips.sim import play_game
from tests.web_helpers import ARTIFACTS, browser

pytestmark = [pytest.mark.process, pytest.mark.browser]

__all__ = ["browser"]

STATIC = Path(__file__).parent.parent / "src" / "pips" / "server" / "static"
ASPECTS = (2.6, 0.85)
"""The board's shape on a desktop (1280 x 800: wide) and on a phone (390 x 844)."""

CHECK = """
(args) => {
  const out = [];
  for (const [item, aspects] of args) for (const aspect of aspects) {
    let g;
    try { g = layoutGeometry(item, aspect); }
    catch (e) { out.push({ error: String(e), tiles: item.tiles.length }); continue; }
    const rects = [...g.tiles, ...g.points];
    let overlapping = 0;
    for (let i = 0; i < rects.length; i++)
      for (let j = i + 1; j < rects.length; j++) if (overlaps(rects[i], rects[j])) overlapping++;
    const b = g.box, e = 1e-6;
    const outside = rects.filter((r) => r.x < b.x - e || r.y < b.y - e ||
      r.x + r.w > b.x + b.w + e || r.y + r.h > b.y + b.h + e).length;
    out.push({ tiles: g.tiles.length, laid: item.tiles.length, points: g.points.length,
               open: item.points.length, overlapping, outside, used: g.used, aspect,
               apart: g.apart });
  }
  return out;
}
"""


def configurations() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every FIDO set with every player count it is played by, and the other games at
    their sizes and variants."""
    fido = find_game("fido")
    for top in (6, 9, 12, 15, 18):
        for players in range(3, 10):
            try:
                fido.options_from_json({"players": players, "set": top})
            except OptionError:
                continue
            yield "fido", {"players": players, "set": top}
    for players in (2, 3, 4):
        yield "family", {"players": players}
        yield "family", {"players": players, "doubles_branch": True}
    for players in (2, 4, 6):
        yield "draw", {"players": players, "set": 9}
        yield "draw", {"players": players, "set": 9, "doubles_branch": True}
    for players, top in ((2, 6), (4, 6), (6, 9), (9, 15)):
        yield "doubles", {"players": players, "set": top, "hand_size": 7 if players < 5 else 6}
    yield "doubles", {"players": 4, "spinner": "none"}
    yield "partnership", {"teams": "fixed", "target": 30}


def final_layouts(game: str, options: dict[str, Any], games: int, seed: int = 0) -> list[Any]:
    """The layout at the end of every hand of ``games`` simulated games."""
    spec = find_game(game)
    chosen = spec.options_from_json(options)
    layouts = []
    for number in range(seed, seed + games):
        rng = random.Random(number)
        bots = [GreedyBot() if rng.random() < 0.5 else RandomBot() for _ in range(chosen.players)]
        match = play_game(spec, chosen, bots, number)
        for hand in match.hand_states:
            layouts.append(hand.view(0).to_json(history=False)["layout"])
    return layouts


@pytest.fixture(scope="module")
def engine(browser: Browser) -> Iterator[Page]:
    page = browser.new_page()
    page.set_content("<html><body></body></html>")
    page.add_script_tag(content="function t(s) { return s; }")
    for name in ("tiles.js", "layout.js"):
        page.add_script_tag(content=(STATIC / name).read_text(encoding="utf-8"))
    yield page
    page.close()


def check(engine: Page, jobs: list[tuple[Any, list[float]]]) -> list[dict[str, Any]]:
    """Each layout laid out on boards of the given shapes, and checked."""
    found: list[dict[str, Any]] = engine.evaluate(CHECK, jobs)
    for result in found:
        assert "error" not in result, result
        assert result["overlapping"] == 0, result
        assert result["outside"] == 0, result
        assert result["tiles"] == result["laid"] and result["points"] == result["open"], result
    return found


def games_of(game: str, options: dict[str, Any]) -> int:
    """Games simulated per configuration: fewer of the largest FIDO sets, whose layouts
    cost the engine the most (a double-18 layout of 150 tiles takes it a quarter of a
    second, one of 30 tiles a millisecond); the hands below and
    ``benchmarks/web_table.py`` lay out more of them."""
    if game != "fido":
        return 4
    return {6: 12, 9: 12, 12: 6}.get(options["set"], 1)


def test_hundreds_of_final_layouts_have_no_tile_over_another(engine: Page) -> None:
    layouts: list[tuple[str, dict[str, Any], Any]] = []
    for game, options in configurations():
        games = games_of(game, options)
        layouts += [(game, options, lay) for lay in final_layouts(game, options, games)]
    assert len(layouts) >= 600
    # Each on a desktop's board or a phone's, in turn (every configuration yields
    # layouts for both; laying each out twice took the suite a further 18 s of the
    # browser's time for little; the hands below are laid out move by move on either).
    shapes = [[ASPECTS[number % len(ASPECTS)]] for number in range(len(layouts))]
    found = check(
        engine, [(lay, shape) for (_, _, lay), shape in zip(layouts, shapes, strict=True)]
    )
    # How much of the board the layouts use, by game and size (largest first).
    used: dict[str, list[float]] = {}
    for (game, options, lay), result in zip(
        [item for item, shape in zip(layouts, shapes, strict=True) for _ in shape],
        found,
        strict=True,
    ):
        key = f"{game} {json.dumps(options, sort_keys=True)} aspect {result['aspect']}"
        used.setdefault(key, []).append(result["used"])
        assert 0 < result["used"] <= 1 and len(lay["tiles"]) == result["tiles"]
    summary: dict[str, Any] = {
        key: {"layouts": len(v), "mean": round(sum(v) / len(v), 3), "least": round(min(v), 3)}
        for key, v in used.items()
    }
    # The last resort (a piece laid apart, linked to its place) stays rare.
    apart = [r for r in found if r["apart"]]
    summary["laid apart"] = {"layouts": len(apart), "of": len(found)}
    assert len(apart) <= len(found) // 100, apart
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "layout-area.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")


WARM = """
(args) => {
  // As the table does: each layout of the hand starts from the last one's board.
  const [items, aspect] = args;
  let from = null;
  const out = [];
  for (const item of items) {
    const g = layoutGeometry(item, aspect, from);
    from = g;
    const rects = [...g.tiles, ...g.points];
    let overlapping = 0;
    for (let i = 0; i < rects.length; i++)
      for (let j = i + 1; j < rects.length; j++) if (overlaps(rects[i], rects[j])) overlapping++;
    out.push({ overlapping, tiles: g.tiles.length, laid: item.tiles.length,
               points: g.points.length, open: item.points.length });
  }
  return out;
}
"""


@settings(max_examples=3, deadline=None)
@given(
    top=st.sampled_from([12, 15, 18]),
    players=st.integers(3, 9),
    seed=st.integers(0, 2**30),
    aspect=st.sampled_from(ASPECTS),
)
def test_every_layout_of_a_fido_hand_move_by_move(
    engine: Page, top: int, players: int, seed: int, aspect: float
) -> None:
    """Not only the end: every layout a FIDO hand passes through, as the table shows it
    after each move (each laid out from the last one's board, as the table does)."""
    spec = find_game("fido")
    options = spec.options_from_json({"players": players, "set": top})
    played = play_game(spec, options, [GreedyBot() for _ in range(players)], seed).hand_states[0]
    layouts = layouts_move_by_move(played)
    for result in engine.evaluate(WARM, [layouts, aspect]):
        assert result["overlapping"] == 0, result
        assert result["tiles"] == result["laid"] and result["points"] == result["open"], result


def test_the_empty_table_has_a_board_with_its_middle(engine: Page) -> None:
    """Before the lead the layout is empty: a small board, nothing on it (the opening's
    place is added by the drawing, in its middle)."""
    for aspect in ASPECTS:
        found = engine.evaluate("(a) => layoutGeometry({ tiles: [], points: [] }, a)", aspect)
        assert found["tiles"] == [] and found["points"] == []
        box = found["box"]
        assert box["x"] <= -1 and box["x"] + box["w"] >= 1 and box["y"] <= -0.5
