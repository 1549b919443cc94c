"""The printed score sheets, measured from the PDF (pdfplumber): at every game and
player count, with names of 80 characters, every word lies inside its cell (none runs
over a grid line) and no word of a name is broken, every player has a signature line,
the FIDO sheet has a row for every scoring play of 99 games in 100 and fits the pages a
club prints (issue 34), and a round's table cards are read across the room."""

from __future__ import annotations

import io
from typing import Any

import pdfplumber
import pytest

from pips.games.fido_count import DIVISORS
from pips.games.registry import all_games, find_game
from pips.results.draws import RoundDraw, Table
from pips.results.sheet import SCORING_ROWS, SheetError, round_sheets, score_sheet


def long_name(seat: int) -> str:
    """80 characters, with a word of its own to find it by (Sitz0, Sitz1 ...)."""
    name = f"Anna-Katharina Sitz{seat} Müller-Lüdenscheidt von Hohenzollern-Sigmaringen-Ost"
    return name[:80].ljust(80, "x")


NAME_WORDS = ("Anna-", "Katharina", "Müller-", "Lüdenscheidt", "Hohenzollern-", "Sigmaringen-")
"""The parts of :func:`long_name` a line may end or begin with: nothing else."""


def most_pages(game: str, players: int, top: int | None) -> int:
    """The pages a sheet may take (issue 34): a FIDO sheet of double-9 or double-12
    for three to six players one A4 page, double-15 and double-18 two up to six
    players and three for nine; every other sheet one page."""
    if game == "fido" and (top or 12) >= 15:
        return 2 if players <= 6 else 3
    if game == "fido" and players > 6:
        return 2
    return 1


def cases() -> list[tuple[str, int, int | None]]:
    out: list[tuple[str, int, int | None]] = []
    for spec in all_games():
        for players in spec.player_counts:
            sets = [top for top in DIVISORS] if spec.name == "fido" else [None]
            out += [(spec.name, players, top) for top in sets]
    return out


def words_cross_no_line(page: Any) -> list[str]:
    """Words a vertical rule of the page runs through (text over a cell's edge)."""
    verticals = [
        (edge["x0"], edge["top"], edge["bottom"])
        for edge in page.edges
        if abs(edge["x0"] - edge["x1"]) < 0.2 and edge["bottom"] - edge["top"] > 2
    ]
    crossed = []
    for word in page.extract_words():
        if word["x0"] < 0 or word["x1"] > page.width or word["bottom"] > page.height:
            crossed.append(f"{word['text']} (off the page)")
        for x, top, bottom in verticals:
            if (
                word["x0"] + 0.5 < x < word["x1"] - 0.5
                and top < word["bottom"]
                and bottom > word["top"]
            ):
                crossed.append(word["text"])
    return crossed


@pytest.mark.parametrize(("game", "players", "top"), cases())
def test_every_word_lies_inside_its_cell_with_long_names(
    game: str, players: int, top: int | None
) -> None:
    names = [long_name(seat) for seat in range(players)]
    assert all(len(n) == 80 for n in names)
    try:
        pdf = score_sheet(game, players, top, names=names, place="Gaststätte Zur Linde")
    except SheetError:
        # Not every set is played by every number of players (F-02, DB-02).
        assert top is not None or find_game(game).name != "fido"
        return
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        text = "\n".join(page.extract_text() or "" for page in document.pages)
        crossed = [w for page in document.pages for w in words_cross_no_line(page)]
        pages = len(document.pages)
    assert crossed == []
    assert pages <= most_pages(game, players, top), pages
    # Every name is printed whole (wrapped at most, at spaces and hyphens) in its column
    # and at its signature.
    words = text.split()
    for seat in range(players):
        assert words.count(f"Sitz{seat}") >= 2, (seat, text[:400])
    for word in words:
        if any(part in word for part in ("Kathar", "Lüdensch", "Hohenzol", "Sigmar")):
            assert any(word.endswith(p) or p in word for p in NAME_WORDS), word
    assert "Signatures" in text and "Group:" in text
    if game == "fido":
        assert "Went out" in text and "Pips left in hand" in text
        assert SCORING_ROWS and str(SCORING_ROWS[(top or 12, players)]) in words
    # Rule ids only in the small footnote at the end, not in the words above it.
    body, _, footnote = text.rpartition("Enter the result")
    assert "(F-1" not in body and "(PT-1" not in body and "floor(" not in body
    assert "Rules:" in footnote


def test_a_target_where_the_game_has_one() -> None:
    pdf = score_sheet("partnership", 4, target=50)
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        text = document.pages[0].extract_text() or ""
    assert "Match to: 50" in text and "the first pair to 50 wins" in text
    with pytest.raises(SheetError, match="one hand, with no target"):
        score_sheet("fido", 4, target=50)
    with pytest.raises(SheetError, match="at most 80"):
        score_sheet("family", 3, names=["x" * 81])


def test_the_measure_sees_a_name_printed_over_the_next_column() -> None:
    """The check above can fail: a name as a plain string in a narrow column runs over
    the grid line, and is found."""
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import SimpleDocTemplate

    from pips.results.paper import ruled_grid

    out = io.BytesIO()
    grid = ruled_grid([["Play", long_name(0), long_name(1)], ["1", "", ""]], [60, 80, 80], [])
    SimpleDocTemplate(out, pagesize=A4).build([grid])
    with pdfplumber.open(io.BytesIO(out.getvalue())) as document:
        assert words_cross_no_line(document.pages[0])


def test_a_round_prints_a_card_and_a_one_page_sheet_per_table() -> None:
    """Four tables of double-12: eight pages, each card with its table's number in
    letters some 6 cm high and every seat's name whole."""
    seats = [tuple(long_name(4 * t + s)[:30].strip() for s in range(4)) for t in range(4)]
    drawn = RoundDraw(2, tuple(Table(t + 1, seats[t]) for t in range(4)), ())
    pdf = round_sheets("fido", drawn, 12, place="Bürgerhaus", event="Clubabend", language="de")
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        assert len(document.pages) == 8
        for table in range(4):
            card = document.pages[2 * table]
            biggest = max(card.chars, key=lambda c: c["size"])
            assert biggest["text"] == str(table + 1) and biggest["size"] >= 150
            text = card.extract_text() or ""
            assert "Durchgang 2" in text and "Tisch" in text
            for name in seats[table]:
                assert f"Sitz{4 * table + seats[table].index(name)}" in text
