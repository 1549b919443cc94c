"""Playwright helpers of the browser tests: Debian's chromium, guests, tables, turns taken
by clicking, tapping or the keyboard, and the checks every page must pass (nothing
scrolls sideways, every place to play is on screen). Screenshots go to
``test-artifacts/``."""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.server_helpers import Server, an_address

ARTIFACTS = Path(__file__).parent.parent / "test-artifacts"
CHROMIUM = os.environ.get("PIPS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "has_touch": True}
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 900}}

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's chromium is not installed (CI installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)


def as_guest(browser: Browser, server: Server, name: str, **context: Any) -> Page:
    headers = {"X-Forwarded-For": an_address()}
    page = browser.new_context(**{**DESKTOP, "extra_http_headers": headers, **context}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(server.url + "/")
    page.click("summary")
    page.fill("#guest-form input[name=name]", name)
    page.click("#guest-form button")
    # "(guest)", or the word of the browser's language ("(Gast)").
    page.locator("header, nav, body").get_by_text(
        re.compile(rf"{re.escape(name)} \(\w+\)")
    ).first.wait_for()
    return page


def create_table(
    page: Page, game: str, seats: list[str], *, private: bool = False, **options: str
) -> str:
    """Create a table through the lobby's form: options by their controls, seats as
    ``me``, ``open`` or ``bot:NAME``; a private table opens with its invitation."""
    page.select_option("#game", game)
    fields = f'.game-options[data-game="{game}"]'
    for name, value in options.items():
        control = page.locator(f'{fields} [name="{name}"]')
        kind = control.get_attribute("data-control")
        if kind == "choice":
            control.select_option(value)
        elif kind == "checkbox":
            control.set_checked(value == "true")
        else:
            control.fill(value)
            control.dispatch_event("change")
    page.wait_for_function(
        f"() => document.querySelectorAll('#seat-list .seat-kind').length === {len(seats)}"
    )
    for number, seat in enumerate(seats):
        page.locator("#seat-list .seat-kind").nth(number).select_option(seat)
    page.set_checked('#new-table [name="private"]', private)
    page.wait_for_selector("#brief:not(:empty)")
    # The answer is awaited so that a refusal fails with the server's words, not a
    # navigation timeout.
    try:
        with page.expect_response(lambda r: r.url.endswith("/api/tables")) as created:
            page.click("#new-table button")
    except PlaywrightTimeout:
        raise AssertionError(f"the lobby sent no table: {page.inner_text('#new-table')}") from None
    answer = created.value
    assert answer.ok, (answer.status, answer.text(), page.inner_text("#new-table"))
    page.wait_for_url("**/t/*")
    return page.url.rsplit("/", 1)[-1].split("?")[0]


def practice_table(
    page: Page, server: Server, game: str, options: dict[str, Any], seats: list[str], seed: int
) -> str:
    """A practice table dealt from ``seed`` (the same hands every run), made through the
    API with the page's session, then opened."""
    csrf = page.locator("meta[name=csrf]").get_attribute("content") or ""
    body = {
        "game": game,
        "options": options,
        "seed": seed,
        "seats": [
            {"kind": "bot", "bot": s[4:]} if s.startswith("bot:") else {"kind": s} for s in seats
        ],
    }
    response = page.request.post(
        server.url + "/api/tables", data=body, headers={"X-CSRF-Token": csrf}
    )
    assert response.ok, response.text()
    table = str(response.json()["id"])
    page.goto(f"{server.url}/t/{table}")
    return table


def nothing_scrolls_sideways(page: Page) -> None:
    """No element of the page is wider than its box (``scrollWidth`` at most
    ``clientWidth``), the page included (the shapes inside a drawing are not boxes; a
    name cut short with an ellipsis does not scroll, nor does the page when a text
    field's own text is longer than the field, nor do words for screen readers alone,
    clipped to a pixel)."""
    wide = page.evaluate(
        """() => [document.documentElement, ...document.querySelectorAll('body *')]
            .filter((e) => !e.ownerSVGElement && e.clientWidth > 0
                           && e.scrollWidth > e.clientWidth + 1
                           && getComputedStyle(e).textOverflow !== 'ellipsis'
                           && !['INPUT', 'TEXTAREA'].includes(e.tagName)
                           && !e.classList.contains('visually-hidden'))
            .map((e) => `${e.tagName}#${e.id}.${e.className.baseVal ?? e.className}`
                        + ` ${e.scrollWidth}>${e.clientWidth}`)"""
    )
    assert wide == [], wide
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def targets_on_screen(page: Page) -> int:
    """Every place to play lies inside the viewport (scrolled to, as a player would);
    how many there are. A board drawn again meanwhile (another seat's move arrived)
    is looked at again from the start."""
    for _attempt in range(5):
        try:
            return _targets_on_screen(page)
        except DrawnAgain:
            continue
        except PlaywrightError as error:
            if "not attached" not in str(error):
                raise
    return _targets_on_screen(page)


class DrawnAgain(Exception):
    """A place counted a moment ago is no longer shown: the board was drawn again."""


def _targets_on_screen(page: Page) -> int:
    places = page.locator("#layout .place.target")
    width = page.evaluate("window.innerWidth")
    height = page.evaluate("window.innerHeight")
    board = page.locator("#layout").bounding_box()
    assert board is not None
    for number in range(places.count()):
        place = places.nth(number)
        box = place.bounding_box()
        if box is None:
            raise DrawnAgain
        if not inside(box, board):
            # Outside the window of a large layout: offered as a button beside it.
            point = place.get_attribute("data-point")
            assert page.locator(f'#places button[data-point="{point}"]').is_visible(), box
            continue
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, box
    return places.count()


def inside(box: Any, frame: Any, slack: float = 1.0) -> bool:
    """Whether the box (Playwright's ``x``, ``y``, ``width``, ``height``) lies inside the
    frame."""
    return bool(
        box["x"] >= frame["x"] - slack
        and box["y"] >= frame["y"] - slack
        and box["x"] + box["width"] <= frame["x"] + frame["width"] + slack
        and box["y"] + box["height"] <= frame["y"] + frame["height"] + slack
    )


def a_place(page: Page) -> Any:
    """A place to play the chosen tile the player can reach: on the board where it
    shows, else its button beside the board."""
    board = page.locator("#layout").bounding_box()
    places = page.locator("#layout .place.target")
    for number in range(places.count()):
        box = places.nth(number).bounding_box()
        if board is not None and box is not None and inside(box, board):
            return places.nth(number)
    return page.locator("#places button").first


def on_one_screen(page: Page) -> None:
    """Board, hand and seats are inside the window together, the page not scrolled,
    and no two laid tiles overlap (by their boxes on the screen)."""
    seen = page.evaluate(
        """() => {
      const box = (s) => { const b = document.querySelector(s).getBoundingClientRect();
                           return [b.left, b.top, b.right, b.bottom]; };
      // A tile flying in from its player's seat is on its way, not yet where it lies.
      const tiles = [...document.querySelectorAll('#layout g.laid')]
        .filter((g) => !g.getAnimations().some((a) => a.playState === 'running')).map((g) => {
        const b = g.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; });
      // (a tile's box on the screen: its face and anything drawn over its edge)
      let overlapping = 0;
      for (let i = 0; i < tiles.length; i++) for (let j = i + 1; j < tiles.length; j++) {
        const [a, b] = [tiles[i], tiles[j]];
        if (a[0] < b[2] - 0.5 && b[0] < a[2] - 0.5 && a[1] < b[3] - 0.5 && b[1] < a[3] - 0.5)
          overlapping++;
      }
      const board = document.querySelector('#layout svg.board');
      const unit = board ? Number(board.dataset.unit) : 0;
      return { scroll: [scrollX, scrollY], w: innerWidth, h: innerHeight, overlapping,
               tiles: tiles.length, unit, board: box('#layout'), hand: box('#hand'),
               seats: box('#seats') };
    }"""
    )
    assert seen["scroll"] == [0, 0], seen
    for part in ("board", "hand", "seats"):
        left, top, right, bottom = seen[part]
        assert left >= 0 and top >= 0 and right <= seen["w"] + 1 and bottom <= seen["h"] + 1, (
            part,
            seen,
        )
    assert seen["overlapping"] == 0, seen
    # Laid tiles stay readable: never smaller than the engine's least (MIN_UNIT_PX).
    assert seen["tiles"] == 0 or seen["unit"] >= 14, seen


def board_clear(page: Page) -> dict[str, Any]:
    """Everything on the board lies inside it (no laid tile and no open end cut off by
    its edge) and nothing else on the page lies over it (no control over an open end);
    what was seen: px a unit, and the share of the board's width and height the layout
    takes (the larger of the two is the side that bounds it)."""
    seen: dict[str, Any] = page.evaluate(
        """() => {
      // The sheet at a hand's end may have opened since the caller looked: it is over
      // the board on purpose.
      if (document.querySelector('#sheet[open]')) return { out: 0, covered: 0, unit: 40 };
      const board = document.querySelector('#layout').getBoundingClientRect();
      const rects = (s) => [...document.querySelectorAll(s)]
        // A tile flying in from its player's seat is on its way, not yet where it lies.
        .filter((g) => !g.getAnimations().some((a) => a.playState === 'running'))
        .map((g) => g.getBoundingClientRect());
      const all = [...rects('#layout g.laid'), ...rects('#layout g.place')];
      const outside = (r) => r.left < board.left - 1 || r.top < board.top - 1
        || r.right > board.right + 1 || r.bottom > board.bottom + 1;
      // A layout too large for the board at the least size of a tile shows a window
      // of it, dragged by the player (its places are offered as buttons too): what
      // lies beyond the window is not cut off by mistake.
      const svg = document.querySelector('#layout svg.board');
      const windowed = svg && svg.dataset.window === '1';
      const pieces = windowed ? all.filter((r) => !outside(r)) : all;
      const out = pieces.filter(outside).length;
      // Whatever the browser finds at a piece's middle and corners is the board's own.
      let covered = 0;
      for (const r of pieces) {
        const spots = [[(r.left + r.right) / 2, (r.top + r.bottom) / 2],
                       [r.left + 2, r.top + 2], [r.right - 2, r.top + 2],
                       [r.left + 2, r.bottom - 2], [r.right - 2, r.bottom - 2]];
        if (spots.some(([x, y]) => { const e = document.elementFromPoint(x, y);
                                     return e && !document.querySelector('#layout').contains(e); }))
          covered++;
      }
      const span = (lo, hi) =>
        pieces.length ? Math.max(...pieces.map(hi)) - Math.min(...pieces.map(lo)) : 0;
      return { out, covered, pieces: pieces.length, windowed,
               unit: svg ? Number(svg.dataset.unit) : 0,
               width: span((r) => r.left, (r) => r.right) / board.width,
               height: span((r) => r.top, (r) => r.bottom) / board.height };
    }"""
    )
    assert seen["out"] == 0 and seen["covered"] == 0, seen
    return seen


def close_sheet(page: Page, sheets: list[str] | None = None) -> bool:
    """Close the sheet between hands if it is open; its title goes to ``sheets``. The
    sheet at the end of the match stays open (it may have opened just after the caller
    last looked for it)."""
    if not page.locator("#sheet[open]").count() or match_over(page)():
        return False
    if sheets is not None:
        sheets.append(page.inner_text("#sheet-title"))
    page.click("#sheet-close")
    return True


def click_turn(page: Page, tap: bool = False) -> bool:
    """If it is this page's turn, make a move by clicking (or tapping); whether one
    was made. Places are checked to be on screen whenever they are offered."""
    # A state that arrives between looking and clicking may take the button away (the
    # move went through, or the turn passed): that is no move, not a failure.
    act: Callable[[Any], None] = (
        (lambda el: el.tap(timeout=3_000)) if tap else (lambda el: el.click(timeout=3_000))
    )
    try:
        playable = page.locator("#hand button.playable")
        if playable.count():
            act(playable.first)
            if page.locator("#layout .place.target").count():
                targets_on_screen(page)
                act(a_place(page))
            return True
        for button in ("#draw", "#knock"):
            if page.locator(button).is_visible():
                act(page.locator(button))
                return True
    except PlaywrightTimeout:
        return False
    return False


def drag_turn(page: Page) -> bool:
    """If it is this page's turn, drag a tile from the hand onto a place with the mouse
    (draw and knock are clicked); whether a move was made. The tile must leave the hand."""
    playable = page.locator("#hand button.playable")
    if not playable.count():
        return click_turn(page)
    tile = playable.first
    key = tile.get_attribute("data-tile")
    box = tile.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 15, y - 15, steps=3)  # past the 8 px that tell a drag from a click
    target = page.locator("#layout .place.target").first
    target.wait_for(timeout=5_000)
    targets_on_screen(page)
    spot = target.bounding_box()
    assert spot is not None
    page.mouse.move(spot["x"] + spot["width"] / 2, spot["y"] + spot["height"] / 2, steps=8)
    page.mouse.up()
    page.wait_for_selector(f'#hand [data-tile="{key}"]', state="detached", timeout=10_000)
    return True


def keyboard_turn(page: Page) -> bool:
    """Make a move with the keyboard alone: Tab to a tile, Enter, then Enter on the
    place the focus moves to; or Tab to draw or knock."""
    wanted = None
    if page.locator("#hand button.playable").count():
        wanted = "#hand button.playable"
    elif page.locator("#draw").is_visible():
        wanted = "#draw"
    elif page.locator("#knock").is_visible():
        wanted = "#knock"
    if wanted is None:
        return False
    for _ in range(80):
        if page.evaluate(f"document.activeElement.matches('{wanted}')"):
            break
        if not page.locator(wanted).first.is_visible():
            return False  # a state came meanwhile and took it away: no move
        page.keyboard.press("Tab")
    else:
        raise AssertionError(f"Tab never reached {wanted}")
    before = page.evaluate("document.activeElement.outerHTML")
    assert before
    page.keyboard.press("Enter")
    if wanted.startswith("#hand") and page.locator("#layout .place.target").count():
        assert page.evaluate("document.activeElement.matches('#layout .place.target')")
        page.keyboard.press("Enter")
    return True


def play_until(
    pages: list[Page],
    done: Callable[[], bool],
    turn: Callable[[Page], bool] = click_turn,
    sheets: list[str] | None = None,
    timeout: float = 150,
) -> None:
    """Take every page's turns until ``done()``; sheets between hands are closed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if done():
            return
        for page in pages:
            close_sheet(page, sheets)
            if turn(page):
                page.wait_for_timeout(120)
        time.sleep(0.05)
    raise AssertionError("the game did not get there in time")


OVER = re.compile("over|vorbei")
"""The end of a match or game on the sheet, in English or German."""


def match_over(page: Page) -> Callable[[], bool]:
    """Whether the sheet at the end of the match (or one-hand game) is open: it says
    who won, "Match over: ..." ("Partie vorbei: ...")."""
    return lambda: page.locator("#sheet[open] #outcome", has_text=OVER).count() > 0
