"""``pips event``: events, from a club evening to a championship (issue 22).

So far the draw (the players of an event to tables, round by round:
:mod:`pips.results.draws`) and a round's table cards and score sheets in one PDF.
"""

from __future__ import annotations

import random
import secrets
from pathlib import Path
from typing import Annotated

import typer

from pips import i18n
from pips.cli.base import app, fail, game_help, out, parse_set, spec_for
from pips.core.errors import RuleError
from pips.i18n import _, explain
from pips.results.draws import RoundDraw, allowed_sizes, draw_event, repeats

event = typer.Typer(
    help="Events: club evenings, cups and championships, drawn to tables.",
    no_args_is_help=True,
)
app.add_typer(event, name="event")

MOST_PLAYERS = 1000
"""More players than any event has: a guard against a typo."""

MOST_ROUNDS = 50


Names = Annotated[
    str, typer.Option(help="The players, comma separated (names with umlauts welcome).")
]
Players = Annotated[
    int | None, typer.Option(help="Or just how many players (named player 1, player 2 …).")
]
SetOption = Annotated[
    str | None, typer.Option("--set", help="The set, where it decides the table sizes.")
]


def _drawn(
    game: str, names: str, players: int | None, rounds: int, top: str | None, seed: int
) -> list[RoundDraw]:
    """The event's rounds drawn from ``seed``; bad input ends the command in one line."""
    spec = spec_for(game)
    listed = [n.strip() for n in names.split(",") if n.strip()]
    if listed and players is not None and players != len(listed):
        fail(
            _("--players says {count} but --names lists {listed}").format(
                count=players, listed=len(listed)
            )
        )
    if not listed:
        if players is None:
            fail(_("name the players with --names, or give --players"))
        if not 1 <= players <= MOST_PLAYERS:
            fail(_("--players must be 1 to {most}").format(most=MOST_PLAYERS))
        listed = [_("player {number}").format(number=i + 1) for i in range(players)]
    if len(set(listed)) != len(listed):
        fail(_("a name is listed twice"))
    if not 1 <= rounds <= MOST_ROUNDS:
        fail(_("--rounds must be 1 to {most}").format(most=MOST_ROUNDS))
    options = {} if top is None else {"set": parse_set(top)}
    try:
        allowed = allowed_sizes(spec, options)
    except RuleError as exc:
        fail(explain(exc))
    return draw_event(listed, rounds, allowed, random.Random(seed))


@event.command("draw")
def event_draw(
    game: Annotated[str, typer.Argument(help=game_help())],
    names: Names = "",
    players: Players = None,
    rounds: Annotated[int, typer.Option(help="Rounds to draw, 1 to 50.")] = 1,
    top: SetOption = None,
    seed: Annotated[
        int | None, typer.Option(help="Draw again from this seed (default: a fresh one).")
    ] = None,
) -> None:
    """Draw the players of an event to tables for every round: tables of the sizes the
    game allows, as even as possible; byes when the players do not divide; seats by lot;
    and nobody meeting the same players again where the draw can help it."""
    if seed is None:
        seed = secrets.randbelow(2**31)
    drawn = _drawn(game, names, players, rounds, top, seed)
    count = sum(len(t.seats) for t in drawn[0].tables) + len(drawn[0].byes)
    out.print(
        _("{game}: {count} players, {rounds} round(s), seed {seed}").format(
            game=_(spec_for(game).title), count=count, rounds=rounds, seed=seed
        ),
        markup=False,
    )
    for one in drawn:
        heading = _("Round {number}").format(number=one.number)
        out.print(f"\n[bold]{heading}[/bold]")
        for table in one.tables:
            out.print(
                _("Table {number}: {players}").format(
                    number=table.number, players=", ".join(table.seats)
                ),
                markup=False,
            )
        if one.byes:
            out.print(_("Sits out: {players}").format(players=", ".join(one.byes)), markup=False)
        if not one.tables:
            out.print(_("No table can be seated."), markup=False)
    out.print(
        "\n"
        + _("Players meeting again: {count} (the same seed draws the same tables)").format(
            count=repeats(drawn)
        ),
        markup=False,
    )


@event.command("sheets")
def event_sheets(
    game: Annotated[str, typer.Argument(help=game_help())],
    seed: Annotated[int, typer.Option(help="The seed pips event draw printed.")],
    out_file: Annotated[Path, typer.Option("--out", help="Where to write the PDF.")],
    names: Names = "",
    players: Players = None,
    round_number: Annotated[int, typer.Option("--round", help="The round, from 1.")] = 1,
    top: SetOption = None,
    place: Annotated[str, typer.Option(help="Print the place (blank to write in).")] = "",
    day: Annotated[
        str | None,
        typer.Option("--date", help="Print the date, 2026-10-03 or 03.10.2026."),
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option("--lang", help="The sheets' language: en or de (default: the command's)."),
    ] = None,
) -> None:
    """Print a round of an event: for every table a card (round, table, the players in
    seat order) and its score sheet with the names filled in, in one PDF."""
    from pips.results.entry import EntryError, parse_date
    from pips.results.sheet import SheetError, round_sheets

    if not 1 <= round_number <= MOST_ROUNDS:
        fail(_("--round must be 1 to {most}").format(most=MOST_ROUNDS))
    drawn = _drawn(game, names, players, round_number, top, seed)[-1]
    when = None
    if day:
        try:
            when = parse_date(day)
        except EntryError:
            fail(_("--date {text!r} is not a date (2026-10-03 or 03.10.2026)").format(text=day))
    try:
        language = i18n.supported(lang) if lang else None
        pdf = round_sheets(
            spec_for(game).name,
            drawn,
            None if top is None else parse_set(top),
            place=place[:80],
            day=when,
            language=language,
        )
    except (ValueError, SheetError) as exc:
        fail(explain(exc))
    try:
        out_file.write_bytes(pdf)
    except OSError as exc:
        fail(_("cannot write {file}: {problem}").format(file=out_file, problem=exc.strerror))
    out.print(
        _("wrote {file}: round {round}, {tables} table(s)").format(
            file=out_file, round=drawn.number, tables=len(drawn.tables)
        )
    )
