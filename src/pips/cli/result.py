"""``pips result``: a paper sheet's result typed in the terminal.

The last lines of a sheet (running points, pips left, who went out) are typed player by
player, or given as ``--line NAME:POINTS:PIPS[:out]``; the result is checked by the same
rules as the web form (:func:`pips.results.entry.check`), shown with its final scores,
places and anything unusual (:mod:`pips.results.plausible`), and saved only when the
person typing says yes. A name that may be a known player is asked about, as on the
web form: which player is meant, or a new one.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer
from rich.table import Table

from pips.cli.base import (
    app,
    complete_game,
    fail,
    game_help,
    out,
    parse_set,
    save_or_stop,
    yes_or_no,
)
from pips.cli.results import DatabaseOption, results_service
from pips.i18n import _, explain, numeric_date, say
from pips.store.ids import row_id

ByOption = Annotated[str, typer.Option("--by", help="Your account: the result is entered by it.")]


@app.command("result")
def result(
    game: Annotated[str, typer.Argument(help=game_help(), autocompletion=complete_game)],
    by: ByOption,
    day: Annotated[
        str, typer.Option("--date", help="When it was played: 03.10.2026 or 2026-10-03.")
    ],
    top: Annotated[
        str | None,
        typer.Option("--set", help="The set: 12 or double-12 (the game's default if left out)."),
    ] = None,
    players: Annotated[
        int | None, typer.Option(help="How many players (asked for when typing the lines).")
    ] = None,
    lines: Annotated[
        list[str] | None,
        typer.Option(
            "--line",
            help="A player's line NAME:POINTS:PIPS, with :out for who went out; once per "
            "player in seat order. Without it the lines are asked for.",
        ),
    ] = None,
    place: Annotated[str, typer.Option(help="Where it was played.")] = "",
    group: Annotated[
        str | None, typer.Option(help="The group (club) it is entered for, by its address.")
    ] = None,
    target: Annotated[
        int | None, typer.Option(help="The match target, where the game has one.")
    ] = None,
    new: Annotated[
        list[str] | None,
        typer.Option("--new", help="A name that is a new player though it looks known."),
    ] = None,
    known: Annotated[
        list[str] | None,
        typer.Option("--known", help="NAME=NUMBER: the known player a name means."),
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Save without asking (after the checks).")
    ] = False,
    database: DatabaseOption = None,
) -> None:
    """Enter a game played at a real table from its score sheet."""
    from pips.core.errors import RuleError
    from pips.games.registry import find_game
    from pips.results.entry import Entry, EntryError, check, default_set
    from pips.results.entry_formats import parse_date
    from pips.results.players import UnknownPlayers
    from pips.results.service import ResultsError

    try:
        spec = find_game(game)
    except RuleError as exc:
        fail(explain(exc))
    try:
        played_on = parse_date(day)
    except EntryError as exc:
        fail(explain(exc))
    typing = lines is None
    if typing and not sys.stdin.isatty():
        fail(_("give the lines with --line NAME:POINTS:PIPS (or run it in a terminal)"))
    given = [_parse_line(text) for text in lines] if lines else _ask_lines(spec, players)
    count = len(given)
    chosen_set = parse_set(top) if top is not None else default_set(spec.name, count)
    service = results_service(database)
    actor = _account(service, by)
    entry = Entry(spec.name, played_on, chosen_set, tuple(given), place.strip(), target)
    try:
        checked = check(entry, service.context.today())
    except EntryError as exc:
        fail(explain(exc))
    _show(checked)
    new_players = list(new or [])
    known_players = _known(known or [])

    def enter(save: bool) -> Any:
        return service.entries.enter(
            actor,
            [checked],
            source="cli",
            group=group,
            new_players=new_players,
            known_players=known_players,
            save=save,
        )

    while True:
        try:
            entered = enter(save=False)
            break
        except UnknownPlayers as exc:
            if not typing:
                fail(explain(exc))
            _choose(exc.candidates, new_players, known_players)
        except (ResultsError, EntryError) as exc:
            fail(explain(exc))
    if entered.new_players:
        out.print(_("New players: {names}.").format(names=", ".join(entered.new_players)))
    if not yes:
        save_or_stop()
    try:
        saved = enter(save=True)
    except (ResultsError, EntryError) as exc:
        fail(explain(exc))
    shown = service.register.result(saved.ids[0])
    out.print(_("Saved as result {id}.").format(id=saved.ids[0]))
    if shown["why_not"]:
        out.print(say(shown["why_not"]))


def _parse_line(text: str) -> Any:
    from pips.results.entry import Line

    fields = [f.strip() for f in text.split(":")]
    out_flag = len(fields) > 1 and fields[-1].lower() in ("out", "raus", "x")
    numbers = fields[1:-1] if out_flag else fields[1:]
    if not fields[0] or len(numbers) > 2:
        fail(_("{text!r} is not NAME:POINTS:PIPS").format(text=text))
    try:
        values = [int(n) for n in numbers]
    except ValueError:
        fail(_("{text!r} is not NAME:POINTS:PIPS").format(text=text))
    values += [0] * (2 - len(values))
    return Line(fields[0], values[0], values[1], out_flag)


def _ask_lines(spec: Any, players: int | None) -> list[Any]:
    from pips.results.entry import Line

    count = players or typer.prompt(_("How many players"), type=int)
    if count not in spec.player_counts:
        fail(
            _("{count} players: the game is played by {choices}").format(
                count=count, choices=", ".join(str(n) for n in spec.player_counts)
            )
        )
    columns = spec.entry
    given = []
    for seat in range(1, count + 1):
        out.print(_("Seat {number}").format(number=seat))
        name = typer.prompt(_("  name")).strip()
        points = typer.prompt(f"  {say(columns.points)}", type=int) if columns.points else 0
        pips = typer.prompt(_("  pips left"), type=int) if columns.pips else 0
        went_out = (
            yes_or_no(_("  went out?"), default=pips == 0) if columns.out and pips == 0 else False
        )
        given.append(Line(name, points, pips, went_out))
    return given


def _show(checked: Any) -> None:
    from pips.games.registry import find_game
    from pips.results.plausible import unusual

    spec = find_game(checked.entry.game)
    columns = spec.entry
    table = Table(
        title=_("{game}, double-{top}, {date}").format(
            game=say(spec.title),
            top=checked.entry.top,
            date=numeric_date(checked.entry.played_on),
        )
    )
    table.add_column(_("seat"), justify="right")
    table.add_column(_("player"))
    if columns.points:
        table.add_column(say(columns.points), justify="right")
    if columns.pips:
        table.add_column(_("pips left"), justify="right")
    if columns.out:
        table.add_column(_("went out"))
    table.add_column(_("final"), justify="right")
    table.add_column(_("place"), justify="right")
    for seat, line in enumerate(checked.entry.lines):
        row = [str(seat + 1), line.name]
        if columns.points:
            row.append(str(line.points))
        if columns.pips:
            row.append(str(line.pips))
        if columns.out:
            row.append("x" if line.out else "")
        row += [str(checked.final[seat]), str(checked.ranks[seat])]
        table.add_row(*row)
    out.print(table)
    for warning in unusual(checked):
        out.print(f"[yellow]⚠ {say(warning)}[/yellow]")


def _known(given: list[str]) -> dict[str, int]:
    found = {}
    for text in given:
        name, equals, number = text.rpartition("=")
        player = row_id(number.strip())
        if not equals or not name.strip() or player is None:
            fail(_("--known {text!r} is not NAME=NUMBER").format(text=text))
        found[name.strip()] = player
    return found


def _choose(
    candidates: dict[str, list[dict[str, Any]]],
    new_players: list[str],
    known_players: dict[str, int],
) -> None:
    """Ask which known player each name means (or a new one)."""
    for name, known in candidates.items():
        out.print(_("{name!r} may be a player pips already knows:").format(name=name))
        for number, candidate in enumerate(known, 1):
            where = f" ({candidate['group']})" if candidate["group"] else ""
            last = (
                _("last game {date}").format(date=candidate["last_game"])
                if candidate["last_game"]
                else _("no game yet")
            )
            out.print(f"  {number}) {candidate['name']}{where}, {last}")
        out.print("  n) " + _("{name} is a new player").format(name=name))
        answer = typer.prompt(_("Which one"), default="1").strip().lower()
        if answer == "n":
            new_players.append(name)
        elif answer.isascii() and answer.isdigit() and 1 <= int(answer) <= len(known):
            known_players[name] = int(known[int(answer) - 1]["id"])
        else:
            fail(_("{answer!r} is none of the choices").format(answer=answer))


def _account(service: Any, name: str) -> int:
    from pips.cli.event_service import account_id as account

    return account(service, name)
