"""The table in a real browser, as players use it: a full hand of every game by
clicking; one on a phone by touch, one by keyboard alone; the sheet between hands; a
player away past the grace period who comes back. After each, nothing on the page
scrolls sideways and every place to play was on screen (tests/web_helpers.py).
Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.server_helpers import Server, running, wait_for
from tests.web_helpers import (
    PHONE,
    as_guest,
    browser,
    click_turn,
    create_table,
    keyboard_turn,
    match_over,
    nothing_scrolls_sideways,
    play_until,
    practice_table,
    shot,
)

__all__ = ["browser"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # Each test seats guests of its own names; the grace period is short so a player
    # who stays away loses the seat to a bot within the test.
    home = tmp_path_factory.mktemp("table")
    with running(home, bot_delay=0.05, grace=3) as started:
        yield started


ONE_HAND = {
    "fido": (["me", "bot:greedy", "bot:expert"], {"players": "3", "set": "6"}),
    "family": (["me", "bot:greedy"], {"players": "2", "target": "1"}),
    "draw": (["me", "bot:random", "bot:greedy"], {"players": "3"}),
    "doubles": (["me", "bot:greedy"], {"players": "2", "target": "1"}),
    "partnership": (["me", "bot:greedy", "bot:expert", "bot:greedy"], {"target": "1"}),
}


@pytest.mark.parametrize("game", list(ONE_HAND))
def test_a_hand_of_every_game_is_played_by_clicking(
    browser: Browser, server: Server, game: str
) -> None:
    seats, options = ONE_HAND[game]
    page = as_guest(browser, server, f"Click {game}")
    create_table(page, game, seats, **options)
    page.wait_for_selector("#hand button.hand-tile, #hand span.hand-tile")
    nothing_scrolls_sideways(page)
    play_until([page], match_over(page), click_turn)
    # The sheet of the hand: how it ended, the last move, every hand face up, the points
    # with the arithmetic in words.
    body = page.inner_text("#sheet-body")
    assert "Last move:" in body and "Hands" in body
    assert page.locator("#sheet .final-layout svg.board").count() == 1
    shot(page, f"table-{game}-over")
    nothing_scrolls_sideways(page)
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_fido_hand_on_a_phone_by_touch(browser: Browser, server: Server) -> None:
    page = as_guest(browser, server, "Tap", **PHONE)
    create_table(
        page, "fido", ["me", "bot:greedy", "bot:greedy", "bot:expert"], players="4", set="9"
    )
    page.wait_for_selector("#hand button.hand-tile, #hand span.hand-tile")
    shot(page, "table-phone-start")
    laid = 0
    deadline = time.monotonic() + 150
    while not match_over(page)():
        assert time.monotonic() < deadline, "the hand did not end"
        if page.locator("#sheet[open]").count():
            page.tap("#sheet-close")
        if click_turn(page, tap=True):
            laid += 1
            page.wait_for_timeout(150)
            nothing_scrolls_sideways(page)
            if laid == 6:
                shot(page, "table-phone-midgame")
        page.wait_for_timeout(80)
    shot(page, "table-phone-over")
    nothing_scrolls_sideways(page)
    assert laid >= 3


def test_a_hand_by_keyboard_alone(browser: Browser, server: Server) -> None:
    page = as_guest(browser, server, "Keys")
    practice_table(
        page,
        server,
        "doubles",
        {"players": 3, "target": 1},
        ["me", "bot:greedy", "bot:greedy"],
        seed=11,
    )
    page.wait_for_selector("#hand .hand-tile")
    play_until([page], match_over(page), keyboard_turn)
    shot(page, "table-keyboard-over")
    nothing_scrolls_sideways(page)


def test_the_sheet_appears_between_hands(browser: Browser, server: Server) -> None:
    page = as_guest(browser, server, "Sheets")
    practice_table(
        page, server, "family", {"players": 2, "target": 100}, ["me", "bot:expert"], seed=5
    )
    page.wait_for_selector("#hand .hand-tile")
    sheets: list[str] = []
    play_until([page], lambda: len(sheets) >= 1 or match_over(page)(), sheets=sheets)
    if not sheets:
        sheets.append(page.inner_text("#sheet-title"))
    assert sheets[0].startswith("Hand 1")
    page.wait_for_selector("#sheet-open:not([hidden])")
    page.click("#sheet-open")
    assert "Match sheet" in page.inner_text("#sheet-title")
    shot(page, "table-match-sheet")
    page.click("#sheet-close")
    assert page.locator("#log-lines li.hand", has_text="hand 2").count() == 1


def test_a_player_away_past_the_grace_period_takes_the_seat_back(
    browser: Browser, server: Server
) -> None:
    ann = as_guest(browser, server, "Annika")
    table = create_table(ann, "draw", ["me", "open"], players="2")
    bo = as_guest(browser, server, "Bodo")
    bo.goto(f"{server.url}/t/{table}")
    bo.click("#join")
    bo.wait_for_selector("#hand .hand-tile")
    context = bo.context
    bo.close()
    # Ann sees Bodo away, then a bot playing for him once the grace period is over.
    ann.wait_for_selector(".seat-box.away", timeout=10_000)
    ann.wait_for_selector(".seat-box:has-text('Bodo (bot)')", timeout=20_000)
    shot(ann, "table-away")
    bo = context.new_page()
    bo.goto(f"{server.url}/t/{table}")
    bo.wait_for_selector("#seats")

    def back() -> bool:
        click_turn(ann)
        return bo.locator(".seat-box.me", has_text="Bodo (you)").count() > 0 or match_over(bo)()

    wait_for(back, timeout=60)
    if not match_over(bo)():
        assert ann.locator(".seat-box.away").count() == 0
    shot(bo, "table-back")
