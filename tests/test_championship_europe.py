"""A European championship on paper (issue 50: paper that belongs to its table,
standings as organisers know them, pairings that can be checked), on SQLite and
PostgreSQL: 120 FIDO players of twelve clubs from six countries (Polish, Czech,
Turkish, Danish, German and Austrian names) over two days, in German. Seeded by hand
after the world list is found missing, round 1 drawn and drawn again, clubs kept apart
strongly, Swiss rounds, a withdrawal after round 2, a player added for day two, one
who checks in late, one who never comes, and a final table of eight. Every printout
is read back with pdfplumber: the check-in list, a day-one and a day-two round's cards
and sheets, the final table's, a round's pairings, the standings (PDF and CSV, German
and English, players, clubs and teams) and the federation's export."""

from __future__ import annotations

import csv
import io
import random
import re
from collections import Counter
from itertools import combinations
from typing import Any

import pdfplumber
import pytest

from pips.text import sort_key, surname_key
from tests.databases import one_database
from tests.test_championship import enter_round
from tests.test_events import event_of
from tests.test_results_server import Person, Site

COUNTRIES: dict[str, tuple[list[str], list[str], list[str]]] = {
    # country: (clubs, first names, last names: ten a club)
    "Polska": (
        ["KS Łódź", "Domino Kraków"],
        [
            "Łukasz",
            "Zofia",
            "Małgorzata",
            "Grzegorz",
            "Wojciech",
            "Agnieszka",
            "Paweł",
            "Krzysztof",
            "Joanna",
            "Michał",
        ],
        [
            "Dąbrowski",
            "Wójcik",
            "Kowalczyk",
            "Zieliński",
            "Szymański",
            "Woźniak",
            "Kozłowski",
            "Jabłoński",
            "Król",
            "Łukasiewicz",
            "Mazur",
            "Ziółkowski",
            "Żak",
            "Sęk",
            "Ślusarczyk",
            "Nowak",
            "Wróbel",
            "Górski",
            "Lis",
            "Kałuża",
        ],
    ),
    "Česko": (
        ["DK Brno", "Domino Plzeň"],
        [
            "Jiří",
            "Tomáš",
            "Petr",
            "Lucie",
            "Kateřina",
            "Zdeněk",
            "Radka",
            "Ondřej",
            "Veronika",
            "Božena",
        ],
        [
            "Dvořák",
            "Novák",
            "Svoboda",
            "Černý",
            "Procházka",
            "Kučera",
            "Veselý",
            "Horák",
            "Němec",
            "Pokorný",
            "Marek",
            "Pospíšil",
            "Hájek",
            "Jelínek",
            "Růžička",
            "Beneš",
            "Fiala",
            "Sedláček",
            "Doležal",
            "Zeman",
        ],
    ),
    "Türkiye": (
        ["Domino Kulübü İzmir", "Taş Kulübü Ankara"],
        ["Şükrü", "Ayşe", "Çağlar", "Gülşen", "Oğuz", "İsmail", "Özlem", "Ümit", "Şebnem", "Ilgaz"],
        [
            "Öztürk",
            "Yılmaz",
            "Kaya",
            "Demir",
            "Şahin",
            "Çelik",
            "Yıldız",
            "Aydın",
            "Özdemir",
            "Arslan",
            "Doğan",
            "Kılıç",
            "Aslan",
            "Çetin",
            "Kara",
            "Koç",
            "Kurt",
            "Özkan",
            "Şimşek",
            "Polat",
        ],
    ),
    "Danmark": (
        ["Domino Klub Århus", "DK Ødense"],
        [
            "Søren",
            "Mette",
            "Jørgen",
            "Åse",
            "Bjørn",
            "Kirsten",
            "Rasmus",
            "Signe",
            "Mads",
            "Birthe",
        ],
        [
            "Kierkegård",
            "Sørensen",
            "Jørgensen",
            "Møller",
            "Hansen",
            "Østergaard",
            "Mikkelsen",
            "Bækgaard",
            "Nørgaard",
            "Lund",
            "Ærø",
            "Holm",
            "Vestergård",
            "Kjær",
            "Thygesen",
            "Dahl",
            "Brøndum",
            "Krogh",
            "Lærkesen",
            "Nygård",
        ],
    ),
    "Deutschland": (
        ["SC Kiel", "Domino-Club Neumühle"],
        [
            "Jürgen",
            "Bärbel",
            "Anna-Katharina",
            "Götz",
            "Zoë",
            "Hans-Jörg",
            "Lena",
            "Max",
            "Ida",
            "Ömer",
        ],
        [
            "Müller",
            "Schröder",
            "Weiß",
            "Groß",
            "Köhler",
            "Meißner",
            "Günther",
            "Krüger",
            "Böhm",
            "Schäfer",
            "Fuchs",
            "Jäger",
            "Voß",
            "Löw",
            "Hoffmann",
            "Bäcker",
            "Kühn",
            "Förster",
            "Huber",
            "Müller-Lüdenscheidt",
        ],
    ),
    "Österreich": (
        ["Dominofreunde Graz", "Club Ötztal"],
        [
            "Florian",
            "Theresa",
            "Vinzenz",
            "Maria",
            "Leopold",
            "Hannah",
            "Wolfgang",
            "Ursula",
            "Benedikt",
            "Käthe",
        ],
        [
            "Wagner",
            "Pichler",
            "Steiner",
            "Moser",
            "Mayer",
            "Hofer",
            "Leitner",
            "Berger",
            "Eder",
            "Fischer",
            "Schmid",
            "Winkler",
            "Weber",
            "Schwarz",
            "Maier",
            "Reiter",
            "Schmidt",
            "Wimmer",
            "Egger",
            "Strauß",
        ],
    ),
}


def roster() -> list[tuple[str, str, str]]:
    """120 players (name, club, team): ten of each of twelve clubs in six countries,
    each club in two teams of five."""
    players = []
    for clubs, first, last in COUNTRIES.values():
        for c, club in enumerate(clubs):
            for i in range(10):
                players.append((f"{first[i]} {last[10 * c + i]}", club, f"{club} {1 + i // 5}"))
    assert len({n for n, _, _ in players}) == 120
    return players


def pages_of(pdf: bytes, only: set[int] | None = None) -> list[str]:
    """The text of each page (of the pages ``only``, by index, when given: the others
    empty; reading a page back takes a fifth of a second)."""
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return [
            (page.extract_text() or "") if only is None or index in only else ""
            for index, page in enumerate(document.pages)
        ]


def words_in(words: str, text: str) -> bool:
    """Every word of ``words`` on the page (a name may wrap at a space or after a
    hyphen, and a cell beside it may come between its lines)."""
    return all(part in text for part in re.findall(r"[^\s-]+-?", words))


def german(person: Person, path: str, **params: Any) -> bytes:
    response = person.client.get(path, params=params, headers={"Accept-Language": "de"})
    assert response.status_code == 200, response.text[:500]
    return bytes(response.content)


def check_round_papers(
    person: Person,
    key: str,
    one: dict[str, Any],
    clubs: dict[str, str],
    day: str,
    tables: int | None = None,
) -> None:
    """A round's papers: per table a one-page card (event, round, day, table, set,
    every seat with its club) and a one-page sheet (event, round, table, every seat
    with its club, the footer pointing to the event's page); every table's, or the
    first ``tables``'."""
    pdf = german(person, f"/events/{key}/rounds/{one['number']}/sheets.pdf")
    read = None if tables is None else set(range(2 * tables))
    pages = pages_of(pdf, read)
    assert len(pages) == 2 * len(one["tables"])
    for index, table in enumerate(one["tables"][:tables]):
        card, sheet = pages[2 * index], pages[2 * index + 1]
        for page in (card, sheet):
            assert words_in("Europameisterschaft 2026", page)
            assert f"Durchgang {one['number']}" in page
            for name in table["seats"]:
                assert words_in(name, page), (one["number"], table["number"], name)
                assert words_in(clubs[name], page), (one["number"], table["number"], name)
        assert f"Tisch\n{table['number']}\n" in card and day in card
        assert f"Doppel-{table['set']}" in card
        assert f"Tisch {table['number']}" in sheet and day in sheet
        assert f"/events/{key}" in sheet.replace("\n", "")  # results go to the event
        assert "Ergebnisse, Ergebnis eintragen" not in sheet
        assert "pips rules" not in sheet and "SPEC" not in sheet
        # The result form's words: "Punkte im Spiel", "Augen übrig", "ist raus".
        assert "Punkte im Spiel" in sheet and "Augen übrig" in sheet and "Ist raus" in sheet


@pytest.mark.parametrize("site", one_database(), indirect=True)
def test_a_european_championship_on_paper(site: Site) -> None:
    root = site.admin()
    anna = site.person("Anna")
    slug = site.approved_group(anna, "FIDO Europa", root)
    made = anna.post(
        "/api/events",
        {
            "name": "Europameisterschaft 2026",
            "game": "fido",
            "date": "03.10.2026",
            "days": ["03.10.2026", "04.10.2026"],
            "rounds": 7,
            "options": {"set": 9},
            "place": "Kiel, Halle 400",
            "group": slug,
            "pairing": "swiss",
            "tiebreaks": ["buchholz", "wins", "average-place"],
            "check_in": True,
            "clubs_apart": "strong",
        },
    )
    assert made.status_code == 201, made.text
    key = made.json()["key"]
    assert made.json()["clubs_apart"] == "strong"
    players = roster()
    club_of = {n: c for n, c, _ in players}
    names = [n for n, _, _ in players]
    day_two = names.pop()  # added before round 4
    added = anna.post(
        f"/api/events/{key}/players",
        {
            "names": names,
            "new_players": names,
            "clubs": club_of,
            "teams": {n: t for n, _, t in players},
        },
    )
    assert added.status_code == 200, added.text
    by_name = {p["name"]: p for p in added.json()["players"]}
    no_show, late, leaving = names[7], names[33], names[0]
    for name in names:
        if name not in (no_show, late):
            path = f"/api/events/{key}/players/{by_name[name]['id']}/check-in"
            assert anna.post(path, {"present": True}).status_code == 200

    # The check-in list, by last name as ICU's German collation orders them: Łukasiewicz
    # among the L's (not after Z), Żak among the Z's, Öztürk among the O's.
    pages = pages_of(german(anna, f"/events/{key}/check-in.pdf"))
    listed = [n for page in pages for line in page.splitlines() for n in names if n in line]
    assert sorted(listed, key=surname_key) == listed and set(listed) == set(names)
    position = {n.rsplit(" ", 1)[-1]: i for i, n in enumerate(listed)}
    assert position["Lis"] < position["Łukasiewicz"] < position["Mazur"]
    assert position["Nowak"] < position["Öztürk"] < position["Pichler"] < position["Żak"]
    assert sorted(["Zofia", "Łukasz"], key=sort_key) == ["Łukasz", "Zofia"]

    # Seeding by a world list that does not exist says so and seeds nobody.
    by_list = anna.client.post(
        f"/api/events/{key}/seeds",
        json={},
        headers={"X-CSRF-Token": anna.csrf, "Accept-Language": "de"},
    )
    assert by_list.status_code == 409 and "Weltrangliste" in by_list.text
    assert all(p["seed"] is None for p in event_of(anna, key)["players"])
    seeds = [n for n in names if n not in (no_show, late)][::4][:30]
    assert anna.post(f"/api/events/{key}/seeds", {"order": seeds}).status_code == 200

    # Round 1, drawn and drawn again: the clubs and the top seeds apart either way.
    first = anna.post(f"/api/events/{key}/rounds")
    assert first.status_code == 201, first.text
    again = anna.post(f"/api/events/{key}/rounds/1/redraw")
    assert again.status_code == 200, again.text
    one = again.json()["drawn"][0]
    assert one["seed"] != first.json()["drawn"][0]["seed"]
    seated = sorted(n for t in one["tables"] for n in t["seats"])
    assert seated == sorted(set(names) - {no_show, late})
    for table in one["tables"]:
        assert max(Counter(club_of[n] for n in table["seats"]).values()) == 1, table
        assert len(set(seeds[: len(one["tables"])]) & set(table["seats"])) <= 1
        assert all(s["points"] is None and s["rank"] is None for s in table["before"])
    assert anna.post(f"/api/events/{key}/rounds/1/tables/3/set", {"set": 12}).status_code == 200
    rng = random.Random(50)
    enter_round(site, anna, key, 1, rng)
    # Day one's papers: the first four tables' read back (table 3 on double-12), all
    # of day two's below.
    check_round_papers(anna, key, event_of(anna, key)["drawn"][0], club_of, "03.10.2026", 4)

    club_pairs = []
    for number in range(2, 8):
        if number == 3:
            leaving_id = by_name[leaving]["id"]
            assert anna.post(f"/api/events/{key}/players/{leaving_id}/withdraw").status_code == 200
        if number == 4:
            extra = anna.post(
                f"/api/events/{key}/players",
                {
                    "names": [day_two],
                    "new_players": [day_two],
                    "clubs": {day_two: club_of[day_two]},
                },
            ).json()
            day_two_id = next(p["id"] for p in extra["players"] if p["name"] == day_two)
            anna.post(f"/api/events/{key}/players/{day_two_id}/check-in", {"present": True})
        if number == 5:
            # Checked in after four rounds: a late arrival, from round 5 on.
            checked = anna.post(
                f"/api/events/{key}/players/{by_name[late]['id']}/check-in", {"present": True}
            )
            assert (
                next(p for p in checked.json()["players"] if p["name"] == late)["first_round"] == 5
            )
        drawn = anna.post(f"/api/events/{key}/rounds", {"set": 12} if number == 4 else {})
        assert drawn.status_code == 201, drawn.text
        shown = drawn.json()
        this = shown["drawn"][-1]
        assert this["method"] == "swiss" and this["clubs_apart"] == "strong"
        # Each seat as the draw saw it: the standings before the round, whom at the
        # table they had met, who is of their club.
        before = {s["name"]: s for s in event_of(anna, key)["standings"]}
        met: Counter[frozenset[str]] = Counter()
        for done in shown["drawn"][:-1]:
            for table in done["tables"]:
                met.update(frozenset(p) for p in combinations(table["seats"], 2))
        pairs = 0
        for table in this["tables"]:
            for seat in table["before"]:
                name = seat["name"]
                others = [n for n in table["seats"] if n != name]
                assert seat["repeats"] == [o for o in others if met[frozenset((name, o))]]
                assert seat["club_mates"] == [o for o in others if club_of[o] == club_of[name]]
                pairs += len(seat["club_mates"])
                if name not in (day_two, late):
                    assert seat["points"] == before[name]["points"], (number, name)
        club_pairs.append(pairs // 2)
        enter_round(site, anna, key, number, rng)
    # Clubs kept apart strongly: a club-mate pair a round or so (normally some ten).
    assert sum(club_pairs) <= 2 * len(club_pairs), club_pairs

    shown = event_of(anna, key)
    check_round_papers(anna, key, shown["drawn"][4], club_of, "04.10.2026")
    # Round 5's pairings to check, in German: points before the round, the method.
    pairings = "\n".join(pages_of(german(anna, f"/events/{key}/rounds/5/pairings.pdf")))
    assert "Schweizer System" in pairings and "stark getrennt" in pairings
    assert "Punkte vorher" in pairings and "Platz vorher" in pairings
    for table in shown["drawn"][4]["tables"]:
        for seat in table["before"]:
            assert words_in(seat["name"], pairings)

    # The final table of eight: its card on one page, its sheet's end block whole.
    final = anna.post(f"/api/events/{key}/rounds", {"final": 8})
    assert final.status_code == 201, final.text
    final_round = final.json()["drawn"][-1]
    finalists = final_round["tables"][0]["seats"]
    assert len(finalists) == 8 and final_round["number"] == 8
    pages = pages_of(german(anna, f"/events/{key}/rounds/8/sheets.pdf"))
    assert len(pages) == 3  # the card, and double-12's sheet for eight on two pages
    assert "Finaltisch" in pages[0] and all(words_in(n, pages[0]) for n in finalists)
    assert all(words_in(club_of[n], pages[0]) for n in finalists)
    end = pages[2]
    assert "Endstand" in end and "Unterschriften" in end and "Platz" in end
    assert all(words_in(n, end) for n in finalists)
    assert "Finaltisch" in pages[1] and "Tisch 1" in pages[1]
    enter_round(site, anna, key, 8, rng)

    shown = event_of(anna, key)
    standings = shown["standings"]
    assert {s["name"] for s in standings[:8]} == set(finalists)
    places = [s["final_place"] for s in standings[:8]]
    assert places == sorted(places) and places[0] == 1
    assert standings[-1]["name"] == no_show and standings[-1]["games"] == 0
    assert all(s["games"] > 0 for s in standings[:-1])

    # The standings in German, on paper: every player with their club, the chosen
    # tie-breaks in order, the marks, the final table first and explained, both days,
    # "after round 7 of 7" (the final is no round), the club and team standings.
    text = "\n".join(pages_of(german(anna, f"/events/{key}/standings.pdf")))
    assert "nach Durchgang 7 von 7 · Finaltisch" in text
    assert "03.10.2026 und 04.10.2026" in text
    heads = "Platz SpielerIn Verein Punkte Buchholz Siege Ø-Platz Partien Anmerkungen"
    assert heads in text
    assert "Finaltisch: Platz 1" in text and "Der Finaltisch: seine 8 SpielerInnen" in text
    assert "später dazu, ab Durchgang 5" in text and "später dazu, ab Durchgang 4" in text
    assert "zurückgezogen nach Durchgang 2" in text
    assert "Vereinswertung" in text and "Mannschaftswertung" in text
    for name in [*names, day_two]:
        assert words_in(name, text), name
    for club in set(club_of.values()):
        assert words_in(club, text)

    # The same on a page, in the reader's language.
    page = anna.client.get(f"/events/{key}/standings", headers={"Accept-Language": "de"})
    assert page.status_code == 200 and "nach Durchgang 7 von 7" in page.text
    assert "<th>Buchholz</th>" in page.text and 'id="clubs-standings"' in page.text
    assert "Finaltisch: Platz 1" in page.text and "Mannschaftswertung" in page.text

    # The same as CSV, in German and in English, and the clubs' and teams' standings.
    rows = list(
        csv.reader(
            io.StringIO(german(anna, f"/events/{key}/standings.csv").decode().lstrip("\ufeff")),
            delimiter=";",
        )
    )
    assert rows[0] == heads.split(" ")
    assert [r[1] for r in rows[1:]] == [s["name"] for s in standings]
    assert all(r[2] == club_of[r[1]] for r in rows[1:])
    assert rows[1][8].startswith("Finaltisch: Platz 1")
    assert any("," in r[6] for r in rows[1:])  # the German decimal comma
    english = anna.client.get(f"/events/{key}/standings.csv", headers={"Accept-Language": "en"})
    assert english.text.splitlines()[0] == (
        "Rank,Player,Club,Points,Buchholz,Wins,avg. place,Games,Notes"
    )
    clubs = german(anna, f"/events/{key}/standings.csv", of="clubs").decode().lstrip("\ufeff")
    club_rows = list(csv.reader(io.StringIO(clubs), delimiter=";"))
    assert club_rows[0][:3] == ["Platz", "Verein", "Punkte"] and len(club_rows) == 13
    teams = german(anna, f"/events/{key}/standings.csv", of="teams").decode()
    assert "Domino Kulübü İzmir 1" in teams and len(teams.strip().splitlines()) == 25

    # Closed, its games are results; the federation's export follows the language.
    assert anna.post(f"/api/events/{key}/close").status_code == 200
    export = german(anna, "/api/results/export.csv", month="2026-10").decode()
    assert export.startswith("\ufeffSpiel-Nr.;Datum;Ort;Spielart;Satz;Divisor;Sitz;SpielerIn")
    assert "04.10.2026" in export and "2026-10-04" not in export
    text = "\n".join(pages_of(german(anna, f"/events/{key}/standings.pdf")))
    assert "Endstand" in text
