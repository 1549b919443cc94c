"""The full-screen client in a real terminal (tmux), as a person meets it: resized in
the middle of a game, at 80x24 in German, at the end of a FIDO hand. What is on the
screen is read as text and held against the game's own state (the record the client
saves after every move)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from textual.binding import Binding

from pips.display import play_outcomes
from pips.i18n import _, speaking
from pips.tui.app import PlayApp
from pips.tui.screens import TableApp
from pips.tui.session import PlaySession
from tests.terminal import Terminal, flat, home, pips_argv

pytestmark = pytest.mark.process


def my_moves(save: Path) -> int:
    """The moves the person has made, as the saved record says. Only the person's own:
    the file may be a bot's move behind the screen when it is read, and counting every
    move took that bot's move, saved a moment later, for the person's (a test went on
    before its Enter was played, and the question it asked was left open)."""
    try:
        session = PlaySession.resume(save)
    except Exception:
        return -1  # not written yet, or the game is over
    return sum(
        1 for state in session.match.hand_states for e in state.history if e.seat == session.me
    )


def my_turn_on_screen(save: Path, screen: str) -> bool:
    """The person's turn, on screen and in the record alike: a screen read a moment late
    still shows the turn just played, and a key sent then comes to the client while the
    bots play (the hint asked for nothing, and Enter played the tile at the cursor)."""
    if "Your turn" not in flat(screen):
        return False
    if my_moves(save) < 0:
        return True  # nothing saved yet: the game's first turn
    session = PlaySession.resume(save)
    return session.my_turn and f"S = {session.view().layout.count} " in screen


def play_my_turn(terminal: Terminal, save: Path) -> None:
    """Play the first tile the client offers (its first place, if it asks where)."""
    before = max(my_moves(save), 0)  # no file yet: no move made
    terminal.keys("Enter")
    asked = [0.0]

    def played(screen: str) -> bool:
        if my_moves(save) > before:
            return my_turn_on_screen(save, screen)
        # A tile that fits several places letters them on the board (‹2:a›) and waits.
        # Asked again while the question stays: on a loaded machine an "a" sent as the
        # letters appeared once came before the client listened for it.
        if ":a›" in screen and time.monotonic() - asked[0] > 2:
            terminal.keys("a")
            asked[0] = time.monotonic()
        return False

    terminal.wait_for(played)


def board_of(screen: str) -> str:
    """The rows inside the board's frame."""
    rows = screen.splitlines()
    top = next((i for i, row in enumerate(rows) if row.startswith("╭")), None)
    bottom = next((i for i, row in enumerate(rows) if row.startswith("╰")), None)
    if top is None or bottom is None:
        return ""  # being drawn
    return "\n".join(rows[top + 1 : bottom])


SIZES = [(60, 20), (80, 24), (120, 40), (200, 60), (80, 24), (61, 21), (100, 30), (80, 24)]


def test_a_resize_mid_game_keeps_every_open_end_and_the_hand_in_sight(tmp_path: Path) -> None:
    """Issue: 60x20 → 80x24 dropped two rows of the layout, playable ends included,
    until the view was changed three times. Now, at every size from 80x24 up, every
    open end and every tile of the hand come into sight by themselves (the wait only
    allows for a busy machine); at the smallest sizes the hand does, and the board is
    never wider than its box."""
    save = tmp_path / "game.json"
    argv = ["play", "fido", "--players", "5", "--set", "12", "--seed", "5", "--delay", "0"]
    with Terminal(pips_argv(*argv, "--save", str(save)), 60, 20, home(tmp_path)) as terminal:
        terminal.wait_for("Your turn")
        for _ in range(3):
            play_my_turn(terminal, save)
        view = PlaySession.resume(save).view()
        ends = sorted(str(p.value) for p in view.layout.points)
        hand = [f"[{tile.high}│{tile.low}]" for tile in view.hand]
        for width, height in SIZES:
            terminal.resize(width, height)
            assert terminal.size() == (width, height)

            def in_sight(screen: str, width: int = width) -> bool:
                rows = screen.splitlines()
                if not rows or len(rows[0]) > width or "Your turn" not in flat(screen):
                    return False
                board = board_of(screen)
                if "▁" in board or "▔" in board:  # a sideways scroll bar
                    return False
                if width >= 80 and sorted(re.findall(r"‹(\d+)›", board)) != ends:
                    return False
                return all(tile in screen for tile in hand)

            try:
                terminal.wait_for(in_sight, settled=True)
            except AssertionError as failure:
                raise AssertionError(f"at {width}x{height}: {failure}") from None


def test_at_80x24_a_fido_screen_shows_the_points_of_every_scoring_play(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    argv = ["play", "fido", "--players", "5", "--set", "12", "--seed", "5", "--delay", "0"]
    with Terminal(pips_argv(*argv, "--save", str(save)), 80, 24, home(tmp_path)) as terminal:
        terminal.wait_for("Your turn")
        seen_points = 0
        for _ in range(4):

            def shows_my_turn(screen: str) -> bool:
                session = PlaySession.resume(save)
                count = f"S = {session.view().layout.count} "
                return session.my_turn and "Your turn" in flat(screen) and count in screen

            screen = terminal.wait_for(shows_my_turn, settled=True)
            session = PlaySession.resume(save)
            outcomes = play_outcomes(session.view(), session.legal_moves())
            words = flat(screen)
            for tile, found in outcomes.items():
                for outcome in found:
                    if outcome.points:
                        seen_points += 1
                        assert f"{tile}→{outcome.count} +{outcome.points}" in words, screen
            play_my_turn(terminal, save)
    assert seen_points  # the deal has scoring plays to show


def test_at_80x24_the_partnership_screen_names_the_partner_and_the_scores(
    tmp_path: Path,
) -> None:
    argv = ["play", "partnership", "--seed", "3", "--delay", "0", "--name", "Ann"]
    with Terminal(pips_argv(*argv), 80, 24, home(tmp_path)) as terminal:
        screen = terminal.wait_for("Your turn", settled=True)
    top = "\n".join(screen.splitlines()[1:4])
    assert "(partner)" in top or ("+ partner" in top and "+ " in top), screen
    assert "score 0" in top or "/0" in top, screen


def test_titles_and_keys_are_shortened_whole_never_cut(tmp_path: Path) -> None:
    argv = ["--lang", "de", "play", "fido", "--players", "5", "--set", "12", "--delay", "0"]
    with speaking("de"):
        descriptions = {
            _(b.description)
            for b in [*PlayApp.BINDINGS, *TableApp.BINDINGS]
            if isinstance(b, Binding) and b.description
        } | {_("Pass")}
        quit_word = _("Quit")
    with Terminal(pips_argv(*argv), 80, 24, home(tmp_path)) as terminal:
        for width, height in [(80, 24), (60, 20), (120, 40), (200, 60)]:
            terminal.resize(width, height)

            def drawn(screen: str, width: int = width) -> bool:
                # The footer too: on a loaded machine a screen was once taken after the
                # resize had drawn the table but not yet its keys (an empty last row).
                rows = screen.splitlines()
                return (
                    "Du bist am Zug" in flat(screen)
                    and len(rows[0]) <= width
                    and quit_word in rows[-1]
                )

            screen = terminal.wait_for(drawn, settled=True)
            rows = screen.splitlines()
            assert "…" not in rows[0], rows[0]
            assert "FIDO" in rows[0] and "5 SpielerInnen" in rows[0], rows[0]
            keys = [item.split(" ", 1) for item in rows[-1].strip().split("  ")]
            assert keys and all(len(item) == 2 for item in keys), rows[-1]
            assert {words for _, words in keys} <= descriptions, rows[-1]
            with speaking("de"):
                assert _("Help") in rows[-1] and _("Quit") in rows[-1], rows[-1]


def test_the_result_of_a_fido_hand_fits_80x24_without_scrolling(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    argv = ["play", "fido", "--players", "4", "--set", "6", "--seed", "8", "--delay", "0"]
    with Terminal(pips_argv(*argv, "--save", str(save)), 80, 24, home(tmp_path)) as terminal:
        terminal.wait_for("Your turn")
        # The hint, then Enter, plays what the expert bot would: a tile, a draw, a pass.
        for _ in range(60):
            screen = terminal.wait_for(
                lambda s: "Game over" in flat(s) or my_turn_on_screen(save, s)
            )
            if "Game over" in flat(screen):
                break
            before = max(my_moves(save), 0)  # no file yet: no move made
            terminal.keys("h", "Enter")  # in order, both on the person's turn

            def played(screen: str, before: int = before) -> bool:
                return my_moves(save) > before or "Game over" in flat(screen)

            terminal.wait_for(played)
        screen = terminal.wait_for("Game over", settled=True)
    rows = screen.splitlines()
    # The winner, and every seat's final score, on the first screen of the sheet.
    assert any("Game over" in row for row in rows[:8]), screen
    for name in ("You", "greedy-1", "greedy-2", "greedy-3"):
        assert any(name in row and "│" in row for row in rows), (name, screen)
