"""The printed page every sheet of pips is made of: A4 documents, the type styles, names
fitted to their cells, and ruled grids to write numbers in (reportlab).

Every page is set in DejaVu Sans, embedded: championships seat players from all over
Europe, and reportlab's built-in Helvetica (WinAnsi, not embedded) prints "Łukasz
Dąbrowski" as "■ukasz D■browski". DejaVu covers Latin Extended-A and -B, Greek and
Cyrillic; its files come with matplotlib (the ``sheets`` extra), which keeps them and
their licence."""

from __future__ import annotations

import importlib.util
import io
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle, StyleSheet1, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import Flowable, Paragraph, SimpleDocTemplate, Table, TableStyle

SANS = "DejaVuSans"
SANS_BOLD = "DejaVuSans-Bold"
SANS_ITALIC = "DejaVuSans-Oblique"
SANS_BOLD_ITALIC = "DejaVuSans-BoldOblique"

_INSTEAD_OF = {
    "Helvetica": SANS,
    "Helvetica-Bold": SANS_BOLD,
    "Helvetica-Oblique": SANS_ITALIC,
    "Helvetica-BoldOblique": SANS_BOLD_ITALIC,
}
"""reportlab's sample styles name Helvetica; each becomes its DejaVu face."""


def _font_folder() -> Path:
    """matplotlib's own copy of DejaVu, found without importing matplotlib (a second)."""
    found = importlib.util.find_spec("matplotlib")
    if found is None or not found.submodule_search_locations:
        raise RuntimeError("printing needs matplotlib's fonts: pip install 'pips[sheets]'")
    return Path(next(iter(found.submodule_search_locations))) / "mpl-data" / "fonts" / "ttf"


def _register_fonts() -> None:
    folder = _font_folder()
    for face in _INSTEAD_OF.values():
        if face not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(TTFont(face, str(folder / f"{face}.ttf")))
    # <b> and <i> in a paragraph pick the family's faces.
    pdfmetrics.registerFontFamily(
        SANS, normal=SANS, bold=SANS_BOLD, italic=SANS_ITALIC, boldItalic=SANS_BOLD_ITALIC
    )


_register_fonts()


def stylesheet() -> StyleSheet1:
    """reportlab's sample styles, set in DejaVu Sans."""
    sheet = getSampleStyleSheet()
    for style in sheet.byName.values():
        for attribute in ("fontName", "bulletFontName"):  # a list style has neither
            font = getattr(style, attribute, None)
            if font in _INSTEAD_OF:
                setattr(style, attribute, _INSTEAD_OF[font])
    return sheet


def table_style(commands: Sequence[tuple[Any, ...]]) -> TableStyle:
    """A table's style with every cell in DejaVu Sans first: a table's own default is
    Helvetica, whatever the paragraphs around it use."""
    return TableStyle([("FONTNAME", (0, 0), (-1, -1), SANS), *commands])


class Footer(Flowable):  # type: ignore[misc]  # reportlab is untyped
    """Takes no room: from the page it stands on, ``text`` is printed in the bottom
    margin of every page (empty: none), where it never pushes the last lines of a sheet
    onto a page of their own. A sheet starts with its footer, a table card with none."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return (0, 0)

    def draw(self) -> None:
        pass


class _Paper(SimpleDocTemplate):  # type: ignore[misc]  # reportlab is untyped
    """A4 pages whose footer is the last :class:`Footer` met (drawn as a page ends)."""

    footer = ""

    def afterFlowable(self, flowable: Any) -> None:
        if isinstance(flowable, Footer):
            self.footer = flowable.text

    def handle_pageEnd(self) -> None:
        if self.footer:
            note = Paragraph(escape(self.footer), FOOTNOTE)
            _width, height = note.wrap(self.width, self.bottomMargin)
            note.drawOn(self.canv, self.leftMargin, max(2 * mm, self.bottomMargin - height - mm))
        super().handle_pageEnd()


def document_bytes(story: list[Any], wide: bool, title: str) -> bytes:
    """The A4 PDF of ``story`` (landscape when ``wide``)."""
    out = io.BytesIO()
    document = _Paper(
        out,
        pagesize=landscape(A4) if wide else A4,
        leftMargin=14 * mm,
        rightMargin=14 * mm,
        topMargin=12 * mm,
        bottomMargin=12 * mm,
        title=title,
        author="pips",
    )
    document.build(story)
    return out.getvalue()


BASE = stylesheet()


CELL = ParagraphStyle("cell", parent=BASE["Normal"], fontSize=8, leading=9.5)


HEAD = ParagraphStyle("head", parent=CELL, fontName=SANS_BOLD)


HEAD_SMALL = ParagraphStyle("head-small", parent=HEAD, fontSize=7, leading=8)


TEXT = ParagraphStyle("text", parent=BASE["Normal"], fontSize=9.5, leading=12)


FOOTNOTE = ParagraphStyle("footnote", parent=BASE["Italic"], fontSize=7, leading=8.5)


CARD_NUMBER = ParagraphStyle(
    "card-number",
    parent=BASE["Title"],
    fontName=SANS_BOLD,
    fontSize=240,
    leading=230,
    spaceBefore=6,
    spaceAfter=18,
)


CARD_ROUND = ParagraphStyle(
    "card-round", parent=BASE["Title"], fontSize=36, leading=42, spaceAfter=2
)


CARD_SMALL = ParagraphStyle(
    "card-small", parent=BASE["Normal"], fontSize=14, leading=18, alignment=1
)


CARD_SEAT = ParagraphStyle(
    "card-seat", parent=BASE["Normal"], fontName=SANS_BOLD, fontSize=22, leading=27
)


TITLE = ParagraphStyle(
    "sheet-title", parent=BASE["Title"], fontSize=15, leading=18, spaceBefore=0, spaceAfter=4
)


def name_lines(name: str, width: float, font: str, size: float) -> list[str]:
    """``name`` broken into lines no wider than ``width`` points, at spaces and after
    hyphens ("Anna-Katharina / Müller-Lüdenscheidt"), never inside a word unless one
    part alone is wider than the cell.

    >>> name_lines("Anna-Katharina Müller-Lüdenscheidt", 70, SANS, 8)
    ['Anna-Katharina', 'Müller-', 'Lüdenscheidt']
    """
    parts = re.findall(r"[^\s-]+-?|-", name)
    spaced = []  # each part, and whether a space comes before it
    position = 0
    for part in parts:
        start = name.index(part, position)
        spaced.append((part, start > 0 and name[start - 1] == " "))
        position = start + len(part)
    lines: list[str] = []
    line = ""
    for part, space in spaced:
        joined = line + (" " if space and line else "") + part
        if not line or stringWidth(joined, font, size) <= width:
            line = joined
            continue
        lines.append(line)
        line = part
    if line:
        lines.append(line)
    # A part wider than the cell on its own is cut where it must be.
    fitted: list[str] = []
    for one in lines:
        while stringWidth(one, font, size) > width and len(one) > 1:
            cut = len(one) - 1
            while cut > 1 and stringWidth(one[:cut], font, size) > width:
                cut -= 1
            fitted.append(one[:cut])
            one = one[cut:]
        fitted.append(one)
    return fitted


SMALLEST = 0.75
"""How far a name's type may shrink to keep its longest word whole (of the style's size)."""


def name_cell(name: str, width: float, style: ParagraphStyle) -> Paragraph:
    """A name in a cell ``width`` points wide, wrapped by :func:`name_lines`. Where a
    word of it is wider than the cell ("Hohenzollern-Sigmaringen" in a narrow column),
    the type shrinks, down to three quarters of the style's size, so that the word
    stays whole; only a word wider than that is cut."""
    inner = width - 2 * 6  # a table cell's default padding, left and right
    size = float(style.fontSize)
    longest = max(re.findall(r"[^\s-]+-?", name) or [""], key=len)
    while size > style.fontSize * SMALLEST and stringWidth(longest, style.fontName, size) > inner:
        size -= 0.25
    if size != style.fontSize:
        scale = size / style.fontSize
        style = ParagraphStyle(
            f"{style.name}-{size}", parent=style, fontSize=size, leading=style.leading * scale
        )
    lines = name_lines(name, inner, style.fontName, style.fontSize)
    return Paragraph("<br/>".join(escape(line) for line in lines), style)


ROW = 5 * mm
"""The height of a row to write a number in."""


def ruled_grid(
    data: list[list[Any]],
    widths: list[float] | None,
    bold_rows: Sequence[int],
    heights: Sequence[float | None] | None = None,
) -> Table:
    table = Table(data, colWidths=widths, rowHeights=heights, repeatRows=1, hAlign="LEFT")
    style = [
        ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8e4d8")),
        ("FONTNAME", (0, 0), (-1, 0), SANS_BOLD),
        ("FONTSIZE", (0, 0), (-1, -1), 9),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f7f5ef")]),
    ]
    for row in bold_rows:
        style += [
            ("FONTNAME", (0, row), (0, row), SANS_BOLD),
            ("LINEABOVE", (0, row), (-1, row), 1.2, colors.black),
        ]
    table.setStyle(table_style(style))
    return table


def fair_widths(natural: Sequence[float], width: float) -> list[float]:
    """Column widths adding up to ``width`` for cells whose words want ``natural``
    widths: a cell that fits in a fair share keeps its own width (a date, "Divisor: 5"
    stays on one line), the cells that do not share what is left equally and wrap.

    >>> fair_widths([50, 200, 60], 300)
    [50, 190.0, 60]
    >>> fair_widths([50, 60], 300)
    [145.0, 155.0]
    """
    if sum(natural) <= width:
        spare = (width - sum(natural)) / len(natural)
        return [w + spare for w in natural]
    kept: dict[int, float] = {}
    while True:
        left = [i for i in range(len(natural)) if i not in kept]
        share = (width - sum(kept.values())) / len(left)
        fitting = [i for i in left if natural[i] <= share]
        if not fitting:
            return [kept.get(i, share) for i in range(len(natural))]
        kept.update((i, natural[i]) for i in fitting)
