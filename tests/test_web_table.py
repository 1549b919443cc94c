"""The table in a real browser, as players use it: a full hand of every game by
clicking; one on a phone by touch, one by keyboard alone, one by dragging tiles; the
sheet between hands; a player away past the grace period who comes back; a friend
invited by the copied link; the lobby's errors beside their fields. After each, nothing on the page
scrolls sideways and every place to play was on screen (tests/web_helpers.py).
Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from tests.server_helpers import Server, running, wait_for
from tests.web_helpers import (
    PHONE,
    as_guest,
    browser,
    click_turn,
    create_table,
    drag_turn,
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
    create_table(page, game, seats, private=False, **options)
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


def test_a_hand_by_dragging_tiles_onto_the_table(browser: Browser, server: Server) -> None:
    page = as_guest(browser, server, "Drags")
    # Seed 2 gives the person the opening: the first tile is dragged onto the empty table.
    practice_table(page, server, "draw", {"players": 2}, ["me", "bot:greedy"], seed=2)
    page.wait_for_selector("#hand .hand-tile")
    page.wait_for_selector("#hand button.playable")
    assert page.locator("#layout .laid").count() == 0
    dragged: list[int] = []

    def turn(page: Page) -> bool:
        tiles = page.locator("#hand .hand-tile").count()
        made = drag_turn(page)
        if made and page.locator("#hand .hand-tile").count() < tiles:
            dragged.append(tiles)
        return made

    play_until([page], match_over(page), turn)
    shot(page, "table-dragged-over")
    assert len(dragged) >= 3
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_friend_joins_a_private_table_by_the_copied_invitation(
    browser: Browser, server: Server
) -> None:
    host = as_guest(browser, server, "Hostine")
    host.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    table = create_table(host, "family", ["me", "open"], private=True, players="2")
    link = host.input_value("#invite-link")
    assert link.startswith(f"{server.url}/t/{table}?invite=")
    host.click("#invite-copy")
    host.wait_for_selector("#invite-copy:has-text('Copied')")
    assert host.evaluate("navigator.clipboard.readText()") == link
    # Without the invitation the table is not open to others; with it, the friend sits.
    friend = as_guest(browser, server, "Freundin")
    friend.goto(f"{server.url}/t/{table}")
    assert friend.locator("#join:visible").count() == 0
    friend.goto(link)
    friend.click("#join")
    friend.wait_for_selector("#hand .hand-tile")
    host.wait_for_selector(".seat-box:has-text('Freundin')")
    shot(friend, "table-invited")


def test_the_lobby_shows_an_error_beside_its_field_with_its_rule(
    browser: Browser, server: Server
) -> None:
    page = as_guest(browser, server, "Fehler")
    page.select_option("#game", "doubles")
    fields = '.game-options[data-game="doubles"]'
    page.select_option(f'{fields} [name="players"]', "4")
    page.fill(f'{fields} [name="hand_size"]', "9")
    page.dispatch_event(f'{fields} [name="hand_size"]', "change")
    error = page.locator(f'{fields} .field[data-field="hand_size"] .field-error')
    error.locator("a").wait_for()
    assert "not 9" in error.inner_text()
    assert error.locator("a").get_attribute("href") == "/rules/doubles#DB-02"
    assert page.get_attribute(f'{fields} [name="hand_size"]', "aria-invalid") == "true"
    assert page.inner_text("#brief") == ""
    shot(page, "lobby-field-error")
    # Creating is refused in the page, with nothing sent; a good value clears the error.
    with page.expect_request("**/api/games/doubles/check"):
        page.click("#new-table button")
    assert "/t/" not in page.url
    page.fill(f'{fields} [name="hand_size"]', "7")
    page.dispatch_event(f'{fields} [name="hand_size"]', "change")
    page.wait_for_selector("#brief:not(:empty)")
    assert error.inner_text() == ""
    # The rule link opens the rules help at the rule.
    page.goto(f"{server.url}/rules/doubles#DB-02")
    assert page.locator('[id="DB-02"]').count() == 1


def test_the_largest_layout_fits_a_phone_and_a_desktop(browser: Browser, server: Server) -> None:
    """A whole hand of FIDO for nine on double-18 (F-01, F-02), played by tapping at
    390x844: after every turn nothing scrolls sideways and every place offered is on
    screen; the finished layout then fits 1280 px as well."""
    page = as_guest(browser, server, "Neun", **PHONE)
    practice_table(
        page,
        server,
        "fido",
        {"players": 9, "set": 18},
        ["me"] + ["bot:greedy"] * 8,
        seed=18,
    )
    page.wait_for_selector("#hand .hand-tile")
    turns = 0
    deadline = time.monotonic() + 240
    while not match_over(page)():
        assert time.monotonic() < deadline, "the hand did not end"
        if click_turn(page, tap=True):
            turns += 1
            page.wait_for_timeout(150)
            nothing_scrolls_sideways(page)
        page.wait_for_timeout(60)
    laid = page.locator("#sheet .final-layout .laid").count()
    shot(page, "table-fido-9-d18-phone")
    nothing_scrolls_sideways(page)
    page.tap("#sheet-close")
    shot(page, "table-fido-9-d18-phone-board")
    page.set_viewport_size({"width": 1280, "height": 900})
    page.wait_for_timeout(300)
    nothing_scrolls_sideways(page)
    shot(page, "table-fido-9-d18-desktop")
    assert turns >= 5 and laid >= 40, (turns, laid)
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_fido_hand_in_german(browser: Browser, server: Server) -> None:
    """A whole hand played by a browser that asks for German (issue 20): the page, the
    moves, the sheet and its arithmetic come in German, in the German rules' words."""
    page = as_guest(browser, server, "Jürgen Müller", locale="de-DE")
    assert page.get_attribute("html", "lang") == "de"
    create_table(page, "fido", ["me", "bot:greedy", "bot:expert"], players="3", set="6")
    page.wait_for_selector("#hand .hand-tile")
    assert "Divisor 3" in page.inner_text("#info")
    assert page.inner_text("#sheet-open") == "Partieblatt"
    play_until([page], match_over(page), click_turn)
    moves = page.locator("#log-lines li:not(.hand)").all_inner_texts()
    assert moves and all(
        " legt " in m or " eröffnet " in m or " zieht " in m or " passt" in m for m in moves
    ), moves
    assert not [m for m in moves if " lays " in m or " draws " in m], moves
    body = page.inner_text("#sheet-body")
    assert "Letzter Zug:" in body and "Hände" in body, body
    assert "SpielerIn" in page.inner_text("#sheet-body thead")
    assert "werden von ihren erzielten Punkten abgezogen (F-21)" in body, body
    assert "Spiel vorbei." in page.inner_text("#sheet-actions")
    shot(page, "table-fido-german-over")
    nothing_scrolls_sideways(page)
    assert page.errors == []  # type: ignore[attr-defined]
