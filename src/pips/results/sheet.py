"""Printable score sheets (PDF) for games at real tables.

A sheet is laid out like the result form of the web (:mod:`pips.server.routes.results`)
so that what is written at the table is typed in line by line:

- FIDO: date, place, group, set, divisor and the F-02 row of hand sizes for the
  number of players; a column per player for running points, a row per scoring play
  (F-15) for the 99th percentile of simulated games (:data:`SCORING_ROWS`), then who
  went out, the pips deducted (F-21), the final score and the rank.
- The partnership game: a tally per pair, hand by hand, to the match target (PT-10,
  PT-11, PT-13).
- The family game and Doubles: a column per player, a row per hand, to the target.
- The draw game: one hand; pips left, who went out, the rank (DR-07).

Every sheet has a signature line for every player; names wrap inside their cells (a
name of 40 characters never runs over the next column); the rules are said in words,
their ids only in the footnote.

    >>> pdf = score_sheet("fido", players=5, top=12)
    >>> pdf[:5]
    b'%PDF-'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, NamedTuple
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import KeepTogether, PageBreak, Paragraph, Spacer, Table

from pips import __version__, i18n
from pips.core.errors import RuleError
from pips.core.phrase import N_
from pips.games.registry import Game, find_game
from pips.games.traits import SheetKind
from pips.i18n import _, say
from pips.results.cards import AtTable, set_of_table, table_card
from pips.results.draws import RoundDraw
from pips.results.entry import NAME_LENGTH
from pips.results.paper import (
    CELL,
    HEAD,
    HEAD_SMALL,
    ROW,
    SANS_BOLD,
    TEXT,
    TITLE,
    Footer,
    document_bytes,
    fair_widths,
    name_cell,
    ruled_grid,
    stylesheet,
    table_style,
)

HEAD_TEXT = ParagraphStyle("sheet-which", parent=TEXT, fontName=SANS_BOLD, spaceAfter=2)
"""The line naming an event's sheet's event, round and table."""

SCORING_ROWS: dict[tuple[int, int], int] = {
    (6, 3): 15,
    (6, 4): 14,
    (6, 5): 11,
    (6, 6): 13,
    (6, 7): 11,
    (6, 8): 11,
    (6, 9): 7,
    (9, 3): 21,
    (9, 4): 23,
    (9, 5): 23,
    (9, 6): 20,
    (9, 7): 19,
    (9, 8): 22,
    (9, 9): 19,
    (12, 3): 35,
    (12, 4): 36,
    (12, 5): 38,
    (12, 6): 39,
    (12, 7): 36,
    (12, 8): 39,
    (12, 9): 37,
    (15, 3): 52,
    (15, 4): 54,
    (15, 5): 53,
    (15, 6): 52,
    (15, 7): 57,
    (15, 8): 53,
    (15, 9): 49,
    (18, 3): 70,
    (18, 4): 73,
    (18, 5): 73,
    (18, 6): 73,
    (18, 7): 72,
    (18, 8): 74,
    (18, 9): 73,
}
"""Rows for scoring plays on the FIDO sheet, per (set, players): the 99th percentile of
the scoring plays of a game in simulated games (``scripts/scoring_plays.py``: greedy and
expert bots, 100 games per cell up to double-15 with 5 players, 30 per cell beyond), so
that 99 games in 100 fit; the grid continues on the next page when it needs one."""

RULE_IDS = re.compile(
    r"\s*\(((?:[A-Z]{1,2}-\d+|§[\d.]+)(?:(?:,| and| to) (?:[A-Z]{1,2}-\d+|§[\d.]+))*)\)"
)
"""A parenthesis of rule ids in a game's words, e.g. " (F-15)" or " (PT-10, PT-11)"."""


class SheetError(ValueError):
    """Options no game has (a set and player count not in the table); ``rule``: the
    SPEC id of the game's rule that refused them, where one did."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule

    def __str__(self) -> str:
        # As a broken rule reads everywhere else: "F-02: ...".
        return f"{self.rule}: {self.args[0]}" if self.rule else str(self.args[0])


def plain_words(text: str) -> tuple[str, list[str]]:
    """A game's words for club players: the rule ids taken out (for the footnote).

    >>> plain_words("Write the running points (F-15); deduct the pips (F-21).")
    ('Write the running points; deduct the pips.', ['F-15', 'F-21'])
    """
    ids: list[str] = []
    for match in RULE_IDS.finditer(text):
        ids += [i.strip() for i in re.split(r",| and| to", match[1])]
    return RULE_IDS.sub("", text), ids


def score_sheet(
    game: str,
    players: int,
    top: int | None = None,
    *,
    names: Sequence[str] = (),
    place: str = "",
    day: date | None = None,
    rows: int | None = None,
    target: int | None = None,
    group: str = "",
    language: str | None = None,
) -> bytes:
    """The PDF of a score sheet; ``top`` is the set (12 for double-12), the game's
    default when left out; ``target`` the match target where the game has one; blank
    name, place, group and date fields are left to fill in. Its words are in
    ``language`` (default: the current one, :mod:`pips.i18n`)."""
    with i18n.speaking(language or i18n.current()):
        sheet = _sheet_story(game, players, top, names, place, day, rows, target, group)
        return document_bytes([Footer(sheet.footer), *sheet.story], sheet.wide, sheet.title)


class SheetStory(NamedTuple):
    story: list[Any]
    wide: bool
    title: str
    footer: str


def _sheet_story(
    game: str,
    players: int,
    top: int | None,
    names: Sequence[str],
    place: str,
    day: date | None,
    rows: int | None,
    target: int | None,
    group: str,
    wide: bool | None = None,
    at: AtTable | None = None,
) -> SheetStory:
    """The flowables of one sheet, whether it wants a landscape page (more than six
    players, or ``wide`` when given), its title and its footer. ``at``: the event,
    round and table the sheet belongs to (printed in its head, each seat's club under
    its name, and the footer points to the event's page)."""
    try:
        spec = find_game(game)
    except RuleError as exc:
        raise SheetError(say(exc.detail), exc.rule) from None
    data: dict[str, Any] = {"players": players}
    if top is not None:
        data["set"] = top
    try:
        options = spec.options_from_json(data)
        if target is not None:
            if spec.target(options) is None:
                raise SheetError(
                    _("a game of the {game} is one hand, with no target").format(
                        game=say(spec.title)
                    )
                )
            options = options.changed(target=target)
    except (RuleError, TypeError, ValueError) as exc:
        if isinstance(exc, SheetError):
            raise
        if isinstance(exc, RuleError):
            raise SheetError(f"{say(spec.title)}: {say(exc.detail)}", exc.rule) from None
        raise SheetError(f"{say(spec.title)}: {exc}") from None
    if len(names) > players:
        raise SheetError(
            _("{count} names for {players} players").format(count=len(names), players=players)
        )
    if any(len(n.strip()) > NAME_LENGTH for n in names):
        raise SheetError(_("a name is at most {length} characters").format(length=NAME_LENGTH))
    labels = [
        (
            names[i].strip()
            if i < len(names) and names[i].strip()
            else _("Player {number}").format(number=i + 1)
        )
        for i in range(players)
    ]
    wide = players > 6 if wide is None else wide
    width = (landscape(A4) if wide else A4)[0] - 28 * mm
    clubs = [at.clubs.get(name, "") for name in labels] if at else []
    sheet = PaperSheet(spec, options, labels, width, clubs)
    story: list[Any] = [
        Paragraph(escape(_("{game} — score sheet").format(game=say(spec.title))), TITLE)
    ]
    if at is not None:
        # Which table of which event the sheet belongs to, in one line of its own.
        which = [at.event, at.round_word(), _("Table {number}").format(number=at.table)]
        story.append(Paragraph(escape(" · ".join(w for w in which if w)), HEAD_TEXT))
    story.append(sheet.header(place, day, group, at))
    kind = spec.sheet
    if kind is SheetKind.SCORING_PLAYS:
        story += sheet.scoring_plays(rows or SCORING_ROWS.get((options.top, players), 26))
    elif kind is SheetKind.PAIR_TALLY:
        story += sheet.pair_tally(rows or 16)
    elif kind is SheetKind.ONE_HAND:
        story += sheet.one_hand()
    else:
        story += sheet.hands(rows or 16)
    # The end of a sheet (who went out, the final scores, the signatures) is read and
    # signed as one: it never starts on one page and ends on the next.
    story[-1:] = [KeepTogether([story[-1], Spacer(1, 3 * mm), sheet.signatures()])]
    rules = ", ".join(dict.fromkeys(sheet.rule_ids))
    said_rules = say(spec.title) + (": " + rules if rules else "")
    if at is not None and at.address:
        # A sheet of an event is entered at the event: a result entered as any other
        # would be withdrawn when the event closes (its own tables' results count).
        footer = _(
            "Enter this table's result on the event's page: {address} ({where}). "
            "Rules: {rules}. pips {version}."
        ).format(address=at.address, where=at.where(), rules=said_rules, version=__version__)
    else:
        footer = _(
            "Enter the result on the pips server (Results, Enter a result) or as a CSV "
            "row per player. Rules: {rules}. pips {version}."
        ).format(rules=said_rules, version=__version__)
    return SheetStory(story, wide, _("{game} — score sheet").format(game=say(spec.title)), footer)


def round_sheets(
    game: str,
    drawn: RoundDraw,
    top: int | None = None,
    *,
    place: str = "",
    day: date | None = None,
    target: int | None = None,
    group: str = "",
    event: str = "",
    tops: Mapping[int, int] | None = None,
    language: str | None = None,
    clubs: Mapping[str, str] | None = None,
    final: bool = False,
    address: str = "",
) -> bytes:
    """One PDF for a round of an event: for every table a card to stand on it (the
    table's number to be read across the room, the event, the round or "final table",
    the day, the set, the players in seat order with their clubs), always one page,
    and its score sheet with the names and clubs filled in and the event, round and
    table in its head, on one page (a sheet of double-12 for seven or more, or of
    double-15 or more, on two, its end block never split). ``tops`` gives a table (by
    number) a set of its own; ``address`` is the event's page, where the sheets'
    footers send the results."""
    with i18n.speaking(language or i18n.current()):
        wide = any(len(table.seats) > 6 for table in drawn.tables)
        styles = stylesheet()
        story: list[Any] = []
        title = say(find_game(game).title)
        for table in drawn.tables:
            table_top = (tops or {}).get(table.number, top)
            at = AtTable(event, drawn.number, table.number, final, day, dict(clubs or {}), address)
            story.append(Footer(""))  # a card stands on the table: no note at its foot
            story.append(
                table_card(at, table.seats, title, set_of_table(game, table, table_top), wide)
            )
            story.append(PageBreak())
            sheet = _sheet_story(
                game,
                len(table.seats),
                table_top,
                table.seats,
                place,
                day,
                None,
                target,
                group,
                wide,
                at,
            )
            story += [Footer(sheet.footer), *sheet.story, PageBreak()]
        if drawn.byes:
            said = _("Round {round}: sits out: {players}").format(
                round=drawn.number, players=", ".join(drawn.byes)
            )
            story.append(Paragraph(escape(said), styles["Heading2"]))
        elif story:
            story.pop()  # no empty page after the last sheet
        heading = _("Final table") if final else _("Round {round}").format(round=drawn.number)
        return document_bytes(story, wide, f"{event} — {heading}" if event else heading)


class PaperSheet:
    """The parts of one sheet; names are paragraphs, so a long name wraps inside its
    cell instead of running over the next one."""

    def __init__(
        self,
        spec: Game,
        options: Any,
        labels: list[str],
        width: float,
        clubs: Sequence[str] = (),
    ) -> None:
        self.spec, self.options, self.labels, self.width = spec, options, labels, width
        self.clubs = list(clubs) or [""] * len(labels)
        self.rule_ids: list[str] = []

    def words(self, text: str) -> Paragraph:
        plain, ids = plain_words(text)
        self.rule_ids += ids
        return Paragraph(escape(plain), TEXT)

    def header(self, place: str, day: date | None, group: str, at: AtTable | None) -> Table:
        when = i18n.numeric_date(day) if day else "_" * 14
        row = [
            _("Date: {date}").format(date=when),
            _("Place: {place}").format(place=place or "_" * 24),
        ]
        if at is None:
            # At an event the line above names event, round and table; its players'
            # clubs stand under their names (the organiser's group is no seat's club).
            row.append(_("Group: {group}").format(group=group or "_" * 20))
        row.append(_("Set: double-{top}").format(top=self.options.top))
        divisor = self.spec.traits(self.options).divisor
        if divisor:
            row.append(_("Divisor: {divisor}").format(divisor=divisor))
        target = self.spec.target(self.options)
        if target:
            row.append(_("Match to: {target}").format(target=target))
        cells = [Paragraph(escape(text), TEXT) for text in row]
        natural = [stringWidth(text, TEXT.fontName, TEXT.fontSize) + 12 for text in row]
        table = Table([cells], colWidths=fair_widths(natural, self.width), hAlign="LEFT")
        table.setStyle(table_style([("VALIGN", (0, 0), (-1, -1), "TOP")]))
        return table

    def names(self, labels: Sequence[str], width: float) -> list[Any]:
        """Names as a grid's heads, each wrapped to its column's ``width``, its
        seat's club (at an event) under it."""
        return [
            [name_cell(name, width, HEAD), name_cell(club, width, HEAD_SMALL)]
            if club
            else name_cell(name, width, HEAD)
            for name, club in zip(labels, self.clubs, strict=True)
        ]

    def scoring_plays(self, rows: int) -> list[Any]:
        """A row per scoring play, in two blocks side by side (plays 1 to n/2 on the
        left, the rest on the right, the players by seat number) so that the rows of
        99 games in 100 fit one page at double-9 and double-12; then who went out, the
        deduction and the result under the players' names; and the hand sizes of every
        set for the number of players."""
        spec, options, labels = self.spec, self.options, self.labels
        players, top = options.players, options.top
        hand, stock = _sizes(spec, players, top) or (0, 0)
        sets = [s for s in spec.sets if _sizes(spec, players, s) is not None]
        sizes = [[_("Players")] + [_("double-{top}").format(top=s) for s in sets]]
        sizes.append(
            [str(players)] + ["{} ({})".format(*(_sizes(spec, players, s) or (0, 0))) for s in sets]
        )
        table = Table(sizes, hAlign="LEFT")
        chosen = 1 + sets.index(top)
        table.setStyle(
            table_style(
                [
                    ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
                    ("FONTSIZE", (0, 0), (-1, -1), 7),
                    ("TOPPADDING", (0, 0), (-1, -1), 1),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 1),
                    ("BACKGROUND", (chosen, 0), (chosen, -1), colors.HexColor("#e8e4d8")),
                    ("FONTNAME", (chosen, 1), (chosen, 1), SANS_BOLD),
                ]
            )
        )
        self.rule_ids.append("F-02")
        # Two blocks of (play number, a column per seat), a narrow gap between them.
        gap, number = 3 * mm, 8 * mm
        column = (self.width - gap - 2 * number) / (2 * players)
        half = (rows + 1) // 2
        seats = [str(seat) for seat in range(1, players + 1)]
        head = [_("No."), *seats, "", _("No."), *seats]
        plays: list[list[Any]] = [head]
        for i in range(1, half + 1):
            right = str(half + i) if half + i <= rows else ""
            plays.append([str(i)] + [""] * players + ["", right] + [""] * players)
        widths = [number] + [column] * players + [gap, number] + [column] * players
        blocks = ruled_grid(plays, widths, [], heights=[None] + [ROW] * half)
        blocks.setStyle(
            table_style(
                [
                    # The gap is no cell: no lines, no shading.
                    ("LINEABOVE", (players + 1, 0), (players + 1, -1), 0, colors.white),
                    ("LINEBELOW", (players + 1, 0), (players + 1, -1), 0, colors.white),
                    ("BACKGROUND", (players + 1, 0), (players + 1, -1), colors.white),
                    ("ALIGN", (0, 0), (-1, 0), "CENTER"),
                    ("FONTSIZE", (0, 1), (0, -1), 7),
                    ("FONTSIZE", (players + 2, 1), (players + 2, -1), 7),
                    ("TEXTCOLOR", (0, 1), (0, -1), colors.grey),
                    ("TEXTCOLOR", (players + 2, 1), (players + 2, -1), colors.grey),
                ]
            )
        )
        first = 34 * mm
        wide = (self.width - first) / players
        summary: list[list[Any]] = [
            [
                Paragraph(_("Seat"), HEAD),
                *self.names([f"{seat}. {name}" for seat, name in enumerate(labels, 1)], wide),
            ]
        ]
        summary += [
            [Paragraph(_(label), CELL)] + [""] * players
            for label in (
                N_("Went out (mark x)"),
                N_("Running points at the end"),
                N_("Pips left in hand (deducted)"),
                N_("Final score"),
                N_("Rank"),
            )
        ]
        return [
            Paragraph(
                _(
                    "Tiles each (stock) by set: {players} players hold {hand} tiles each, "
                    "{stock} in the stock."
                ).format(players=players, hand=hand, stock=stock),
                CELL,
            ),
            Spacer(1, 1 * mm),
            table,
            Spacer(1, 1.5 * mm),
            self.words(say(spec.sheet_rule(options))),
            Spacer(1, 1.5 * mm),
            Paragraph(escape(_("Scoring plays: the running points of whoever scored")), HEAD),
            Spacer(1, 1 * mm),
            blocks,
            Spacer(1, 2 * mm),
            ruled_grid(
                summary, [first] + [wide] * players, [1], heights=[None] + [ROW + 1 * mm] * 5
            ),
        ]

    def pair_tally(self, rows: int) -> list[Any]:
        pairs = [" + ".join(self.labels[s] for s in pair) for pair in self.spec.teams(4)]
        column = (self.width - 20 * mm - 30 * mm) / 2
        grid: list[list[Any]] = [
            [
                Paragraph(_("Hand"), HEAD),
                name_cell(_("Pair A: {names}").format(names=pairs[0]), column, HEAD),
                name_cell(_("Pair B: {names}").format(names=pairs[1]), column, HEAD),
                Paragraph(_("Pips counted"), HEAD),
            ]
        ]
        grid += [[str(i), "", "", ""] for i in range(1, rows + 1)]
        last = len(grid)
        grid += [[_("Total"), "", "", ""], [_("Result"), "", "", ""]]
        return [
            self.words(say(self.spec.sheet_rule(self.options))),
            Spacer(1, 2 * mm),
            ruled_grid(grid, [20 * mm, column, column, 30 * mm], [last]),
        ]

    def hands(self, rows: int) -> list[Any]:
        players = len(self.labels)
        first = 20 * mm
        column = (self.width - first) / players
        grid: list[list[Any]] = [[Paragraph(_("Hand"), HEAD), *self.names(self.labels, column)]]
        grid += [[str(i)] + [""] * players for i in range(1, rows + 1)]
        last = len(grid)
        grid += [[_("Total")] + [""] * players, [_("Rank")] + [""] * players]
        target = self.spec.target(self.options)
        return [
            self.words(
                say(self.spec.sheet_rule(self.options))
                + " "
                + _(
                    "Write each hand's points and the running total; the first to {target} "
                    "wins, the highest total ranks first."
                ).format(target=target)
            ),
            Spacer(1, 2 * mm),
            ruled_grid(
                grid,
                [first] + [column] * players,
                [last],
                heights=[None] + [ROW] * (len(grid) - 1),
            ),
        ]

    def one_hand(self) -> list[Any]:
        grid: list[list[Any]] = [
            [
                Paragraph(_(h), HEAD)
                for h in (N_("Player"), N_("Went out (mark x)"), N_("Pips left"), N_("Rank"))
            ]
        ]
        grid += [[name, "", "", ""] for name in self.names(self.labels, 80 * mm)]
        return [
            self.words(say(self.spec.sheet_rule(self.options))),
            Spacer(1, 2 * mm),
            ruled_grid(grid, [80 * mm, 30 * mm, 30 * mm, 20 * mm], []),
        ]

    def signatures(self) -> Table:
        """A signature line for every player: two to a row on a portrait page, four on
        a landscape one."""
        across = 4 if self.width > 200 * mm else 2
        part = self.width / across
        cells = [
            [_signed(name, club, part * 0.55), ""]
            for name, club in zip(self.labels, self.clubs, strict=True)
        ]
        rows = []
        for i in range(0, len(cells), across):
            row: list[Any] = []
            for j in range(across):
                row += cells[i + j] if i + j < len(cells) else ["", ""]
            rows.append(row)
        table = Table(
            [[Paragraph(_("Signatures"), HEAD)] + [""] * (2 * across - 1), *rows],
            colWidths=[part * 0.55, part * 0.45] * across,
            hAlign="LEFT",
        )
        style: list[tuple[Any, ...]] = [
            ("VALIGN", (0, 0), (-1, -1), "BOTTOM"),
            ("TOPPADDING", (0, 1), (-1, -1), 6),
        ]
        for index in range(len(cells)):
            row_number, column = 1 + index // across, 2 * (index % across) + 1
            style.append(
                ("LINEBELOW", (column, row_number), (column, row_number), 0.5, colors.black)
            )
        table.setStyle(table_style(style))
        return table


def _signed(name: str, club: str, width: float) -> Any:
    """A name to sign beside, with its club (at an event) on the line under it."""
    if not club:
        return name_cell(name, width, HEAD_SMALL)
    return [name_cell(name, width, HEAD_SMALL), name_cell(club, width, CELL)]


def _sizes(spec: Game, players: int, top: int) -> tuple[int, int] | None:
    """Tiles per player and in the stock with ``top``, if the game allows that set."""
    try:
        options = spec.example.changed(players=players, set=top)
    except (RuleError, TypeError, ValueError):
        return None
    hand = int(options.hand_size)
    return hand, (top + 1) * (top + 2) // 2 - players * hand
