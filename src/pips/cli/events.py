"""``pips event``: events, from a club evening to a championship (issue 22).

So far the draw: the players of an event to tables, round by round
(:mod:`pips.results.draws`).
"""

from __future__ import annotations

import random
import secrets
from typing import Annotated

import typer

from pips.cli.base import app, fail, game_help, out, parse_set, spec_for
from pips.core.errors import RuleError
from pips.i18n import _, explain
from pips.results.draws import allowed_sizes, draw_event, repeats

event = typer.Typer(
    help="Events: club evenings, cups and championships, drawn to tables.",
    no_args_is_help=True,
)
app.add_typer(event, name="event")

MOST_PLAYERS = 1000
"""More players than any event has: a guard against a typo."""

MOST_ROUNDS = 50


@event.command("draw")
def event_draw(
    game: Annotated[str, typer.Argument(help=game_help())],
    names: Annotated[
        str, typer.Option(help="The players, comma separated (names with umlauts welcome).")
    ] = "",
    players: Annotated[
        int | None, typer.Option(help="Or just how many players (named player 1, player 2 …).")
    ] = None,
    rounds: Annotated[int, typer.Option(help="Rounds to draw, 1 to 50.")] = 1,
    top: Annotated[
        str | None, typer.Option("--set", help="The set, where it decides the table sizes.")
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Draw again from this seed (default: a fresh one).")
    ] = None,
) -> None:
    """Draw the players of an event to tables for every round: tables of the sizes the
    game allows, as even as possible; byes when the players do not divide; seats by lot;
    and nobody meeting the same players again where the draw can help it."""
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
    if seed is None:
        seed = secrets.randbelow(2**31)
    drawn = draw_event(listed, rounds, allowed, random.Random(seed))
    out.print(
        _("{game}: {count} players, {rounds} round(s), seed {seed}").format(
            game=_(spec.title), count=len(listed), rounds=rounds, seed=seed
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
