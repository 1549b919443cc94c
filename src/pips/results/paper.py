"""The printed page every sheet of pips is made of: A4 documents, the type styles, names
fitted to their cells, and ruled grids to write numbers in (reportlab)."""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle


def document_bytes(story: list[Any], wide: bool, title: str) -> bytes:
    out = io.BytesIO()
    document = SimpleDocTemplate(
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


BASE = getSampleStyleSheet()


CELL = ParagraphStyle("cell", parent=BASE["Normal"], fontSize=8, leading=9.5)


HEAD = ParagraphStyle("head", parent=CELL, fontName="Helvetica-Bold")


HEAD_SMALL = ParagraphStyle("head-small", parent=HEAD, fontSize=7, leading=8)


TEXT = ParagraphStyle("text", parent=BASE["Normal"], fontSize=9.5, leading=12)


FOOTNOTE = ParagraphStyle("footnote", parent=BASE["Italic"], fontSize=7, leading=8.5)


CARD_NUMBER = ParagraphStyle(
    "card-number",
    parent=BASE["Title"],
    fontName="Helvetica-Bold",
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
    "card-seat", parent=BASE["Normal"], fontName="Helvetica-Bold", fontSize=22, leading=27
)


TITLE = ParagraphStyle(
    "sheet-title", parent=BASE["Title"], fontSize=15, leading=18, spaceBefore=0, spaceAfter=4
)


def name_lines(name: str, width: float, font: str, size: float) -> list[str]:
    """``name`` broken into lines no wider than ``width`` points, at spaces and after
    hyphens ("Anna-Katharina / Müller-Lüdenscheidt"), never inside a word unless one
    part alone is wider than the cell.

    >>> name_lines("Anna-Katharina Müller-Lüdenscheidt", 70, "Helvetica", 8)
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


def name_cell(name: str, width: float, style: ParagraphStyle) -> Paragraph:
    """A name in a cell ``width`` points wide, wrapped by :func:`name_lines`."""
    inner = width - 2 * 6  # a table cell's default padding, left and right
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
        ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
        ("FONTSIZE", (0, 0), (-1, -1), 9),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f7f5ef")]),
    ]
    for row in bold_rows:
        style += [
            ("FONTNAME", (0, row), (0, row), "Helvetica-Bold"),
            ("LINEABOVE", (0, row), (-1, row), 1.2, colors.black),
        ]
    table.setStyle(TableStyle(style))
    return table
