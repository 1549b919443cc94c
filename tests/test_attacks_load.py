"""Work that cannot stall the tables (issue 48, items 3 and 7): a table plays on while
the server's PDFs are held; results CSVs with any line ending, a huge cell or too many
games are refused at their line (never a 500), and reading stops there; searching bots
are capped per person and per server; printed sheets are made once and rate-limited."""

from __future__ import annotations

import io
import json
import os
import random
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from pips.results.entry_formats import CSV_FIELDS, MOST_CELL
from pips.server.app import create_app
from pips.server.limits import Limits
from pips.server.settings import Settings
from pips.server.work import Work
from pips.store.db import Database
from tests.test_events import lines_for, new_event
from tests.test_results_server import Person, Site

HANG = 120.0
"""Seconds after which a step that should go on at once is taken as stuck (a hang guard
for the old code, never a measure of speed: the step takes milliseconds)."""


def rounds_drawn(site: Site) -> tuple[Person, str]:
    """Anna's event of twelve players with its first round drawn."""
    anna, key = new_event(site)
    names = [f"Spieler {n}" for n in range(1, 13)]
    added = anna.post(f"/api/events/{key}/players", {"names": names, "new_players": names})
    assert added.status_code == 200, added.text
    assert anna.post(f"/api/events/{key}/rounds").status_code == 201
    return anna, key


def moves_while_held(person: Person) -> list[int]:
    """Make a table (a person and a greedy bot), start it and play until the bot has
    answered a move of the person: every number of moves acknowledged."""
    made = person.post(
        "/api/tables",
        {
            "game": "draw",
            "options": {"players": 2},
            "seats": [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}],
        },
    )
    assert made.status_code == 201, made.text
    seen: list[int] = []
    mine = 0
    with person.client.websocket_connect(f"/ws/{made.json()['id']}") as socket:
        while True:
            message = socket.receive_json()
            if message["type"] != "state" or message.get("moves_made") is None:
                continue
            seen.append(message["moves_made"])
            event = message.get("event")
            if mine and event is not None and event["seat"] != message["seat"]:
                return seen  # the bot answered the person's move
            if message.get("legal"):
                mine += 1
                move = {"v": 1, "type": "move", "move": 0, "moves_made": message["moves_made"]}
                socket.send_text(json.dumps(move))


@pytest.mark.slow
def test_a_table_plays_on_while_the_servers_pdfs_are_held(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More sheets than asyncio's default pool has threads are asked for and every one
    is held mid-render; meanwhile a table is made, started, and a person's move and a
    bot's answer are acknowledged. Before, the held renders took every thread of the one
    pool the database and the bots shared too, and the table stalled until they ended."""
    import pips.results.sheet

    anna, key = rounds_drawn(site)
    many = min(32, (os.cpu_count() or 1) + 4) + 1
    held, rendering = threading.Event(), threading.Event()
    asked = threading.Semaphore(0)

    def held_sheets(*args: Any, **kwargs: Any) -> bytes:
        rendering.set()
        held.wait()
        return b"%PDF-1.4 held"

    real = site.results.rounds.round_draw

    def counted(*args: Any, **kwargs: Any) -> Any:
        try:
            return real(*args, **kwargs)
        finally:
            asked.release()

    monkeypatch.setattr(pips.results.sheet, "round_sheets", held_sheets)
    monkeypatch.setattr(site.results.rounds, "round_draw", counted)
    # Every sheet from one browser (one address): answered at once, not six at a time
    # (Limits.requests_at_once), so that all of them are held in the renders' pool.
    monkeypatch.setattr(site.app.state.limits.at_once, "most", many + 2)
    path = f"/events/{key}/rounds/1/sheets.pdf"
    with ThreadPoolExecutor(many) as pool:
        sheets = [pool.submit(anna.client.get, path) for _ in range(many)]
        try:
            for _ in range(many):  # every request is at its render
                assert asked.acquire(timeout=HANG)
            assert rendering.wait(HANG)
            table = ThreadPoolExecutor(1)
            played = table.submit(moves_while_held, anna)
            try:
                seen = played.result(timeout=HANG)
            finally:
                held.set()
                table.shutdown()
            assert seen[-1] >= 2 and not held_done(sheets)
        finally:
            held.set()
        statuses = [s.result().status_code for s in sheets]
    # Asked for at once, the sheet was made once and every asker got it (or, past the
    # address's share, was told to wait).
    assert set(statuses) <= {200, 429} and statuses.count(200) >= 1


def held_done(futures: list[Any]) -> bool:
    """Whether any held sheet was answered (none may be before it is let go)."""
    return any(f.done() and f.result().status_code == 200 for f in futures)


def csv_rows(games: int, *, first: int = 1, first_game_bad: bool = False) -> list[list[object]]:
    """``games`` games of FIDO with double-6 at three, three rows each, a day apart and
    back from ``first`` days before the site's today."""
    rows: list[list[object]] = []
    for number in range(1, games + 1):
        day = (date(2026, 10, 10) - timedelta(days=first + number - 1)).isoformat()
        for seat, (name, running, pips, out) in enumerate(
            (("Anna", 14, 0, "yes"), ("Ben", 17, 13, ""), ("Cleo", 9, 1, "")), 1
        ):
            rows.append([number, day, "Kiel", "fido", 6, 3, seat, name, running, pips, out, "", ""])
    if first_game_bad:
        rows[0][6] = 4  # seats 4, 2 and 3: not 1 to 3
    return rows


def as_csv(rows: list[list[object]], newline: str = "\n") -> bytes:
    text = io.StringIO()
    lines: list[list[object]] = [list(CSV_FIELDS), *rows]
    for row in lines:
        text.write(",".join(str(cell) for cell in row) + newline)
    return text.getvalue().encode()


@pytest.fixture
def uploads(site: Site) -> tuple[Person, str]:
    """Anna, with an event whose first round is drawn."""
    return rounds_drawn(site)


def round_csv(site: Site, anna: Person, key: str, newline: str) -> bytes:
    """The first round's results as a CSV, its lines ended with ``newline``."""
    drawn = anna.client.get(f"/api/events/{key}").json()["drawn"][0]["tables"]
    rng = random.Random(3)
    rows: list[list[object]] = []
    for table in drawn:
        for seat, line in enumerate(lines_for(table["seats"], rng), 1):
            number, name, points, pips = table["number"], line["name"], line["points"], line["pips"]
            rows.append([number, "2026-10-10", "", "fido", 6, "", seat, name, points, pips])
    return as_csv(rows, newline)


def post_csv(anna: Person, route: str, key: str, body: bytes) -> Any:
    """``body`` sent to one of the four upload routes, as a browser or a script does."""
    if route == "api":
        return anna.client.post(
            "/api/results/csv",
            content=body,
            headers={"X-CSRF-Token": anna.csrf, "Content-Type": "text/csv"},
        )
    if route == "page":
        return anna.client.post(
            "/results/upload",
            data={"csrf": anna.csrf, "group": ""},
            files={"file": ("kiel.csv", body, "text/csv")},
        )
    if route == "round api":
        return anna.client.post(
            f"/api/events/{key}/rounds/1/csv?check=true",
            content=body,
            headers={"X-CSRF-Token": anna.csrf, "Content-Type": "text/csv"},
        )
    return anna.client.post(
        f"/events/{key}/rounds/1/csv",
        data={"csrf": anna.csrf},
        files={"file": ("runde.csv", body, "text/csv")},
    )


ROUTES = ("api", "page", "round api", "round page")


@pytest.mark.slow
@pytest.mark.parametrize("newline", ["\r", "\n", "\r\n"], ids=["CR", "LF", "CRLF"])
def test_every_line_ending_is_read_on_every_upload_route(
    site: Site, uploads: tuple[Person, str], newline: str
) -> None:
    """A CSV from an old Mac (CR alone) was a 500 and a dropped connection."""
    anna, key = uploads
    for first, route in enumerate(ROUTES):
        games = as_csv(csv_rows(3, first=1 + 3 * first), newline)
        body = round_csv(site, anna, key, newline) if route.startswith("round") else games
        answer = post_csv(anna, route, key, body)
        assert answer.status_code in (200, 201), (route, answer.text)
        if route == "api":
            assert len(answer.json()["ids"]) == 3
        if route == "round api":
            drawn = anna.client.get(f"/api/events/{key}").json()["drawn"][0]["tables"]
            assert len(answer.json()["tables"]) == len(drawn)


@pytest.mark.slow
def test_a_huge_cell_is_refused_at_its_line_on_every_upload_route(
    uploads: tuple[Person, str],
) -> None:
    """A cell of 200 KiB (over the csv module's own limit) was a 500; one over
    MOST_CELL is refused too, each with the line it is on."""
    anna, key = uploads
    for size in (200 * 1024, MOST_CELL + 1):
        rows = csv_rows(3)
        rows[3][2] = "x" * size  # the place of game 2's first row: line 5
        body = as_csv(rows)
        for route in ROUTES:
            answer = post_csv(anna, route, key, body)
            assert answer.status_code == 422, (route, size, answer.status_code)
            said = answer.json()["message"] if route.endswith("api") else answer.text
            assert "line 5" in said and str(MOST_CELL) in said, (route, said)


def test_a_csv_of_too_many_games_is_refused_at_the_line_that_starts_one_more(
    uploads: tuple[Person, str],
) -> None:
    """3,000 games: reading stops at the first line of game 2,001 (line 6,002) with a
    422 naming the limit and the line, before any game is checked (the first game is
    wrong, and no word is said of it). Before, every game was parsed and checked first."""
    anna, key = uploads
    body = as_csv(csv_rows(3000, first_game_bad=True))
    for route in ("api", "page"):
        answer = post_csv(anna, route, key, body)
        assert answer.status_code == 422, (route, answer.text[:300])
        said = answer.json()["message"] if route == "api" else answer.text
        assert "2000" in said and "line 6002" in said, (route, said[:300])
        assert "seats must be" not in said


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[TestClient]:
    """An app whose caps on searching bots are 2 tables at once, 1 per person, and whose
    other limits let one test address make many tables."""
    db = Database(f"sqlite:///{tmp_path / 'pips.db'}")
    limits = Limits()
    limits.tune({"tables": (100, 100), "sign-in": (100, 100)})
    app = create_app(
        Settings(warm=False, publish_lists=False, analyse_while_playing=0),
        db=db,
        secret="test",
        limits=limits,
        work=Work(search_tables=2, search_tables_each=1),
    )
    with TestClient(app) as client:
        yield client
    db.dispose()


def guest(app: TestClient, name: str, address: str = "10.0.0.1") -> tuple[TestClient, str]:
    """A new browser with a guest name, at ``address``: its client and CSRF token."""
    client = TestClient(app.app, client=(address, 50000))
    csrf = client.get("/api/session").json()["csrf"]
    assert client.post("/guest", data={"name": name, "csrf": csrf}).status_code == 200
    return client, client.get("/api/session").json()["csrf"]


def new_table(client: TestClient, csrf: str, bot: str, *, waiting: bool = False) -> Any:
    """A table of the person and ``bot``, played at once; ``waiting``: with an open seat
    too, waiting for its second person (no bot decides meanwhile)."""
    seats = [{"kind": "me"}, *([{"kind": "open"}] if waiting else []), {"kind": "bot", "bot": bot}]
    return client.post(
        "/api/tables",
        json={"game": "draw", "options": {"players": len(seats)}, "seats": seats},
        headers={"X-CSRF-Token": csrf},
    )


def test_searching_bots_are_capped_per_person_and_per_server(capped: TestClient) -> None:
    """Ten guests each made an all-bot table of hard searches and stalled the server's
    other tables; now a person has at most ``search_tables_each`` tables with a
    searching bot, the server ``search_tables`` being played (429, with when to come
    back); tables of quick bots are not counted."""
    first, first_csrf = guest(capped, "Gast Eins", "10.0.0.1")
    assert new_table(first, first_csrf, "search:easy").status_code == 201
    again = new_table(first, first_csrf, "ismcts", waiting=True)
    assert again.status_code == 429 and "Retry-After" in again.headers
    assert new_table(first, first_csrf, "greedy").status_code == 201
    second, second_csrf = guest(capped, "Gast Zwei", "10.0.0.2")
    assert new_table(second, second_csrf, "search:easy").status_code == 201
    third, third_csrf = guest(capped, "Gast Drei", "10.0.0.3")
    full = new_table(third, third_csrf, "search:easy", waiting=True)
    assert full.status_code == 429, full.text
    assert "searching bots" in full.json()["message"]
    assert new_table(third, third_csrf, "expert").status_code == 201


def test_waiting_tables_lock_nobody_out_of_searching_bots(capped: TestClient) -> None:
    """Three guests with waiting tables (an open seat and a searching bot, which
    decides nothing) filled the server's cap and every new searching table was refused
    for everyone until they were abandoned; now only tables being played count
    server-wide."""
    for number in range(3):
        client, csrf = guest(capped, f"Warter {number}", f"10.0.1.{number}")
        made = new_table(client, csrf, "search:hard", waiting=True)
        assert made.status_code == 201, made.text
    for number in range(2):
        client, csrf = guest(capped, f"Spieler {number}", f"10.0.2.{number}")
        made = new_table(client, csrf, "search:easy")
        assert made.status_code == 201, made.text
    # The two tables being played are the server's cap: now the next is refused.
    late, late_csrf = guest(capped, "Spät", "10.0.3.1")
    full = new_table(late, late_csrf, "search:easy")
    assert full.status_code == 429 and "server" in full.json()["message"]


def test_guest_names_at_one_address_are_one_person_for_searching_bots(capped: TestClient) -> None:
    """One address took a new guest name for each table with a searching bot; now the
    tables made from an address count with the person (``client_key``: an IPv6 address
    by its /64), and the second guest there is refused while the first's table lasts."""
    first, first_csrf = guest(capped, "Maske Eins", "2001:db8:7:7::1")
    assert new_table(first, first_csrf, "search:hard", waiting=True).status_code == 201
    second, second_csrf = guest(capped, "Maske Zwei", "2001:db8:7:7:ffff::2")
    refused = new_table(second, second_csrf, "search:hard", waiting=True)
    assert refused.status_code == 429, refused.text
    assert "finish one first" in refused.json()["message"]
    # Another address is another person.
    other, other_csrf = guest(capped, "Nachbar", "2001:db8:7:8::1")
    assert new_table(other, other_csrf, "search:hard", waiting=True).status_code == 201


@pytest.mark.slow
def test_a_sheet_is_made_once_and_an_address_may_ask_for_so_many(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight anonymous clients asking for a round's 2 MB sheets made it eight times, for
    4.7 s each; now it is made once per what it shows, and an address asking for more
    than its share is told to wait (429), not served."""
    import pips.results.sheet

    _anna, key = rounds_drawn(site)
    made: list[int] = []
    real = pips.results.sheet.round_sheets

    def counted(*args: Any, **kwargs: Any) -> bytes:
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pips.results.sheet, "round_sheets", counted)
    path = f"/events/{key}/rounds/1/sheets.pdf"
    # A German reader gets the German sheet: made apart.
    german = TestClient(site.app, headers={"Accept-Language": "de"})
    assert german.get(path).status_code == 200 and len(made) == 1
    stranger = TestClient(site.app)
    answers = [stranger.get(path) for _ in range(25)]
    served = [a for a in answers if a.status_code == 200]
    assert served and all(a.content.startswith(b"%PDF-") for a in served)
    assert len(made) == 2
    refused = [a for a in answers if a.status_code != 200]
    assert refused and all(a.status_code == 429 and "Retry-After" in a.headers for a in refused)
