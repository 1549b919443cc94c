"""The pages' forms are typed where they enter (issue 48, ``pips.server.forms``): a field
nobody declared, a text too long or a value of the wrong kind is refused by its name,
in the reader's language, with the page shown again holding what was typed, and
nothing changes; no 500, no traceback. Before, these five forms were read field by
field: an unknown field was dropped silently, a long text cut, a bad answer to "which
player is meant?" ignored."""

from __future__ import annotations

import codecs
import html
import re
from typing import Any

import pytest

from pips.store.models import Event
from tests.test_club_evening import fields, form, one_table
from tests.test_events import event_of, new_event
from tests.test_results_server import Person, Site, csv_text, upload

GERMAN = {"Accept-Language": "de"}


def events_made(site: Site) -> int:
    from sqlalchemy import func, select

    with site.db.session() as session:
        return int(session.scalar(select(func.count()).select_from(Event)) or 0)


def refused_page(answer: Any, *words: str) -> str:
    """The page of a refused form: 422, the error said, no traceback."""
    assert answer.status_code == 422, answer.text[:2000]
    text = html.unescape(answer.text)
    assert "Traceback" not in text and "<html" in text.lower()
    for word in words:
        assert word in text, (word, text[:3000])
    return text


# -- a new event ---------------------------------------------------------------------------


def event_fields(person: Person, **extra: Any) -> dict[str, Any]:
    return {
        "csrf": person.csrf,
        "name": "Kieler Herbstturnier",
        "game": "fido",
        "date": "2026-10-17",
        "rounds": "3",
        "place": "Kiel",
        # A browser sends the fields left empty too.
        "set": "",
        "target": "",
        "days": "",
        "group": "",
        **extra,
    }


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({"approved": "1"}, "approved ist hier nicht vorgesehen"),
        ({"name": "K" * 81}, "Name ist länger als 80 Zeichen"),
        ({"rounds": "drei"}, "Durchgänge ist keine ganze Zahl"),
        ({"rounds": "5000"}, "Durchgänge darf höchstens 50 sein"),
        ({"pairing": "by-money"}, "pairing"),
        ({"clubs_apart": "never-ever"}, "clubs_apart"),
        ({"tiebreaks": ["wins"] * 6}, "Feinwertung"),
        ({"days": " ".join(["10.10.2026"] * 51)}, "Tage"),
    ],
)
def test_a_new_event_out_of_its_form_is_refused_by_name_and_the_form_shown_again(
    site: Site, extra: dict[str, Any], said: str
) -> None:
    root = site.admin()
    sent = event_fields(root, **extra)
    answer = root.client.post("/events", data=sent, headers=GERMAN)
    page = refused_page(answer, said)
    # What was typed is there again (the place), and no event was made.
    assert 'name="place" value="Kiel"' in page
    assert events_made(site) == 0


def test_a_new_event_by_its_form_is_made_as_before(site: Site) -> None:
    root = site.admin()
    sent = event_fields(root, set="9", online="on", tiebreaks=["buchholz", "wins"])
    made = root.client.post("/events", data=sent, follow_redirects=False)
    assert made.status_code == 303, made.text[:2000]
    key = made.headers["location"].rsplit("/", 1)[-1]
    shown = event_of(root, key)
    assert shown["options"] == {"set": 9} and shown["online"] is True
    assert shown["tiebreaks"][:2] == ["buchholz", "wins"]


def test_the_event_form_keeps_club_mates_apart_as_the_organiser_chose(site: Site) -> None:
    """Issue 50, item 7: how strongly the draws keep clubs apart is the organiser's
    setting on the page too, with exactly the strengths the draws know."""
    from typing import get_args

    from pips.results.draws import CLUBS_APART
    from pips.server.routes.events.common import ClubsApart

    assert set(get_args(ClubsApart)) == set(CLUBS_APART)
    root = site.admin()
    page = root.client.get("/events").text
    assert page.count('name="clubs_apart"') == 1
    for value in CLUBS_APART:
        assert f'value="{value}"' in page
    made = root.client.post(
        "/events", data=event_fields(root, clubs_apart="strong"), follow_redirects=False
    )
    assert made.status_code == 303, made.text[:2000]
    assert event_of(root, made.headers["location"].rsplit("/", 1)[-1])["clubs_apart"] == "strong"


# -- the event page's buttons ------------------------------------------------------------


def test_the_event_page_buttons_refuse_fields_nobody_declared_and_bad_values(
    site: Site,
) -> None:
    anna, key = new_event(site, rounds=1)
    anna.post(f"/api/events/{key}/players", {"names": ["Ben", "Cleo", "Dörte"]})
    before = event_of(anna, key)
    player = before["players"][0]["id"]
    path = f"/events/{key}"
    for action, sent, said in [
        ("withdraw", {"player": "Ben"}, "SpielerIn ist keine ganze Zahl"),
        ("withdraw", {"player": str(2**40)}, "SpielerIn darf höchstens"),
        ("withdraw", {"player": str(player), "confirm": "yes", "force": "1"}, "force"),
        ("draw", {"method": "money"}, "method"),
        ("draw", {"set": "99"}, "Satz darf höchstens 18 sein"),
        ("players", {"names": "Emil", "pick:Emil": "../../etc"}, "Emil ist weder"),
        ("players", {"names": "N" * 50_001}, "SpielerInnen ist länger als 50000 Zeichen"),
    ]:
        answer = anna.client.post(
            f"{path}/{action}", data={"csrf": anna.csrf, **sent}, headers=GERMAN
        )
        refused_page(answer, said)
    assert event_of(anna, key) == before
    # A button's own field missing is said too, and a good press works as before.
    missing = anna.client.post(f"{path}/withdraw", data={"csrf": anna.csrf})
    refused_page(missing, "player is missing")
    done = anna.client.post(
        f"{path}/withdraw",
        data={"csrf": anna.csrf, "player": str(player), "confirm": "yes"},
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert event_of(anna, key)["players"][0]["withdrawn_from"] == 1


def test_the_players_typed_into_the_event_page_come_back_when_refused(site: Site) -> None:
    anna, key = new_event(site, rounds=1)
    answer = anna.client.post(
        f"/events/{key}/players",
        data={"csrf": anna.csrf, "names": "Ben\nCleo", "pick:Ben": "maybe"},
    )
    page = refused_page(answer, "Ben is not a known player's number or new")
    assert "Ben\nCleo</textarea>" in page
    assert event_of(anna, key)["players"] == []


# -- a table's result ----------------------------------------------------------------------


def test_a_table_form_out_of_its_types_is_refused_with_its_values_kept(site: Site) -> None:
    anna, key, seats = one_table(site)
    path = f"/events/{key}/rounds/1/tables/1"
    good = fields(seats, [20, 15, 10, 5], [0, 7, 9, 12], out=0)
    for sent, said in [
        ({**good, "points123": "3"}, "points123 ist hier nicht vorgesehen"),
        ({**good, "points1": "1" * 13}, "Punkte von Sitz 2 ist länger als 12 Zeichen"),
        ({**good, "out": "seat"}, "out ist keine ganze Zahl"),
        ({**good, "action": "delete"}, "action"),
        ({**good, "reason": "R" * 501}, "Warum wird es berichtigt? ist länger als 500"),
    ]:
        answer = anna.client.post(
            path, data=form(anna, {"action": "check", **sent}), headers=GERMAN
        )
        page = refused_page(answer, said)
        # What was typed into the other seats is still there.
        assert re.search(r'name="pips3"[^>]*value="12"', page), page[-3000:]
    assert event_of(anna, key)["drawn"][0]["tables"][0]["result"] is None
    checked = anna.client.post(path, data=form(anna, good, action="check"))
    assert checked.status_code == 200 and 'id="review"' in checked.text


# -- a result by the entry form -----------------------------------------------------------


def result_fields(person: Person, **extra: str) -> dict[str, str]:
    return {
        "csrf": person.csrf,
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
        "action": "save",
        **extra,
    }


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({"status": "confirmed"}, "status ist hier nicht vorgesehen"),
        ({"source": "server"}, "source ist hier nicht vorgesehen"),
        ({"game": "chess"}, "Spiel ist keiner der erlaubten Werte"),
        ({"name1": "B" * 200}, "SpielerIn von Sitz 2 ist länger als"),
        ({"pick:Anna": "-1"}, "Anna ist weder"),
        ({"name123": "Zoe"}, "name123 ist hier nicht vorgesehen"),
        ({"place": "P" * 201}, "Ort ist länger als 200 Zeichen"),
    ],
)
def test_a_result_form_out_of_its_types_is_refused_by_name_and_shown_again(
    site: Site, extra: dict[str, str], said: str
) -> None:
    anna = site.person("Anna")
    answer = anna.client.post("/results/new", data=result_fields(anna, **extra), headers=GERMAN)
    page = refused_page(answer, said)
    assert 'value="Cleo"' in page  # the names typed are kept
    assert site.count() == 0


# -- an upload -----------------------------------------------------------------------------

GAME = [
    [1, "2026-10-03", "Kiel", "fido", 6, 3, 1, "Anna", 14, 0, "yes", "", ""],
    [1, "2026-10-03", "Kiel", "fido", 6, 3, 2, "Bärbel", 17, 13, "", "", ""],
    [1, "2026-10-03", "Kiel", "fido", 6, 3, 3, "Cleo", 9, 1, "", "", ""],
]

GERMAN_EXCEL = (
    "Spiel;Datum;Ort;Spielart;Satz;Teiler;Sitz;Spieler;Punkte;Augen\r\n"
    "1;03.10.2026;Kiel;fido;6;3;1;Anna;14;0\r\n"
    "1;03.10.2026;Kiel;fido;6;3;2;Bärbel;17;13\r\n"
    "1;03.10.2026;Kiel;fido;6;3;3;Cleo;9;1\r\n"
)
"""A German spreadsheet's "CSV (Trennzeichen-getrennt)": semicolons, German column names
and dates, Windows line ends."""


def sent_file(person: Person, body: bytes, **extra: str) -> Any:
    return person.client.post(
        "/results/upload",
        data={"csrf": person.csrf, **extra},
        files={"file": ("verein.csv", body, "text/csv")},
        headers=GERMAN,
    )


@pytest.mark.parametrize(
    "body",
    [
        GERMAN_EXCEL.encode("cp1252"),
        codecs.BOM_UTF8 + GERMAN_EXCEL.encode("utf-8"),
        GERMAN_EXCEL.replace("\r\n", "\r").encode("cp1252"),  # an old Mac's line ends
    ],
    ids=["windows-1252", "utf-8-bom", "cr-only"],
)
def test_a_german_spreadsheets_csv_still_uploads(site: Site, body: bytes) -> None:
    anna = site.person("Anna")
    shown = sent_file(anna, body)
    assert shown.status_code == 200, shown.text[-3000:]
    assert 'id="review"' in shown.text and "Bärbel" in html.unescape(shown.text)
    assert site.count() == 0


@pytest.mark.parametrize(
    ("body", "said"),
    [
        # A cell of 200,000 characters (the csv module's own limit is 128 KiB).
        (csv_text([[*GAME[0][:7], "A" * 200_000, *GAME[0][8:]], *GAME[1:]]), "Zeile 2"),
        # Neither UTF-8 nor Windows-1252 (bytes 0x81 and 0x8d mean nothing there).
        (b"\x81\x8d\x81\x8d;\xff\xfe\n" * 100, "weder UTF-8- noch Windows-1252"),
    ],
    ids=["huge-cell", "wrong-encoding"],
)
def test_a_hostile_upload_is_answered_in_words_and_saves_nothing(
    site: Site, body: bytes, said: str
) -> None:
    anna = site.person("Anna")
    answer = sent_file(anna, body)
    refused_page(answer, said)
    assert site.count() == 0


def test_a_file_saved_as_utf_16_is_answered_in_words(site: Site) -> None:
    """Refused before any route (``pips.server.guard``: no NUL in any body), in words."""
    anna = site.person("Anna")
    answer = sent_file(anna, GERMAN_EXCEL.encode("utf-16"))
    assert answer.status_code == 422 and "UTF-16" in answer.json()["message"]
    assert "Traceback" not in answer.text and site.count() == 0


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({"approve": "yes"}, "approve ist hier nicht vorgesehen"),
        ({"pick:Anna": "all"}, "Anna ist weder"),
        ({"group": "G" * 61}, "Gruppe ist länger als 60 Zeichen"),
        ({"action": "force"}, "action"),
    ],
)
def test_an_upload_form_out_of_its_types_is_refused_by_name(
    site: Site, extra: dict[str, str], said: str
) -> None:
    anna = site.person("Anna")
    answer = sent_file(anna, csv_text(GAME), new_players="Bärbel", **extra)
    page = refused_page(answer, said)
    assert 'name="new_players" value="Bärbel"' in page
    assert site.count() == 0


def test_an_upload_still_saves_what_was_reviewed(site: Site) -> None:
    anna = site.person("Anna")
    saved = upload(anna, GAME)
    assert saved.status_code == 200 and "Entered 1 result" in saved.text
    assert site.count() == 1


# -- the models themselves -----------------------------------------------------------------


def test_a_forms_answers_and_seats_are_gathered_typed() -> None:
    from pips.server.routes.events.forms import TableForm
    from pips.server.routes.results.forms import ResultForm

    sent = ResultForm.model_validate(
        {
            "name0": "Anna",
            "points0": "14",
            "name1": "Ben",
            # Answered before (hidden), then again by the radio button: the last holds.
            "pick:Anna": ["new", "17"],
            "pick:Ben": "new",
        }
    )
    assert sent.name == {0: "Anna", 1: "Ben"} and sent.points == {0: "14"}
    assert sent.choices() == (["Ben"], {"Anna": 17})
    assert sent.flat()["name1"] == "Ben"
    table = TableForm.model_validate({"points0": "3", "pips1": "4", "out": "1"})
    assert table.values(3) == {
        "points": ["3", "", ""],
        "pips": ["", "4", ""],
        "out": "1",
        "reason": "",
    }
    with pytest.raises(ValueError, match="points123"):
        TableForm.model_validate({"points123": "3"})
    with pytest.raises(ValueError, match="picks"):
        ResultForm.model_validate({"pick:Anna": "0"})
