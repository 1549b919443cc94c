"""Events (issue 22) through the JSON API, on SQLite and PostgreSQL: a whole evening of
17 FIDO players over three rounds, results entered by the tables' players and the
organiser, a correction after a round closed, late arrivals and withdrawals, the
standings against the tables' results, closing into the world list, and a hostile
client refused at every step."""

from __future__ import annotations

import csv
import io
import random
import re
from collections import Counter
from datetime import datetime
from itertools import combinations
from typing import Any

import pytest

from pips.results.draws import RoundDraw, Table, repeats
from pips.results.events.book import event_key
from tests.test_results_server import Person, Site

PLAYERS = [
    "Jürgen Müller",
    "Bärbel Schröder",
    "Anna",
    "Ben",
    "Cleo",
    "Dörte",
    "Emil",
    "Frieda",
    "Götz",
    "Hanna",
    "Ida",
    "Jörg",
    "Karl",
    "Lena",
    "Max",
    "Nora",
    "Otto",
]


def lines_for(seats: list[str], rng: random.Random) -> list[dict[str, Any]]:
    """A possible end of a FIDO double-6 game at this table: the first seat went out,
    running points in steps of five, pips left in the others' hands."""
    return [
        {
            "name": name,
            "points": 5 * rng.randrange(0, 12),
            "pips": 0 if seat == 0 else rng.randrange(1, 25),
        }
        for seat, name in enumerate(seats)
    ]


def event_of(person: Person, key: str) -> dict[str, Any]:
    response = person.client.get(f"/api/events/{key}")
    assert response.status_code == 200, response.text
    return dict(response.json())


def new_event(site: Site, **extra: Any) -> tuple[Person, str]:
    """Anna, representative of the approved group Kiel, creates an evening of three
    rounds of FIDO with double-6."""
    root = site.admin()
    anna = site.person("Anna")
    slug = site.approved_group(anna, "Kiel", root)
    body = {
        "name": "Kieler Domino-Abend",
        "game": "fido",
        "date": "10.10.2026",
        "rounds": 3,
        "options": {"set": 6},
        "place": "Kiel, Bürgerhaus",
        "group": slug,
        **extra,
    }
    made = anna.post("/api/events", body)
    assert made.status_code == 201, made.text
    return anna, made.json()["key"]


@pytest.mark.slow
def test_an_evening_of_17_fido_players_over_three_rounds(site: Site) -> None:
    anna, key = new_event(site)
    # Ben plays at the evening with his own account, and enters his table's results;
    # he is a member of Kiel (he asked, its representative accepted), so the club's word
    # vouches for his games too.
    ben = site.person("Ben")
    assert ben.post("/api/groups/kiel/join", {}).status_code == 200
    assert anna.post("/api/groups/kiel/members", {"name": "Ben"}).status_code == 200
    added = anna.post(f"/api/events/{key}/players", {"names": PLAYERS, "new_players": PLAYERS})
    assert added.status_code == 200, added.text
    assert len(added.json()["players"]) == 17
    rng = random.Random(7)
    expected: Counter[str] = Counter()
    drawn: list[RoundDraw] = []
    for number in (1, 2, 3):
        shown = anna.post(f"/api/events/{key}/rounds").json()
        one = shown["drawn"][-1]
        assert one["number"] == number and one["status"] == "playing"
        # 17 players: tables of 5, 4, 4 and 4, nobody twice, nobody left out.
        assert sorted(len(t["seats"]) for t in one["tables"]) == [4, 4, 4, 5]
        seated = [n for t in one["tables"] for n in t["seats"]]
        assert sorted(seated) == sorted(PLAYERS) and one["byes"] == []
        drawn.append(
            RoundDraw(
                number, tuple(Table(t["number"], tuple(t["seats"])) for t in one["tables"]), ()
            )
        )
        # The next round is refused while this one is being played.
        assert anna.post(f"/api/events/{key}/rounds").status_code == 409
        for table in one["tables"]:
            lines = lines_for(table["seats"], rng)
            enterer = ben if "Ben" in table["seats"] else anna
            entered = enterer.post(
                f"/api/events/{key}/rounds/{number}/tables/{table['number']}",
                {"players": list(reversed(lines))},  # any order: matched by name
            )
            assert entered.status_code == 200, entered.text
            # FIDO: the final score is the running points less the pips left (F-21).
            for line in lines:
                expected[line["name"]] += line["points"] - line["pips"]
        assert event_of(anna, key)["drawn"][-1]["status"] == "closed"
    # The draw kept repeats down: far fewer than the 3 x (3 x 6 + 10) pairs drawn blind
    # would repeat (test_draws measures the average).
    assert repeats(drawn) < 40
    shown = event_of(anna, key)
    totals = {s["name"]: s["points"] for s in shown["standings"]}
    assert totals == dict(expected)
    ordered = [s["points"] for s in shown["standings"]]
    assert ordered == sorted(ordered, reverse=True)
    assert all(s["games"] == 3 for s in shown["standings"])
    # Closing enters the 12 games as results, confirmed by the approved group's
    # representative, and the month's world list counts them.
    closed = anna.post(f"/api/events/{key}/close")
    assert closed.status_code == 200, closed.text
    assert closed.json()["status"] == "closed"
    listed = anna.client.get("/api/results", params={"month": "2026-10"}).json()
    assert listed["total"] == 12
    assert {r["status"] for r in listed["results"]} == {"confirmed"}
    site.clock.moment = datetime(2026, 11, 1, 1)
    site.results.lists.compute_month("2026-10")
    published = site.results.lists.world_list("fido", "2026-10")
    assert published is not None
    rows = published["rows"]
    assert sorted(r["name"] for r in rows) == sorted(PLAYERS)
    # A closed event changes no more.
    assert anna.post(f"/api/events/{key}/rounds").status_code == 409
    assert anna.post(f"/api/events/{key}/close").status_code == 409


@pytest.mark.slow
def test_a_correction_after_the_round_closed_needs_the_organiser_and_a_reason(
    site: Site,
) -> None:
    anna, key = new_event(site, rounds=1)
    ben = site.person("Ben")
    names = ["Ben", "Cleo", "Dörte", "Emil", "Frieda", "Götz", "Hanna"]
    anna.post(f"/api/events/{key}/players", {"names": names, "new_players": names})
    one = anna.post(f"/api/events/{key}/rounds").json()["drawn"][0]
    assert sorted(len(t["seats"]) for t in one["tables"]) == [3, 4]
    rng = random.Random(3)
    for table in one["tables"]:
        lines = lines_for(table["seats"], rng)
        assert (
            anna.post(
                f"/api/events/{key}/rounds/1/tables/{table['number']}", {"players": lines}
            ).status_code
            == 200
        )
    assert event_of(anna, key)["drawn"][0]["status"] == "closed"
    table = next(t for t in one["tables"] if "Ben" in t["seats"])
    path = f"/api/events/{key}/rounds/1/tables/{table['number']}"
    before = event_of(anna, key)["standings"]
    fixed = lines_for(table["seats"], random.Random(99))
    # Ben played there, but the round is closed: only the organiser corrects now.
    refused = ben.post(path, {"players": fixed, "reason": "typo"})
    assert refused.status_code == 403
    # Without a reason the correction is refused, and nothing changes.
    assert anna.post(path, {"players": fixed}).status_code == 422
    assert event_of(anna, key)["standings"] == before
    done = anna.post(path, {"players": fixed, "reason": "Götz had 12 pips, not 21"})
    assert done.status_code == 200, done.text
    history = anna.client.get(path).json()
    assert len(history) == 2 and history[1]["reason"] == "Götz had 12 pips, not 21"
    assert history[1]["entered_by"] == "Anna" and history[0]["corrections"] == 0
    after = {s["name"]: s["points"] for s in event_of(anna, key)["standings"]}
    for line in fixed:
        assert after[line["name"]] == line["points"] - line["pips"]
    assert anna.post(f"/api/events/{key}/close").status_code == 200
    results = anna.client.get("/api/results", params={"month": "2026-10"}).json()["results"]
    entered = {frozenset(p["name"] for p in r["players"]): r for r in results}
    corrected = entered[frozenset(table["seats"])]
    finals = {p["name"]: p["final"] for p in corrected["players"]}
    assert finals == {ln["name"]: ln["points"] - ln["pips"] for ln in fixed}


@pytest.mark.slow
def test_late_arrivals_and_withdrawals_change_the_next_round_only(site: Site) -> None:
    anna, key = new_event(site)
    names = [f"Spieler {n}" for n in range(1, 9)]
    anna.post(f"/api/events/{key}/players", {"names": names, "new_players": names})
    one = anna.post(f"/api/events/{key}/rounds").json()["drawn"][0]
    # A late arrival joins from round 2; a withdrawal leaves after round 1.
    late = anna.post(f"/api/events/{key}/players", {"names": ["Zoë"], "new_players": ["Zoë"]})
    assert late.status_code == 200
    leaving = next(p for p in late.json()["players"] if p["name"] == "Spieler 3")
    assert anna.post(f"/api/events/{key}/players/{leaving['id']}/withdraw").status_code == 200
    rng = random.Random(5)
    for table in one["tables"]:
        anna.post(
            f"/api/events/{key}/rounds/1/tables/{table['number']}",
            {"players": lines_for(table["seats"], rng)},
        )
    second = anna.post(f"/api/events/{key}/rounds").json()
    seated = {n for t in second["drawn"][1]["tables"] for n in t["seats"]}
    assert "Zoë" in seated and "Spieler 3" not in seated and len(seated) == 8
    lines = {s["name"]: s for s in second["standings"]}
    assert lines["Spieler 3"]["withdrawn"] and lines["Spieler 3"]["games"] == 1
    assert lines["Zoë"]["games"] == 0


def test_standings_export_as_csv_and_pdf(site: Site) -> None:
    anna, key = new_event(site, rounds=1)
    names = ["=cmd|' /C calc'!A0", "Bärbel", "Jürgen"]
    refused = anna.post(f"/api/events/{key}/players", {"names": names})
    # A name is letters, digits and a few marks: a formula is no name.
    assert refused.status_code == 422
    names = ["Bärbel", "Jürgen", "Ömer"]
    anna.post(f"/api/events/{key}/players", {"names": names, "new_players": names})
    one = anna.post(f"/api/events/{key}/rounds").json()["drawn"][0]
    anna.post(
        f"/api/events/{key}/rounds/1/tables/1",
        {"players": lines_for(one["tables"][0]["seats"], random.Random(1))},
    )
    text = anna.client.get(f"/events/{key}/standings.csv").text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["Player"] for r in rows] == [s["name"] for s in event_of(anna, key)["standings"]]
    # For a German reader: German heads, semicolons, decimal commas, a byte-order mark
    # (a German spreadsheet opens it as it is).
    german = anna.client.get(
        f"/events/{key}/standings.csv", headers={"Accept-Language": "de"}
    ).content.decode("utf-8")
    assert german.startswith(
        "\ufeffPlatz;SpielerIn;Verein;Punkte;Siege;Ø-Platz;Partien;Anmerkungen"
    )
    rows = list(csv.DictReader(io.StringIO(german.lstrip("\ufeff")), delimiter=";"))
    assert [r["SpielerIn"] for r in rows] == [s["name"] for s in event_of(anna, key)["standings"]]
    assert all("," in r["Ø-Platz"] for r in rows)
    pdf = anna.client.get(f"/events/{key}/standings.pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
    sheets = anna.client.get(f"/events/{key}/rounds/1/sheets.pdf")
    assert sheets.status_code == 200 and sheets.content.startswith(b"%PDF-")


@pytest.mark.slow
def test_a_hostile_client_changes_nothing(site: Site) -> None:
    anna, key = new_event(site, rounds=2)
    mallory = site.person("Mallory")
    names = ["Ben", "Cleo", "Dörte"]
    # Only a group's representative (for the group) or an administrator organises.
    assert (
        mallory.post(
            "/api/events", {"name": "Fake", "game": "fido", "date": "2026-10-10", "rounds": 1}
        ).status_code
        == 403
    )
    assert (
        mallory.post(
            "/api/events",
            {"name": "Fake", "game": "fido", "date": "2026-10-10", "rounds": 1, "group": "kiel"},
        ).status_code
        == 403
    )
    # Bad options, rounds and dates are refused with a reason.
    for bad in (
        {"options": {"set": 7}},
        {"rounds": 0},
        {"rounds": 51},
        {"date": "31.02.2026"},
        {"date": "2126-01-01"},
        {"game": "chess"},
        {"options": {"divisor": 99}},
    ):
        body = {
            "name": "Abend",
            "game": "fido",
            "date": "2026-10-10",
            "rounds": 1,
            "group": "kiel",
            **bad,
        }
        answer = anna.post("/api/events", body)
        assert answer.status_code == 422, (bad, answer.text)
        assert answer.json()["code"] in ("invalid", "rule_broken") and answer.json()["message"]
    anna.post(f"/api/events/{key}/players", {"names": names, "new_players": names})
    before = event_of(anna, key)
    # Mallory is no organiser and sits at no table.
    assert mallory.post(f"/api/events/{key}/players", {"names": ["Sybil"]}).status_code == 403
    assert mallory.post(f"/api/events/{key}/rounds").status_code == 403
    assert mallory.post(f"/api/events/{key}/close").status_code == 403
    anna.post(f"/api/events/{key}/rounds")
    path = f"/api/events/{key}/rounds/1/tables/1"
    good = lines_for(event_of(anna, key)["drawn"][0]["tables"][0]["seats"], random.Random(2))
    assert mallory.post(path, {"players": good}).status_code == 403
    # Without the CSRF token, nothing.
    assert anna.client.post(path, json={"players": good}).status_code == 403
    # Results the rules refuse: too many pips, a name not at the table, a missing line.
    wrong = [dict(line) for line in good]
    wrong[1]["pips"] = 500
    for lines in (wrong, [*good[:2], {"name": "Sybil", "points": 0, "pips": 3}], good[:2]):
        answer = anna.post(path, {"players": lines})
        assert answer.status_code == 422, answer.text
    # Unknown events, rounds and tables are 404; malformed ones 422.
    assert anna.client.get("/api/events/AAAAAAAAAAAA").status_code == 404
    assert anna.post(f"/api/events/{key}/rounds/9/tables/1", {"players": good}).status_code == 404
    assert anna.post(f"/api/events/{key}/rounds/1/tables/7", {"players": good}).status_code == 404
    assert anna.client.get("/api/events/..%2F..").status_code in (404, 422)
    assert anna.post(f"/api/events/{key}/rounds/0/tables/1", {"players": good}).status_code == 422
    after = event_of(anna, key)
    assert after["players"] == before["players"]
    assert after["drawn"][0]["tables"][0]["result"] is None
    # Event addresses come from the CSPRNG, not a counter.
    keys = {
        anna.post(
            "/api/events",
            {
                "name": f"Abend {n}",
                "game": "fido",
                "date": "2026-10-10",
                "rounds": 1,
                "group": "kiel",
            },
        ).json()["key"]
        for n in range(5)
    }
    assert len(keys) == 5 and all(len(k) >= 12 for k in keys)
    # Refused creations spend none of the account's rate of new events (issue 52: what
    # the rate bounds is what was made) ...
    refused = [
        anna.post("/api/events", {"name": "x", "game": "fido", "date": "2026-10-10", "rounds": 1})
        for _ in range(25)
    ]
    assert {a.status_code for a in refused} == {422}, {a.status_code for a in refused}
    # ... and a flood of new events is held back per account: 20 at once, then one every
    # three seconds (the bound of 60 leaves room for any refill while the flood runs).
    answers = []
    for n in range(60):
        answers.append(
            anna.post(
                "/api/events",
                {
                    "name": f"Flut {n}",
                    "game": "fido",
                    "date": "2026-10-10",
                    "rounds": 1,
                    "group": "kiel",
                },
            )
        )
        if answers[-1].status_code != 201:
            break
    # Anna made six events before the flood (the evening and the five above), so at
    # least 14 of the burst of 20 are left; had the refused ones spent it, none would be.
    made = sum(a.status_code == 201 for a in answers)
    assert made >= 20 - 6, (made, "the refused ones above spent the rate")
    assert answers[-1].status_code == 429 and "Retry-After" in answers[-1].headers


def test_fixed_partners_are_drawn_as_pairs_and_ranked_by_match_wins(site: Site) -> None:
    root = site.admin()
    body = {
        "name": "Paar-Turnier",
        "game": "partnership",
        "date": "2026-10-10",
        "rounds": 2,
        "fixed_pairs": True,
    }
    made = root.post("/api/events", body)
    assert made.status_code == 201, made.text
    key = made.json()["key"]
    pairs = [["Anna", "Ben"], ["Cleo", "Dörte"], ["Emil", "Frieda"], ["Götz", "Hanna"]]
    every = [n for p in pairs for n in p]
    assert root.post(f"/api/events/{key}/players", {"names": every}).status_code == 422
    added = root.post(f"/api/events/{key}/players", {"pairs": pairs, "new_players": every})
    assert added.status_code == 200, added.text
    one = root.post(f"/api/events/{key}/rounds").json()["drawn"][0]
    for table in one["tables"]:
        seats = table["seats"]
        # Partners sit opposite (seats 1 and 3, 2 and 4: PT-01).
        assert [seats[0], seats[2]] in pairs or [seats[2], seats[0]] in pairs
        assert [seats[1], seats[3]] in pairs or [seats[3], seats[1]] in pairs
        # Seats 1 and 3 won the match to 30 (PT-13): both carry their pair's points.
        lines = [
            {"name": seats[0], "points": 30},
            {"name": seats[1], "points": 10},
            {"name": seats[2], "points": 30},
            {"name": seats[3], "points": 10},
        ]
        answer = root.post(
            f"/api/events/{key}/rounds/1/tables/{table['number']}", {"players": lines}
        )
        assert answer.status_code == 200, answer.text
    second = root.post(f"/api/events/{key}/rounds").json()["drawn"][1]
    met = {frozenset(p) for t in one["tables"] for p in combinations(t["seats"], 2)}
    again = [
        p for t in second["tables"] for p in combinations(t["seats"], 2) if frozenset(p) in met
    ]
    # Four pairs at two tables: round 2 meets new pairs, so only partners sit together again.
    assert sorted(sorted(p) for p in again) == sorted(sorted(p) for p in pairs)
    shown = event_of(root, key)
    assert shown["scoring"] == "match-wins"
    winners = {s["name"] for s in shown["standings"] if s["wins"] == 1}
    assert len(winners) == 4 and all(s["place"] == 1 for s in shown["standings"] if s["wins"])


def test_a_rounds_results_as_a_german_spreadsheet_all_or_nothing(site: Site) -> None:
    anna, key = new_event(site, rounds=1)
    names = ["Jürgen", "Bärbel", "Anna", "Ben", "Cleo", "Dörte", "Emil", "Frieda"]
    anna.post(f"/api/events/{key}/players", {"names": names, "new_players": names})
    tables = anna.post(f"/api/events/{key}/rounds").json()["drawn"][0]["tables"]
    rng = random.Random(4)
    rows = ["Spiel;Datum;Spielart;Satz;Sitz;Spieler;Punkte;Augen"]
    expected = {}
    for table in tables:
        for seat, line in enumerate(lines_for(table["seats"], rng)):
            rows.append(
                f"{table['number']};10.10.2026;FIDO;6;{seat + 1};{line['name']};"
                f"{line['points']};{line['pips']}"
            )
            expected[line["name"]] = line["points"] - line["pips"]
    bad = [*rows[:-1], rows[-1].rsplit(";", 1)[0] + ";999"]  # more pips than a hand holds
    path = f"/api/events/{key}/rounds/1/csv"
    headers = {"X-CSRF-Token": anna.csrf, "Content-Type": "text/csv"}
    refused = anna.client.post(path, content="\n".join(bad).encode("cp1252"), headers=headers)
    assert refused.status_code == 422, refused.text
    # Nothing of the bad file was kept: no table has a result.
    assert all(t["result"] is None for t in event_of(anna, key)["drawn"][0]["tables"])
    done = anna.client.post(path, content="\n".join(rows).encode("cp1252"), headers=headers)
    assert done.status_code == 200, done.text
    shown = done.json()
    assert shown["drawn"][0]["status"] == "closed"
    assert {s["name"]: s["points"] for s in shown["standings"]} == expected
    assert {t["result"]["source"] for t in shown["drawn"][0]["tables"]} == {"csv"}


def test_an_event_key_never_looks_like_an_option() -> None:
    """A key is typed on the command line (``pips event players KEY ...``): one starting
    with ``-`` was taken for an option (one key in 32 did)."""
    keys = [event_key() for _ in range(3000)]
    assert all(key[0].isalnum() and len(key) == 12 for key in keys)
    assert len(set(keys)) == len(keys)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", key) for key in keys)


@pytest.mark.slow
def test_a_round_drawn_again_after_a_late_arrival_seats_them_and_prints(site: Site) -> None:
    """Issue "A championship across clubs and countries", item 1: "Durchgang N neu
    auslosen" answered 500 (the new draw's round was flushed without its event)."""
    anna, key = new_event(site)
    names = [f"Spieler {n}" for n in range(1, 9)]
    anna.post(f"/api/events/{key}/players", {"names": names, "new_players": names})
    first = anna.post(f"/api/events/{key}/rounds").json()["drawn"][0]
    late = anna.post(f"/api/events/{key}/players", {"names": ["Zoë"], "new_players": ["Zoë"]})
    assert late.status_code == 200
    again = anna.post(f"/api/events/{key}/rounds/1/redraw")
    assert again.status_code == 200, again.text
    drawn = again.json()["drawn"]
    assert len(drawn) == 1
    seated = [n for t in drawn[0]["tables"] for n in t["seats"]] + drawn[0]["byes"]
    assert sorted(seated) == sorted([*names, "Zoë"])
    assert drawn[0]["tables"] != first["tables"] or drawn[0]["byes"] != first["byes"]
    # The round reads back as drawn again, and its sheets print.
    assert event_of(anna, key)["drawn"] == drawn
    sheets = anna.client.get(f"/events/{key}/rounds/1/sheets.pdf")
    assert sheets.status_code == 200 and sheets.content.startswith(b"%PDF")
    # A stranger cannot draw it again.
    eve = site.person("Eve")
    assert eve.post(f"/api/events/{key}/rounds/1/redraw").status_code in (403, 404)
