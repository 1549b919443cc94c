"""Every kind of paper pips prints gives back every name exactly (issue "A championship
across clubs and countries", item 3): the pages are set in an embedded Unicode font, so
Polish, Czech, Turkish, Danish, Greek and Cyrillic names print as written, not as black
boxes. Read back with pdfplumber, the text of the page itself."""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import date

import pdfplumber
import pytest

from pips.results.draws import RoundDraw, Table
from pips.results.listings import check_in_sheet, standings_sheet
from pips.results.sheet import round_sheets, score_sheet
from pips.results.standings import Standing

NAMES = [
    "Łukasz Dąbrowski",
    "Jiří Dvořák",
    "Şükrü Öztürk",
    "Søren Kierkegård",
    "Ζωή Παπαδοπούλου",
    "Дмитрий Иванов",
    "Jörg Müller",
    "Ğülşen Çelik",
]
"""Names of a European championship: Latin Extended-A, Greek, Cyrillic."""


def text_of(pdf: bytes) -> str:
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return "\n".join(page.extract_text() or "" for page in document.pages)


def fonts_of(pdf: bytes) -> set[str]:
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return {str(char["fontname"]) for page in document.pages for char in page.chars}


def a_score_sheet() -> bytes:
    return score_sheet("fido", 4, 9, names=NAMES[:4], place="Kraków", day=date(2026, 11, 28))


def round_sheets_and_cards() -> bytes:
    drawn = RoundDraw(1, (Table(1, tuple(NAMES[:4])), Table(2, tuple(NAMES[4:]))), ())
    return round_sheets("fido", drawn, 9, place="Wien", day=date(2026, 11, 28), event="EM")


def standings() -> bytes:
    lines = [
        Standing(place, name, 100 - place, 1, 2, 0, 1.5) for place, name in enumerate(NAMES, 1)
    ]
    players = [
        {"name": n, "club": "Klub Łódź", "first_round": 1, "withdrawn_from": None} for n in NAMES
    ]
    shown = {
        "name": "EM",
        "game": "fido",
        "date": "2026-11-28",
        "schedule": None,
        "place": "Wien",
        "rounds": 2,
        "status": "open",
        "scoring": "points",
        "tiebreaks": ["buchholz"],
        "counted": 3,
        "players": players,
        "drawn": [{"method": "lot"}, {"method": "swiss"}],
        "clubs": [
            {"place": 1, "name": "Klub Łódź", "points": 294, "players": 8, "counted": NAMES[:3]}
        ],
        "teams": [],
    }
    return standings_sheet(shown, lines, language="de")


def check_in() -> bytes:
    players = [{"name": name, "club": "Klub Łódź", "checked_in": False} for name in NAMES]
    return check_in_sheet("EM", "Anmeldung", players, language="de")


PRINTED: dict[str, Callable[[], bytes]] = {
    "score sheet": a_score_sheet,
    "round sheets and table cards": round_sheets_and_cards,
    "standings": standings,
    "check-in list": check_in,
}


@pytest.mark.parametrize("kind", PRINTED)
def test_every_name_comes_back_exactly_from_every_kind_of_paper(kind: str) -> None:
    pdf = PRINTED[kind]()
    text = text_of(pdf)
    on_paper = NAMES[:4] if kind == "score sheet" else NAMES
    for name in on_paper:
        # A name may wrap at its space in a narrow cell; its words come back whole.
        for word in name.split():
            assert word in text, (kind, name)
    assert "■" not in text
    # Every character is set in the embedded DejaVu faces (a subset, "ABCDEF+DejaVuSans").
    assert all("DejaVuSans" in font for font in fonts_of(pdf)), fonts_of(pdf)
