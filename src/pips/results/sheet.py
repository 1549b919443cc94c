"""Printable score sheets (PDF) for games at real tables.

A sheet is laid out like the result form of the web (:mod:`pips.server.results_routes`)
so that what is written at the table is typed in line by line:

- FIDO: date, place, set, divisor and the F-02 row of hand sizes for the number of
  players; a column per player for running points, a row per scoring play (F-15), then
  the pips deducted (F-21), the final score and the rank.
- The partnership game: a tally per pair, hand by hand, to the match target (PT-10,
  PT-11, PT-13).
- The family game and Doubles: a column per player, a row per hand, to the target.
- The draw game: one hand; pips left, who went out, the rank (DR-07).

    >>> pdf = score_sheet("fido", players=5, top=12)
    >>> pdf[:5]
    b'%PDF-'
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import date
from typing import Any

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from pips import __version__
from pips.core.errors import RuleError
from pips.games.registry import GameSpec, find_game
from pips.games.traits import SheetKind


class SheetError(ValueError):
    """Options no game has (a set and player count not in the table)."""


def score_sheet(
    game: str,
    players: int,
    top: int | None = None,
    *,
    names: Sequence[str] = (),
    place: str = "",
    day: date | None = None,
    rows: int | None = None,
) -> bytes:
    """The PDF of a score sheet; ``top`` is the set (12 for double-12), the game's
    default when left out; blank name, place and date fields are left to fill in."""
    try:
        spec = find_game(game)
    except RuleError as exc:
        raise SheetError(str(exc)) from None
    data: dict[str, Any] = {"players": players}
    if top is not None:
        data["set"] = top
    try:
        options = spec.options_from_json(data)
    except (RuleError, TypeError, ValueError) as exc:
        raise SheetError(f"{spec.title}: {exc}") from None
    if len(names) > players:
        raise SheetError(f"{len(names)} names for {players} players")
    labels = [
        (names[i].strip() if i < len(names) and names[i].strip() else f"Player {i + 1}")
        for i in range(players)
    ]
    styles = getSampleStyleSheet()
    wide = players > 6
    story: list[Any] = [
        Paragraph(f"{spec.title} — score sheet", styles["Title"]),
        _header(spec.name, options, place, day),
    ]
    kind = spec.sheet
    if kind is SheetKind.SCORING_PLAYS:
        story += _scoring_plays(spec, options, labels, rows or (12 if wide else 26))
    elif kind is SheetKind.PAIR_TALLY:
        story += _pair_tally(spec, options, labels, rows or 16)
    elif kind is SheetKind.ONE_HAND:
        story += _one_hand(spec, options, labels)
    else:
        story += _hands(spec, options, labels, rows or 16)
    story += [
        Spacer(1, 6 * mm),
        Paragraph(
            "Signatures: " + "  ".join("_" * 18 for _ in range(min(players, 4))), styles["Normal"]
        ),
        Spacer(1, 3 * mm),
        Paragraph(
            f"Enter the result on the pips server (Results, Enter a result) or as a CSV row "
            f"per player. pips {__version__}.",
            styles["Italic"],
        ),
    ]
    out = io.BytesIO()
    document = SimpleDocTemplate(
        out,
        pagesize=landscape(A4) if wide else A4,
        leftMargin=14 * mm,
        rightMargin=14 * mm,
        topMargin=12 * mm,
        bottomMargin=12 * mm,
        title=f"{spec.title} score sheet",
        author="pips",
    )
    document.build(story)
    return out.getvalue()


def _header(game: str, options: Any, place: str, day: date | None) -> Table:
    when = day.isoformat() if day else "_" * 16
    where = place or "_" * 30
    row = [f"Date: {when}", f"Place: {where}", f"Set: double-{options.set}"]
    divisor = find_game(game).traits(options).divisor
    if divisor:
        row.append(f"Divisor: {divisor}")
    target = getattr(options, "target", None)
    if target:
        row.append(f"Match to: {target}")
    table = Table([row], hAlign="LEFT")
    table.setStyle(TableStyle([("FONTSIZE", (0, 0), (-1, -1), 10)]))
    return table


def _grid(data: list[list[Any]], widths: list[float] | None, bold_rows: Sequence[int]) -> Table:
    table = Table(data, colWidths=widths, repeatRows=1, hAlign="LEFT")
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


def _sizes(spec: GameSpec, players: int, top: int) -> tuple[int, int] | None:
    """Tiles per player and in the stock with ``top``, if the game allows that set."""
    try:
        options = spec.options_from_json({"players": players, "set": top})
    except (RuleError, TypeError, ValueError):
        return None
    hand = int(options.hand_size)
    return hand, (top + 1) * (top + 2) // 2 - players * hand


def _scoring_plays(spec: GameSpec, options: Any, labels: list[str], rows: int) -> list[Any]:
    """A row per scoring play (F-15), then the deduction (F-21), with the F-02 hand
    sizes of every set."""
    styles = getSampleStyleSheet()
    players, top = options.players, options.set
    hand, stock = _sizes(spec, players, top) or (0, 0)
    sets = [s for s in spec.sets if _sizes(spec, players, s) is not None]
    sizes = [["Players"] + [f"double-{s}" for s in sets]]
    sizes.append(
        [str(players)] + ["{} ({})".format(*(_sizes(spec, players, s) or (0, 0))) for s in sets]
    )
    table = Table(sizes, hAlign="LEFT")
    chosen = 1 + sets.index(top)
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
                ("FONTSIZE", (0, 0), (-1, -1), 8),
                ("BACKGROUND", (chosen, 0), (chosen, -1), colors.HexColor("#e8e4d8")),
                ("FONTNAME", (chosen, 1), (chosen, 1), "Helvetica-Bold"),
            ]
        )
    )
    width = (A4[1] if players > 6 else A4[0]) - 28 * mm
    grid: list[list[Any]] = [["Scoring play", *labels]]
    grid += [[str(i)] + [""] * players for i in range(1, rows + 1)]
    last = len(grid)
    grid += [
        ["Running points (end)"] + [""] * players,
        ["Pips deducted"] + [""] * players,
        ["Final score"] + [""] * players,
        ["Rank"] + [""] * players,
    ]
    return [
        Spacer(1, 2 * mm),
        Paragraph(
            f"Hand sizes (F-02), tiles each (stock): {players} players hold {hand} tiles each, "
            f"{stock} in the stock.",
            styles["Normal"],
        ),
        table,
        Spacer(1, 3 * mm),
        Paragraph(spec.sheet_rule(options), styles["Normal"]),
        Spacer(1, 2 * mm),
        _grid(grid, [36 * mm] + [(width - 36 * mm) / players] * players, [last]),
    ]


def _pair_tally(spec: GameSpec, options: Any, labels: list[str], rows: int) -> list[Any]:
    styles = getSampleStyleSheet()
    pairs = [" + ".join(labels[s] for s in pair) for pair in spec.teams(len(labels))]
    grid: list[list[Any]] = [["Hand", f"Pair A: {pairs[0]}", f"Pair B: {pairs[1]}", "Pips counted"]]
    grid += [[str(i), "", "", ""] for i in range(1, rows + 1)]
    last = len(grid)
    grid += [["Total", "", "", ""], ["Result", "", "", ""]]
    return [
        Paragraph(spec.sheet_rule(options), styles["Normal"]),
        Spacer(1, 2 * mm),
        _grid(grid, [20 * mm, 60 * mm, 60 * mm, 30 * mm], [last]),
    ]


def _hands(spec: GameSpec, options: Any, labels: list[str], rows: int) -> list[Any]:
    styles = getSampleStyleSheet()
    players = len(labels)
    width = A4[0] - 28 * mm - 20 * mm
    grid: list[list[Any]] = [["Hand", *labels]]
    grid += [[str(i)] + [""] * players for i in range(1, rows + 1)]
    last = len(grid)
    grid += [["Total"] + [""] * players, ["Rank"] + [""] * players]
    return [
        Paragraph(
            f"{spec.sheet_rule(options)} Write each hand's points and the running total; the "
            f"first to {options.target} wins, the highest total ranks first.",
            styles["Normal"],
        ),
        Spacer(1, 2 * mm),
        _grid(grid, [20 * mm] + [width / players] * players, [last]),
    ]


def _one_hand(spec: GameSpec, options: Any, labels: list[str]) -> list[Any]:
    styles = getSampleStyleSheet()
    grid: list[list[Any]] = [["Player", "Went out", "Pips left", "Rank"]]
    grid += [[name, "", "", ""] for name in labels]
    return [
        Paragraph(spec.sheet_rule(options), styles["Normal"]),
        Spacer(1, 2 * mm),
        _grid(grid, [60 * mm, 30 * mm, 30 * mm, 20 * mm], []),
    ]
