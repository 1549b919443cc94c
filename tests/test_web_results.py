"""Results and the world list in a real browser (Debian's chromium, Playwright): the
result form laid out like the sheet, a CSV upload, a dispute, groups, the list with its
movements and a player's plot. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from pips.results.entry import Entry, Line
from pips.results.entry_formats import CSV_FIELDS
from pips.results.service import Results
from pips.server import accounts
from pips.store.db import Database
from tests.server_helpers import Server, running
from tests.web_helpers import browser, shot

pytestmark = [pytest.mark.process, pytest.mark.browser]

__all__ = ["browser"]  # the module's chromium, shared with these tests


def seed(url: str) -> None:
    """Accounts, and September and October lists published from results of those months,
    so the list shows movements."""
    db = Database(url)
    db.upgrade()
    anna = accounts.create_account(db, "Anna", "password1")
    ben = accounts.create_account(db, "Ben", "password1")
    root = accounts.create_account(db, "Root", "password1")
    moment = [datetime(2026, 9, 20)]
    results = Results(db, clock=lambda: moment[0])
    results.admin.set_admin("Root")
    results.groups.create(anna.id, "Hafenclub")
    results.admin.approve_group(root.id, "hafenclub")
    results.groups.change_member(anna.id, "hafenclub", "Ben", add=True)
    results.groups.join(ben.id, "hafenclub")
    september = [("Anna", "Ben", "Cleo", "Dora"), ("Anna", "Cleo", "Ben", "Dora")]
    october = [("Ben", "Dora", "Anna", "Cleo"), ("Ben", "Dora", "Cleo", "Anna")]
    for month, orders in ((9, september), (10, october)):
        moment[0] = datetime(2026, month, 25)
        for day, order in enumerate(orders, 1):
            lines = tuple(Line(name, 40 - 10 * place, 0) for place, name in enumerate(order))
            entry = Entry("fido", date(2026, month, day), 6, lines)
            results.entries.enter(
                anna.id, [results.entries.check(entry)], source="api", group="hafenclub"
            )
        moment[0] = datetime(2026, month + 1, 1, 1)
        results.lists.compute_month(f"2026-{month:02d}")
    db.dispose()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    seed(f"sqlite:///{tmp_path / 'pips.db'}")
    with running(tmp_path) as started:
        yield started


def sign_in(browser: Browser, server: Server, name: str, **context: Any) -> Page:
    page = browser.new_context(**context).new_page()
    page.goto(server.url + "/")
    page.click("summary")
    page.fill("form[action='/login'] input[name=name]", name)
    page.fill("form[action='/login'] input[name=password]", "password1")
    page.click("form[action='/login'] button")
    page.wait_for_selector(f"header a:has-text('{name}')")
    return page


def fill_sheet(page: Page, day: str, lines: list[tuple[str, int, int]]) -> None:
    """The result form of a FIDO game of double-6 for the group, seat by seat."""
    page.fill("input[name=date]", day)
    page.fill("input[name=set]", "6")
    page.select_option("select[name=group]", "domino-club-kiel")
    for seat, (name, points, pips) in enumerate(lines):
        page.fill(f"input[name=name{seat}]", name)
        page.fill(f"input[name=points{seat}]", str(points))
        page.fill(f"input[name=pips{seat}]", str(pips))


def total(server: Server) -> int:
    return int(httpx.get(server.url + "/api/results").json()["total"])


def test_enter_upload_dispute_and_read_the_world_list(
    browser: Browser, server: Server, tmp_path: Path
) -> None:
    anna = sign_in(browser, server, "Anna")
    before = total(server)

    # A group, with Ben as a member.
    anna.click("nav >> text=Groups")
    anna.fill("form[action='/groups'] input[name=name]", "Domino Club Kiel")
    anna.click("form[action='/groups'] button")
    anna.wait_for_url("**/groups/domino-club-kiel")
    anna.fill("input[name=name]", "Ben")
    anna.click("button[value=add]")
    anna.wait_for_selector("#invited:has-text('Ben')")
    # Ben accepts: only a member's account is the seat of his name on the group's
    # result (players rule 3, docs/results.md), so that he can dispute it below.
    ben = sign_in(browser, server, "Ben")
    ben.goto(server.url + "/groups/domino-club-kiel")
    ben.click("#membership button[value=join]")
    ben.wait_for_selector("#members:has-text('Ben')")

    # The form, laid out like the sheet for three FIDO players.
    anna.click("nav >> text=Results")
    anna.click("text=Enter a result")
    anna.fill("#shape input[name=players]", "3")
    anna.click("#shape button")
    fill_sheet(anna, date.today().isoformat(), [("Anna", 14, 0), ("Ben", 17, 13), ("Cleo", 9, 1)])
    anna.check("input[name=out][value='0']")
    anna.click("button[value=check]")
    anna.wait_for_selector("#checked")
    assert anna.locator("td.final").all_inner_texts() == ["14", "4", "8"]
    assert anna.locator("td.rank").all_inner_texts() == ["1", "3", "2"]
    assert total(server) == before  # shown, not saved
    shot(anna, "results-form-checked")

    # A typing slip: pips no hand could hold. Refused, nothing saved.
    anna.fill("input[name=pips1]", "130")
    anna.click("button[value=check]")
    alert = anna.locator("[role=alert]")
    assert "no hand of double-6" in alert.inner_text()
    assert total(server) == before

    anna.fill("input[name=pips1]", "13")
    anna.click("button[value=check]")
    # A Cleo plays at another club: which player is meant is asked (one person, one
    # player), with her club and last game; this Cleo is another person.
    anna.wait_for_selector("#asked")
    # The same name is not asked "did you mean Cleo?" about itself (issue 50).
    asked = anna.locator("#asked").inner_text()
    assert "Cleo, already known (Hafenclub)" in asked and "did you mean Cleo?" not in asked
    assert "last game" in anna.locator("#asked").inner_text()
    shot(anna, "results-which-cleo")
    anna.locator("#asked input[type=radio][value=new]").check()
    anna.click("button[value=check]")
    anna.click("#save")
    anna.wait_for_selector("#status")
    # The group is not approved: the result waits for the other players' accounts.
    assert anna.locator("#status").inner_text() == "provisional"
    assert "counts once an administrator confirms it" in anna.locator("#counting").inner_text()
    result_url = anna.url
    assert total(server) == before + 1

    # Ben played in it and disputes it.
    ben.goto(result_url)
    ben.fill("input[name=comment]", "I held 3 pips, not 13")
    ben.click("form[action$='/dispute'] button")
    ben.wait_for_selector("#status:has-text('disputed')")
    assert "I held 3 pips" in ben.locator("#reviews").inner_text()
    shot(ben, "results-disputed")

    # A CSV of two games, uploaded for the group.
    upload = tmp_path / "kiel.csv"
    day = (date.today() - timedelta(days=1)).isoformat()
    rows = [",".join(CSV_FIELDS)]
    for number, order in enumerate([("Anna", "Ben", "Eva"), ("Eva", "Anna", "Ben")], 1):
        for seat, name in enumerate(order, 1):
            rows.append(f"{number},{day},Kiel,fido,6,3,{seat},{name},{30 - seat},{seat},,,")
    upload.write_text("\n".join(rows) + "\n")
    anna.goto(server.url + "/results/upload")
    anna.set_input_files("input[type=file]", str(upload))
    anna.select_option("select[name=group]", "domino-club-kiel")
    anna.click("#upload-form button")
    anna.wait_for_selector("#review")
    assert total(server) == before + 1  # shown, not saved
    anna.click("#save")
    anna.wait_for_selector("#entered")
    assert "Entered 2 results" in anna.locator("#entered").inner_text()
    assert total(server) == before + 3
    anna.goto(server.url + "/groups/domino-club-kiel")
    assert anna.locator("#results tbody tr").count() == 3
    assert "Not approved" in anna.locator("#approval").inner_text()
    assert {"Cleo", "Eva"} <= set(anna.locator("#players tbody td:first-child").all_inner_texts())

    # A name like a player of the group's: entry asks before it makes a new player.
    anna.goto(server.url + "/results/new?game=fido&players=3")
    fill_sheet(anna, day, [("Anna", 9, 0), ("Ben", 7, 3), ("Evaa", 3, 2)])
    anna.click("button[value=check]")
    anna.wait_for_selector("#asked")
    assert "did you mean Eva?" in anna.locator("#asked").inner_text()
    shot(anna, "results-did-you-mean")
    anna.fill("input[name=name2]", "Eva")
    anna.click("button[value=check]")
    anna.click("#save")
    anna.wait_for_url("**/results/*")
    assert total(server) == before + 4

    # The world list: October's, with movements since September, and a player's plot.
    anna.click("nav >> text=World list")
    anna.wait_for_selector("#world-list")
    # The newest list is October's while November lasts; ask for it by name.
    anna.click("a[href$='month=2026-10']")
    anna.wait_for_url("**month=2026-10")
    names = anna.locator("#world-list tbody tr td:nth-child(3)").all_inner_texts()
    assert names[0] == "Ben" and set(names) == {"Anna", "Ben", "Cleo", "Dora"}
    assert "▲" in anna.locator("#world-list").inner_text()
    assert "Up since the last list" in anna.locator("#movements").inner_text()
    shot(anna, "world-list")
    anna.click("#world-list >> text=Anna")
    anna.wait_for_selector("#rating-history")
    assert anna.locator("#rating-history tbody tr").count() == 2
    # The plot is drawn on request (matplotlib): wait until the image has loaded.
    anna.wait_for_function(
        "() => { const i = document.querySelector('img.plot');"
        " return i.complete && i.naturalWidth > 0; }"
    )
    shot(anna, "world-list-player")

    # The score sheet button gives a PDF.
    anna.goto(server.url + "/results")
    assert anna.locator("#sheet-form button").inner_text() == "Score sheet (PDF)"
    pdf = anna.request.get(server.url + "/sheet.pdf?game=fido&players=5&set=12")
    assert pdf.ok and pdf.headers["content-type"] == "application/pdf"
