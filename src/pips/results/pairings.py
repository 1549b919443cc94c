"""A round's pairings as they can be checked (issue 50, item 9): each table's players
with their points and rank before the round, repeats and club-mates marked, and how
the round was drawn, with its parameters, in words (the page and the printed list).

Built from the event as :func:`pips.results.events.shown.event_json` shows it: pure
but for the paper, which is made in :func:`pairings_sheet`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from typing import Any
from xml.sax.saxutils import escape

from pips import i18n
from pips.i18n import _


def _clubs_said(strength: str) -> str:
    if strength == "off":
        return _("club-mates not kept apart")
    if strength == "strong":
        return _("club-mates kept apart strongly (worth moving two players a table)")
    if strength == "strict":
        return _("club-mates kept apart strictly (even before avoiding a repeat)")
    return _("club-mates kept apart where nothing else suffers")


def method_said(one: Mapping[str, Any]) -> str:
    """How a round (as the event's JSON has it) was drawn, with its parameters, in
    the current language."""
    from pips.results.draws import PREFERRED_SIZE

    seats = sum(len(t["seats"]) for t in one["tables"])
    if one["method"] == "final":
        words = _("final table: the {count} leaders of the standings, seats by lot").format(
            count=seats
        )
    elif one["method"] == "swiss":
        words = _(
            "Swiss system: the standings before the round cut into tables in order, the "
            "leaders at table 1; players swapped between neighbouring tables to avoid "
            "repeats, nobody more than one table from their place; {clubs}; seats by lot"
        ).format(clubs=_clubs_said(one.get("clubs_apart", "normal")))
    else:
        words = _(
            "by lot: tables of about {size} players, repeats avoided first; {clubs}; seats by lot"
        ).format(size=PREFERRED_SIZE, clubs=_clubs_said(one.get("clubs_apart", "normal")))
        if one.get("seeds_apart"):
            words += "; " + _("the top seeds at different tables")
    return words + "; " + _("seed {seed}").format(seed=one["seed"])


def seat_notes(seat: Mapping[str, Any]) -> str:
    """A seat's marks: whom at the table they met before, who is of their club."""
    notes = []
    if seat["repeats"]:
        notes.append(_("met before: {names}").format(names=", ".join(seat["repeats"])))
    if seat["club_mates"]:
        notes.append(_("same club: {names}").format(names=", ".join(seat["club_mates"])))
    return "; ".join(notes)


def round_word(one: Mapping[str, Any]) -> str:
    if one["method"] == "final":
        return _("Final table")
    return _("Round {round}").format(round=one["number"])


def pairings_rows(
    shown: Mapping[str, Any], one: Mapping[str, Any]
) -> tuple[list[str], list[list[str]]]:
    """The round's list: a row per seat (table, seat, player, club, points and rank
    before the round, marks), in the current language."""
    clubs = {p["name"]: p.get("club") or "" for p in shown["players"]}
    heads = [_("Table"), _("Seat"), _("Player"), _("Club")]
    heads += [_("Points before"), _("Rank before"), _("Notes")]
    rows = []
    for table in one["tables"]:
        for index, seat in enumerate(table["before"], 1):
            rows.append(
                [
                    str(table["number"]),
                    str(index),
                    seat["name"],
                    clubs.get(seat["name"], ""),
                    "—" if seat["points"] is None else str(seat["points"]),
                    "—" if seat["rank"] is None else str(seat["rank"]),
                    seat_notes(seat),
                ]
            )
    return heads, rows


def pairings_sheet(shown: Mapping[str, Any], number: int, *, language: str | None = None) -> bytes:
    """A round's pairings on paper: the event, the round (or final table) and its day,
    how it was drawn, then every table's players with their points and rank before
    the round and their marks; a table's rows kept together."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.units import mm
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.platypus import Paragraph, Spacer

    from pips.results.listings import listing
    from pips.results.paper import CELL, FOOTNOTE, HEAD, TITLE, document_bytes, name_cell

    one = next(r for r in shown["drawn"] if r["number"] == number)
    with i18n.speaking(language or i18n.current()):
        day = i18n.numeric_date(date.fromisoformat(one["date"]))
        title = f"{shown['name']} — {round_word(one)}"
        story: list[Any] = [
            Paragraph(escape(title), TITLE),
            Paragraph(escape(day), CELL),
            Spacer(1, 2 * mm),
            Paragraph(escape(method_said(one)), FOOTNOTE),
            Spacer(1, 3 * mm),
        ]
        heads, rows = pairings_rows(shown, one)
        width = landscape(A4)[0] - 28 * mm
        # The figures' columns as wide as their heads (a head never breaks in a word).
        figures = [
            stringWidth(h, HEAD.fontName, HEAD.fontSize) + 14 for h in heads[:2] + heads[4:6]
        ]
        widths = [*figures[:2], 0.26 * width, 0.2 * width, *figures[2:]]
        widths.append(width - sum(widths))
        cells: list[list[Any]] = [[Paragraph(escape(h), HEAD) for h in heads]]
        for row in rows:
            cells.append(
                [
                    *row[:2],
                    name_cell(row[2], widths[2], CELL),
                    name_cell(row[3], widths[3], CELL),
                    *row[4:6],
                    Paragraph(escape(row[6]), CELL),
                ]
            )
        extra: list[tuple[Any, ...]] = [
            ("FONTSIZE", (0, 1), (-1, -1), 8),
            ("ALIGN", (4, 1), (5, -1), "RIGHT"),
        ]
        start = 1
        for table in one["tables"]:
            end = start + len(table["seats"]) - 1
            # A table's rows stay on one page; a rule between tables.
            extra += [("NOSPLIT", (0, start), (-1, end))]
            extra += [("LINEABOVE", (0, start), (-1, start), 1, colors.black)]
            start = end + 1
        story.append(listing(cells, widths, extra))
        if one.get("byes"):
            said = _("Sits out: {players}").format(players=", ".join(one["byes"]))
            story += [Spacer(1, 3 * mm), Paragraph(escape(said), CELL)]
        return document_bytes(story, True, title)
