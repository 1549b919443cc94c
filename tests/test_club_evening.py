"""What went wrong when a club evening was run on pips (issue 34), on SQLite and
PostgreSQL: a correction that wiped the other scores, results saved without a look,
typos the bounds let through."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from pips.core.names import name_key
from pips.store.db import Database
from pips.store.models import User
from tests.test_cli import run
from tests.test_events import event_of, new_event
from tests.test_results_server import Person, Site


def one_table(site: Site) -> tuple[Person, str, list[str]]:
    """Anna's evening with one table of four (double-6), its round drawn."""
    anna, key = new_event(site, rounds=1)
    names = ["Bärbel", "Cleo", "Dörte", "Emil"]
    anna.post(f"/api/events/{key}/players", {"names": names, "new_players": names})
    seats = anna.post(f"/api/events/{key}/rounds").json()["drawn"][0]["tables"][0]["seats"]
    return anna, key, list(seats)


def form(person: Person, values: dict[str, str], **extra: str) -> dict[str, str]:
    return {"csrf": person.csrf, **values, **extra}


def fields(seats: list[str], points: list[int], pips: list[int], out: int) -> dict[str, str]:
    found = {f"points{i}": str(p) for i, p in enumerate(points)}
    found.update({f"pips{i}": str(q) for i, q in enumerate(pips)})
    found["out"] = str(out)
    return found


def finals(person: Person, key: str) -> dict[str, int]:
    table = event_of(person, key)["drawn"][0]["tables"][0]
    return {line["name"]: line["final"] for line in table["result"]["players"]}


def test_a_correction_of_one_score_keeps_the_others(site: Site) -> None:
    anna, key, seats = one_table(site)
    path = f"/events/{key}/rounds/1/tables/1"
    first = fields(seats, [20, 15, 10, 5], [0, 7, 9, 12], out=0)
    # The first press checks; nothing is saved until the review was seen.
    checked = anna.client.post(path, data=form(anna, first, action="check"))
    assert checked.status_code == 200 and 'id="review"' in checked.text
    assert event_of(anna, key)["drawn"][0]["tables"][0]["result"] is None
    reviewed = re.search(r'name="reviewed" value="([0-9a-f]+)"', checked.text)
    assert reviewed is not None
    saved = anna.client.post(
        path, data=form(anna, first, action="save", reviewed=reviewed[1]), follow_redirects=False
    )
    assert saved.status_code == 303
    assert finals(anna, key) == dict(zip(seats, [20, 8, 1, -7], strict=True))

    # The correction form opens with the result as it stands.
    page = anna.client.get(path).text
    for seat, value in enumerate(["20", "15", "10", "5"]):
        assert re.search(rf'name="points{seat}"[^>]*value="{value}"', page)
    # Only Dörte's pips change; the review marks that and her final, nothing else.
    fixed = dict(first, pips2="3", reason="Dörte hatte 3 Augen, nicht 9")
    checked = anna.client.post(path, data=form(anna, fixed, action="check"))
    review = checked.text[checked.text.index('id="review"') :]
    changed = re.findall(r'class="changed"><del>([^<]*)</del> → <ins>([^<]*)</ins>', review)
    assert changed == [("9", "3"), ("1", "7")]
    reviewed = re.search(r'name="reviewed" value="([0-9a-f]+)"', checked.text)
    assert reviewed is not None
    # Saving something other than what was reviewed shows the review again instead.
    other = dict(fixed, points1="16")
    again = anna.client.post(path, data=form(anna, other, action="save", reviewed=reviewed[1]))
    assert again.status_code == 200 and 'id="review"' in again.text
    assert finals(anna, key)[seats[2]] == 1
    anna.client.post(path, data=form(anna, fixed, action="save", reviewed=reviewed[1]))
    assert finals(anna, key) == dict(zip(seats, [20, 8, 7, -7], strict=True))
    history = anna.client.get(f"/api/events/{key}/rounds/1/tables/1").json()
    assert [line["final"] for line in history[0]["players"]] == [20, 8, 1, -7]
    assert [line["final"] for line in history[1]["players"]] == [20, 8, 7, -7]


def test_an_emptied_field_is_refused_not_saved_as_zero(site: Site) -> None:
    anna, key, seats = one_table(site)
    path = f"/events/{key}/rounds/1/tables/1"
    values = fields(seats, [20, 15, 10, 5], [0, 7, 9, 12], out=0)
    anna.post(
        f"/api/events/{key}/rounds/1/tables/1",
        {
            "players": [
                {"name": n, "points": int(values[f"points{i}"]), "pips": int(values[f"pips{i}"])}
                for i, n in enumerate(seats)
            ]
        },
    )
    before = finals(anna, key)
    emptied = dict(values, points1="", pips3="", reason="Tippfehler")
    for action in ("check", "save"):
        refused = anna.client.post(path, data=form(anna, emptied, action=action))
        assert refused.status_code == 422
        assert "write 0 if it is 0" in refused.text or "0 eintragen" in refused.text
    assert finals(anna, key) == before
    # The pips of the player who went out may stay blank: they are 0 (F-19).
    blank_out = dict(values, pips0="", reason="x")
    assert 'id="review"' in anna.client.post(path, data=form(anna, blank_out)).text


def test_the_review_warns_of_an_unusual_score(site: Site) -> None:
    anna, key, seats = one_table(site)
    lines: list[dict[str, Any]] = [
        {"name": seats[0], "points": 300, "pips": 0, "out": True},
        {"name": seats[1], "points": 15, "pips": 7},
        {"name": seats[2], "points": 10, "pips": 0},
        {"name": seats[3], "points": 5, "pips": 12},
    ]
    review = anna.post(f"/api/events/{key}/rounds/1/tables/1/check", {"players": lines})
    assert review.status_code == 200, review.text
    warnings = review.json()["warnings"]
    assert any(seats[0] in w and "300" in w for w in warnings), warnings
    assert any(seats[2] in w and "0 pips" in w for w in warnings), warnings
    assert event_of(anna, key)["drawn"][0]["tables"][0]["result"] is None
    usual = [dict(line, points=line["points"] % 100) for line in lines]
    usual[2]["pips"] = 4
    assert (
        anna.post(f"/api/events/{key}/rounds/1/tables/1/check", {"players": usual}).json()[
            "warnings"
        ]
        == []
    )


def test_a_rounds_csv_is_reviewed_before_saving_and_a_typo_gets_a_suggestion(
    site: Site,
) -> None:
    anna, key = new_event(site, rounds=1)
    names = ["Jürgen Müller", "Bärbel", "Cleo", "Dörte", "Emil", "Frieda", "Götz", "Hanna"]
    anna.post(f"/api/events/{key}/players", {"names": names, "new_players": names})
    tables = anna.post(f"/api/events/{key}/rounds").json()["drawn"][0]["tables"]
    rows = ["Spiel;Datum;Spielart;Satz;Sitz;Spieler;Punkte;Augen;Raus"]
    for table in tables:
        for seat, name in enumerate(table["seats"]):
            rows.append(
                f"{table['number']};10.10.2026;FIDO;6;{seat + 1};{name};{10 + seat};"
                f"{0 if seat == 0 else 5 + seat};{'x' if seat == 0 else ''}"
            )
    good = "\n".join(rows)
    typo = good.replace("Jürgen Müller", "Jürgen Müler")
    path = f"/api/events/{key}/rounds/1/csv"
    headers = {"X-CSRF-Token": anna.csrf, "Content-Type": "text/csv"}
    refused = anna.client.post(path, content=typo.encode("cp1252"), headers=headers)
    assert refused.status_code == 422
    assert "did you mean Jürgen Müller?" in refused.json()["message"]
    # The page shows the file's tables first and saves only when asked to.
    page = f"/events/{key}/rounds/1/csv"
    shown = anna.client.post(
        page,
        data={"csrf": anna.csrf},
        files={"file": ("runde1.csv", good.encode("cp1252"), "text/csv")},
    )
    assert shown.status_code == 200 and 'id="csv-review"' in shown.text
    assert all(t["result"] is None for t in event_of(anna, key)["drawn"][0]["tables"])
    reviewed = re.search(r'name="reviewed" value="([0-9a-f]+)"', shown.text)
    text = re.search(r'<textarea name="csv_text" hidden>(.*?)</textarea>', shown.text, re.S)
    assert reviewed is not None and text is not None
    saved = anna.client.post(
        page,
        data={
            "csrf": anna.csrf,
            "csv_text": html.unescape(text[1]),
            "reviewed": reviewed[1],
            "action": "save",
        },
        follow_redirects=False,
    )
    assert saved.status_code == 303
    assert all(t["result"] for t in event_of(anna, key)["drawn"][0]["tables"])


def test_withdrawing_and_closing_are_asked_twice(site: Site) -> None:
    anna, key, seats = one_table(site)
    shown = event_of(anna, key)
    player = next(p for p in shown["players"] if p["name"] == "Emil")
    asked = anna.client.post(
        f"/events/{key}/withdraw", data={"csrf": anna.csrf, "player": str(player["id"])}
    )
    assert asked.status_code == 200 and 'id="confirm"' in asked.text
    assert "cannot be taken back" in asked.text
    assert all(p["withdrawn_from"] is None for p in event_of(anna, key)["players"])
    done = anna.client.post(
        f"/events/{key}/withdraw",
        data={"csrf": anna.csrf, "player": str(player["id"]), "confirm": "yes"},
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert next(p for p in event_of(anna, key)["players"] if p["name"] == "Emil")["withdrawn_from"]
    # The button says what it does (not "withdrawn" beside every player).
    page = anna.client.get(f"/events/{key}", headers={"Accept-Language": "de"}).text
    assert "zurückgezogen</button>" not in page
    lines = [
        {"name": n, "points": 10 + i, "pips": 0 if i == 0 else 3 + i, "out": i == 0}
        for i, n in enumerate(seats)
    ]
    anna.post(f"/api/events/{key}/rounds/1/tables/1", {"players": lines})
    asked = anna.client.post(f"/events/{key}/close", data={"csrf": anna.csrf})
    assert 'id="confirm"' in asked.text and "cannot be undone" in asked.text
    assert event_of(anna, key)["status"] == "open"
    anna.client.post(f"/events/{key}/close", data={"csrf": anna.csrf, "confirm": "yes"})
    assert event_of(anna, key)["status"] == "closed"


@pytest.mark.slow
def test_a_championship_and_a_paper_sheet_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pips event (days, Swiss, check-in, clubs, seeds, the final table) and pips result
    (a paper sheet's lines, checked and warned about as on the web form)."""
    url = f"sqlite:///{tmp_path / 'pips.db'}"
    db = Database(url)
    db.upgrade()
    with db.session() as session, session.begin():
        session.add(User(name="Anna", name_key=name_key("Anna"), password_hash="!", admin=True))
    db.dispose()
    base = ["--database", url, "--by", "Anna"]
    code, said, err = run(
        ["event", "create", "Kieler Pokal", "--game", "fido", "--date", "03.10.2026",
         "--days", "03.10.2026,04.10.2026", "--rounds", "3", "--set", "6",
         "--pairing", "swiss", "--tiebreak", "buchholz", "--tiebreak", "wins", "--check-in",
         *base],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    key = said.strip().rsplit(" ", 1)[-1]
    names = ["Jürgen;SC Kiel", "Bärbel;SC Kiel", "Cleo;DC Lübeck", "Dörte;DC Lübeck",
             "Emil;DC Lübeck", "Frieda;SC Kiel", "Götz;TSV Büdelsdorf",
             "Hanna;TSV Büdelsdorf"]  # fmt: skip
    plain = [n.split(";")[0] for n in names]
    code, said, err = run(
        ["event", "players", key, ",".join(names), "--new", ",".join(plain), *base], capsys
    )
    assert code == 0 and "8 players" in said, err
    code, said, err = run(["event", "check-in", key, ",".join(plain[:7]), *base], capsys)
    assert code == 0 and "7 of 8 checked in" in said, err
    code, said, err = run(["event", "seed", key, "Götz,Cleo", *base], capsys)
    assert code == 0 and said.split() == ["1", "Götz", "2", "Cleo"], said
    for number in (1, 2, 3):
        code, said, err = run(["event", "round", key, *base], capsys)
        assert code == 0, err
        assert "Hanna" not in said.split("Standings")[0]  # not checked in: not drawn
        tables = [
            line.split(": ", 1)[1].split(" — ")[0].split(", ")
            for line in said.split(f"Round {number}")[1].splitlines()
            if line.startswith("Table ")
        ]
        for table_number, seats in enumerate(tables, 1):
            lines = ",".join(
                f"{name}:{10 + i}:{0 if i == 0 else 3 + i}{':out' if i == 0 else ''}"
                for i, name in enumerate(seats)
            )
            code, _, err = run(
                ["event", "result", key, str(number), str(table_number), lines, "--yes", *base],
                capsys,
            )
            assert code == 0, err
    code, said, err = run(["event", "round", key, "--final", "3", *base], capsys)
    assert code == 0 and "Final table" in said, err
    assert "Clubs" in said and "SC Kiel" in said
    # A paper sheet's result: shown, warned about, saved only when asked.
    sheet = ["result", "fido", "--date", "03.10.2026", "--set", "12", "--line",
             "Anna:55:0:out", "--line", "Jürgen:40:12", "--line", "Cleo:550:9",
             "--new", "Jürgen", "--new", "Cleo", *base]  # fmt: skip
    code, said, err = run(sheet, capsys)
    assert code == 2 and "--yes" in err and "550" in said
    assert "unusual" in said or "ungewöhnlich" in said
    code, said, err = run([*sheet, "--yes"], capsys)
    assert code == 0 and "Saved as result" in said, err


def test_times_are_shown_in_the_readers_zone_and_form() -> None:
    """Stored in UTC, shown as the clock on the wall: 12:05 UTC on 3 October is 14:05
    in Berlin (summer time), 13:05 on 3 December (winter time); German dates."""
    from datetime import datetime

    from pips import i18n
    from pips.server.web import _day

    with i18n.speaking("de"):
        assert _day(datetime(2026, 10, 3, 12, 5)) == "03.10.2026 14:05"
        assert _day("2026-12-03T12:05:00") == "03.12.2026 13:05"
        assert _day("2026-12-03") == "03.12.2026"
