"""A championship of 120 players from 12 clubs in a real browser (Debian's chromium,
Playwright), at 390x844 and 1280x800 (issue 50): the organiser's controls before the
standings, a check-in tick that keeps the organiser's place (with a script, and without
one), the search, the round page with its results in and missing and who sits where,
and the public pages of a player and a club, none of them scrolling sideways.
Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from pips.server import accounts
from pips.store.db import Database
from tests.server_helpers import Server, an_address, running
from tests.test_web_results import sign_in
from tests.web_helpers import PHONE, browser, nothing_scrolls_sideways, shot

__all__ = ["browser"]

DESK: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}
SIZES = {"phone": PHONE, "desk": DESK}

FIRST = ["Łukasz", "Jiří", "Şükrü", "Søren", "Jörg", "Anna", "Zofia", "Ben", "Dörte", "Mette"]
LAST = ["Dąbrowski", "Dvořák", "Öztürk", "Kjærgaard", "Müller", "Berg", "Nowak", "Ohm",
        "Voß", "Hansen", "Schröder", "Yılmaz"]  # fmt: skip
CLUBS = ["SC Kiel", "Hafenclub", "KS Gdańsk", "Domino Brno", "İzmir Taşları", "DK Aarhus",
         "TSV Büdelsdorf", "DC Lübeck", "Wrocław Kości", "Plzeň Kameny", "Ankara DK",
         "Odense Dominoklub"]  # fmt: skip
NAMES = [f"{first} {last}" for last in LAST for first in FIRST]  # 120


@pytest.fixture(scope="module")
def championship(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    """The server, and a championship of 120 players (check-in), every one checked in
    but the last, round 1 drawn and half its tables' results in."""
    home = tmp_path_factory.mktemp("championship")
    db = Database(f"sqlite:///{home / 'pips.db'}")
    db.upgrade()
    anna = accounts.create_account(db, "Anna", "password1")
    root = accounts.create_account(db, "Root", "password1")
    from pips.results.service import Results

    results = Results(db)
    results.admin.set_admin("Root")
    results.groups.create(anna.id, "Hafenclub")
    results.admin.approve_group(root.id, "hafenclub")
    db.dispose()
    with running(home) as server:
        client = httpx.Client(
            base_url=server.url, timeout=60, headers={"X-Forwarded-For": an_address()}
        )
        csrf = client.get("/api/session").json()["csrf"]
        client.post("/login", data={"name": "Anna", "password": "password1", "csrf": csrf})
        csrf = client.get("/api/session").json()["csrf"]
        head = {"X-CSRF-Token": csrf}
        made = client.post(
            "/api/events",
            json={"name": "Ostsee-Meisterschaft 2026", "game": "fido", "date": "03.10.2026",
                  "rounds": 7, "options": {"set": 6}, "place": "Kiel", "group": "hafenclub",
                  "check_in": True, "pairing": "swiss"},
            headers=head,
        )  # fmt: skip
        assert made.status_code == 201, made.text
        key = made.json()["key"]
        added = client.post(
            f"/api/events/{key}/players",
            json={"names": NAMES, "new_players": NAMES,
                  "clubs": {n: CLUBS[i % 12] for i, n in enumerate(NAMES)}},
            headers=head,
        )  # fmt: skip
        assert added.status_code == 200, added.text[:300]
        for player in added.json()["players"]:
            if player["name"] == "Mette Yılmaz":
                continue  # she comes late
            checked = client.post(
                f"/api/events/{key}/players/{player['id']}/check-in", json={}, headers=head
            )
            assert checked.status_code == 200, checked.text[:300]
        drawn = client.post(f"/api/events/{key}/rounds", headers=head)
        assert drawn.status_code == 201, drawn.text[:300]
        rng = random.Random(5)
        for table in drawn.json()["drawn"][0]["tables"][::2]:
            lines = [
                {"name": n, "points": 5 * rng.randrange(12), "pips": 0 if i == 0 else 7}
                for i, n in enumerate(table["seats"])
            ]
            entered = client.post(
                f"/api/events/{key}/rounds/1/tables/{table['number']}",
                json={"players": lines},
                headers=head,
            )
            assert entered.status_code == 200, entered.text
        yield server, key


def organiser(browser: Browser, server: Server, size: str, **more: Any) -> Page:
    page = sign_in(
        browser,
        server,
        "Anna",
        **SIZES[size],
        extra_http_headers={"X-Forwarded-For": an_address()},
        **more,
    )
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def visitor(browser: Browser, size: str) -> Page:
    context = browser.new_context(
        **SIZES[size],
        locale="de-DE",
        extra_http_headers={"X-Forwarded-For": an_address(), "Accept-Language": "de"},
    )
    return context.new_page()


@pytest.mark.parametrize("size", ["phone", "desk"])
def test_the_organiser_checks_in_without_losing_their_place(
    browser: Browser, championship: tuple[Server, str], size: str
) -> None:
    server, key = championship
    anna = organiser(browser, server, size)
    anna.goto(f"{server.url}/events/{key}")
    # Controls first: the organiser's section comes before 120 rows of standings.
    organiser_top = anna.locator("#organiser").bounding_box()
    standings_top = anna.locator("#standings").bounding_box()
    assert organiser_top is not None and standings_top is not None
    assert organiser_top["y"] < standings_top["y"]
    nothing_scrolls_sideways(anna)
    shot(anna, f"event-120-{size}")
    # The last player arrives: their tick, far down the list, is saved where it is.
    last = anna.locator("#players li[id^=player-]").filter(has_text="Mette Yılmaz")
    box = last.locator("button.check-in")
    assert box.get_attribute("aria-pressed") == "false"
    box.scroll_into_view_if_needed()
    anna.evaluate("window.stayed = true")
    before = anna.evaluate("window.scrollY")
    assert before > 1000
    box.click()
    last.locator("button.check-in[aria-pressed=true]").wait_for()
    assert anna.evaluate("window.stayed === true")  # no reload
    assert abs(anna.evaluate("window.scrollY") - before) < 5
    assert "120 of 120" in anna.locator("#checked-count").inner_text()
    # And out again, for the other size's run.
    box.click()
    last.locator("button.check-in[aria-pressed=false]").wait_for()
    # The search narrows the page to the names typed (umlauts and accents aside).
    anna.fill("#search", "jorg muller")
    visible = anna.locator("#players li[id^=player-]:visible")
    assert visible.count() == 1 and "Jörg Müller" in visible.inner_text()
    assert anna.inner_text("#search-count") == "1 player"
    assert anna.locator("#standings tbody tr:visible").count() == 1
    shot(anna, f"event-120-search-{size}")
    anna.fill("#search", "")
    assert anna.locator("#players li[id^=player-]:visible").count() == 120
    assert not anna.errors  # type: ignore[attr-defined]


def test_without_a_script_a_tick_comes_back_to_the_same_player(
    browser: Browser, championship: tuple[Server, str]
) -> None:
    server, key = championship
    anna = organiser(browser, server, "desk", java_script_enabled=False)
    anna.goto(f"{server.url}/events/{key}")
    last = anna.locator("#players li[id^=player-]").filter(has_text="Mette Yılmaz")
    player = last.get_attribute("id")
    last.locator("button.check-in").click()
    anna.wait_for_url(f"**/events/{key}#{player}")
    assert anna.locator(f"#{player} button.check-in").get_attribute("aria-pressed") == "true"
    top = anna.evaluate(f"document.getElementById('{player}').getBoundingClientRect().top")
    assert 0 <= top < 800  # the page opened at the player, not at its top
    last = anna.locator(f"#{player}")
    last.locator("button.check-in").click()
    anna.wait_for_url(f"**/events/{key}#{player}")


@pytest.mark.parametrize("size", ["phone", "desk"])
def test_the_public_pages_read_on_a_phone_and_a_desk(
    browser: Browser, championship: tuple[Server, str], size: str
) -> None:
    server, key = championship
    page = visitor(browser, size)
    page.goto(f"{server.url}/events/{key}/rounds/1")
    text = page.locator("main").inner_text()
    assert "Ergebnisse eingetragen: 15 von 30 Tischen" in text
    assert page.locator("#round-tables tr.missing").count() == 15
    assert page.locator(".seating-list li").count() == 119  # all but the late one
    nothing_scrolls_sideways(page)
    shot(page, f"event-round-{size}")
    # The list to print: the site's bar and the forms stay off the paper.
    page.emulate_media(media="print")
    assert not page.locator("header.bar").is_visible()
    assert page.locator(".seating-list").is_visible()
    page.emulate_media(media="screen")
    # From the round to a player, from the player to the club, and back.
    page.locator(".seating-list a", has_text="Søren Kjærgaard").click()
    page.wait_for_selector("#player-rounds")
    assert "Søren Kjærgaard" in page.locator("h1").inner_text()
    assert "Tisch" in page.locator("#player-rounds").inner_text()
    nothing_scrolls_sideways(page)
    shot(page, f"event-player-{size}")
    page.locator("#player-facts a").first.click()
    page.wait_for_selector("#club-players")
    assert page.locator("#club-players tbody tr").count() == 10
    nothing_scrolls_sideways(page)
    shot(page, f"event-club-{size}")
    # "Your table" by name, for a player without an account.
    page.fill("#find-table input[name=name]", "soren kjaergaard")
    page.click("#find-table button")
    page.wait_for_selector("#found")
    assert "Tisch" in page.locator("#found").inner_text()
    nothing_scrolls_sideways(page)
    shot(page, f"event-find-{size}")
    page.goto(f"{server.url}/events/{key}")
    nothing_scrolls_sideways(page)
    shot(page, f"event-public-{size}")


@pytest.mark.parametrize("language", ["en", "de"])
def test_running_points_stay_on_one_line_on_a_phone(
    browser: Browser, championship: tuple[Server, str], language: str
) -> None:
    """Issue 51: "running points" wrapped in the review of a table's result on a
    phone. It keeps one line, and nothing scrolls sideways."""
    server, key = championship
    anna = organiser(
        browser,
        server,
        "phone",
        locale=language,
    )
    anna.set_extra_http_headers({"Accept-Language": language, "X-Forwarded-For": an_address()})
    anna.goto(f"{server.url}/events/{key}/rounds/1")
    anna.locator("#round-tables tr.missing a.enter").first.click()
    anna.wait_for_selector("#table-result")
    seats = anna.locator("fieldset.seat").count()
    for seat in range(seats):
        anna.fill(f"input[name=points{seat}]", str(10 + 5 * seat))
        anna.fill(f"input[name=pips{seat}]", "0" if seat == 0 else "4")
    anna.check("input[name=out][value='0']")
    anna.click("#check-table")
    anna.wait_for_selector("#review")
    head = anna.locator("#review th.points-head")
    # The lines its words take (the cell itself is as tall as its row).
    lines = anna.evaluate(
        "(e) => { const r = document.createRange(); r.selectNodeContents(e);"
        " return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size; }",
        head.element_handle(),
    )
    assert lines == 1, head.inner_text()
    nothing_scrolls_sideways(anna)
    shot(anna, f"event-table-review-phone-{language}")
