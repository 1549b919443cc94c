"""The full-screen client at the sizes people use (80x24, 120x40) for every game, FIDO
double-18 with 3 and 9 players included: at every turn of the person the prompt is on
screen, the board has rows, every open end and every place offered is drawn and within
the board's scrolling reach, and the places offered for a tile are scrolled into view.
The screen at the end is a snapshot (``tests/snapshots/screen-*.txt``; rewrite them with
``PIPS_UPDATE_SNAPSHOTS=1`` after a deliberate change and review the diff); an SVG of it
goes to ``test-artifacts/``.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.containers import ScrollableContainer
from textual.pilot import Pilot
from textual.widgets import Static

from pips import record
from pips.core.moves import Draw, Play
from pips.tui.app import PlayApp
from pips.tui.art import Spot
from pips.tui.replay import ReplayApp
from pips.tui.screens import TextScreen
from tests.test_tui import new_session, run_app, settle, text_of

SNAPSHOTS = Path(__file__).parent / "snapshots"
ARTIFACTS = Path(__file__).parent.parent / "test-artifacts"

CASES: dict[str, tuple[str, dict[str, Any], int]] = {
    # name: (game, options, turns of the person)
    "fido": ("fido", {"players": 4, "set": 9}, 8),
    "family": ("family", {"players": 3}, 4),
    "draw": ("draw", {"players": 3}, 4),
    "doubles": ("doubles", {"players": 3}, 5),
    "partnership": ("partnership", {}, 5),
    "fido-18-3": ("fido", {"players": 3, "set": 18}, 7),
    "fido-18-9": ("fido", {"players": 9, "set": 18}, 6),
}
SIZES = {"80x24": (80, 24), "120x40": (120, 40)}


def screen_text(app: PlayApp | ReplayApp) -> str:
    """The whole screen as plain text (as textual's own screenshots render it)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True)
    console.print(app.screen._compositor.render_update(full=True))
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def check_the_board(app: PlayApp, offered: list[int]) -> None:
    """The prompt is shown, the board has rows, every open point is drawn within the
    board's reach, and the ``offered`` places are in the visible part."""
    session = app.session
    view = session.view()
    box = app.query_one("#table-box", ScrollableContainer)
    assert box.region.height >= 5, f"the board has {box.region.height} rows"
    status = app.query_one("#status", Static)
    assert status.region.height >= 1
    assert status.region.bottom <= app.size.height - 1  # above the footer
    shown = screen_text(app)
    assert "Your turn" in shown or "fits more than one place" in shown, shown
    picture = app.picture
    for point in view.layout.points:
        spot = picture.points.get(point.id)
        assert spot is not None, f"open point {point} is not drawn"
        assert spot.row < box.virtual_size.height and spot.column < box.virtual_size.width
    for point_id in offered:
        assert in_view(box, picture.points[point_id]), f"place {point_id} is out of view"


def in_view(box: ScrollableContainer, spot: Spot) -> bool:
    """Whether ``spot`` of the board's picture is in the part the board shows."""
    inner = box.scrollable_content_region
    row = spot.row - box.scroll_offset.y
    column = spot.column + 1 - box.scroll_offset.x  # the picture's padding
    return 0 <= row < inner.height and column >= 0 and column + spot.width <= inner.width + 1


async def play_turns(pilot: Pilot[object], app: PlayApp, turns: int) -> int:
    """Take the person's turns by keys, checking the board at each; how many places
    were offered to choose from (each checked to be in view)."""
    session = app.session
    choices = 0
    for _ in range(turns):
        await settle(pilot, session)
        if isinstance(app.screen, TextScreen):
            await pilot.press("enter")
            await settle(pilot, session)
        if session.is_over:
            break
        check_the_board(app, [])
        moves = session.legal_moves()
        plays = [m for m in moves if isinstance(m, Play)]
        several = [t for t, found in app.outcomes.items() if len(found) > 1]
        if several:
            # The tile that fits several places: its places are scrolled into view.
            await pilot.press(*str(several[0]), "enter")
            await pilot.pause()
            assert app.choice is not None
            check_the_board(app, [o.move.end for o in app.choice.outcomes])
            choices += 1
            await pilot.press("a")
        elif plays:
            await pilot.press("enter")
        elif any(isinstance(m, Draw) for m in moves):
            await pilot.press("d")
        else:
            await pilot.press("k")
    return choices


@pytest.mark.slow
@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("case", list(CASES))
def test_the_client_fits_the_screen(tmp_path: Path, case: str, size: str) -> None:
    game, options, turns = CASES[case]
    session = new_session(tmp_path, game, seed=7, options=options)
    app = PlayApp(session, delay=0)
    screens: list[str] = []

    async def script(pilot: Pilot[object]) -> None:
        await pilot.resize_terminal(*SIZES[size])
        await play_turns(pilot, app, turns)
        await settle(pilot, session)
        await pilot.pause()
        screens.append(screen_text(app) + "\n")
        ARTIFACTS.mkdir(exist_ok=True)
        app.save_screenshot(f"tui-{case}-{size}.svg", path=str(ARTIFACTS))

    run_app(app, script)
    path = SNAPSHOTS / f"screen-{case}-{size}.txt"
    if os.environ.get("PIPS_UPDATE_SNAPSHOTS"):
        path.write_text(screens[0], encoding="utf-8")
    assert screens[0] == path.read_text(encoding="utf-8")


def test_a_screen_too_small_says_so(tmp_path: Path) -> None:
    session = new_session(tmp_path, "fido", options={"players": 3, "set": 6})
    app = PlayApp(session, delay=0)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.resize_terminal(50, 16)
        await pilot.pause()
        assert "needs at least 60x20" in text_of(app, "#too-small")
        assert app.query_one("#too-small", Static).region.height > 0
        assert app.query_one("#table-box", ScrollableContainer).region.height == 0
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert app.query_one("#too-small", Static).region.height == 0
        assert app.query_one("#table-box", ScrollableContainer).region.height >= 5

    run_app(app, script)


@pytest.mark.slow
def test_the_board_scrolls_from_the_keyboard_and_comes_back(tmp_path: Path) -> None:
    session = new_session(tmp_path, "fido", seed=7, options={"players": 9, "set": 18})
    app = PlayApp(session, delay=0)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.resize_terminal(80, 24)
        await play_turns(pilot, app, 6)
        await settle(pilot, session)
        box = app.query_one("#table-box", ScrollableContainer)
        await pilot.press("c", "c")  # auto → compact → full
        assert app.board_view == "full"
        await pilot.pause()
        assert box.max_scroll_y > 0, "the layout as laid is larger than the board by now"
        start = (box.scroll_x, box.scroll_y)
        # Away from the last tile, whichever way there is room.
        await pilot.press(*["shift+up" if box.scroll_y > 0 else "shift+down"] * 3)
        await pilot.press(*["shift+left" if box.scroll_x > 0 else "shift+right"] * 2)
        await pilot.pause()
        moved = (box.scroll_x, box.scroll_y)
        assert moved != start
        last = app.picture.tiles[len(session.view().layout.tiles) - 1]
        assert not in_view(box, last)
        await pilot.press("period")  # back to the last tile laid
        await pilot.pause()
        assert in_view(box, last)

    run_app(app, script)


def test_the_replay_shows_every_seat_of_nine_with_its_hand(tmp_path: Path) -> None:
    session = new_session(tmp_path, "fido", seed=7, options={"players": 9, "set": 18})
    while not session.is_over:
        session.play(session.legal_moves()[0] if session.my_turn else session.decide())
    replayed = record.replay(json.loads(session.path.read_text(encoding="utf-8")))
    app = ReplayApp(replayed)
    shown: list[str] = []

    async def script(pilot: Pilot[object]) -> None:
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        shown.append(screen_text(app))

    run_app(app, script)
    for name in replayed.seats:
        assert name in shown[0], f"{name} is not on the replay's screen"


def test_the_log_wraps_long_lines_at_its_own_width(tmp_path: Path) -> None:
    session = new_session(tmp_path, "fido", seed=7, options={"players": 9, "set": 18})
    app = PlayApp(session, delay=0)
    logged: list[str] = []

    async def script(pilot: Pilot[object]) -> None:
        await pilot.resize_terminal(120, 40)
        await settle(pilot, session)
        # The log's part of the screen: right of the seats.
        log = app.query_one("#log").region
        rows = screen_text(app).splitlines()[log.y : log.bottom]
        logged.append(" ".join(row[log.x : log.right] for row in rows))

    run_app(app, script)
    words = " ".join(logged[0].replace("│", " ").split())
    assert "bot7 (greedy), bot8 (greedy)" in words  # the end of the line, not cut off


def test_the_client_in_german(tmp_path: Path) -> None:
    """Under a German language (pips --lang de, LANG=de_DE...) the table speaks German:
    seats, count, prompt, moves and the keys in the footer (issue 20)."""
    from pips import i18n

    # As pips --lang de does: the bots' moves are worded in threads of their own.
    i18n.use_by_default("de")
    try:
        session = new_session(tmp_path, "fido", seed=4, options={"players": 3, "set": 6})
        app = PlayApp(session, delay=0)
        screens: list[str] = []

        async def script(pilot: Pilot[object]) -> None:
            await pilot.resize_terminal(120, 40)
            await pilot.press("enter")
            await settle(pilot, session)
            await pilot.pause()
            screens.append(screen_text(app))

        run_app(app, script)
    finally:
        i18n.use_by_default("en")
    screen = screens[0]
    assert "FIDO-Divisorspiel" in screen and "Runde 1" in screen
    assert "Divisor 3" in screen
    assert "Du bist am Zug" in screen or "denkt nach" in screen or "ist am Zug" in screen
    assert "Hilfe" in screen and "Beenden" in screen
    assert " legt " in screen or "Du legst" in screen
    assert " lays " not in screen and "Your turn" not in screen
