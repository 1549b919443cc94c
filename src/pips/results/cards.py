"""A table's card, to stand on it at an event: the table's number read across the room,
the event, the round or final table, the day, the game and set, and who sits where
with their clubs (issue 50: paper that belongs to its table). The score sheets of
:mod:`pips.results.sheet` carry the same :class:`AtTable`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.units import mm
from reportlab.platypus import KeepInFrame, Paragraph, Spacer, Table

from pips import i18n
from pips.core.errors import RuleError
from pips.games.registry import find_game
from pips.i18n import _
from pips.results.draws import Table as DrawnTable
from pips.results.paper import (
    CARD_NUMBER,
    CARD_ROUND,
    CARD_SEAT,
    CARD_SMALL,
    name_cell,
    table_style,
)


@dataclass(frozen=True)
class AtTable:
    """What makes a sheet and a card belong to their table: the event, the round (or
    its final table), the table, the day and each seat's club (the player's own, as
    the event lists it, not the organiser's)."""

    event: str
    round: int
    table: int
    final: bool = False
    day: date | None = None
    clubs: Mapping[str, str] = field(default_factory=dict)
    address: str = ""
    """Where the table's result is entered: the event's page."""

    def round_word(self) -> str:
        return _("Final table") if self.final else _("Round {round}").format(round=self.round)

    def where(self) -> str:
        """ "Round 3, table 5" (or "Final table, table 1") in the current language."""
        return _("{round}, table {table}").format(round=self.round_word(), table=self.table)


def set_of_table(game: str, table: DrawnTable, top: int | None) -> int | None:
    """The set a table plays: the one given, else the game's for its players."""
    if top is not None:
        return top
    try:
        return int(find_game(game).options_from_json({"players": len(table.seats)}).top)
    except (RuleError, TypeError, ValueError):
        return None


def table_card(
    at: AtTable, seats: Sequence[str], game: str, top: int | None, wide: bool
) -> KeepInFrame:
    """A table's card: its number as large as the page allows, the event, the round
    (or "final table"), the day, the game and set, and who sits where with their
    clubs, in letters read from the next tables. Always one page: a final of nine
    shrinks to fit rather than run onto a second."""
    page = landscape(A4) if wide else A4
    width, height = page[0] - 28 * mm, page[1] - 24 * mm - 12  # a frame's padding
    story: list[Any] = []
    if at.event:
        story.append(Paragraph(escape(at.event), CARD_SMALL))
    when = i18n.format_date(at.day) if at.day else ""
    story += [
        Paragraph(escape(at.round_word()), CARD_ROUND),
        Paragraph(escape(when), CARD_SMALL),
        Paragraph(escape(_("Table")), CARD_ROUND),
        Paragraph(str(at.table), CARD_NUMBER),
    ]
    said = [game] + ([_("double-{top}").format(top=top)] if top else [])
    story += [Paragraph(escape(" · ".join(said)), CARD_SMALL), Spacer(1, 4 * mm)]
    club_width = (width - 22 * mm) * 0.4 if at.clubs else 0
    name_width = width - 22 * mm - club_width
    rows = [
        [
            Paragraph(str(seat), CARD_SEAT),
            name_cell(name, name_width, CARD_SEAT),
            name_cell(at.clubs.get(name, ""), club_width, CARD_SMALL) if at.clubs else "",
        ]
        for seat, name in enumerate(seats, 1)
    ]
    heads = [Paragraph(escape(_("Seat")), CARD_SMALL), "", ""]
    if at.clubs:
        heads[2] = Paragraph(escape(_("Club")), CARD_SMALL)
    listing = Table(
        [heads, *rows],
        colWidths=[22 * mm, name_width, club_width],
        hAlign="LEFT",
    )
    listing.setStyle(
        table_style(
            [
                ("LINEBELOW", (0, 1), (-1, -1), 0.5, colors.grey),
                ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
            ]
        )
    )
    story.append(listing)
    return KeepInFrame(width, height, story, mode="shrink")
