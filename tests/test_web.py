"""End to end in a real browser: Playwright driving Debian's chromium, headless, against a
pips server process on 127.0.0.1. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.server_helpers import Server, running, wait_for

ARTIFACTS = Path(__file__).parent.parent / "test-artifacts"
CHROMIUM = os.environ.get("PIPS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
PHONE = {"width": 390, "height": 844}

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("Debian's chromium is not installed (CI installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with running(tmp_path, bot_delay=0.05) as started:
        yield started


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)


def as_guest(browser: Browser, server: Server, name: str, **context: object) -> Page:
    page = browser.new_context(**context).new_page()  # type: ignore[arg-type]
    page.goto(server.url + "/")
    page.click("summary")
    page.fill("#guest-form input[name=name]", name)
    page.click("#guest-form button")
    page.wait_for_selector(f"text={name} (guest)")
    return page


def create_table(page: Page, game: str, seats: str, **options: str) -> str:
    page.select_option("#game", game)
    for name, value in options.items():
        page.fill(f'.game-options[data-game="{game}"] input[name="{name}"]', value)
    page.fill("#seats", seats)
    page.click("#new-table button")
    page.wait_for_url("**/t/*")
    return page.url.rsplit("/", 1)[-1].split("?")[0]


def take_turn(page: Page) -> bool:
    """If it is this page's turn, make a move by clicking; whether a move was made."""
    playable = page.locator("#hand svg.tile.playable")
    if playable.count():
        playable.first.click()
        target = page.locator("#layout .socket.target")
        if target.count():
            target.first.click()
        return True
    for button in ("#draw", "#knock"):
        if page.locator(button).is_visible():
            page.click(button)
            return True
    return False


def play_until_over(pages: list[Page], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for page in pages:
            if page.locator("#sheet-body", has_text="Match over").count():
                return
            if page.locator("#sheet[open]").count():
                page.click("#sheet-close")
            take_turn(page)
        time.sleep(0.05)
    raise AssertionError("the match did not end")


def test_two_people_and_two_bots_play_a_partnership_match(browser: Browser, server: Server) -> None:
    ann = as_guest(browser, server, "Ann")
    table = create_table(ann, "partnership", "me,open,bot:greedy,bot:expert", target="1")
    bo = as_guest(browser, server, "Bo", viewport=PHONE)  # a phone-sized screen
    bo.goto(server.url + "/")
    bo.click(f'tr[data-table="{table}"] a')
    bo.click("#join")
    for page in (ann, bo):
        page.wait_for_selector("#hand svg.tile")
        assert page.locator("#hand svg.tile").count() == 7  # PT-02
    shot(ann, "partnership-ann")
    shot(bo, "partnership-bo-phone")
    play_until_over([ann, bo])
    shot(ann, "partnership-over")
    assert "PT-1" in ann.inner_text("#sheet-body")  # how the points came about (PT-10..12)
    record = ann.request.get(f"{server.url}/api/records/{table}").json()
    assert sorted(record["seats"]) == ["Ann", "Bo", "expert-3", "greedy-2"]
    assert record["result"] is not None


def test_a_fido_hand_with_a_spectator_and_a_reconnect(browser: Browser, server: Server) -> None:
    ann = as_guest(browser, server, "Ann")
    table = create_table(ann, "fido", "me,bot:greedy,bot:expert", players="3", set="6")
    watcher = browser.new_context().new_page()
    watcher.goto(f"{server.url}/t/{table}")
    watcher.wait_for_selector("#info:has-text('divisor 3')")  # F-01: double-6 scores on 3
    for _ in range(3):
        wait_for(lambda: take_turn(ann), timeout=30)
    watcher.wait_for_selector("#layout svg.tile")
    assert watcher.locator("#hand svg.tile").count() == 0  # a spectator sees no hand
    assert "S = " in watcher.inner_text("#info")
    # Close the page mid-hand and come back: the same hand, where it was.
    before = ann.request.get(f"{server.url}/api/tables/{table}").json()["moves_made"]
    context = ann.context
    ann.close()
    ann = context.new_page()
    ann.goto(f"{server.url}/t/{table}")
    ann.wait_for_selector("#hand svg.tile")
    after = ann.request.get(f"{server.url}/api/tables/{table}").json()["moves_made"]
    assert after >= before
    shot(ann, "fido-reconnected")
    shot(watcher, "fido-spectator")
    play_until_over([ann])
    assert watcher.locator("#hand svg.tile").count() == 0


def test_a_finished_game_replays_step_by_step(browser: Browser, server: Server) -> None:
    ann = as_guest(browser, server, "Ann")
    table = create_table(ann, "draw", "me,bot:greedy", players="2")
    play_until_over([ann])
    page = browser.new_context().new_page()
    page.goto(f"{server.url}/replay/{table}")
    page.wait_for_selector("#info:has-text('hand 1, move 0')")
    page.click("#next")
    page.click("#next")
    assert "move 2" in page.inner_text("#info")
    assert page.locator("#layout svg.tile").count() == 2 or "draws" in page.inner_text("#info")
    page.click("#back")
    assert "move 1" in page.inner_text("#info")
    shot(page, "replay")
    download = page.request.get(f"{server.url}/api/records/{table}")
    assert download.ok and download.json()["format"] == "pips.record/1"
