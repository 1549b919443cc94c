"""``pips sheet`` and ``pips ranking``: score sheets and the world list."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from pips import files, i18n
from pips.cli.base import ForceOption, app, complete_game, err, fail, game_help, out, parse_set
from pips.i18n import _, decimal, explain, say


@app.command()
def sheet(
    game: Annotated[str, typer.Argument(help=game_help(), autocompletion=complete_game)],
    players: Annotated[int, typer.Option(help="Number of players.")],
    out_file: Annotated[Path, typer.Option("--out", help="Where to write the PDF.")],
    top: Annotated[
        str | None,
        typer.Option("--set", help="The set: 12 or double-12 (the game's default if left out)."),
    ] = None,
    place: Annotated[str, typer.Option(help="Print the place (blank to write in).")] = "",
    day: Annotated[
        str | None,
        typer.Option(
            "--date", help="Print the date, 2026-10-03 or 03.10.2026 (blank to write in)."
        ),
    ] = None,
    names: Annotated[str, typer.Option(help="Players' names in seat order, comma separated.")] = "",
    rows: Annotated[
        int | None,
        typer.Option(
            help="Rows for scoring plays or hands (4 to 120; FIDO: enough for 99 games in 100)."
        ),
    ] = None,
    target: Annotated[
        int | None, typer.Option(help="The match target, where the game has one (e.g. 50).")
    ] = None,
    group: Annotated[str, typer.Option(help="Print the group (blank to write in).")] = "",
    lang: Annotated[
        str | None,
        typer.Option("--lang", help="The sheet's language: en or de (default: the command's)."),
    ] = None,
    force: ForceOption = False,
) -> None:
    """Make a printable score sheet (PDF) for a game at a real table."""
    from pips.results.entry import EntryError
    from pips.results.entry_formats import parse_date
    from pips.results.sheet import SheetError, score_sheet

    if rows is not None and not 4 <= rows <= 120:
        fail(_("--rows must be 4 to 120"))
    if target is not None and not 1 <= target <= 10_000:
        fail(_("--target must be 1 to 10000"))
    try:
        when = parse_date(day) if day else None
    except EntryError:
        fail(_("--date {text!r} is not a date (2026-10-03 or 03.10.2026)").format(text=day))
    try:
        language = i18n.supported(lang) if lang else None
    except ValueError as exc:
        fail(explain(exc))
    try:
        pdf = score_sheet(
            game,
            players,
            None if top is None else parse_set(top),
            names=[n for n in names.split(",")] if names else (),
            place=place,
            day=when,
            rows=rows,
            target=target,
            group=group[:60],
            language=language,
        )
    except SheetError as exc:
        fail(explain(exc))
    files.write_bytes(out_file, pdf, force)
    out.print(_("wrote {file} ({size} bytes)").format(file=out_file, size=len(pdf)))


ranking = typer.Typer(
    help="The world list (the pips rating): compute a month, export a month's results.",
    no_args_is_help=True,
)
app.add_typer(ranking, name="ranking")

DatabaseOption = Annotated[
    str | None,
    typer.Option(
        "--database", help="Database URL (default $PIPS_DATABASE_URL, else SQLite in $PIPS_HOME)."
    ),
]


def results_service(database: str | None, half_life: float | None = None) -> Any:
    from pips.results.rating import RatingSettings
    from pips.results.service import Results, settings_from_env
    from pips.store.db import Database

    try:
        settings = settings_from_env() if half_life is None else RatingSettings(half_life)
    except ValueError as exc:
        fail(explain(exc))
    try:
        db = Database(database)
        db.upgrade()
    except Exception as exc:  # a malformed URL, a missing driver, no server
        fail(_("cannot use database {url!r}: {problem}").format(url=database, problem=exc))
    return Results(db, settings=settings)


def last_month() -> str:
    today = datetime.now(UTC).date()
    return f"{today.year - (today.month == 1):04d}-{(today.month - 2) % 12 + 1:02d}"


@ranking.command("compute")
def ranking_compute(
    month: Annotated[
        str | None, typer.Option(help="The month, YYYY-MM (default: last month).")
    ] = None,
    database: DatabaseOption = None,
    half_life: Annotated[
        float | None,
        typer.Option(
            help="Days after which a game weighs half (default $PIPS_RATING_HALF_LIFE or 365)."
        ),
    ] = None,
    preview: Annotated[bool, typer.Option(help="Compute and show, but do not publish.")] = False,
    top: Annotated[int, typer.Option(help="Places to show per game (1 to 500).")] = 10,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON (see docs/cli.md).")
    ] = False,
) -> None:
    """Compute and publish a month's world lists from every result known at its end
    (a month is published once; published lists never change)."""
    from pips.results.service import ResultsError

    if not 1 <= top <= 500:
        fail(_("--top must be 1 to 500"))
    service = results_service(database, half_life)
    chosen = month or last_month()
    with err.status(_("computing the lists of {month}").format(month=chosen)):
        try:
            lists = service.lists.compute_month(chosen, publish=not preview, top=top)
            why = service.lists.explain_month(chosen)
        except ResultsError as exc:
            fail(explain(exc))
    if as_json:
        out.print_json(
            data={
                "month": chosen,
                "published": not preview,
                "lists": lists,
                "explanation": [say(line) for line in why],
            },
            default=str,
        )
        return
    if not lists:
        out.print(
            _(
                "{month}: no confirmed results to rate up to the month's end; nothing published"
            ).format(month=chosen)
        )
    for summary in lists:
        late = _(", {count} of them late").format(count=summary["late"]) if summary["late"] else ""
        game_title = summary["title"]
        title = _("{game} {month}: {players} players, {games} games ({new} new{late})").format(
            game=_(game_title),
            month=chosen,
            players=summary["players"],
            games=summary["games"],
            new=summary["new"],
            late=late,
        )
        table = Table(title=title + (_(" (preview)") if preview else _(" (published)")))
        for column, heading in (
            ("place", _("place")),
            ("player", _("player")),
            ("pips rating", _("pips rating")),
            ("games", _("games")),
        ):
            table.add_column(heading, justify="left" if column == "player" else "right")
        for row in summary["top"]:
            table.add_row(str(row["place"]), row["name"], decimal(row["rating"]), str(row["games"]))
        out.print(table)
    for line in why:
        out.print(say(line), markup=False, soft_wrap=True)


@ranking.command("export")
def ranking_export(
    month: Annotated[
        str | None, typer.Option(help="The month, YYYY-MM (default: last month).")
    ] = None,
    group: Annotated[
        str | None, typer.Option(help="Only this group's results (its short name).")
    ] = None,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write here instead of standard output.")
    ] = None,
    database: DatabaseOption = None,
    force: ForceOption = False,
) -> None:
    """Write a month's results as CSV: date, set, divisor, players in seat order,
    running score, pips deducted, final score and rank (SPEC F-25). A published month:
    exactly the results its lists counted for the first time; else those that count."""
    from pips.results.service import ResultsError

    service = results_service(database)
    try:
        text = service.register.export(month or last_month(), group, i18n.current())
    except ResultsError as exc:
        fail(explain(exc))
    if out_file is None:
        sys.stdout.write(text)
        return
    files.write_bytes(out_file, text.encode("utf-8"), force)
    err.print(_("wrote {file} ({count} rows)").format(file=out_file, count=text.count("\n") - 1))


admin = typer.Typer(
    help="Site administration: administrators, approved groups, players, flagged results.",
    no_args_is_help=True,
)
app.add_typer(admin, name="admin")

ByOption = Annotated[
    str, typer.Option("--by", help="The administrator's account name (kept with the action).")
]


def _as_admin(service: Any, name: str) -> int:
    from sqlalchemy import select

    from pips.core.names import name_key
    from pips.store.models import User

    with service.db.session() as session:
        user = session.scalars(select(User).where(User.name_key == name_key(name))).first()
        if user is None or not user.admin:
            fail(_("{name!r} is not an administrator (pips admin grant NAME)").format(name=name))
        return int(user.id)


def _admin_call(function: Any, *args: Any, **kwargs: Any) -> Any:
    from pips.results.service import ResultsError

    try:
        return function(*args, **kwargs)
    except ResultsError as exc:
        fail(explain(exc))


@admin.command("grant")
def admin_grant(
    name: Annotated[str, typer.Argument(help="The account's name.")],
    database: DatabaseOption = None,
) -> None:
    """Make an account an administrator (only here, on the server's machine)."""
    _set_admin(name, database, True)


@admin.command("revoke")
def admin_revoke(
    name: Annotated[str, typer.Argument(help="The account's name.")],
    database: DatabaseOption = None,
) -> None:
    """Take the administrator role back."""
    _set_admin(name, database, False)


def _set_admin(name: str, database: str | None, admin: bool) -> None:
    done = _admin_call(results_service(database).admin.set_admin, name, admin)
    said = _("{name} is an administrator") if admin else _("{name} is no longer an administrator")
    out.print(said.format(name=done["name"]), markup=False)


@admin.command("unlock")
def admin_unlock(
    name: Annotated[str, typer.Argument(help="The account's name.")],
    database: DatabaseOption = None,
) -> None:
    """Forget every wrong password for an account's name, so that nobody waits to sign
    in to it (after a guesser made every new browser wait)."""
    from pips.core.names import name_key
    from pips.server.accounts import DatabaseBook, Throttle

    service = results_service(database)
    Throttle(book=DatabaseBook(service.db)).unlock(name_key(name))
    out.print(_("{name} is unlocked").format(name=name), markup=False)


@admin.command("list")
def admin_list(database: DatabaseOption = None) -> None:
    """The administrators."""
    service = results_service(database)
    names = service.admin.admins()
    out.print("\n".join(names) if names else _("no administrators"), markup=False)


@admin.command("approve")
def admin_approve(
    group: Annotated[str, typer.Argument(help="The group's short name (as in /groups/NAME).")],
    by: ByOption,
    withdraw: Annotated[bool, typer.Option(help="Withdraw the approval instead.")] = False,
    database: DatabaseOption = None,
) -> None:
    """Approve a group: its representative's word then confirms its results."""
    service = results_service(database)
    done = _admin_call(service.admin.approve_group, _as_admin(service, by), group, not withdraw)
    state = _("approved") if done["approved"] else _("not approved")
    out.print(f"{done['name']}: {state}", markup=False)


@admin.command("merge")
def admin_merge(
    player: Annotated[int, typer.Argument(help="The player (number) to merge away.")],
    into: Annotated[int, typer.Argument(help="The player (number) it is.")],
    by: ByOption,
    database: DatabaseOption = None,
) -> None:
    """Merge two players who are one person."""
    service = results_service(database)
    done = _admin_call(service.claims.merge, _as_admin(service, by), player, into)
    out.print(
        _("player {player} is now {name} (player {into})").format(
            player=player, name=done["name"], into=into
        ),
        markup=False,
    )


@admin.command("clear")
def admin_clear(
    results: Annotated[list[int], typer.Argument(help="Results (numbers) held by a flag.")],
    by: ByOption,
    database: DatabaseOption = None,
) -> None:
    """Let results held by a flag count (after looking at them)."""
    service = results_service(database)
    actor = _as_admin(service, by)
    for result in results:
        _admin_call(service.reviews.review, actor, result, "clear", "cleared on the command line")
    out.print(_("cleared {count} result(s)").format(count=len(results)))


@admin.command("waiting")
def admin_waiting(by: ByOption, database: DatabaseOption = None) -> None:
    """What waits for an administrator: disputes, flagged results, groups, claims."""
    service = results_service(database)
    actor = _as_admin(service, by)
    waiting = _admin_call(service.admin.waiting, actor)
    claims = service.claims.waiting(actor)
    result = _("result {id} ({game}, {date}): {why}")
    out.print(_("disputes: {count}").format(count=len(waiting["disputed"])), markup=False)
    for r in waiting["disputed"]:
        said = result.format(id=r["id"], game=r["game"], date=r["date"], why=r["reason"])
        out.print("  " + said, markup=False)
    out.print(_("held by a flag: {count}").format(count=len(waiting["held"])), markup=False)
    for r in waiting["held"]:
        said = result.format(id=r["id"], game=r["game"], date=r["date"], why=r["flag"])
        out.print("  " + said, markup=False)
    out.print(_("groups not approved: {count}").format(count=len(waiting["groups"])), markup=False)
    for g in waiting["groups"]:
        out.print(f"  {g['slug']} ({g['name']}, {g['representative']})", markup=False)
    out.print(_("claims: {count}").format(count=len(claims)), markup=False)
    for p in claims:
        said = _("player {id} {name} claimed by {who}").format(
            id=p["id"], name=p["name"], who=p["claimed_by"]
        )
        out.print("  " + said, markup=False)


tokens = typer.Typer(
    help="Personal API tokens: a script's or a bot's way in as an account (docs/api.md).",
    no_args_is_help=True,
)
admin.add_typer(tokens, name="tokens")


def _token_service(database: str | None) -> tuple[Any, Any]:
    from pips.server.accounts.tokens import Tokens

    service = results_service(database)
    return service, Tokens(service.db)


def _account_named(service: Any, name: str) -> int:
    from sqlalchemy import select

    from pips.core.names import name_key
    from pips.store.models import User

    with service.db.session() as session:
        found = session.scalar(select(User.id).where(User.name_key == name_key(name)))
    if found is None:
        fail(_("no account named {name!r}").format(name=name))
    return int(found)


def _token_call(function: Any, *args: Any) -> Any:
    from pips.server.accounts import AccountError

    try:
        return function(*args)
    except AccountError as exc:
        fail(str(exc))


@tokens.command("create")
def tokens_create(
    name: Annotated[str, typer.Argument(help="The account's name.")],
    label: Annotated[
        str, typer.Option("--label", help="What the token is for (a club's script, a bot).")
    ],
    scope: Annotated[
        list[str],
        typer.Option("--scope", help="What it may do: read, results, play (repeatable)."),
    ],
    database: DatabaseOption = None,
) -> None:
    """Make a token for an account and print it: it is shown this once (only its
    digest is kept)."""
    service, made = _token_service(database)
    token, kept = _token_call(made.create, _account_named(service, name), label, scope)
    out.print(token, markup=False, soft_wrap=True)
    err.print(
        _("token {id} ({scopes}) for {name}: keep it now, it is not shown again").format(
            id=kept["id"], scopes=", ".join(kept["scopes"]), name=name
        ),
        markup=False,
    )


@tokens.command("list")
def tokens_list(
    name: Annotated[str, typer.Argument(help="The account's name.")],
    database: DatabaseOption = None,
) -> None:
    """An account's tokens: number, name, scopes, last use, revoked or not."""
    service, made = _token_service(database)
    found = made.listing(_account_named(service, name))
    if not found:
        out.print(_("no tokens"), markup=False)
    for token in found:
        used = token["used_at"].isoformat(" ", "minutes") if token["used_at"] else _("never")
        state = _("revoked") if token["revoked_at"] else _("live")
        out.print(
            f"{token['id']}  {token['shown']}  {token['label']}  "
            f"{' '.join(token['scopes'])}  {_('last used')} {used}  {state}",
            markup=False,
        )


@tokens.command("revoke")
def tokens_revoke(
    token_id: Annotated[int, typer.Argument(help="The token's number (pips admin tokens list).")],
    database: DatabaseOption = None,
) -> None:
    """Revoke a token at once, whoever's it is."""
    _service, made = _token_service(database)
    done = _token_call(made.revoke, token_id)
    out.print(_("token {id} ({label}) is revoked").format(id=done["id"], label=done["label"]))
