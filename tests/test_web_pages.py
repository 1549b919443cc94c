"""The house a newcomer walks into, in Debian's chromium: "play now" seats them at once
(a guest name made for them, changed later), the tab tells them when it is their
turn, every page fits a 390 px phone without scrolling sideways, touch targets are
44 px at least, a bad link is a page in the reader's language (not JSON), and the API
page works with nothing but this server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route

from tests.server_helpers import Server, an_address, running
from tests.web_helpers import (
    PHONE,
    as_guest,
    browser,
    create_table,
    nothing_scrolls_sideways,
    shot,
)

pytestmark = [pytest.mark.process, pytest.mark.browser]

__all__ = ["browser"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running(tmp_path_factory.mktemp("pages"), bot_delay=0.05) as started:
        yield started


def newcomer(browser: Browser, server: Server, **context: Any) -> Page:
    """Someone who has never been here: no session, no name."""
    headers = {"X-Forwarded-For": an_address()}
    page = browser.new_context(extra_http_headers=headers, **context).new_page()
    page.goto(server.url + "/")
    return page


def test_play_now_seats_a_newcomer_against_bots_with_a_name_made_for_them(
    browser: Browser, server: Server
) -> None:
    page = newcomer(browser, server, **PHONE)
    page.select_option('#play-now [name="game"]', "family")
    page.select_option('#play-now [name="level"]', "random")
    page.click("#play-bots")
    page.wait_for_url("**/t/*")
    page.wait_for_selector("#hand .hand-tile")
    me = page.inner_text(".seat-box.me")
    # (The seat's parts are flex items: innerText puts each on a line of its own.)
    assert re.search(r"Guest-\d{4}\s+\(you\)", me), me
    # The other seats are bots of the chosen level.
    table = page.url.rsplit("/", 1)[-1]
    seats = httpx.get(f"{server.url}/api/tables/{table}").json()["table"]["seats"]
    bots = [s["bot"] for s in seats if s["kind"] == "bot"]
    assert bots and set(bots) == {"random"} and len(bots) == len(seats) - 1
    # The tab's title says whose turn it is.
    # A function, not an expression: Playwright evaluates an expression again with
    # eval at each poll after the first, which the page's CSP refuses.
    page.wait_for_function("() => document.title.startsWith('▶')", timeout=20_000)
    shot(page, "play-now-phone")
    # The name made for them is changed at the top of any page.
    page.goto(server.url + "/")
    page.click(".rename summary")
    page.fill('.rename [name="name"]', "Grete")
    page.click(".rename form[action='/guest'] button")
    page.get_by_text("Grete (guest)").wait_for()


def test_play_now_joins_the_next_table_with_a_free_seat(browser: Browser, server: Server) -> None:
    host = as_guest(browser, server, "Gastgeberin")
    table = create_table(host, "draw", ["me", "open", "bot:greedy"], players="3")
    guest = newcomer(browser, server)
    guest.select_option('#play-now [name="game"]', "draw")
    guest.click("#play-table")
    guest.wait_for_url(f"**/t/{table}")
    guest.wait_for_selector("#hand .hand-tile")
    host.wait_for_selector(".seat-box:has-text('Guest-')")


def test_every_page_fits_a_phone_and_its_touch_targets_are_44_px(
    browser: Browser, server: Server
) -> None:
    page = as_guest(browser, server, "Schmal", **PHONE)
    for path in (
        "/",
        "/results",
        "/results/new",
        "/rules/fido",
        "/rules/partnership",
        "/list",
        "/events",
        "/groups",
        "/fair",
        "/accounts/Schmal/games",
        "/t/nope",
    ):
        page.goto(server.url + path)
        nothing_scrolls_sideways(page)
    page.goto(server.url + "/results/new")
    shot(page, "page-results-new-phone")
    page.goto(server.url + "/")
    create_table(page, "fido", ["me", "bot:greedy", "bot:greedy"], players="3", set="9")
    page.wait_for_selector("#hand .hand-tile")
    small = page.evaluate(
        """() => [...document.querySelectorAll(
                 '#hand .hand-tile, .board-tools button:not([hidden]), #actions button')]
            .filter((e) => e.offsetParent !== null)
            .map((e) => [e.id || e.className, e.getBoundingClientRect()])
            .filter(([, b]) => b.width < 44 || b.height < 44)
            .map(([name, b]) => `${name} ${b.width}x${b.height}`)"""
    )
    assert small == [], small


def test_a_bad_link_is_a_page_in_the_readers_language(browser: Browser, server: Server) -> None:
    page = browser.new_context(locale="de-DE").new_page()
    answer = page.goto(server.url + "/t/gibtsnicht")
    assert answer is not None and answer.status == 404
    body = page.inner_text("main")
    assert "Nicht gefunden" in body and "Zur Startseite" in body, body
    assert '{"code"' not in page.content()
    page.goto(server.url + "/gibt/es/nicht")
    assert "Nicht gefunden" in page.inner_text("main")
    page.goto(server.url + "/players/x?offset=abc")
    # The API answers a script as before: JSON.
    api = httpx.get(server.url + "/api/tables/gibtsnicht")
    assert api.status_code == 404 and api.json() == {
        "code": "not_found",
        "message": "no such table",
        "rule": None,
        "field": None,
    }


def test_the_api_page_works_with_nothing_but_this_server(browser: Browser, server: Server) -> None:
    page = browser.new_context().new_page()
    elsewhere: list[str] = []

    def only_here(route: Route) -> None:
        if route.request.url.startswith(server.url):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_here)
    page.goto(server.url + "/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=20_000)
    assert elsewhere == []
    assert page.locator(".opblock-summary-path", has_text="/api/tables").count() > 0
