"""An event's standings as organisers know them from chess-results, in the reader's
language, for the PDF, the CSV and the page alike (issue 50, item 5):

- a player's line: place, name, club, points, every tie-break the organiser chose in
  the order chosen, games, and marks (late from round N, withdrew after round N,
  final table: place N);
- the club and team standings (each group's best players' points);
- a subtitle that counts the rounds played without the final table ("after round 7
  of 7 · final table") and names every day of the event.

Built from the event as :func:`pips.results.events.shown.event_json` shows it and its
:class:`~pips.results.standings.Standing` lines: pure, no database, no paper.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from pips import i18n
from pips.core.phrase import N_
from pips.i18n import _
from pips.results.standings import (
    DEFAULT_TIEBREAKS,
    TIEBREAKS,
    Scoring,
    Standing,
    as_at_four,
)

TIEBREAK_HEADS: dict[str, str] = {
    "wins": N_("Wins"),
    "average-place": N_("avg. place"),
    "buchholz": N_("Buchholz"),
    "best-game": N_("Best game"),
    "fewer-byes": N_("Byes"),
}
"""A tie-break's column head (:data:`pips.results.standings.TIEBREAKS`)."""


@dataclass(frozen=True)
class Marks:
    """What a player's line says besides the numbers."""

    late_from: int | None = None
    withdrew_after: int | None = None
    final_place: int | None = None

    def said(self) -> str:
        """The marks in words of the current language, ``; ``-joined."""
        parts = []
        if self.final_place is not None:
            parts.append(_("final table: place {place}").format(place=self.final_place))
        if self.late_from is not None:
            parts.append(_("late, from round {round}").format(round=self.late_from))
        if self.withdrew_after is not None:
            parts.append(
                _("withdrew after round {round}").format(round=self.withdrew_after)
                if self.withdrew_after
                else _("withdrew before round 1")
            )
        return "; ".join(parts)


def marks_of(shown: Mapping[str, Any], line: Standing) -> Marks:
    """A player's marks from the event's JSON (its players) and their line."""
    player = next((p for p in shown["players"] if p["name"] == line.name), None)
    if player is None:
        return Marks(final_place=line.final_place)
    late = player["first_round"] if player["first_round"] and player["first_round"] > 1 else None
    withdrawn = player["withdrawn_from"]
    return Marks(late, None if withdrawn is None else withdrawn - 1, line.final_place)


def tiebreak_cell(line: Standing, rule: str) -> str:
    """A tie-break's value on a player's line, as the reader writes numbers."""
    if rule == "wins":
        return str(line.wins)
    if rule == "average-place":
        return i18n.decimal(line.average_place, 2) if line.games else "—"
    if rule == "buchholz":
        return str(line.buchholz)
    if rule == "best-game":
        return str(line.best) if line.games else "—"
    return str(line.byes)


@dataclass(frozen=True)
class StandingsTable:
    """The standings as rows of words, in the language they were made in."""

    heads: list[str]
    rows: list[list[str]]
    names: list[str]
    """Each row's player (for the paper's name cells)."""
    numeric: list[int]
    """The columns of figures (aligned right on paper)."""
    finalists: int
    """The first rows: the final table's players, ranked by their places there."""


def standings_table(shown: Mapping[str, Any], lines: Sequence[Standing]) -> StandingsTable:
    """The players' standings in the current language: place, name, club, points,
    the chosen tie-breaks, games, marks."""
    rules = [r for r in shown.get("tiebreaks") or DEFAULT_TIEBREAKS if r in TIEBREAK_HEADS]
    match = shown.get("scoring") == Scoring.MATCH_WINS
    points = _("Match points") if match else _("Points")
    heads = [_("Rank"), _("Player"), _("Club"), points]
    heads += [_(TIEBREAK_HEADS[r]) for r in rules]
    heads += [_("Games"), _("Notes")]
    clubs = {p["name"]: p.get("club") or "" for p in shown["players"]}
    rows = []
    for line in lines:
        row = [str(line.place), line.name, clubs.get(line.name, ""), str(line.points)]
        row += [tiebreak_cell(line, r) for r in rules]
        row += [str(line.games), marks_of(shown, line).said()]
        rows.append(row)
    numeric = [0, 3, *range(4, 4 + len(rules)), 4 + len(rules)]
    finalists = sum(1 for line in lines if line.final_place is not None)
    return StandingsTable(heads, rows, [s.name for s in lines], numeric, finalists)


def group_table(groups: Sequence[Mapping[str, Any]], counted: int, head: str) -> StandingsTable:
    """Club or team standings (``groups`` as the event's JSON has them) in the
    current language: place, the club or team, its points, players, who counted."""
    heads = [_("Rank"), head, _("Points"), _("Players")]
    heads.append(_("counted: the best {count}").format(count=counted))
    rows = [
        [
            str(g["place"]),
            str(g["name"]),
            str(g["points"]),
            str(g["players"]),
            ", ".join(g["counted"]),
        ]
        for g in groups
    ]
    return StandingsTable(heads, rows, [str(g["name"]) for g in groups], [0, 2, 3], 0)


def rounds_played(shown: Mapping[str, Any]) -> int:
    """The rounds played (closed) or drawn, the final table not counted."""
    return sum(1 for one in shown["drawn"] if one["method"] != "final")


def standings_subtitle(shown: Mapping[str, Any], game: str) -> str:
    """ "FIDO divisor game · 03.10.2026 and 04.10.2026 · Büdelsdorf · after round 7 of
    7 · final table": the game, every day, the place, and how far the event is (the
    final table is not a round)."""
    days = sorted(set(shown.get("schedule") or []) or {shown["date"]})
    said = [i18n.numeric_date(date.fromisoformat(day)) for day in days]
    if len(said) == 1:
        when = said[0]
    elif len(said) == 2:
        when = _("{first} and {second}").format(first=said[0], second=said[1])
    else:
        when = _("{first} to {last}").format(first=said[0], last=said[-1])
    progress = _("after round {played} of {rounds}").format(
        played=rounds_played(shown), rounds=shown["rounds"]
    )
    parts = [game, when, shown.get("place") or "", progress]
    if any(one["method"] == "final" for one in shown["drawn"]):
        parts.append(_("final table"))
    if shown.get("status") == "closed":
        parts.append(_("final standings"))
    return " · ".join(p for p in parts if p)


def final_explained(shown: Mapping[str, Any]) -> str:
    """Why the final table's players stand first (empty without a final table)."""
    final = next((one for one in shown["drawn"] if one["method"] == "final"), None)
    if final is None:
        return ""
    seats = sum(len(t["seats"]) for t in final["tables"])
    # A final table seats two at least (a draw's smallest table): one form is enough.
    return _(
        "The final table: its {count} players are ranked first, by their places at the "
        "final table, whatever their points; the points are those of the rounds before it."
    ).format(count=seats)


def ranking_explained(shown: Mapping[str, Any]) -> str:
    """How equal points are decided, in the order the organiser chose, and what the
    average place (Ø-Platz) is: a reader of the standings meets its figures (0,9; 4,1)
    without the rule behind them otherwise."""
    if shown.get("scoring") == Scoring.MATCH_WINS.value:
        return _("By matches won, then match points.")  # the organiser's tie-breaks unused
    rules = [r for r in shown.get("tiebreaks") or DEFAULT_TIEBREAKS if r in TIEBREAKS]
    said = [
        _("Equal points are decided by {rules}; equal in all, players share the place.").format(
            rules=_(", then ").join(_(TIEBREAKS[r]) for r in rules)
        )
    ]
    if "average-place" in rules:
        said.append(
            _(
                "{head}: the average place at the table, each place counted as at a table "
                "of four, so that tables of three, four and five compare (the first of five "
                "counts {first}, the last of five {last})."
            ).format(
                head=_(TIEBREAK_HEADS["average-place"]),
                first=i18n.decimal(as_at_four(1, 5), 1),
                last=i18n.decimal(as_at_four(5, 5), 1),
            )
        )
    return " ".join(said)


def standings_explained(shown: Mapping[str, Any]) -> str:
    """What a reader of the players' standings needs besides the table: why the final
    table's players stand first (where there is one), and how ties are decided."""
    return " ".join(part for part in (final_explained(shown), ranking_explained(shown)) if part)


def table_csv(table: StandingsTable) -> str:
    """A standings table as CSV for people, in the language it was made in: where the
    decimal sign is a comma (German), fields are separated by semicolons and the file
    starts with a byte-order mark, as a German spreadsheet expects; a name a
    spreadsheet would run as a formula is written as text."""
    import csv
    import io

    from pips.results.entry_formats import safe_cell

    comma = i18n.decimal(0.5, 1) == "0,5"
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";" if comma else ",", lineterminator="\n")
    writer.writerow(table.heads)
    for row in table.rows:
        # Figures as they are (a negative score is no formula); words made safe.
        writer.writerow(
            [cell if i in table.numeric else safe_cell(cell) for i, cell in enumerate(row)]
        )
    return ("\ufeff" if comma else "") + out.getvalue()


def standings_csv(
    shown: Mapping[str, Any],
    lines: Sequence[Standing],
    of: str = "players",
    language: str | None = None,
) -> str:
    """The event's standings as CSV in ``language`` (the current one when not given):
    of its players (``players``), its clubs (``clubs``) or its teams (``teams``)."""
    with i18n.speaking(language or i18n.current()):
        if of == "clubs":
            table = group_table(shown["clubs"], shown["counted"], _("Club"))
        elif of == "teams":
            table = group_table(shown["teams"], shown["counted"], _("Team"))
        else:
            table = standings_table(shown, lines)
        return table_csv(table)
