"""An event's printed lists: the standings and the check-in list, on the same paper as the
score sheets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, Spacer, Table

from pips import __version__, i18n
from pips.i18n import _
from pips.results.paper import (
    CELL,
    FOOTNOTE,
    HEAD,
    TITLE,
    document_bytes,
    name_cell,
    stylesheet,
    table_style,
)


def standings_sheet(
    title: str,
    subtitle: str,
    lines: Sequence[Any],
    *,
    points_word: str,
    language: str | None = None,
) -> bytes:
    """An event's standings on paper: ``lines`` are
    :class:`~pips.results.standings.Standing`; ``points_word`` heads the points column
    (points, or match points for pairs)."""
    with i18n.speaking(language or i18n.current()):
        styles = stylesheet()
        story: list[Any] = [
            Paragraph(escape(title), styles["Title"]),
            Paragraph(escape(subtitle), styles["Heading3"]),
            Spacer(1, 4 * mm),
        ]
        heads = [_("Rank"), _("Player"), _(points_word), _("Wins"), _("Games")]
        heads += [_("Byes"), _("avg. place")]
        rows: list[list[Any]] = [[Paragraph(escape(h), HEAD) for h in heads]]
        for s in lines:
            rows.append(
                [
                    str(s.place),
                    Paragraph(escape(s.name), CELL),
                    str(s.points),
                    str(s.wins),
                    str(s.games),
                    str(s.byes),
                    i18n.decimal(s.average_place, 2) if s.games else "—",
                ]
            )
        widths = [14 * mm, 60 * mm, 28 * mm, 16 * mm, 16 * mm, 18 * mm, 24 * mm]
        table = listing(
            rows,
            widths,
            [("ALIGN", (2, 1), (-1, -1), "RIGHT"), ("FONTSIZE", (0, 1), (-1, -1), 9)],
        )
        story.append(table)
        footnote = _("pips {version}: standings as entered so far.").format(version=__version__)
        story += [Spacer(1, 4 * mm), Paragraph(escape(footnote), FOOTNOTE)]
        return document_bytes(story, False, title)


def check_in_sheet(
    title: str, subtitle: str, players: Sequence[Any], *, language: str | None = None
) -> bytes:
    """An event's check-in list on paper: every player in German alphabetical order
    (:func:`pips.core.names.sort_key`) with their club, a box to tick and a line to
    sign. ``players`` are the event's players as its JSON shows them."""
    from pips.core.names import sort_key

    with i18n.speaking(language or i18n.current()):
        styles = stylesheet()
        story: list[Any] = [
            Paragraph(escape(title), TITLE),
            Paragraph(escape(subtitle), styles["Heading3"]),
            Spacer(1, 3 * mm),
        ]
        heads = [_("here"), _("Player"), _("Club"), _("Signature")]
        widths = [14 * mm, 70 * mm, 50 * mm, 48 * mm]
        rows: list[list[Any]] = [[Paragraph(escape(h), HEAD) for h in heads]]
        for p in sorted(players, key=lambda p: sort_key(str(p["name"]))):
            rows.append(
                [
                    "x" if p.get("checked_in") else "",
                    name_cell(str(p["name"]), widths[1], CELL),
                    name_cell(str(p.get("club") or ""), widths[2], CELL),
                    "",
                ]
            )
        table = listing(
            rows,
            widths,
            [
                ("ALIGN", (0, 0), (0, -1), "CENTER"),
                ("TOPPADDING", (0, 1), (-1, -1), 5),
                ("BOTTOMPADDING", (0, 1), (-1, -1), 5),
            ],
        )
        story.append(table)
        return document_bytes(story, False, title)


def listing(rows: list[list[Any]], widths: list[float], extra: list[tuple[Any, ...]]) -> Table:
    """A list of people on paper (standings, the check-in list): a light grid under a
    shaded head row repeated on every page, and the list's own ``extra`` styles."""
    table = Table(rows, colWidths=widths, repeatRows=1, hAlign="LEFT")
    base: list[tuple[Any, ...]] = [
        ("GRID", (0, 0), (-1, -1), 0.4, colors.grey),
        ("BACKGROUND", (0, 0), (-1, 0), colors.whitesmoke),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
    ]
    table.setStyle(table_style(base + extra))
    return table
