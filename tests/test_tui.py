"""The full-screen client, driven headless by textual's pilot: whole matches of every game
played by key presses, what the screen shows, undo, resume and replay."""

from __future__ import annotations

import asyncio
import io
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import RichLog, Static

from pips import record
from pips.bots.expert import ExpertBot
from pips.cli import main
from pips.core.moves import Draw, Play
from pips.core.tiles import Tile
from pips.display import hand_order
from pips.games.fido_count import ratzek_rows
from pips.games.registry import find_game
from pips.tui.app import PlayApp
from pips.tui.replay import ReplayApp
from pips.tui.screens import TextScreen
from pips.tui.session import PlaySession

GAMES: dict[str, dict[str, Any]] = {
    "fido": {"players": 3, "set": 6},
    "family": {"players": 3, "target": 30},
    "draw": {"players": 3},
    "doubles": {"players": 3, "target": 40},
    "partnership": {"target": 3},
}
SIZE = (120, 44)


def new_session(
    tmp_path: Path, game: str, seed: int = 3, options: dict[str, Any] | None = None
) -> PlaySession:
    spec = find_game(game)
    opts = spec.options_from_json(options or GAMES[game])
    entrants: list[str | None] = [None] + ["greedy"] * (opts.players - 1)
    names = ["Ann"] + [f"bot{i}" for i in range(1, opts.players)]
    return PlaySession(spec, opts, entrants, names, seed, tmp_path / f"{game}.json")


def fido_app(tmp_path: Path) -> tuple[PlaySession, PlayApp]:
    """A FIDO double-9 game of four where the person holds 9-9 and opens (seed 5)."""
    session = new_session(tmp_path, "fido", seed=5, options={"players": 4, "set": 9})
    return session, PlayApp(session, delay=0)


def text_of(app: PlayApp | ReplayApp, selector: str) -> str:
    content = app.query_one(selector, Static).content
    return str(getattr(content, "plain", content))


def rendered(renderable: object, width: int = 100) -> str:
    """What a rich renderable shows, as plain text."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def tiles_shown(text: str) -> list[Tile]:
    return [Tile.of(int(a), int(b)) for a, b in re.findall(r"\[\s*(\d+)│(\d+)\s*\]", text)]


def log_text(app: PlayApp) -> str:
    return "\n".join(strip.text for strip in app.query_one("#log", RichLog).lines)


async def settle(pilot: Pilot[object], session: PlaySession) -> None:
    """Wait until the person is to move, a page is open, or the match is over."""
    app = pilot.app
    for _ in range(2000):
        await pilot.pause()
        if isinstance(app.screen, TextScreen) or session.is_over:
            return
        if session.my_turn and not getattr(app, "thinking", False):
            return
    raise AssertionError("the client never came back to the person")


async def take_turn(pilot: Pilot[object], session: PlaySession) -> None:
    """One turn by keys: the hinted tile with Enter (and the first place if asked),
    ``d`` to draw, ``k`` to pass or knock."""
    moves = session.legal_moves()
    if any(isinstance(m, Play) for m in moves):
        await pilot.press("h", "enter")
        if isinstance(pilot.app, PlayApp) and pilot.app.choice is not None:
            await pilot.press("a")
    elif any(isinstance(m, Draw) for m in moves):
        await pilot.press("d")
    else:
        await pilot.press("k")


async def play_out(pilot: Pilot[object], session: PlaySession, stop_after: int = 10**6) -> int:
    """Play by keys until the match is over (closing every score sheet) or for
    ``stop_after`` turns; how many score sheets were shown."""
    sheets = turns = 0
    while turns < stop_after:
        await settle(pilot, session)
        if isinstance(pilot.app.screen, TextScreen):
            sheets += 1
            await pilot.press("enter")
            continue
        if session.is_over:
            break
        await take_turn(pilot, session)
        turns += 1
    return sheets


def run_app(app: PlayApp | ReplayApp, script: Callable[[Pilot[object]], Awaitable[None]]) -> None:
    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await script(pilot)

    asyncio.run(main())


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_match_is_played_by_key_presses(tmp_path: Path, game: str) -> None:
    session = new_session(tmp_path, game)
    app = PlayApp(session, delay=0)
    shown: list[int] = []

    async def script(pilot: Pilot[object]) -> None:
        shown.append(await play_out(pilot, session))
        assert "The match is over" in text_of(app, "#status")

    run_app(app, script)
    assert session.is_over
    # A score sheet after every hand, and the record on disk is the finished match.
    assert shown == [len(session.match.hand_states)]
    replayed = record.replay(json.loads(session.path.read_text()))
    assert replayed.match.is_over and replayed.seats[session.me] == "Ann"
    assert replayed.bots is not None and replayed.bots[session.me] is None
    assert [b for b in replayed.bots if b] == ["greedy"] * (len(replayed.seats) - 1)


def test_fido_shows_the_count_the_divisor_and_what_each_tile_makes(tmp_path: Path) -> None:
    session, app = fido_app(tmp_path)

    async def script(pilot: Pilot[object]) -> None:
        checked = 0
        while checked < 4 and not session.is_over:
            await settle(pilot, session)
            view = session.view()
            shown = text_of(app, "#count")
            s = view.layout.count
            assert f"S = {s}   divisor 5   S mod 5 = {s % 5}" in shown  # F-04, F-01
            plays = [m for m in session.legal_moves() if isinstance(m, Play)]
            if not plays:
                await take_turn(pilot, session)
                continue
            await pilot.press("h", "enter")
            if app.choice is not None:
                await pilot.press("a")
            mine = [e for e in session.match.current.history if e.seat == session.me][-1]
            assert isinstance(mine.move, Play)
            # The panel said what this tile would make of S, and it did (F-05 to F-07).
            made = f"{mine.move.tile}→{mine.layout_count}"
            assert made in shown
            if mine.points:
                assert f"{made} +{mine.points}" in shown  # F-15
            checked += 1
        assert checked == 4

    run_app(app, script)


def test_the_fido_hand_is_in_ratzek_order_and_the_partnership_hand_as_taken(
    tmp_path: Path,
) -> None:
    for game, options in (
        ("fido", {"players": 4, "set": 12}),
        ("partnership", {}),
        ("partnership", {"allow_hand_sorting": True}),
        ("family", {"players": 2}),
    ):
        session = new_session(tmp_path, game, seed=8, options=options)
        app = PlayApp(session, delay=0)

        async def script(
            pilot: Pilot[object], session: PlaySession = session, app: PlayApp = app
        ) -> None:
            await settle(pilot, session)
            view = session.view()
            shown = text_of(app, "#hand")
            found = tiles_shown(shown)
            if view.game == "fido":
                rows = ratzek_rows(view.hand, 7)
                assert found == [t for row in rows for t in row]
                assert shown.count("┆") == len(rows) - 1  # rows of pairs k, 7-k (F-03)
            elif view.game == "partnership" and not view.options.to_json()["allow_hand_sorting"]:
                assert found == list(view.hand)  # PT-03: as taken
            else:
                assert found == sorted(view.hand, key=lambda t: (t.high, t.low), reverse=True)
            assert found == hand_order(view)

        run_app(app, script)


def test_the_hint_key_shows_what_the_expert_would_play_and_why(tmp_path: Path) -> None:
    session, app = fido_app(tmp_path)

    async def script(pilot: Pilot[object]) -> None:
        await settle(pilot, session)
        await pilot.press("enter")  # the opening double: the only play
        await settle(pilot, session)
        advice = ExpertBot().advise(session.view(), session.legal_moves())
        before = len(session.moves)
        await pilot.press("h")
        status = text_of(app, "#status")
        assert "Hint: " in status and advice.reasons[0] in status
        assert len(session.moves) == before  # a hint changes nothing
        await pilot.press("enter")  # Enter plays the hinted tile
        if app.choice is not None:
            await pilot.press("a")
        assert isinstance(advice.move, Play)
        played = session.moves[before]
        assert isinstance(played, Play) and played.tile == advice.move.tile

    run_app(app, script)


def test_typed_tiles_play_and_bad_ones_change_nothing(tmp_path: Path) -> None:
    session, app = fido_app(tmp_path)

    async def script(pilot: Pilot[object]) -> None:
        await settle(pilot, session)
        await pilot.press("1", "2", "-", "9", "enter")  # not a tile of double-9
        assert session.moves == []
        assert "12-9 is not a tile of the double-9 set" in text_of(app, "#status")
        await pilot.press("7", "-", "0", "enter")  # a tile of the set, held by another
        assert session.moves == [] and "you do not hold 7-0" in text_of(app, "#status")
        await pilot.press("6", "-", "6", "enter")  # in hand, but 9-9 must open (F-09)
        status = text_of(app, "#status")
        assert session.moves == [] and "opens with the highest double held, 9-9 (F-09)" in status, (
            status
        )
        await pilot.press("x", "-", "enter")
        assert session.moves == []
        await pilot.press("9", "-", "9", "enter")
        opened = session.moves[0]
        assert isinstance(opened, Play) and opened.tile == Tile.of(9, 9)

    run_app(app, script)


def test_a_tile_that_fits_several_places_asks_where(tmp_path: Path) -> None:
    session, app = fido_app(tmp_path)

    async def script(pilot: Pilot[object]) -> None:
        for _ in range(40):
            await settle(pilot, session)
            if session.is_over:
                break
            several = [tile for tile, found in app.outcomes.items() if len(found) > 1]
            if several:
                tile = several[0]
                await pilot.press(*f"{tile.high}-{tile.low}", "enter")
                assert app.choice is not None and app.choice.tile == tile
                status = text_of(app, "#status")
                assert "fits more than one place" in status and "b:" in status
                assert ":a›" in text_of(app, "#table") or "/a" in text_of(app, "#table")
                second = app.choice.outcomes[1].move
                await pilot.press("escape")
                assert app.choice is None and "fits more" not in text_of(app, "#status")
                await pilot.press(*f"{tile.high}-{tile.low}", "enter", "b")
                mine = [e for e in session.match.current.history if e.seat == session.me]
                assert mine[-1].move == second
                return
            await take_turn(pilot, session)
        raise AssertionError("no tile with several places came up")

    run_app(app, script)


def test_undo_takes_back_the_persons_move_and_the_bots_replies(tmp_path: Path) -> None:
    session = new_session(tmp_path, "family", seed=4)
    app = PlayApp(session, delay=0)

    async def script(pilot: Pilot[object]) -> None:
        await settle(pilot, session)
        await pilot.press("u")
        assert "Nothing of yours" in text_of(app, "#status")
        before_view = session.view()
        before = list(session.moves)
        await take_turn(pilot, session)
        await settle(pilot, session)
        assert len(session.moves) > len(before)
        await pilot.press("u")
        await settle(pilot, session)
        assert session.moves == before and session.view() == before_view
        assert json.loads(session.path.read_text())["undos"] == 1
        # The same move again gives the same bot replies: decisions follow the position.
        await take_turn(pilot, session)
        await settle(pilot, session)

    run_app(app, script)


@pytest.mark.slow
def test_a_saved_match_resumes_and_ends_as_if_never_stopped(tmp_path: Path) -> None:
    whole = new_session(tmp_path / "whole", "doubles", seed=6)
    run_app(PlayApp(whole, delay=0), lambda pilot: play_out(pilot, whole))  # type: ignore[arg-type,return-value]

    first = new_session(tmp_path / "parts", "doubles", seed=6)
    app = PlayApp(first, delay=0)
    exited: list[object] = []

    async def stop_early(pilot: Pilot[object]) -> None:
        await play_out(pilot, first, stop_after=6)
        await settle(pilot, first)
        await pilot.press("q")
        exited.append(app.return_value)

    run_app(app, stop_early)
    assert exited == [first.path] and not first.is_over
    resumed = PlaySession.resume(first.path)
    assert resumed.moves == first.moves and resumed.names == first.names
    run_app(PlayApp(resumed, delay=0), lambda pilot: play_out(pilot, resumed))  # type: ignore[arg-type,return-value]
    assert resumed.is_over and resumed.moves == whole.moves
    assert resumed.match.scores == whole.match.scores


def test_help_shows_the_rules_summary_and_pace_keys_change_the_delay(tmp_path: Path) -> None:
    session = new_session(tmp_path, "partnership")
    app = PlayApp(session, delay=0.8)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("question_mark")
        assert isinstance(app.screen, TextScreen)
        body = rendered(app.screen.query_one("#dialog-body", Static).content)
        assert "PT-10" in body and "floor(P / 10) + 1" in body
        await pilot.press("escape")
        assert not isinstance(app.screen, TextScreen)
        await pilot.press("greater_than_sign")
        assert app.delay == pytest.approx(0.4)
        await pilot.press("less_than_sign", "less_than_sign")
        assert app.delay == pytest.approx(1.6)

    run_app(app, script)


def test_a_laid_double_is_announced(tmp_path: Path) -> None:
    session = new_session(tmp_path, "doubles", seed=2)
    app = PlayApp(session, delay=0)

    async def script(pilot: Pilot[object]) -> None:
        await settle(pilot, session)
        first = session.match.current.history[0].move
        assert isinstance(first, Play) and first.tile.is_double  # DB-04 sets a double
        assert f"{first.tile} laid · knock knock! (Rostock knocking)" in log_text(app)

    run_app(app, script)


@pytest.mark.slow
def test_replay_steps_forward_and_back(tmp_path: Path) -> None:
    session = new_session(tmp_path, "family", seed=4, options={"players": 3, "target": 60})
    run_app(PlayApp(session, delay=0), lambda pilot: play_out(pilot, session))  # type: ignore[arg-type,return-value]
    replayed = record.replay(json.loads(session.path.read_text()))
    app = ReplayApp(replayed)

    async def script(pilot: Pilot[object]) -> None:
        assert "hand 1, move 0" in text_of(app, "#hand")
        await pilot.press("right", "right", "right")
        assert app.position == 3 and "hand 1, move 3" in text_of(app, "#hand")
        frame = app.frames[3]
        assert len(frame.view.layout.tiles) == sum(
            isinstance(e.move, Play) for e in frame.view.history
        )
        await pilot.press("left")
        assert app.position == 2
        await pilot.press("pagedown")
        assert "hand 2, move 0" in text_of(app, "#hand")
        await pilot.press("end")
        assert app.frames[app.position].result is not None
        assert "scores" in text_of(app, "#status") or "nobody" in text_of(app, "#status")

    run_app(app, script)


def test_stepping_back_from_the_end_of_a_replay_takes_the_sheet_away(tmp_path: Path) -> None:
    """The log shows the hand as it stood at the position shown: the score sheet once
    the hand is over, not after a step back (issue: it stayed)."""
    games = tmp_path / "games.jsonl"
    with pytest.raises(SystemExit) as done:
        main(["simulate", "fido", "-p", "3", "--set", "6", "--hands", "1", "--record", str(games)])
    assert done.value.code in (0, None)
    app = ReplayApp(record.replay(next(record.load(games))))

    def log_text() -> str:
        return "\n".join(
            line if isinstance(line, str) else getattr(line, "plain", type(line).__name__)
            for line in app.log_lines
        )

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("end")
        await pilot.pause()
        assert any(not isinstance(line, str) for line in app.log_lines)  # the sheet
        moves = len(app.frames[app.position].view.history)
        await pilot.press("left")
        await pilot.pause()
        assert all(isinstance(line, str) for line in app.log_lines), log_text()
        assert len(app.log_lines) == moves - 1  # the moves up to this position
        await pilot.press("right")
        await pilot.pause()
        assert any(not isinstance(line, str) for line in app.log_lines)

    run_app(app, script)
