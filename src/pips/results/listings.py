"""An event's printed lists: the standings and the check-in list, on the same paper as the
score sheets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Paragraph, Spacer, Table

from pips import __version__, i18n
from pips.i18n import _
from pips.results.paper import (
    CELL,
    FOOTNOTE,
    HEAD,
    TEXT,
    TITLE,
    document_bytes,
    name_cell,
    stylesheet,
    table_style,
)
from pips.results.standings import Standing
from pips.results.standings_table import (
    StandingsTable,
    group_table,
    standings_explained,
    standings_subtitle,
    standings_table,
)


def standings_sheet(
    shown: Mapping[str, Any], lines: Sequence[Standing], *, language: str | None = None
) -> bytes:
    """An event's standings on paper, as organisers know them from chess-results
    (:mod:`pips.results.standings_table`): the players' table (place, name, club,
    points, the chosen tie-breaks, games, marks), why the final table's players stand
    first, then the club and the team standings. ``shown`` is the event as its JSON
    shows it, ``lines`` its standings."""
    from pips.games.registry import find_game

    with i18n.speaking(language or i18n.current()):
        styles = stylesheet()
        title = str(shown["name"])
        game = i18n.say(find_game(str(shown["game"])).title)
        story: list[Any] = [
            Paragraph(escape(title), TITLE),
            Paragraph(escape(standings_subtitle(shown, game)), TEXT),
            Spacer(1, 3 * mm),
        ]
        width = landscape(A4)[0] - 28 * mm
        players = standings_table(shown, lines)
        story.append(_standings_grid(players, width, name_column=1, club_column=2))
        explained = standings_explained(shown)
        if explained:
            story += [Spacer(1, 2 * mm), Paragraph(escape(explained), FOOTNOTE)]
        for groups, head, heading in (
            (shown.get("clubs") or [], _("Club"), _("Club standings")),
            (shown.get("teams") or [], _("Team"), _("Team standings")),
        ):
            if groups:
                table = group_table(groups, int(shown["counted"]), head)
                story += [
                    Spacer(1, 5 * mm),
                    Paragraph(escape(heading), styles["Heading3"]),
                    _standings_grid(table, width, name_column=1, club_column=None),
                ]
        footnote = _("pips {version}: standings as entered so far.").format(version=__version__)
        if shown.get("status") == "closed":
            footnote = _("pips {version}: final standings.").format(version=__version__)
        story += [Spacer(1, 4 * mm), Paragraph(escape(footnote), FOOTNOTE)]
        return document_bytes(story, True, title)


def _standings_grid(
    table: StandingsTable, width: float, *, name_column: int, club_column: int | None
) -> Table:
    """A standings table on paper: figures narrow and right-aligned, names and clubs
    wrapped in their cells, the final table's rows set apart by a rule under them."""
    count = len(table.heads)
    figures = [c for c in table.numeric if c < count]
    # A column of figures is as wide as its head (a head never breaks inside a word).
    narrow = {
        c: max(12 * mm, stringWidth(table.heads[c], HEAD.fontName, HEAD.fontSize) + 14)
        for c in figures
    }
    words = [c for c in range(count) if c not in figures]
    rest = width - sum(narrow.values())
    share = {name_column: 0.34, **({club_column: 0.28} if club_column is not None else {})}
    left = 1 - sum(share.values())
    others = [c for c in words if c not in share]
    widths = []
    for column in range(count):
        if column in figures:
            widths.append(narrow[column])
        elif column in share:
            widths.append(rest * share[column])
        else:
            widths.append(rest * left / max(1, len(others)))
    rows: list[list[Any]] = [[Paragraph(escape(h), HEAD) for h in table.heads]]
    for row in table.rows:
        rows.append(
            [
                cell if column in figures else name_cell(cell, widths[column], CELL)
                for column, cell in enumerate(row)
            ]
        )
    extra: list[tuple[Any, ...]] = [("FONTSIZE", (0, 1), (-1, -1), 8)]
    extra += [("ALIGN", (c, 1), (c, -1), "RIGHT") for c in figures]
    if table.finalists:
        extra.append(("LINEBELOW", (0, table.finalists), (-1, table.finalists), 1.5, colors.black))
        extra.append(("BACKGROUND", (0, 1), (-1, table.finalists), colors.HexColor("#f3efe2")))
    return listing(rows, widths, extra)


def check_in_sheet(
    title: str, subtitle: str, players: Sequence[Any], *, language: str | None = None
) -> bytes:
    """An event's check-in list on paper: every player by last name (ICU's German
    collation, :func:`pips.text.surname_key`: "Łukasz" among the L's, not after Z)
    with their club, a box to tick and a line to sign. ``players`` are the event's
    players as its JSON shows them."""
    from pips.text import surname_key

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
        for p in sorted(players, key=lambda p: surname_key(str(p["name"]))):
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
