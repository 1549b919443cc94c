"""A championship (issue 34), on SQLite and PostgreSQL: 120 FIDO players of twelve
clubs over two days, checked in, seeded, round 1 by lot with the seeds and the clubs
apart, Swiss rounds by the standings after it, double-9 on the first day and double-12
on the second (one table with another set), a late arrival and a withdrawal marked in
the standings, a final table, club and team standings, the papers of a round and the
check-in list printed, and every game closed into the results with its own day."""

from __future__ import annotations

import io
import random
from collections import Counter
from itertools import combinations
from typing import Any

import pdfplumber
import pytest

from pips.results.draws import Apart, Cost, draw_round, draw_swiss_round
from pips.results.entry import Line
from pips.results.standings import TableResult, group_standings, standings
from pips.text import surname_key
from tests.databases import one_database
from tests.test_events import event_of
from tests.test_results_server import Person, Site

CLUBS = [
    "SC Kiel",
    "Domino-Club Neumühle",
    "DF Lübeck",
    "Würfel und Stein Köln",  # a group name is written as an account name is: no &
    "TSV Büdelsdorf",
    "Dominofreunde Graz",
    "DC Zürich",
    "SpVgg Fürth",
    "Club Ötztal",
    "DSG Bärenstein",
    "Steinbeißer Essen",
    "Doppelsechs Düsseldorf",
]


def roster() -> list[tuple[str, str, str]]:
    """120 players (name, club, team): ten of each club, in two teams of five."""
    first = ["Jürgen", "Bärbel", "Anna-Katharina", "Götz", "Zoë", "Ömer", "Lena", "Max", "Ida"]
    first.append("Hans-Jörg")
    players = []
    for c, club in enumerate(CLUBS):
        for i in range(10):
            name = f"{first[i]} {club.split()[-1]}-{c:02d}{i}"
            players.append((name, club, f"{club} {1 + i // 5}"))
    return players


def lines_for(seats: list[str], rng: random.Random) -> list[dict[str, Any]]:
    """A possible end of a FIDO game: the first seat went out."""
    return [
        {
            "name": name,
            "points": 5 * rng.randrange(0, 14),
            "pips": 0 if seat == 0 else rng.randrange(1, 30),
            "out": seat == 0,
        }
        for seat, name in enumerate(seats)
    ]


def enter_round(site: Site, anna: Person, key: str, number: int, rng: random.Random) -> None:
    """Every table of a round entered by the organiser through the service (the API
    path is the one every other event test takes; 30 tables a round keep this fast)."""
    shown = event_of(anna, key)
    one = next(r for r in shown["drawn"] if r["number"] == number)

    organiser = _organiser_id(site, key)
    for table in one["tables"]:
        lines = [
            Line(ln["name"], ln["points"], ln["pips"], ln["out"])
            for ln in lines_for(table["seats"], rng)
        ]
        site.results.scores.enter_only(organiser, key, number, table["number"], lines, source="csv")


def _organiser_id(site: Site, key: str) -> int:
    from sqlalchemy import select

    from pips.store.models import Event

    with site.db.session() as session:
        return int(session.scalars(select(Event.organiser_id).where(Event.key == key)).one())


def met_counts(shown: dict[str, Any]) -> Counter[frozenset[str]]:
    met: Counter[frozenset[str]] = Counter()
    for one in shown["drawn"]:
        for table in one["tables"]:
            met.update(frozenset(p) for p in combinations(table["seats"], 2))
    return met


@pytest.mark.slow
@pytest.mark.parametrize("site", one_database(), indirect=True)
def test_a_championship_of_120_players_over_two_days(site: Site) -> None:
    root = site.admin()
    anna = site.person("Anna")
    slug = site.approved_group(anna, "FIDO Deutschland", root)
    made = anna.post(
        "/api/events",
        {
            "name": "Deutsche Meisterschaft 2026",
            "game": "fido",
            "date": "03.10.2026",
            "days": ["03.10.2026", "04.10.2026"],
            "rounds": 6,
            "options": {"set": 9},
            "place": "Büdelsdorf, Bürgerhaus",
            "group": slug,
            "pairing": "swiss",
            "tiebreaks": ["wins", "buchholz", "average-place"],
            "check_in": True,
        },
    )
    assert made.status_code == 201, made.text
    key = made.json()["key"]
    assert made.json()["schedule"] == ["2026-10-03"] * 3 + ["2026-10-04"] * 3
    players = roster()
    names = [n for n, _, _ in players]
    late = names.pop()  # arrives on the second day
    added = anna.post(
        f"/api/events/{key}/players",
        {
            "names": names,
            "new_players": names,
            "clubs": {n: c for n, c, _ in players},
            "teams": {n: t for n, _, t in players},
        },
    )
    assert added.status_code == 200, added.text
    shown = added.json()
    by_name = {p["name"]: p for p in shown["players"]}
    # Check-in: two players did not come; only those checked in are drawn.
    absent = {names[5], names[17]}
    for name in names:
        if name not in absent:
            path = f"/api/events/{key}/players/{by_name[name]['id']}/check-in"
            assert anna.post(path, {"present": True}).status_code == 200
    listing = anna.client.get(f"/events/{key}/check-in.pdf")
    assert listing.status_code == 200
    with pdfplumber.open(io.BytesIO(listing.content)) as document:
        text = "\n".join(page.extract_text() or "" for page in document.pages)
    # By last name in German order (umlauts with their vowels: Ötztal among the O's).
    listed = [line.removeprefix("x ") for line in text.splitlines() if "-0" in line or "-1" in line]
    names_listed = [n for ln in listed for n in names if ln.startswith(n + " ")]
    assert names_listed == sorted(names_listed, key=surname_key)
    assert names_listed.index(next(n for n in names if "Ötztal" in n)) < names_listed.index(
        next(n for n in names if "Zürich" in n)
    )
    # Seeds: the first of every club, in club order: the top 30 sit at 30 tables.
    seeds = [n for n in names if n.startswith(("Jürgen", "Bärbel", "Anna-Katharina"))][:30]
    assert anna.post(f"/api/events/{key}/seeds", {"order": seeds}).status_code == 200

    rng = random.Random(34)
    drawn = anna.post(f"/api/events/{key}/rounds")
    assert drawn.status_code == 201, drawn.text
    one = drawn.json()["drawn"][0]
    seated = [n for t in one["tables"] for n in t["seats"]]
    assert sorted(seated) == sorted(set(names) - absent)
    assert one["date"] == "2026-10-03" and one["method"] == "lot"
    assert [len(t["seats"]) for t in one["tables"]] == [4] * 17 + [5] * 2 or all(
        len(t["seats"]) in (3, 4, 5) for t in one["tables"]
    )
    tables = len(one["tables"])
    top_seeds = set(seeds[:tables])
    for table in one["tables"]:
        assert len(top_seeds & set(table["seats"])) <= 1, table
        clubs = Counter(by_name[n]["club"] for n in table["seats"])
        assert max(clubs.values()) == 1, table  # clubs apart in round 1
    # One table plays double-12 (not enough double-9 boxes).
    assert anna.post(f"/api/events/{key}/rounds/1/tables/3/set", {"set": 12}).status_code == 200
    enter_round(site, anna, key, 1, rng)

    for number in range(2, 7):
        if number == 3:
            # A player withdraws after round 2; the late arrival comes for day two.
            leaving = by_name[names[0]]["id"]
            assert anna.post(f"/api/events/{key}/players/{leaving}/withdraw").status_code == 200
        if number == 4:
            late_added = anna.post(
                f"/api/events/{key}/players",
                {"names": [late], "new_players": [late], "clubs": {late: CLUBS[-1]}},
            ).json()
            late_id = next(p["id"] for p in late_added["players"] if p["name"] == late)
            anna.post(f"/api/events/{key}/players/{late_id}/check-in", {"present": True})
        body = {"set": 12} if number == 4 else {}
        drawn = anna.post(f"/api/events/{key}/rounds", body)
        assert drawn.status_code == 201, drawn.text
        shown = drawn.json()
        this = shown["drawn"][-1]
        assert this["method"] == "swiss"
        assert this["date"] == ("2026-10-03" if number <= 3 else "2026-10-04")
        if number >= 4:
            assert {t["set"] for t in this["tables"]} == {12}
        # Swiss: the standings cut into consecutive tables, the leaders at table 1;
        # a player moved at most one table from that place to avoid a repeat.
        at_tables = {n for t in this["tables"] for n in t["seats"]}
        ranking = [s["name"] for s in shown["standings"] if s["name"] in at_tables]
        home: dict[str, int] = {}
        start = 0
        for index, table in enumerate(this["tables"]):
            home.update(dict.fromkeys(ranking[start : start + len(table["seats"])], index))
            start += len(table["seats"])
        for index, table in enumerate(this["tables"]):
            assert all(abs(home[n] - index) <= 1 for n in table["seats"]), (number, table)
        enter_round(site, anna, key, number, rng)

    shown = event_of(anna, key)
    met = met_counts(shown)
    # Repeats are avoided where the standings allow: few pairs meet twice in six rounds.
    assert sum(1 for n in met.values() if n > 1) < len(met) // 10
    final = anna.post(f"/api/events/{key}/rounds", {"final": 6})
    assert final.status_code == 201, final.text
    final_table = final.json()["drawn"][-1]
    assert final_table["method"] == "final" and len(final_table["tables"]) == 1
    before = [s["name"] for s in final.json()["standings"] if not s["withdrawn"]][:6]
    assert sorted(final_table["tables"][0]["seats"]) == sorted(before)
    enter_round(site, anna, key, 7, rng)
    shown = event_of(anna, key)
    top = shown["standings"][:6]
    final_result = shown["drawn"][-1]["tables"][0]["result"]["players"]
    assert [s["final_place"] for s in top] == sorted(ln["rank"] for ln in final_result)
    marks = {s["name"]: s for s in shown["standings"]}
    assert marks[late]["late_from"] == 4 and marks[names[0]]["withdrawn_from"] == 3
    assert marks[names[5]]["games"] == 0  # never checked in, never drawn
    clubs = shown["clubs"]
    assert len(clubs) == 12 and all(len(c["counted"]) == 3 for c in clubs)
    assert clubs[0]["points"] >= clubs[-1]["points"]
    assert {t["name"] for t in shown["teams"]} >= {f"{CLUBS[0]} 1", f"{CLUBS[0]} 2"}

    # The papers of a day-two round: a card and a one-page sheet per table.
    sheets = anna.client.get(f"/events/{key}/rounds/5/sheets.pdf")
    assert sheets.status_code == 200
    with pdfplumber.open(io.BytesIO(sheets.content)) as document:
        round_five = len(shown["drawn"][4]["tables"])
        assert len(document.pages) == 2 * round_five
        assert "Doppel-12" in (document.pages[1].extract_text() or "") or "double-12" in (
            document.pages[1].extract_text() or ""
        )
    page = anna.client.get(f"/events/{key}", headers={"Accept-Language": "de"}).text
    assert "Neumühle" in page and 'id="clubs-standings"' in page

    closed = anna.post(f"/api/events/{key}/close")
    assert closed.status_code == 200, closed.text
    days: Counter[str] = Counter()
    for month in ("2026-10",):
        found = anna.client.get("/api/results", params={"month": month, "limit": 500}).json()
        days.update(r["date"] for r in found["results"])
    assert set(days) == {"2026-10-03", "2026-10-04"}
    assert days["2026-10-03"] == sum(len(shown["drawn"][i]["tables"]) for i in range(3))


def test_a_swiss_round_seats_the_standings_in_order_and_avoids_repeats() -> None:
    """The Swiss draw alone: 24 players ranked, tables of four; without history the
    leaders sit at table 1 in ranking order's blocks; with the leaders having met, a
    swap with the next table keeps them apart."""
    ranking = [f"P{i:02d}" for i in range(24)]
    drawn = draw_swiss_round(2, ranking, (3, 4, 5), random.Random(1))
    assert [sorted(t.seats) for t in drawn.tables] == [
        sorted(ranking[i : i + 4]) for i in range(0, 24, 4)
    ]
    met = {frozenset(("P00", "P01")): 1}
    drawn = draw_swiss_round(2, ranking, (3, 4, 5), random.Random(1), met)
    first = set(drawn.tables[0].seats)
    assert not {"P00", "P01"} <= first
    assert first <= set(ranking[:8])  # moved one table at most
    # A bye goes to the lowest-ranked who had none.
    odd = draw_swiss_round(3, ranking[:9], (4,), random.Random(1), {}, {"P08": 1})
    assert odd.byes == ("P07",)


def test_seeds_and_clubs_are_kept_apart_in_a_lot_draw() -> None:
    names = [f"S{i:02d}" for i in range(40)]
    clubs = {n: f"club{i % 10}" for i, n in enumerate(names)}
    seeds = {n: i + 1 for i, n in enumerate(names[:10])}
    drawn = draw_round(1, names, (3, 4, 5), random.Random(5), apart=Apart(clubs, seeds))
    cost = Cost({}, Apart(clubs, seeds), len(drawn.tables))
    assert sum(cost.of(list(t.seats)) for t in drawn.tables) == 0
    assert len(drawn.tables) == 10


@pytest.mark.parametrize("rules", [("wins", "average-place"), ("buchholz",), ("best-game",)])
def test_tiebreaks_decide_equal_points_in_the_order_chosen(rules: tuple[str, ...]) -> None:
    """Anna and Ben both 40 points and one table win: Anna's average place is better
    (1.5 against 2.0) and her best game higher (30 against 20); Ben met the stronger
    opponents (Buchholz 112 against 34)."""
    results = [
        TableResult(1, 1, ("Anna", "Cleo", "Dora"), (30, 5, 0), (1, 2, 3)),
        TableResult(1, 2, ("Ben", "Emil", "Fritz"), (20, 25, 22), (3, 1, 2)),
        TableResult(2, 1, ("Anna", "Cleo", "Dora"), (10, 12, 0), (2, 1, 3)),
        TableResult(2, 2, ("Ben", "Emil", "Fritz"), (20, 5, 4), (1, 2, 3)),
    ]
    lines = standings(results, tiebreaks=rules)
    order = [s.name for s in lines if s.name in ("Anna", "Ben")]
    buchholz = {s.name: s.buchholz for s in lines}
    assert (buchholz["Anna"], buchholz["Ben"]) == (34, 112)
    assert order == (["Ben", "Anna"] if rules[0] == "buchholz" else ["Anna", "Ben"])
    assert len({s.place for s in lines if s.name in ("Anna", "Ben")}) == 2
    # Without tie-breaks they share the place.
    shared = standings(results, tiebreaks=())
    assert {s.place for s in shared if s.name in ("Anna", "Ben")} == {1}


def test_club_standings_count_each_clubs_best_players() -> None:
    results = [TableResult(1, 1, ("A1", "A2", "B1", "A3"), (30, 20, 25, 1), (1, 3, 2, 4))]
    lines = standings(results)
    clubs = group_standings(lines, {"A1": "A", "A2": "A", "A3": "A", "B1": "B"}, counted=2)
    assert [(c.name, c.points, c.counted) for c in clubs] == [
        ("A", 50, ("A1", "A2")),
        ("B", 25, ("B1",)),
    ]
