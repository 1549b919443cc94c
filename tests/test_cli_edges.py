"""The rough edges of the `pips` command and the terminal client, each as a user meets
it: a failing external bot, help that names values and defaults, `--version`, a record
that would be overwritten, the rules in words, words about the person ("You lay"),
sheets without empty columns, win shares inside [0, 1]."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from pips.core.moves import At, Draw, Pass, Play
from pips.core.tiles import Tile
from pips.core.view import MoveEvent
from pips.display import describe_event, hand_sheet, sheet_table
from pips.games.registry import find_game
from pips.sim.tournament import Estimate
from pips.tui.app import PlayApp
from pips.tui.screens import TextScreen
from pips.tui.session import PlaySession
from tests.test_cli import run
from tests.test_tui import new_session, rendered, run_app, settle

FAILING_BOTS = {
    "exits": "false",
    "answers garbage": "echo garbage",
    "hangs": f"{sys.executable} -c 'import time; time.sleep(30)'",
}


@pytest.mark.process
@pytest.mark.parametrize("fault", list(FAILING_BOTS))
def test_a_failing_external_bot_ends_the_game_with_one_line(tmp_path: Path, fault: str) -> None:
    saved = tmp_path / "game.json"
    bots = f"external:{FAILING_BOTS[fault]},greedy"
    game = ["play", "fido", "--players", "3", "--seed", "2", "--bots", bots]
    done = subprocess.run(
        [sys.executable, "-m", "pips", *game, "--text", "--save", str(saved)],
        input="1\n" * 40,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PIPS_EXTERNAL_SECONDS": "1"},
    )
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: external bot") and str(saved) in lines[0]
    assert "Traceback" not in done.stdout + done.stderr
    assert saved.exists()  # the game so far is kept


def test_a_failing_bot_in_the_full_screen_client_ends_it_with_its_reason(
    tmp_path: Path,
) -> None:
    spec = find_game("fido")
    options = spec.options_from_json({"players": 3, "set": 6})
    session = PlaySession(
        spec, options, [None, "external:false", "greedy"], ["Ann", "x", "g"], 2, tmp_path / "g"
    )
    app = PlayApp(session, delay=0)

    async def script(pilot: Pilot[object]) -> None:
        for _ in range(400):
            if app.failure is not None:
                break
            if session.my_turn:
                await pilot.press("h", "enter")
            await pilot.pause()

    run_app(app, script)
    assert app.failure is not None and "external bot" in app.failure
    assert app.return_code == 1


def test_version_and_help_name_values_and_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out.startswith("pips ")
    code, out, _ = run(["play", "--help"], capsys)
    flat = " ".join(out.replace("│", " ").split())
    assert code == 0
    assert "fido: 3 to 9, required" in flat
    assert "partnership: 30, 10 or any positive whole number, default 30" in flat


def test_a_missing_option_names_its_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["play", "doubles", "--text"], capsys)
    assert code == 2
    assert err.strip() == "error: doubles needs --players (2 to 9): Number of players"


def test_save_never_overwrites_a_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kept = tmp_path / "kept.json"
    kept.write_text("{}", encoding="utf-8")
    code, _, err = run(["play", "fido", "-p", "3", "--text", "--save", str(kept)], capsys)
    assert code == 2 and "exists" in err and "--resume" in err
    assert kept.read_text(encoding="utf-8") == "{}"


def test_rules_prints_the_rules_in_words_then_the_options(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["rules", "doubles"], capsys)
    assert code == 0
    flat = " ".join(out.split())
    assert "A suit may be matched only once its double is in the layout" in flat
    assert "(DB-06)" in flat and "--hand-size" in flat
    assert flat.index("DB-06") < flat.index("Options")


def test_the_person_is_spoken_to() -> None:
    names = ["Ann", "Bo", "Cy", "Di"]
    laid = MoveEvent(0, Play(Tile.of(6, 4), 6, At.END, 3))
    assert describe_event(laid, names, "draw", you=0) == "You lay 6-4 on 6"
    assert describe_event(laid, names, "draw") == "Ann lays 6-4 on 6"
    knock = MoveEvent(1, Pass())
    assert describe_event(knock, names, "partnership", you=1) == "You knock"
    assert describe_event(knock, names, "partnership") == "Bo knocks"


def test_a_one_hand_sheet_leaves_out_columns_of_zeros() -> None:
    spec = find_game("draw")
    state = spec.new_hand(spec.options_from_json({"players": 2}), random.Random(3))
    while not state.is_over:
        state.play(state.legal_moves()[0])
    shown = sheet_table(hand_sheet(state, ["Ann", "Bo"]), ["Ann", "Bo"])
    assert shown.columns[0] == "player" and "pips left" in shown.columns
    for i, column in enumerate(shown.columns):
        if column not in ("player", "pips left", "place"):
            assert any(row[i] != "0" for row in shown.rows), column


def test_win_shares_stay_inside_zero_and_one() -> None:
    rare = Estimate.share([0.0] * 198 + [1.0] * 2)
    assert 0 <= rare.low < rare.mean < rare.high <= 1
    never = Estimate.share([0.0] * 50)
    assert never.low == 0 and 0 < never.high < 0.1
    always = Estimate.share([1.0] * 50)
    assert always.high == 1 and 0.9 < always.low < 1


def test_enter_help_offers_only_the_games_dealt_by_hand(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["enter", "--help"], capsys)
    flat = " ".join(out.replace("│", " ").split())
    assert code == 0 and "The game: fido (the games dealt by hand" in flat
    assert "--deal-mode" not in out and "--hand-size" not in out and "partnership" not in out


def test_hint_then_enter_plays_the_hint_whatever_it_is(tmp_path: Path) -> None:
    """Draws, passes and a tile on one of several places: Enter after h plays exactly
    the move the hint named."""
    session = new_session(tmp_path, "fido", seed=2, options={"players": 3, "set": 6})
    app = PlayApp(session, delay=0)
    kinds: set[str] = set()

    async def script(pilot: Pilot[object]) -> None:
        while not session.is_over:
            await settle(pilot, session)
            if isinstance(app.screen, TextScreen) or session.is_over:
                break
            advice = session.hint().move
            if isinstance(advice, Play):
                several = len(app.outcomes.get(advice.tile, ())) > 1
                kinds.add("place" if several else "tile")
            else:
                kinds.add(type(advice).__name__)
            before = len(session.moves)
            await pilot.press("h", "enter")
            await settle(pilot, session)
            played = session.moves[before]
            assert played == advice or (type(played) is type(advice) is Draw)

    run_app(app, script)
    assert {"Draw", "place", "tile"} <= kinds, kinds


def test_a_tile_refused_by_doubles_says_its_rule(tmp_path: Path) -> None:
    session = new_session(tmp_path, "doubles", seed=3, options={"players": 2})
    said: set[str] = set()
    for _ in range(200):
        if session.is_over:
            break
        if session.my_turn:
            view = session.view()
            playable = {m.tile for m in session.legal_moves() if isinstance(m, Play)}
            ends = {p.value for p in view.layout.points}
            for tile in view.hand:
                if tile not in playable and (tile.high in ends or tile.low in ends):
                    said.add(session.why_not(tile))
        session.play(session.legal_moves()[0] if session.my_turn else session.decide())
    assert any("is not in the layout (DB-06)" in s for s in said), said


def test_resume_keeps_the_undo_count_and_the_last_sheet(tmp_path: Path) -> None:
    session = new_session(tmp_path, "family", seed=4, options={"players": 3, "target": 60})
    while len(session.match.hand_states) < 2:
        session.play(session.legal_moves()[0] if session.my_turn else session.decide())
    while not session.my_turn:
        session.play(session.decide())
    session.play(session.legal_moves()[0])
    assert session.undo() > 0
    resumed = PlaySession.resume(session.path)
    assert resumed.undos == 1
    app = PlayApp(resumed, delay=0)

    async def script(pilot: Pilot[object]) -> None:
        await pilot.pause()
        await pilot.press("s")
        assert isinstance(app.screen, TextScreen)

    run_app(app, script)
    assert app.last_sheet is not None


def test_the_titles_say_what_is_played(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = find_game("family")
    options = spec.options_from_json({"players": 2, "target": 30})
    session = PlaySession(spec, options, [None, "greedy"], ["Ann", "g"], 1, tmp_path / "f.json")
    app = PlayApp(session, delay=0)
    assert app.title == "Family game" and app.sub_title.endswith("first to 30")
    code, out, _ = run(["simulate", "fido", "-p", "3", "--hands", "5", "--set", "6"], capsys)
    assert code == 0 and "FIDO divisor game: 5 games" in " ".join(out.split())


def test_a_knock_that_costs_tiles_is_asked_twice(
    tmp_path: Path,
) -> None:
    spec = find_game("partnership")
    options = spec.options_from_json({"target": 1, "false_knock": "penalize", "teams": "fixed"})
    session = PlaySession(
        spec,
        options,
        [None, "greedy", "greedy", "greedy"],
        ["Ann", "b", "c", "d"],
        2,
        tmp_path / "p.json",
    )
    app = PlayApp(session, delay=0)
    asked: list[str] = []

    async def script(pilot: Pilot[object]) -> None:
        await settle(pilot, session)
        # A tile fits: k asks first and changes nothing; a second k knocks (PT-08).
        while not app.outcomes:
            await pilot.press("h", "enter")
            await settle(pilot, session)
        before = len(session.moves)
        await pilot.press("k")
        asked.append(str(app.query_one("#status", Static).content))
        assert len(session.moves) == before
        await pilot.press("k")
        await settle(pilot, session)
        assert isinstance(session.moves[before], Pass)
        assert session.view().set_aside[session.me]
        while not session.is_over:
            if isinstance(app.screen, TextScreen):
                await pilot.press("enter")
            await pilot.press("h", "enter")
            await settle(pilot, session)

    run_app(app, script)
    assert "k again to knock" in asked[0]
    assert app.last_sheet is not None


def test_a_one_hand_game_ends_with_game_over(tmp_path: Path) -> None:
    session = new_session(tmp_path, "fido", seed=2, options={"players": 3, "set": 6})
    while not session.is_over:
        session.play(session.legal_moves()[0] if session.my_turn else session.decide())
    shown = rendered(PlayApp(session, delay=0).sheet_of(1)[0])
    assert "Game over:" in shown and "Match over" not in shown


def test_serve_takes_other_rate_limits_and_refuses_malformed_ones() -> None:
    from typer.testing import CliRunner

    from pips.cli import app
    from pips.cli.serve import read_limit
    from pips.server.app import settings_app
    from pips.server.settings import Settings

    assert read_limit("analyses=1/2") == ("analyses", (1.0, 2.0))
    for wrong in ("analyses", "analyses=1", "analyses=0/2", "analyses=-1/2", "speed=1/2", "=1/2"):
        done = CliRunner().invoke(app, ["serve", "--port", "1", "--limit", wrong])
        assert done.exit_code != 0, wrong
        assert "NAME=BURST/PER_MINUTE" in done.output + str(done.exception), wrong
    settings = Settings(database="sqlite://", warm=False, limits={"analyses": (1.0, 0.5)})
    made = settings_app(Settings.from_json(settings.to_json())).state.limits
    assert (made.analyses.burst, made.analyses.per_minute) == (1.0, 0.5)
    assert (made.chat.burst, made.chat.per_minute) == (5, 20)  # the others as they were


def test_serve_takes_an_analysis_level_of_the_search_and_refuses_others() -> None:
    from typer.testing import CliRunner

    from pips.bots.search import LEVELS
    from pips.cli import app
    from pips.server.analyses import LEVELS as SERVED
    from pips.server.app import settings_app
    from pips.server.settings import Settings

    assert set(SERVED) == set(LEVELS)  # the server names them without loading the search
    for wrong in ("expert", "5000", ""):
        done = CliRunner().invoke(app, ["serve", "--port", "1", "--analysis-level", wrong])
        assert done.exit_code != 0, wrong
        said = done.output + str(done.exception)
        assert "--analysis-level must be easy, normal or hard" in said, wrong
    settings = Settings(database="sqlite://", warm=False, analysis_level="hard")
    made = settings_app(Settings.from_json(settings.to_json()))
    assert made.state.analyses.level == "hard"


def test_the_servers_defaults_are_declared_once_in_its_settings() -> None:
    """``pips serve``'s options default to :class:`~pips.server.settings.Settings`'s
    values, and no other part of the server declares one of its own: a default changed
    there is changed everywhere."""
    import inspect
    import re
    from dataclasses import fields

    from pips.cli.serve import serve
    from pips.server.settings import Settings

    options = inspect.signature(serve).parameters
    renamed = {"warm": "warm_up"}
    defaults = Settings()
    for setting in fields(Settings):
        option = options.get(renamed.get(setting.name, setting.name))
        if option is not None:
            assert option.default == getattr(defaults, setting.name), setting.name
    server = Path(__file__).parents[1] / "src" / "pips" / "server"
    # (An analyses' own default, following=0, is "follow none", not the server's.)
    declared = re.compile(r"\b(bot_delay|grace|unattended|lease|level)\b[^=\n(]*=\s*[\d\"]")
    elsewhere = [
        f"{path.name}: {line.strip()}"
        for path in server.rglob("*.py")
        if path.name != "settings.py"
        for line in path.read_text(encoding="utf-8").splitlines()
        if declared.search(line) and not line.lstrip().startswith("#")
    ]
    assert elsewhere == []


def test_a_move_typed_wrong_is_refused_in_the_players_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notation's refusals (pips.core.notation) are phrases, said at the command's
    edge in the reader's language, not English f-strings printed as they are."""
    import io
    from contextvars import ContextVar

    from pips import i18n

    monkeypatch.setattr("sys.stdin", io.StringIO("hallo\n99\nq\n"))
    # --lang sets this process's language: the next test reads English again.
    monkeypatch.setattr(i18n, "_default", i18n.SOURCE)
    monkeypatch.setattr(i18n, "_current", ContextVar[str]("pips_language"))
    code, out, err = run(
        ["--lang", "de", "play", "fido", "-p", "3", "--seed", "4", "--text", "--name", "Anna",
         "--save", str(tmp_path / "game.json")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    flat = " ".join(out.split())
    assert "'hallo' ist kein Stein (schreib ihn wie 12-9)" in flat
    assert "es gibt keinen Zug 99: wähle 1 bis" in flat
    assert "not a tile" not in flat and "there is no move" not in flat
