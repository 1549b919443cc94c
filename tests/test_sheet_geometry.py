"""The printed score sheets, measured from the PDF (pdfplumber): at every game and
player count, with names of 40 characters, every word lies inside its cell (none runs
over a grid line), every player has a signature line, and the FIDO sheet has a row for
every scoring play of 99 games in 100."""

from __future__ import annotations

import io
from typing import Any

import pdfplumber
import pytest

from pips.games.fido import DIVISORS
from pips.games.registry import all_games, find_game
from pips.results.sheet import SCORING_ROWS, SheetError, score_sheet


def long_name(seat: int) -> str:
    """40 characters, with a word of its own to find it by (Sitz0, Sitz1 ...)."""
    return f"Anna-Lena Sitz{seat} Müller-Lüdenscheidt-Bergmann"[:40].ljust(40, "x")


def cases() -> list[tuple[str, int, int | None]]:
    out: list[tuple[str, int, int | None]] = []
    for spec in all_games():
        for players in spec.players:
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
    assert all(len(n) == 40 for n in names)
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
    # Every name is printed whole (wrapped at most) in its column and at its signature.
    words = text.split()
    for seat in range(players):
        assert words.count(f"Sitz{seat}") >= 2, (seat, text[:400])
    assert "Signatures" in text and "Group:" in text
    if game == "fido":
        assert "Went out" in text and "Pips left in hand" in text
        assert SCORING_ROWS and str(SCORING_ROWS[(top or 12, players)]) in text
        if SCORING_ROWS[(top or 12, players)] > 40:
            assert pages >= 2  # the grid goes on, its head repeated
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
    with pytest.raises(SheetError, match="at most 40"):
        score_sheet("family", 3, names=["x" * 41])


def test_the_measure_sees_a_name_printed_over_the_next_column() -> None:
    """The check above can fail: a name as a plain string in a narrow column runs over
    the grid line, and is found."""
    from reportlab.lib.pagesizes import A4
    from reportlab.platypus import SimpleDocTemplate

    from pips.results.sheet import _grid

    out = io.BytesIO()
    grid = _grid([["Play", long_name(0), long_name(1)], ["1", "", ""]], [60, 80, 80], [])
    SimpleDocTemplate(out, pagesize=A4).build([grid])
    with pdfplumber.open(io.BytesIO(out.getvalue())) as document:
        assert words_cross_no_line(document.pages[0])
