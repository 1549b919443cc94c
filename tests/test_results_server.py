"""Results, groups and world lists through the JSON API and the forms, on SQLite and on
PostgreSQL: who may do what, nothing saved half, published months never change, late
results in the next month, the export, and games played on the server."""

from __future__ import annotations

import csv
import html
import io
import re
import sys
import time
from datetime import date, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from pips.results.entry import Entry, Line
from pips.results.entry_formats import CSV_FIELDS
from pips.results.service import Results
from pips.server import accounts
from pips.server.app import create_app
from pips.server.settings import Settings
from pips.store.db import Database
from pips.store.models import PublishedListError, Result, WorldListRow
from tests.in_process import cheap_hashing
from tests.server_helpers import Browser, Player, database_urls, running

on_every_database = pytest.mark.parametrize("database", database_urls())


class Clock:
    """The server's idea of now, moved by the test."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


class Site:
    """The app in this process over a fresh database, with a clock the test moves."""

    def __init__(self, url: str) -> None:
        cheap_hashing()
        self.db = Database(url)
        self.clock = Clock(datetime(2026, 10, 10, 12))
        self.results = Results(self.db, clock=self.clock)
        self.app = create_app(
            Settings(warm=False, publish_lists=False, analyse_while_playing=0),
            db=self.db,
            secret="test",
            results=self.results,
        )

    def person(self, name: str) -> Person:
        return Person(self, name)

    def count(self) -> int:
        with self.db.session() as session:
            return int(session.scalar(select(func.count()).select_from(Result)) or 0)

    def admin(self, name: str = "Root") -> Person:
        """An administrator (granted as on the command line)."""
        person = Person(self, name)
        self.results.admin.set_admin(name)
        return person

    def approved_group(self, representative: Person, name: str, admin: Person) -> str:
        """A group founded by ``representative`` and approved by ``admin``: its slug."""
        made = representative.post("/api/groups", {"name": name})
        assert made.status_code == 201, made.text
        slug = str(made.json()["slug"])
        approved = admin.post(f"/api/groups/{slug}/approve", {"approve": True})
        assert approved.status_code == 200, approved.text
        return slug


class Person:
    """A browser signed in to an account of its own."""

    def __init__(self, site: Site, name: str) -> None:
        self.client = TestClient(site.app)
        self.client.__enter__()
        self.csrf = self.client.get("/api/session").json()["csrf"]
        response = self.client.post(
            "/register", data={"name": name, "password": "password1", "csrf": self.csrf}
        )
        assert response.status_code == 200, response.text
        # Signing in makes a new session with a new CSRF token.
        self.csrf = self.client.get("/api/session").json()["csrf"]

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Any:
        return self.client.post(path, json=body, headers={"X-CSRF-Token": self.csrf}, **kwargs)

    def enter(self, *games: dict[str, Any], group: str | None = None) -> Any:
        return self.post("/api/results", {"results": list(games), "group": group})


def fido(day: str, *lines: tuple[str, int, int], top: int = 6) -> dict[str, Any]:
    return {
        "game": "fido",
        "date": day,
        "set": top,
        "players": [{"name": n, "points": p, "pips": q} for n, p, q in lines],
    }


def test_entering_needs_an_account_and_the_csrf_token(site: Site) -> None:
    anonymous = TestClient(site.app)
    game = fido("2026-10-03", ("Anna", 14, 0), ("Ben", 17, 13), ("Cleo", 9, 1))
    assert anonymous.post("/api/results", json={"results": [game]}).status_code == 403
    csrf = anonymous.get("/api/session").json()["csrf"]
    refused = anonymous.post(
        "/api/results", json={"results": [game]}, headers={"X-CSRF-Token": csrf}
    )
    assert refused.status_code == 401
    anna = site.person("Anna")
    assert anna.client.post("/api/results", json={"results": [game]}).status_code == 403
    assert site.count() == 0
    made = anna.enter(game)
    assert made.status_code == 201, made.text
    shown = anna.client.get(made.json()["urls"][0])
    assert shown.status_code == 200 and "Cleo" in shown.text


def test_only_players_and_group_members_enter_and_the_representative_for_all(
    site: Site,
) -> None:
    anna, ben, olga = site.person("Anna"), site.person("Ben"), site.person("Olga")
    assert anna.post("/api/groups", {"name": "Domino Club Kiel"}).status_code == 201
    assert anna.post("/api/groups/domino-club-kiel/members", {"name": "Ben"}).status_code == 200
    # Invited, Ben is a member once he accepts (nobody is made a member unasked).
    assert anna.client.get("/api/groups/domino-club-kiel").json()["invited"] == ["Ben"]
    assert ben.post("/api/groups/domino-club-kiel/join", {}).status_code == 200
    # Not the representative: cannot change members.
    assert ben.post("/api/groups/domino-club-kiel/members", {"name": "Olga"}).status_code == 403
    game = fido("2026-10-03", ("Ben", 14, 0), ("Cleo", 17, 13), ("Dora", 9, 1))
    # Olga neither played nor belongs to the group.
    assert olga.enter(game).status_code == 403
    assert olga.enter(game, group="domino-club-kiel").status_code == 403
    # Anna did not play but represents the group: she enters it for the group once
    # an administrator approved it (a free group's word plants no games on others).
    other = fido("2026-10-04", ("Ben", 20, 0), ("Cleo", 17, 13), ("Dora", 9, 1))
    assert anna.enter(other).status_code == 403
    assert anna.enter(other, group="domino-club-kiel").status_code == 403
    root = site.admin()
    assert root.post("/api/groups/domino-club-kiel/approve", {"approve": True}).status_code == 200
    assert anna.enter(other, group="domino-club-kiel").status_code == 201
    # Ben is a member and played.
    assert ben.enter(game, group="domino-club-kiel").status_code == 201
    listed = anna.client.get("/api/results", params={"group": "domino-club-kiel"}).json()
    assert listed["total"] == 2
    page = anna.client.get("/groups/domino-club-kiel")
    assert "Representative" in page.text and "Dora" in page.text
    assert site.count() == 2


def test_impossible_entries_and_duplicates_save_nothing(site: Site) -> None:
    anna = site.person("Anna")
    good = fido("2026-10-03", ("Anna", 14, 0), ("Ben", 17, 13), ("Cleo", 9, 1))
    cases = [
        (fido("2026-10-03", ("Anna", 14, 0), ("Ben", 1, 0)), "F-02"),
        (fido("2026-10-03", ("Anna", 14, 0), ("Ben", 1, 0), ("Cleo", 0, 0), top=13), "F-01"),
        (fido("2026-10-03", ("Anna", 14, 0), ("Ben", 1, 150), ("Cleo", 0, 0)), "no hand"),
        (fido("2026-10-11", ("Anna", 14, 0), ("Ben", 1, 0), ("Cleo", 0, 0)), "in the future"),
    ]
    for bad, message in cases:
        # One bad game in a batch refuses the whole batch.
        response = anna.enter(good, bad)
        assert response.status_code == 422, response.text
        assert message in response.json()["message"]
        assert site.count() == 0
    assert anna.enter(good).status_code == 201
    again = anna.enter(good)
    assert again.status_code == 409 and "already entered" in again.json()["message"]
    twice = anna.enter(
        fido("2026-10-04", ("Anna", 1, 0), ("Ben", 1, 0), ("Cleo", 0, 0)),
        fido("2026-10-04", ("Anna", 1, 0), ("Ben", 1, 0), ("Cleo", 0, 0)),
    )
    assert twice.status_code == 409
    assert site.count() == 1


def csv_text(rows: list[list[object]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_FIELDS)
    writer.writerows(rows)
    return out.getvalue().encode()


def upload(person: Person, rows: list[list[object]], *, save: bool = True) -> Any:
    """The upload form, as a browser sends it: the file is checked and shown, then
    (``save``) the reviewed text is sent back to be saved."""
    checked = person.client.post(
        "/results/upload",
        data={"csrf": person.csrf, "group": ""},
        files={"file": ("kiel.csv", csv_text(rows), "text/csv")},
    )
    if not save or checked.status_code != 200:
        return checked
    reviewed = re.search(r'name="reviewed" value="([0-9a-f]+)"', checked.text)
    text = re.search(r'<textarea name="csv_text" hidden>(.*?)</textarea>', checked.text, re.S)
    assert reviewed is not None and text is not None, checked.text
    return person.client.post(
        "/results/upload",
        data={
            "csrf": person.csrf,
            "group": "",
            "csv_text": html.unescape(text[1]),
            "reviewed": reviewed[1],
            "action": "save",
        },
    )


def test_csv_upload_is_all_or_nothing(site: Site) -> None:
    anna = site.person("Anna")
    good = [
        [1, "2026-10-03", "Kiel", "fido", 6, 3, 1, "Anna", 14, 0, "yes", "", ""],
        [1, "2026-10-03", "Kiel", "fido", 6, 3, 2, "Ben", 17, 13, "", "", ""],
        [1, "2026-10-03", "Kiel", "fido", 6, 3, 3, "Cleo", 9, 1, "", "", ""],
        [2, "2026-10-05", "Kiel", "fido", 6, 3, 1, "Anna", 3, 0, "", "", ""],
        [2, "2026-10-05", "Kiel", "fido", 6, 3, 2, "Ben", 20, 2, "", "", ""],
        [2, "2026-10-05", "Kiel", "fido", 6, 3, 3, "Cleo", 9, 1, "", "", ""],
    ]
    bad = [*good, [3, "2026-10-05", "Kiel", "fido", 6, 3, 1, "Anna", 3, 999, "", "", ""]]
    for body in (bad, good[:2]):
        response = anna.post("/api/results/csv", None, content=csv_text(body), params={})
        assert response.status_code == 422, response.text
    assert site.count() == 0
    page = upload(anna, bad)
    assert page.status_code == 422 and "game 3 (line 8)" in page.text
    assert site.count() == 0
    shown = upload(anna, good, save=False)
    assert shown.status_code == 200 and 'id="review"' in shown.text
    assert site.count() == 0
    page = upload(anna, good)
    assert page.status_code == 200 and "Entered 2 results" in page.text
    assert site.count() == 2
    again = upload(anna, good)
    assert again.status_code == 409 and "already entered" in again.text
    assert site.count() == 2


def test_a_german_clubs_file_is_entered_and_its_errors_name_its_games(site: Site) -> None:
    jörg = site.person("Jörg Müller")
    rows = [
        "Spiel;Datum;Ort;Spielart;Satz;Teiler;Sitz;Spieler;Punkte;Augen;Raus;Endstand;Platz",
        "41;03.10.2026;Gaststätte Linde;FIDO;6;3;1;Jörg Müller;14;0;;;",
        "41;03.10.2026;Gaststätte Linde;FIDO;6;3;2;Zoë Öztürk;9;13;;;",
        "41;03.10.2026;Gaststätte Linde;FIDO;6;3;3;Ben;5;1;;;",
    ]
    windows = ("\r\n".join(rows) + "\r\n").encode("cp1252")
    twice = windows + "\r\n".join(r.replace("41;", "42;", 1) for r in rows[1:]).encode("cp1252")
    refused = jörg.post("/api/results/csv", None, content=twice, params={})
    assert refused.status_code == 409 and "game 41 (line 2) and game 42 (line 5)" in refused.text
    made = jörg.post("/api/results/csv", None, content=windows, params={})
    assert made.status_code == 201, made.text
    shown = jörg.client.get(f"/api/results/{made.json()['ids'][0]}").json()
    assert [p["name"] for p in shown["players"]] == ["Jörg Müller", "Zoë Öztürk", "Ben"]


@pytest.mark.slow
def test_confirm_dispute_resolve_withdraw(site: Site) -> None:
    """A result of no group is confirmed once the accounts of all its other players
    confirm it, but only an administrator's (or an approved group's) word makes it
    count; a stranger registering a player's name later speaks for nobody until the
    claim is approved (docs/results.md, "Which results count")."""
    anna, ben, olga = site.person("Anna"), site.person("Ben"), site.person("Olga")
    root = site.admin()
    made = anna.enter(fido("2026-10-03", ("Anna", 14, 0), ("Ben", 17, 13), ("Cleo", 9, 1)))
    rid = made.json()["ids"][0]
    assert made.json()["new_players"] == ["Cleo"]
    shown = anna.client.get(f"/api/results/{rid}").json()
    assert shown["status"] == "provisional" and not shown["counts"]
    assert olga.post(f"/api/results/{rid}/confirm").status_code == 403
    # An account made later under Cleo's name does not speak for her seat ...
    cleo = site.person("Cleo")
    assert cleo.post(f"/api/results/{rid}/confirm").status_code == 403
    assert cleo.post(f"/api/results/{rid}/dispute", {"comment": "mine"}).status_code == 403
    # ... until it claims the player and an administrator (no group) approves.
    player = shown["players"][2]["player"]
    assert cleo.post(f"/api/players/{player}/claim").status_code == 200
    assert ben.post(f"/api/players/{player}/claim/approve").status_code == 403
    assert root.post(f"/api/players/{player}/claim/approve").json()["account"] == "Cleo"
    assert cleo.post(f"/api/results/{rid}/confirm").json()["status"] == "provisional"
    confirmed = ben.post(f"/api/results/{rid}/confirm")
    assert confirmed.json()["status"] == "confirmed"
    # Free accounts vouch for nothing on the world list: kept, shown, not counted.
    assert confirmed.json()["confirmed_by"] == "players" and not confirmed.json()["counts"]
    assert "players' own accounts" in confirmed.json()["why_not"]
    vouched = root.post(f"/api/results/{rid}/confirm").json()
    assert vouched["confirmed_by"] == "admin" and vouched["counts"]
    assert ben.post(f"/api/results/{rid}/dispute", {"comment": ""}).status_code == 422
    disputed = ben.post(f"/api/results/{rid}/dispute", {"comment": "I had 3 pips, not 13"})
    assert disputed.json()["status"] == "disputed" and not disputed.json()["counts"]
    # The one who entered it decides nothing; the disputer withdraws the dispute.
    assert anna.post(f"/api/results/{rid}/resolve").status_code == 403
    assert anna.post(f"/api/results/{rid}/reject").status_code == 403
    assert ben.post(f"/api/results/{rid}/resolve").json()["status"] == "confirmed"
    assert ben.post(f"/api/results/{rid}/withdraw").status_code == 403
    withdrawn = anna.post(f"/api/results/{rid}/withdraw")
    assert withdrawn.json()["status"] == "withdrawn"
    history = [(r["by"], r["action"]) for r in withdrawn.json()["reviews"]]
    assert history == [
        ("Cleo", "confirm"),
        ("Ben", "confirm"),
        ("Root", "confirm"),
        ("Ben", "dispute"),
        ("Ben", "resolve"),
        ("Anna", "withdraw"),
    ]
    assert ben.post(f"/api/results/{rid}/confirm").status_code == 409
    # Withdrawn, the game may be entered again (corrected or not).
    assert (
        anna.enter(fido("2026-10-03", ("Anna", 14, 0), ("Ben", 17, 13), ("Cleo", 9, 1))).status_code
        == 201
    )


@pytest.mark.slow
def test_published_months_never_change_and_late_results_enter_the_next_month(
    site: Site,
) -> None:
    anna, ben, root = site.person("Anna"), site.person("Ben"), site.admin()
    kiel = site.approved_group(anna, "Kiel", root)
    assert anna.post(f"/api/groups/{kiel}/members", {"name": "Ben"}).status_code == 200
    assert ben.post(f"/api/groups/{kiel}/join", {}).status_code == 200
    for day in ("2026-10-01", "2026-10-02", "2026-10-03"):
        made = anna.enter(fido(day, ("Anna", 30, 0), ("Ben", 10, 2), ("Cleo", 5, 4)), group=kiel)
        assert made.status_code == 201, made.text
    disputed = anna.enter(
        fido("2026-10-04", ("Anna", 1, 0), ("Ben", 40, 0), ("Cleo", 30, 0)), group=kiel
    )
    ben.post(f"/api/results/{disputed.json()['ids'][0]}/dispute", {"comment": "wrong"})
    with pytest.raises(Exception, match="is not over"):
        site.results.lists.compute_month("2026-10")
    # November 2nd: a result of October 31 arrives late.
    site.clock.moment = datetime(2026, 11, 2, 9)
    late = anna.enter(
        fido("2026-10-31", ("Anna", 0, 9), ("Ben", 50, 0), ("Cleo", 40, 0)), group=kiel
    )
    assert late.status_code == 201
    shown = anna.client.get(f"/results/{late.json()['ids'][0]}")
    assert 'id="late"' in shown.text and "from the list of November 2026" in shown.text
    october = site.results.lists.compute_month("2026-10")
    assert [(x["game"], x["games"], x["late"]) for x in october] == [("fido", 3, 0)]
    first = anna.client.get("/api/lists/fido", params={"month": "2026-10"}).json()
    assert [r["name"] for r in first["rows"]] == ["Anna", "Ben", "Cleo"]
    # Nobody computes October again, through the service or the command line.
    with pytest.raises(Exception, match="published lists never change"):
        site.results.lists.compute_month("2026-10")
    # Nor edits its rows in the database.
    with site.db.session() as session, pytest.raises(PublishedListError):
        row = session.scalars(select(WorldListRow)).first()
        assert row is not None
        row.rating = 99.0
        session.commit()
    # Later changes leave October as published.
    ben.post(f"/api/results/{disputed.json()['ids'][0]}/resolve")
    site.clock.moment = datetime(2026, 12, 1, 0, 30)
    november = site.results.lists.compute_month("2026-11")
    # The late result and the dispute resolved after October's list: both late.
    assert (november[0]["games"], november[0]["new"], november[0]["late"]) == (5, 2, 2)
    assert anna.client.get("/api/lists/fido", params={"month": "2026-10"}).json() == first
    latest = anna.client.get("/api/lists/fido").json()
    assert latest["month"] == "2026-11" and latest["late"] == 2
    moved = {r["name"]: r["move"] for r in latest["rows"]}
    assert moved["Ben"] > 0 and moved["Anna"] < 0
    history = anna.client.get("/api/lists/fido/players/Anna").json()
    assert [h["month"] for h in history] == ["2026-10", "2026-11"]
    anna_id = latest["rows"][[r["name"] for r in latest["rows"]].index("Anna")]["player"]
    plot = anna.client.get(f"/list/fido/players/{anna_id}/plot.svg")
    assert plot.status_code == 200 and plot.text.lstrip().startswith("<?xml")
    page = anna.client.get("/list", params={"game": "fido"})
    assert "pips rating" in page.text and "FLADUB" not in page.text
    assert "▲" in page.text and "▼" in page.text
    assert "2 late results" in page.text and "FIDO divisor game" in page.text
    assert 'id="worked-example"' in page.text and 'id="list-inputs"' in page.text
    german = anna.client.get("/list", params={"game": "fido"}, headers={"Accept-Language": "de"})
    assert "pips-Wertungszahl" in german.text and "pips rating" not in german.text
    assert "Nur die Plätze" in german.text or "nur die Plätze" in german.text
    # Anyone computes a published list again from its games, with openskill alone:
    # the program of docs/results.md, run on October's and November's games.
    for month in ("2026-10", "2026-11"):
        inputs = anna.client.get(f"/api/lists/fido/{month}/games.json")
        assert inputs.status_code == 200, inputs.text
        assert checked_by_the_documented_program(inputs.json()) == "ok"


def checked_by_the_documented_program(data: dict[str, Any]) -> str:
    """Run the program docs/results.md gives ("Check a month yourself") on a list's
    games: "ok" when it finds every player's numbers as published."""
    import contextlib
    import json
    import runpy
    import tempfile

    docs = (Path(__file__).parents[1] / "docs" / "results.md").read_text(encoding="utf-8")
    program = docs.split("### Check a month yourself")[1].split("```python")[1].split("```")[0]
    printed = io.StringIO()
    argv = sys.argv
    with tempfile.TemporaryDirectory() as folder:
        source, games = Path(folder) / "check_month.py", Path(folder) / "games.json"
        source.write_text(program, encoding="utf-8")
        games.write_text(json.dumps(data), encoding="utf-8")
        try:
            sys.argv = [str(source), str(games)]
            with contextlib.redirect_stdout(printed):
                runpy.run_path(str(source), run_name="__main__")
        finally:
            sys.argv = argv
    said = printed.getvalue()
    assert said.strip().endswith(f"{len(data['list'])} players checked"), said
    return "ok" if "differs" not in said else said


def test_export_has_the_federation_fields_of_a_month(site: Site) -> None:
    anna = site.person("Anna")
    site.approved_group(anna, "Kiel", site.admin())
    anna.enter(fido("2026-10-03", ("Anna", 14, 0), ("Ben", 17, 13), ("Cleo", 9, 1)), group="kiel")
    anna.enter(fido("2026-09-30", ("Anna", 1, 0), ("Ben", 2, 0), ("Cleo", 3, 0), top=12))
    exported = anna.client.get("/api/results/export.csv", params={"month": "2026-10"})
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert [(r["player"], r["running"], r["pips"], r["final"], r["rank"]) for r in rows] == [
        ("Anna", "14", "0", "14", "1"),
        ("Ben", "17", "13", "4", "3"),
        ("Cleo", "9", "1", "8", "2"),
    ]
    assert {(r["date"], r["set"], r["divisor"]) for r in rows} == {("2026-10-03", "6", "3")}
    assert [r["seat"] for r in rows] == ["1", "2", "3"]
    # A group's export holds its players' games, those entered without the group too
    # (issue 49): the September game of Kiel's players.
    by_group = anna.client.get(
        "/api/results/export.csv", params={"month": "2026-09", "group": "kiel"}
    )
    assert [r["player"] for r in csv.DictReader(io.StringIO(by_group.text))] == [
        "Anna",
        "Ben",
        "Cleo",
    ]
    assert anna.client.get("/api/results/export.csv", params={"month": "2026-9"}).status_code == 422
    wrong = anna.client.get("/results", params={"month": "2026-13"})
    assert wrong.status_code == 422 and "is not a month" in wrong.text
    shown = anna.client.get("/results", params={"group": "kiel", "month": "2026-10"})
    assert shown.status_code == 200 and shown.text.count('data-result="') == 1


def test_the_result_form_shows_totals_and_ranks_before_saving(site: Site) -> None:
    anna = site.person("Anna")
    form = {
        "csrf": anna.csrf,
        "game": "fido",
        "players": "3",
        "date": "2026-10-03",
        "set": "6",
        "name0": "Anna",
        "points0": "14",
        "pips0": "0",
        "out": "0",
        "name1": "Ben",
        "points1": "17",
        "pips1": "13",
        "name2": "Cleo",
        "points2": "9",
        "pips2": "1",
        "action": "check",
    }
    shown = anna.client.post("/results/new", data=form)
    assert "Anna 14 (rank 1), Ben 4 (rank 3), Cleo 8 (rank 2)" in shown.text
    assert site.count() == 0
    saved = anna.client.post(
        "/results/new", data={**form, "action": "save"}, follow_redirects=False
    )
    assert saved.status_code == 303
    assert site.count() == 1
    wrong = anna.client.post("/results/new", data={**form, "pips1": "200", "action": "save"})
    assert wrong.status_code == 422 and "no hand of double-6" in wrong.text
    assert site.count() == 1


def test_score_sheet_button(site: Site) -> None:
    client = TestClient(site.app)
    pdf = client.get("/sheet.pdf", params={"game": "fido", "players": 5, "set": 12})
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    bad = client.get("/sheet.pdf", params={"game": "fido", "players": 2, "set": 12})
    assert bad.status_code == 422 and bad.json()["rule"] == "F-02", bad.text
    assert 'action="/sheet.pdf"' in client.get("/results").text


@pytest.mark.process
def test_a_game_played_on_the_server_is_entered_by_itself(tmp_path: Path) -> None:
    """A finished server game appears among the results, confirmed, and unrated
    because bots played in it."""
    with running(tmp_path) as server:
        ann = Browser(server, "Ann")
        table = ann.create(
            "fido",
            {"players": 3, "set": 6},
            [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "random"}],
            seed=4,
        )
        player = Player(ann, table)
        player.start()
        player.join(120)
        assert player.error is None
        listed: dict[str, Any] = {}
        for _ in range(100):
            listed = ann.http.get("/api/results").json()
            if listed["total"]:
                break
            time.sleep(0.1)
        assert listed["total"] == 1
        entered = listed["results"][0]
        assert entered["source"] == "server" and entered["table"] == table
        assert entered["status"] == "confirmed" and not entered["rated"]
        record = ann.http.get(f"/api/records/{table}").json()
        assert [p["final"] for p in entered["players"]] == record["result"]["final"]
        assert [p["rank"] for p in entered["players"]] == record["result"]["ranks"]


@pytest.mark.process
def test_the_server_publishes_a_month_that_is_over_by_itself(tmp_path: Path) -> None:
    """Results entered during October, no list computed: a server started afterwards
    publishes October's list on its own (in a worker process), and only once."""
    url = f"sqlite:///{tmp_path / 'pips.db'}"
    db = Database(url)
    db.upgrade()
    anna = accounts.create_account(db, "Anna", "password1")
    root = accounts.create_account(db, "Root", "password1")
    october = Results(db, clock=lambda: datetime(2026, 10, 20))
    october.admin.set_admin("Root")
    october.groups.create(anna.id, "Kiel")
    october.admin.approve_group(root.id, "kiel")
    entry = Entry("fido", date(2026, 10, 3), 6, (Line("Anna", 9), Line("Ben", 5), Line("Cleo")))
    october.entries.enter(anna.id, [october.entries.check(entry)], source="api", group="kiel")
    db.dispose()
    with running(tmp_path, url) as server:
        shown = httpx.get(server.url + "/api/lists/fido", params={"month": "2026-10"})
        for _ in range(300):
            if shown.status_code == 200:
                break
            time.sleep(0.1)
            shown = httpx.get(server.url + "/api/lists/fido", params={"month": "2026-10"})
        assert shown.status_code == 200, shown.text
        assert [r["name"] for r in shown.json()["rows"]] == ["Anna", "Ben", "Cleo"]
        months = httpx.get(server.url + "/api/lists/fido/months").json()
        assert [m["month"] for m in months] == ["2026-10"]


def test_a_result_in_german_with_german_dates_and_refusals(site: Site) -> None:
    """A German reader (issue 20): the result's page and the list of results say their
    words in German, dates as 03.10.2026; a wrong result is refused in German."""
    german = {"Accept-Language": "de-DE,de;q=0.9"}
    jurgen = site.person("Jürgen")
    jurgen.client.headers.update(german)
    wrong = jurgen.enter(fido("2026-10-03", ("Jürgen", 14, 0), ("Jürgen", 17, 13), ("Cleo", 9, 1)))
    assert wrong.status_code == 422
    assert "ist auf zwei Sitzen eingetragen" in wrong.json()["message"], wrong.text
    made = jurgen.enter(fido("2026-10-03", ("Jürgen", 14, 0), ("Bärbel", 17, 13), ("Cleo", 9, 1)))
    assert made.status_code == 201, made.text
    page = jurgen.client.get(made.json()["urls"][0]).text
    assert "Ergebnis" in page and "03.10.2026" in page and "FIDO-Divisorspiel" in page
    assert "Zählt nicht für die Weltrangliste" in page and "2026-10-03" not in page
    listed = jurgen.client.get("/results").text
    assert "03.10.2026" in listed and "vorläufig" in listed
    english = site.person("Ann").client.get(made.json()["urls"][0]).text
    assert "2026-10-03" in english and "Does not count for the world list" in english


def test_why_a_result_waits_for_an_administrator_says_one_player_in_the_singular() -> None:
    """It read "Zed Nobody belong to no approved group"."""
    from pips.i18n import say, use
    from pips.results.register import why_not_counted
    from pips.store.models import Result

    row = Result(status="provisional", rated=True, confirmed_by=None, flag=None)
    one = why_not_counted(row, [], orphans=["Zed Nobody"])
    assert one is not None and "Zed Nobody belongs to no approved group and has no account" in one
    two = why_not_counted(row, [], orphans=["Zed Nobody", "Ada"])
    assert two is not None and "Zed Nobody, Ada belong to no approved group and have no" in two
    use("de")
    try:
        assert "Zed Nobody gehört zu keiner genehmigten Gruppe und hat kein Konto" in say(one)
        assert "Zed Nobody, Ada gehören zu keiner genehmigten Gruppe" in say(two)
    finally:
        use("en")
