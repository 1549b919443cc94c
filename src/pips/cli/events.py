"""``pips event``: events, from a club evening to a championship (issue 22).

The draw alone (``draw``, ``sheets``: no database, from a seed), and events kept in
the database (``create``, ``players``, ``withdraw``, ``round``, ``result``, ``show``,
``standings``, ``close``), what the event's page does (:mod:`pips.results.events`).
"""

from __future__ import annotations

import dataclasses
import random
import secrets
from pathlib import Path
from typing import Annotated

import typer

from pips import files, i18n
from pips.cli.base import (
    ForceOption,
    app,
    complete_game,
    fail,
    game_help,
    out,
    parse_set,
    save_or_stop,
    spec_for,
)
from pips.cli.event_service import account_id, called, event_service, show_event
from pips.cli.results import DatabaseOption
from pips.core.errors import RuleError
from pips.i18n import _, explain, ngettext, say
from pips.results.draws import RoundDraw, allowed_sizes, draw_event, repeats

event = typer.Typer(
    help="Events: club evenings, cups and championships: players, draws, results, standings.",
    no_args_is_help=True,
)
app.add_typer(event, name="event")

MOST_PLAYERS = 1000
"""More players than any event has: a guard against a typo."""

MOST_ROUNDS = 50


Names = Annotated[
    str, typer.Option(help="The players, comma separated (names with umlauts welcome).")
]
PlayerCount = Annotated[
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
    if len(listed) < min(allowed):
        fail(
            _("{count} players cannot sit at one table: {game} needs at least {least}").format(
                count=len(listed), game=_(spec.title), least=min(allowed)
            )
        )
    return draw_event(listed, rounds, allowed, random.Random(seed))


@event.command("draw")
def event_draw(
    game: Annotated[str, typer.Argument(help=game_help(), autocompletion=complete_game)],
    names: Names = "",
    players: PlayerCount = None,
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
        ngettext(
            "{game}: {count} players, {rounds} round, seed {seed}",
            "{game}: {count} players, {rounds} rounds, seed {seed}",
            rounds,
        ).format(game=_(spec_for(game).title), count=count, rounds=rounds, seed=seed),
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
    game: Annotated[str, typer.Argument(help=game_help(), autocompletion=complete_game)],
    seed: Annotated[int, typer.Option(help="The seed pips event draw printed.")],
    out_file: Annotated[Path, typer.Option("--out", help="Where to write the PDF.")],
    names: Names = "",
    players: PlayerCount = None,
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
    force: ForceOption = False,
) -> None:
    """Print a round of an event: for every table a card (round, table, the players in
    seat order) and its score sheet with the names filled in, in one PDF."""
    from pips.results.entry import EntryError
    from pips.results.entry_formats import parse_date
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
    files.write_bytes(out_file, pdf, force)
    out.print(
        ngettext(
            "wrote {file}: round {round}, {tables} table",
            "wrote {file}: round {round}, {tables} tables",
            len(drawn.tables),
        ).format(file=out_file, round=drawn.number, tables=len(drawn.tables))
    )


# -- an event kept in the database (the server's, or a club's own) ---------------------

OrganiserOption = Annotated[
    str,
    typer.Option(
        "--by",
        help="The organiser's account name: the group's representative, or an administrator.",
    ),
]
KeyArgument = Annotated[str, typer.Argument(help="The event's key (as in /events/KEY).")]


@event.command("create")
def event_create(
    name: Annotated[str, typer.Argument(help="The event's name.")],
    game: Annotated[str, typer.Option(help=game_help(), autocompletion=complete_game)],
    day: Annotated[str, typer.Option("--date", help="Its date, 2026-10-03 or 03.10.2026.")],
    by: OrganiserOption,
    rounds: Annotated[int, typer.Option(help="Rounds, 1 to 50.")] = 3,
    group: Annotated[str | None, typer.Option(help="The group's short name.")] = None,
    place: Annotated[str, typer.Option(help="Where it is played.")] = "",
    top: SetOption = None,
    online: Annotated[bool, typer.Option(help="Played at the server's tables.")] = False,
    bots: Annotated[bool, typer.Option(help="Online: bots for absent players.")] = False,
    fixed_pairs: Annotated[
        bool, typer.Option(help="A game of pairs with fixed partners (drawn as pairs).")
    ] = False,
    days: Annotated[
        str,
        typer.Option(
            help="A championship's days, comma separated (the rounds are spread over them)."
        ),
    ] = "",
    pairing: Annotated[
        str, typer.Option(help="Rounds after the first: lot (avoiding repeats) or swiss.")
    ] = "lot",
    tiebreak: Annotated[
        list[str] | None,
        typer.Option(
            help="A tie-break, in order; repeat the option: wins, average-place, buchholz, "
            "best-game, fewer-byes."
        ),
    ] = None,
    check_in: Annotated[
        bool, typer.Option("--check-in", help="Draw only players checked in.")
    ] = False,
    database: DatabaseOption = None,
) -> None:
    """Create an event: players, rounds and results follow with the other commands (or
    on its page, /events/KEY)."""
    from pips.results.entry import EntryError
    from pips.results.entry_formats import parse_date

    try:
        when = parse_date(day)
        schedule = [parse_date(d.strip()) for d in days.split(",") if d.strip()]
    except EntryError as exc:
        fail(explain(exc))
    service = event_service(database)
    options = {} if top is None else {"set": parse_set(top)}
    shown = called(
        service.events.create,
        account_id(service, by),
        name=name,
        game=game,
        played_on=when,
        rounds=rounds,
        options=options,
        place=place,
        group=group,
        online=online,
        bots=bots,
        fixed_pairs=fixed_pairs,
        days=schedule,
        pairing=pairing,
        tiebreaks=tiebreak or ("wins", "average-place"),
        check_in=check_in,
    )
    out.print(_("created {name}: key {key}").format(name=shown["name"], key=shown["key"]))


@event.command("players")
def event_players(
    key: KeyArgument,
    names: Annotated[
        str,
        typer.Argument(
            help="Players, comma separated; a pair as 'Anna & Ben'; a club as 'Anna;SC Kiel'."
        ),
    ],
    by: OrganiserOption,
    new: Annotated[
        str, typer.Option(help="Names that are new players though they look like known ones.")
    ] = "",
    database: DatabaseOption = None,
) -> None:
    """Add players (after the first draw: late arrivals, from the next round on)."""
    entries = [n.strip() for n in names.split(",") if n.strip()]
    listed = [n.split(";")[0].strip() for n in entries]
    clubs = {n.split(";")[0].strip(): n.split(";")[1].strip() for n in entries if ";" in n}
    pairs = [
        [p.strip() for p in n.replace("+", "&").split("&")] for n in listed if "&" in n or "+" in n
    ]
    single = [n for n in listed if "&" not in n and "+" not in n]
    service = event_service(database)
    shown = called(
        service.events.add_players,
        account_id(service, by),
        key,
        single,
        pairs=pairs,
        new_players=[n.strip() for n in new.split(",") if n.strip()],
        clubs=clubs,
    )
    out.print(_("{count} players").format(count=len(shown["players"])))


@event.command("withdraw")
def event_withdraw(
    key: KeyArgument,
    name: Annotated[str, typer.Argument(help="The player's name.")],
    by: OrganiserOption,
    database: DatabaseOption = None,
) -> None:
    """A player leaves the event: not drawn from the next round on."""
    from pips.core.names import name_key

    service = event_service(database)
    actor = account_id(service, by)
    shown = called(service.events.event, key, actor)
    found = [p for p in shown["players"] if name_key(p["name"]) == name_key(name)]
    if not found:
        fail(_("no player {name!r} in this event").format(name=name))
    called(service.events.withdraw_player, actor, key, found[0]["id"])
    out.print(_("{name} withdraws").format(name=found[0]["name"]))


@event.command("round")
def event_round(
    key: KeyArgument,
    by: OrganiserOption,
    method: Annotated[
        str | None, typer.Option(help="lot or swiss (the event's pairing if left out).")
    ] = None,
    top: SetOption = None,
    final: Annotated[
        int | None, typer.Option(help="Draw the final table of this many leaders instead.")
    ] = None,
    database: DatabaseOption = None,
) -> None:
    """Draw the next round (the round before must be over), or the final table."""
    service = event_service(database)
    shown = called(
        service.rounds.draw_next,
        account_id(service, by),
        key,
        method=method,
        top=None if top is None else parse_set(top),
        final=final,
    )
    show_event(shown)


@event.command("seed")
def event_seed(
    key: KeyArgument,
    by: OrganiserOption,
    order: Annotated[
        str,
        typer.Argument(help="Names, the strongest first, comma separated; empty: the world list."),
    ] = "",
    database: DatabaseOption = None,
) -> None:
    """Seed the players before the first round: the top seeds sit at different tables."""
    service = event_service(database)
    names = [n.strip() for n in order.split(",") if n.strip()] or None
    shown = called(service.events.seed, account_id(service, by), key, names)
    seeded = sorted((p for p in shown["players"] if p["seed"]), key=lambda p: p["seed"])
    for p in seeded:
        out.print(f"{p['seed']:>3}  {p['name']}")


@event.command("check-in")
def event_check_in(
    key: KeyArgument,
    names: Annotated[str, typer.Argument(help="Players here, comma separated.")],
    by: OrganiserOption,
    undo: Annotated[bool, typer.Option(help="Mark them not here.")] = False,
    database: DatabaseOption = None,
) -> None:
    """Check players in (an event with a check-in draws only those)."""
    from pips.core.names import name_key

    service = event_service(database)
    actor = account_id(service, by)
    shown = called(service.events.event, key)
    ids = {name_key(p["name"]): p["id"] for p in shown["players"]}
    for name in [n.strip() for n in names.split(",") if n.strip()]:
        if name_key(name) not in ids:
            fail(_("{name} is not a player of this event").format(name=name))
        shown = called(service.events.check_in, actor, key, ids[name_key(name)], not undo)
    here = sum(1 for p in shown["players"] if p["checked_in"])
    out.print(_("{count} of {total} checked in").format(count=here, total=len(shown["players"])))


@event.command("result")
def event_result(
    key: KeyArgument,
    round_number: Annotated[int, typer.Argument(help="The round.")],
    table: Annotated[int, typer.Argument(help="The table.")],
    lines: Annotated[
        str,
        typer.Argument(
            help="Per player NAME:POINTS:PIPS, comma separated; add :out for who went out."
        ),
    ],
    by: Annotated[
        str, typer.Option("--by", help="Your account (a player there, or the organiser).")
    ],
    reason: Annotated[str, typer.Option(help="Why a result is corrected.")] = "",
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Save without asking (after the checks).")
    ] = False,
    database: DatabaseOption = None,
) -> None:
    """Enter (or correct) a table's result: checked and shown first (a correction
    beside the result it replaces, anything unusual), saved when you say so."""
    from pips.results.entry import Line

    parsed = []
    for part in lines.split(","):
        fields = [f.strip() for f in part.split(":")]
        if len(fields) not in (2, 3, 4) or not fields[0]:
            fail(_("{text!r} is not NAME:POINTS:PIPS").format(text=part.strip()))
        try:
            numbers = [int(f) for f in fields[1:3]]
        except ValueError:
            fail(_("{text!r} is not NAME:POINTS:PIPS").format(text=part.strip()))
        parsed.append(
            Line(fields[0], numbers[0], numbers[1] if len(numbers) > 1 else 0, fields[-1] == "out")
        )
    service = event_service(database)
    actor = account_id(service, by)
    review = called(service.scores.preview, actor, key, round_number, table, parsed, reason=reason)
    before = review["before"] or [None] * len(review["players"])
    for line, old in zip(review["players"], before, strict=True):
        was = "" if old is None or old.get("final") == line["final"] else f" ({old.get('final')} →)"
        out.print(
            f"{line['name']}: {line['final']}{was} · "
            + _("place {place}").format(place=line["rank"]),
            markup=False,
        )
    for warning in review["warnings"]:
        out.print(f"[yellow]⚠ {say(warning)}[/yellow]")
    if not yes:
        save_or_stop()
    shown = called(
        service.scores.enter,
        actor,
        key,
        round_number,
        table,
        parsed,
        reason=reason,
        source="cli",
    )
    show_event(shown)


@event.command("show")
def event_show(key: KeyArgument, database: DatabaseOption = None) -> None:
    """The event: its rounds, tables, results and standings."""
    show_event(called(event_service(database).events.event, key))


@event.command("standings")
def event_standings(
    key: KeyArgument,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write CSV (.csv) or PDF (.pdf) instead.")
    ] = None,
    database: DatabaseOption = None,
    force: ForceOption = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON (see docs/cli.md).")
    ] = False,
) -> None:
    """The standings so far, shown or written as CSV or PDF."""
    from pips.results.listings import standings_sheet
    from pips.results.standings_table import standings_csv

    shown, lines = called(event_service(database).events.event_standings, key)
    if as_json:
        out.print_json(
            data={
                "event": shown["key"],
                "name": shown["name"],
                "game": shown["game"],
                "scoring": str(shown["scoring"]),
                "standings": [dataclasses.asdict(line) for line in lines],
            }
        )
    elif out_file is None:
        show_event(shown)
    if out_file is None:
        return
    if out_file.suffix.lower() == ".pdf":
        data = standings_sheet(shown, lines)
    else:
        data = standings_csv(shown, lines).encode()
    files.write_bytes(out_file, data, force)
    out.print(_("wrote {file}").format(file=out_file))


@event.command("close")
def event_close(key: KeyArgument, by: OrganiserOption, database: DatabaseOption = None) -> None:
    """Close the event: its games become results for the world list."""
    service = event_service(database)
    shown = called(service.closing.close, account_id(service, by), key)
    out.print(_("{name} is closed: its games are results").format(name=shown["name"]))
