"""An evening of 17 FIDO players over three rounds in a real browser (Debian's
chromium, Playwright), as its organiser and a player run it: the event created by the
form, the players typed in, each round drawn, every table's result entered on the
phone-sized page, the standings checked against the tables, the event closed into the
results. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from pips.server import accounts
from pips.store.db import Database
from tests.server_helpers import Server, an_address, running
from tests.test_events import PLAYERS as EVENING
from tests.test_web_results import sign_in
from tests.web_helpers import DESKTOP, PHONE, browser, nothing_scrolls_sideways, shot

pytestmark = [pytest.mark.process, pytest.mark.browser]

__all__ = ["browser"]

PLAYERS = ["Anna", "Ben", *(name for name in EVENING if name not in ("Anna", "Ben"))]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    db = Database(f"sqlite:///{tmp_path / 'pips.db'}")
    db.upgrade()
    anna = accounts.create_account(db, "Anna", "password1")
    ben = accounts.create_account(db, "Ben", "password1")
    root = accounts.create_account(db, "Root", "password1")
    from pips.results.service import Results

    results = Results(db)
    results.admin.set_admin("Root")
    results.groups.create(anna.id, "Hafenclub")
    results.admin.approve_group(root.id, "hafenclub")
    results.groups.change_member(anna.id, "hafenclub", "Ben", add=True)
    # Ben accepts: only a member's account is the seat of his name at the club's event
    # (players rule 3, docs/results.md), so that he enters his own table's result.
    results.groups.join(ben.id, "hafenclub")
    db.dispose()
    with running(tmp_path) as started:
        yield started


def signed_in(browser: Browser, server: Server, name: str, **context: object) -> Page:
    options = {**DESKTOP, **context, "extra_http_headers": {"X-Forwarded-For": an_address()}}
    page = sign_in(browser, server, name, **options)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def enter_table(page: Page, seats: list[str], rng: random.Random) -> dict[str, int]:
    """Fill a FIDO table's result on its page (the first seat went out) and save it;
    the final scores it should give (F-21: points less pips)."""
    finals = {}
    for seat, name in enumerate(seats):
        points, pips = 5 * rng.randrange(0, 12), 0 if seat == 0 else rng.randrange(1, 25)
        page.fill(f"input[name=points{seat}]", str(points))
        page.fill(f"input[name=pips{seat}]", str(pips))
        finals[name] = points - pips
    page.check("input[name=out][value='0']")
    page.click("#check-table")
    # Check first: the review shows every final score before anything is saved.
    review = page.locator("#review").inner_text()
    for name, final in finals.items():
        assert name in review and str(final) in review
    page.click("#save-table")
    page.wait_for_selector("#standings")
    return finals


def tables_of(page: Page, number: int) -> list[tuple[int, list[str]]]:
    rows = page.locator(f"#round-{number} table.tables tbody tr")
    found = []
    for index in range(rows.count()):
        cells = rows.nth(index).locator("td")
        seats = cells.nth(1).locator(".seats").inner_text()
        found.append((int(cells.nth(0).inner_text()), seats.split(", ")))
    return found


def test_an_evening_of_17_fido_players_in_the_browser(browser: Browser, server: Server) -> None:
    anna = signed_in(browser, server, "Anna")
    ben = signed_in(browser, server, "Ben", **PHONE)
    anna.goto(server.url + "/events")
    anna.fill("#new-event input[name=name]", "Hafenabend im Oktober")
    anna.select_option("#new-event select[name=game]", "fido")
    anna.fill("#new-event input[name=rounds]", "3")
    anna.fill("#new-event input[name=set]", "6")
    anna.fill("#new-event input[name=place]", "Hafenkneipe")
    anna.select_option("#new-event select[name=group]", "hafenclub")
    anna.click("#create-event")
    anna.wait_for_selector("#organiser")
    event_url = anna.url
    anna.fill("#add-players textarea", "\n".join(PLAYERS))
    anna.click("#add-players button")
    if anna.locator("#asked").count():
        # Names like known players of the group: confirmed as new players.
        for box in anna.locator("#asked input[type=radio][value=new]").all():
            box.check()
        anna.click("#add-players button")
    assert anna.locator("#players li").count() == 17
    rng = random.Random(11)
    expected: Counter[str] = Counter()
    for number in (1, 2, 3):
        anna.click("#draw-round")
        anna.wait_for_selector(f"#round-{number}")
        tables = tables_of(anna, number)
        assert sorted(len(seats) for _, seats in tables) == [4, 4, 4, 5]
        assert sorted(n for _, seats in tables for n in seats) == sorted(PLAYERS)
        if number == 1:
            shot(anna, "event-round-1-drawn")
        for table, seats in tables:
            path = f"/events/{event_url.rsplit('/', 1)[1]}/rounds/{number}/tables/{table}"
            # Ben enters his own table's result on his phone; Anna the others.
            page = ben if "Ben" in seats else anna
            page.goto(server.url + path)
            if page is ben and number == 1:
                shot(ben, "event-table-on-a-phone")
                width = ben.evaluate("document.documentElement.scrollWidth")
                assert width <= 390
            expected.update(enter_table(page, seats, rng))
        anna.goto(event_url)
        assert (
            "over" in anna.locator(f"#round-{number} h2").inner_text()
            or "vorbei" in anna.locator(f"#round-{number} h2").inner_text()
        )
    rows = anna.locator("#standings tbody tr")
    assert rows.count() == 17
    shown = {}
    for index in range(17):
        cells = rows.nth(index).locator("td")
        name = cells.nth(1).locator(".name").inner_text()
        shown[name] = int(cells.nth(2).inner_text().replace("−", "-"))
    assert shown == dict(expected)
    shot(anna, "event-standings-after-three-rounds")
    # The standings fit a phone: nothing scrolls sideways.
    ben.goto(event_url)
    assert ben.evaluate("document.documentElement.scrollWidth") <= 390
    shot(ben, "event-standings-on-a-phone")
    anna.click("#close-event")
    # Closing cannot be undone: it is asked again, saying what it does.
    anna.wait_for_selector("#confirm")
    assert re.search(r"cannot be undone|nicht rückgängig", anna.locator("#confirm").inner_text())
    shot(anna, "event-close-confirm")
    anna.click("#confirm-yes")
    anna.wait_for_selector("#event-facts")
    assert re.search(r"closed|geschlossen", anna.locator("#event-facts").inner_text())
    month = datetime.now(UTC).strftime("%Y-%m")
    anna.goto(server.url + f"/results?month={month}")
    assert anna.locator("table.list tbody tr").count() >= 12
    assert not anna.errors and not ben.errors  # type: ignore[attr-defined]


def test_a_championship_day_and_a_correction_on_a_phone(browser: Browser, server: Server) -> None:
    """Issue 34 in the browser: a championship created by the form (two days, Swiss,
    check-in), players with their clubs, the check-in ticked, round 1 drawn with the
    clubs apart; a table's result entered on a phone with the check first, then one
    score corrected: the form opens filled, the review marks only what changes."""
    anna = signed_in(browser, server, "Anna")
    anna.goto(server.url + "/events")
    anna.fill("#new-event input[name=name]", "Hafenpokal 2026")
    anna.select_option("#new-event select[name=game]", "fido")
    anna.fill("#new-event input[name=rounds]", "4")
    anna.fill("#new-event input[name=set]", "9")
    anna.select_option("#new-event select[name=group]", "hafenclub")
    anna.click("#championship summary")
    anna.fill("#new-event input[name=days]", "03.10.2026, 04.10.2026")
    anna.select_option("#new-event select[name=pairing]", "swiss")
    anna.check("#new-event input[name=check_in]")
    anna.click("#create-event")
    anna.wait_for_selector("#organiser")
    clubs = ["Hafenclub", "DC Lübeck", "SC Neumühle", "TSV Büdelsdorf"]
    lines = [f"{name}; {clubs[i % 4]}" for i, name in enumerate(PLAYERS[:12])]
    anna.fill("#add-players textarea", "\n".join(lines))
    anna.click("#add-players button")
    if anna.locator("#asked").count():
        for box in anna.locator("#asked input[type=radio][value=new]").all():
            box.check()
        anna.click("#add-players button")
    for player in anna.locator("#players li[id^=player-]").all():
        # Saved without a reload (the page keeps its place): each tick waits for its own.
        player.locator("button.check-in").click()
        player.locator("button.check-in[aria-pressed=true]").wait_for()
    assert anna.locator("button.check-in[aria-pressed=true]").count() == 12
    anna.click("#draw-round")
    anna.wait_for_selector("#round-1")
    shot(anna, "championship-round-1")
    for _table, seats in tables_of(anna, 1):
        assert len({clubs[PLAYERS.index(n) % 4] for n in seats}) == len(seats), seats
    assert re.search(r"2026-10-03|03\.10\.2026", anna.locator("#round-1 h2").inner_text())
    # A table's result on a phone: check, then save.
    phone = signed_in(browser, server, "Anna", **PHONE)
    table, seats = tables_of(anna, 1)[0]
    phone.goto(f"{anna.url.split('#')[0]}/rounds/1/tables/{table}")
    enter_table(phone, seats, random.Random(3))
    # The correction form opens filled; one pips value changes, the review says so.
    phone.goto(f"{anna.url.split('#')[0]}/rounds/1/tables/{table}")
    before = phone.input_value("input[name=points1]")
    assert before != ""
    phone.fill("input[name=pips1]", "2")
    phone.fill("input[name=reason]", "Augen falsch gezählt")
    phone.click("#check-table")
    phone.wait_for_selector("#review")
    shot(phone, "championship-correction-review-phone")
    # Marked: that seat's pips and final score (and places that move with it); every
    # running-points cell stays as it was.
    rows = phone.locator("#review tbody tr")
    assert "→ 2" in rows.nth(1).locator("td").nth(2).inner_text()
    for row in range(rows.count()):
        assert "changed" not in (rows.nth(row).locator("td").nth(1).get_attribute("class") or "")
    assert phone.locator("#review td.changed").count() <= 2 + len(seats)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.click("#save-table")
    phone.wait_for_selector("#standings")
    assert not anna.errors and not phone.errors  # type: ignore[attr-defined]


def test_the_events_list_and_form_fit_a_phone_in_german(browser: Browser, server: Server) -> None:
    """The list of events was a table whose words broke mid-word and whose columns went
    off a 390 px screen; the championship details' select was 403 px wide."""
    anna = signed_in(browser, server, "Anna", **PHONE, locale="de-DE")
    for name, place in (
        ("Vereinsmeisterschaft Kiel 2026", "Kiel"),
        ("Clubabend November – Kiel", "Gaststätte Fördeblick, Kiel"),
    ):
        anna.goto(server.url + "/events")
        anna.fill("#new-event input[name=name]", name)
        anna.fill("#new-event input[name=place]", place)
        anna.select_option("#new-event select[name=group]", "hafenclub")
        anna.click("#create-event")
        anna.wait_for_selector("#organiser")
    anna.goto(server.url + "/events")
    assert anna.locator("#events tbody tr").count() == 2
    nothing_scrolls_sideways(anna)
    shot(anna, "events-list-phone")
    anna.click("#championship summary")
    nothing_scrolls_sideways(anna)
    shot(anna, "events-championship-form-phone")
    # Check-in for any event: the large tick, the removal a small link beside it.
    anna.fill("#new-event input[name=name]", "Clubabend mit Anwesenheit")
    anna.select_option("#new-event select[name=group]", "hafenclub")
    anna.check("#new-event input[name=check_in]")
    anna.click("#create-event")
    anna.fill("#add-players textarea", "\n".join(PLAYERS[:5]))
    anna.click("#add-players button")
    if anna.locator("#asked").count():
        for box in anna.locator("#asked input[type=radio][value=new]").all():
            box.check()
        anna.click("#add-players button")
    tick = anna.locator("button.check-in").first
    tick.click()
    anna.locator("button.check-in[aria-pressed=true]").first.wait_for()
    size = tick.bounding_box()
    assert size is not None and size["width"] >= 44 and size["height"] >= 44
    nothing_scrolls_sideways(anna)
    shot(anna, "events-check-in-phone")
