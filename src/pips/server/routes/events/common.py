"""What the event routes share: the shapes of paths and bodies, and the steps the JSON
API and the pages both take (an event made, a table's result read, an online round
started, what a page shows)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import HTTPException, Path, Request
from fastapi.responses import HTMLResponse
from pydantic import Field, StringConstraints

from pips.core.errors import RuleError
from pips.core.names import name_key
from pips.games.registry import find_game
from pips.i18n import _, ngettext, say
from pips.results.entry import Checked, EntryError, Line
from pips.results.entry_formats import parse_date, parse_int
from pips.results.service import Results, ResultsError, slugify
from pips.results.standings import TIEBREAKS
from pips.results.standings_table import ranking_explained
from pips.server.accounts.identity import Identity
from pips.server.errors import refusal
from pips.server.requests import Name, OptionsJson, ResultLine, Strict
from pips.server.round import SeatHolder
from pips.server.routes.common import (
    BodyRowId,
    limits_of,
    read_upload,
    results_of,
    room_for_a_table,
    run,
    spend,
    tables_of,
)
from pips.server.routes.events.decisions import waits_said
from pips.server.tables import TableError
from pips.server.web import account, check_csrf, page, viewer, who
from pips.store.ids import MAX_ID

MAX_UPLOAD = 500_000
"""Bytes of a round's results CSV (a championship round of 250 tables is a tenth)."""


MAX_NAMES = 1000


Key = Annotated[str, Path(min_length=8, max_length=24, pattern=r"^[A-Za-z0-9_-]+$")]


RoundNumber = Annotated[int, Path(ge=1, le=50)]


MOST_TABLES = 1000
"""Tables of a round."""


TableNumber = Annotated[int, Path(ge=1, le=MOST_TABLES)]


PlayerId = Annotated[int, Path(ge=1, le=MAX_ID)]


ClubsApart = Literal["off", "normal", "strong", "strict"]
"""The organiser's setting for club-mates at one table (:data:`pips.results.draws.CLUBS_APART`)."""


class NewEvent(Strict):
    """An event to create (see docs/events.md)."""

    name: str = Field(max_length=80)
    """At most as long as the service keeps it (``pips.results.events.book``: 2 to 80
    characters), a longer one refused here as ``body.name``; a too short one is the
    service's to refuse (a refused creation still counts against the rate)."""
    game: str = Field(max_length=40)
    date: str = Field(max_length=20)
    rounds: int = Field(ge=1, le=50)
    options: OptionsJson = Field(default_factory=dict)
    place: str = Field("", max_length=200)
    group: str | None = Field(None, max_length=60)
    online: bool = False
    bots: bool = False
    fixed_pairs: bool = False
    days: list[Annotated[str, StringConstraints(max_length=20)]] = Field(default=[], max_length=50)
    """The days of an event over several: its rounds are spread over them."""
    pairing: Literal["lot", "swiss"] = "lot"
    """How the rounds after the first are drawn: by lot, or by the standings."""
    tiebreaks: list[Annotated[str, StringConstraints(max_length=20)]] = Field(
        default=["wins", "average-place"], max_length=5
    )
    """Equal points decided by these, in order (docs/events.md)."""
    check_in: bool = False
    """Draw only players checked in."""
    counted: int = Field(default=3, ge=1, le=20)
    """A club's or team's best players whose points make its standing."""
    clubs_apart: ClubsApart = "normal"
    """How strongly the draws keep club-mates apart (docs/events.md)."""


class DrawBody(Strict):
    """How to draw the next round: ``method`` (the event's pairing when not given),
    ``set`` for its tables, or ``final``: the final table of that many leaders."""

    method: Literal["lot", "swiss"] | None = None
    set: int | None = Field(default=None, ge=6, le=18)
    final: int | None = Field(default=None, ge=2, le=9)


class SeedsBody(Strict):
    """Seeds in ``order`` (names, the strongest first), or by the newest world list
    when ``order`` is not given."""

    order: list[Name] | None = Field(None, max_length=MAX_NAMES)


class CheckInBody(Strict):
    present: bool = True


class TableSetBody(Strict):
    set: int = Field(ge=6, le=18)


class NewPlayers(Strict):
    """Players to add (or, with fixed partners, pairs); ``new_players``: names that are
    new players though they look like known ones."""

    names: list[Name] = Field([], max_length=MAX_NAMES)
    pairs: list[list[Name]] = Field([], max_length=MAX_NAMES // 2)
    new_players: list[Name] = Field([], max_length=MAX_NAMES)
    known_players: dict[Name, BodyRowId] = Field({}, max_length=MAX_NAMES)
    """Names given the known player meant (their number, from the question)."""
    clubs: dict[Name, Annotated[str, StringConstraints(max_length=80)]] = Field(
        {}, max_length=MAX_NAMES
    )
    """The club each player plays for (else the group they are a player of)."""
    teams: dict[Name, Annotated[str, StringConstraints(max_length=80)]] = Field(
        {}, max_length=MAX_NAMES
    )


class TableResultBody(Strict):
    """A table's result: a line per player (any order); ``reason`` for a correction."""

    players: list[ResultLine] = Field(max_length=9)
    reason: str = Field("", max_length=500)


class StartBody(Strict):
    """Start an online round; ``absent``: players a bot plays for (if the event allows)."""

    absent: list[Name] = Field([], max_length=MAX_NAMES)


async def confirm_withdrawal(request: Request, key: str, player: int) -> HTMLResponse:
    """Withdrawing a player is asked twice: it cannot be taken back."""
    shown = await run(results_of(request).events.event, key, viewer(request))
    found = next((p for p in shown["players"] if p["id"] == player), None)
    if found is None:
        raise HTTPException(404, _("no such player"))
    first = len(shown["drawn"]) + 1
    return page(
        request,
        "confirm.html",
        question=_("Withdraw {name} from the event?").format(name=found["name"]),
        consequences=[
            _(
                "{name} is not drawn from round {number} on; the games played so far stay "
                "and the standings mark the withdrawal. This cannot be taken back (a "
                "player who comes back is added again as a late arrival)."
            ).format(name=found["name"], number=first)
        ],
        answer=_("Withdraw {name}").format(name=found["name"]),
        action=f"/events/{key}/withdraw",
        fields={"player": player},
        back=f"/events/{key}",
    )


async def confirm_closing(request: Request, key: str, actor: int) -> HTMLResponse:
    """Closing an event is asked twice, saying what it will do: how many results it
    makes, how many count at once, and whose word the others wait for (closing is
    tried and undone to find out: the page promises only what then happens)."""
    shown = await run(results_of(request).events.event, key, viewer(request))
    summary = await run(results_of(request).closing.close, actor, key, save=False)
    made, counting = summary["results"], summary["counting"]
    lines = [
        ngettext(
            "Its tables' games become {count} result.",
            "Its tables' games become {count} results.",
            made,
        ).format(count=made),
        # German has no zero form: "0 davon zählen sofort" read badly.
        ngettext(
            "{count} of them counts for the world list at once.",
            "{count} of them count for the world list at once.",
            counting,
        ).format(count=counting)
        if counting
        else _("None of them counts for the world list at once."),
    ]
    lines += waits_said(summary["waiting"])
    if summary["kept"]:
        lines.append(
            ngettext(
                "{count} game was entered before outside this event, by someone its word "
                "does not cover: that result is kept beside the event's, and the game "
                "counts once.",
                "{count} games were entered before outside this event, by someone its "
                "word does not cover: those results are kept beside the event's, and each "
                "game counts once.",
                summary["kept"],
            ).format(count=summary["kept"])
        )
    lines.append(
        _(
            "A closed event changes no more: no players, rounds or corrections. A "
            "wrong result is then withdrawn or disputed like any other. This cannot "
            "be undone."
        )
    )
    return page(
        request,
        "confirm.html",
        question=_("Close {name}?").format(name=shown["name"]),
        consequences=lines,
        answer=_("Close the event"),
        action=f"/events/{key}/close",
        fields={},
        back=f"/events/{key}",
    )


async def count_new_event(request: Request, actor: int) -> None:
    await spend(request, limits_of(request).events, str(actor))


def create_event_of(results: Results, actor: int, body: NewEvent) -> dict[str, Any]:
    return results.events.create(
        actor,
        name=body.name,
        game=body.game,
        played_on=parse_date(body.date),
        rounds=body.rounds,
        options=body.options,
        place=body.place,
        group=body.group,
        online=body.online,
        bots=body.bots,
        fixed_pairs=body.fixed_pairs,
        days=[parse_date(day) for day in body.days],
        pairing=body.pairing,
        tiebreaks=body.tiebreaks,
        check_in=body.check_in,
        counted=body.counted,
        clubs_apart=body.clubs_apart,
    )


def table_lines_of_body(request: Request, body: TableResultBody) -> tuple[int, list[Line]]:
    """Who sends a table's result (an account, with the session's token), and its
    lines."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return actor, [item.line() for item in body.players]


async def round_csv_games(request: Request, body: bytes | str) -> list[Checked]:
    """The games of a round's results CSV, checked (:class:`EntryError` naming the
    line): at most :data:`MAX_UPLOAD` bytes, and a game per table at most."""
    if len(body) > MAX_UPLOAD:
        raise EntryError(_("a round's CSV is at most 500 kB"))
    return await read_upload(request, body, MOST_TABLES)


def enter_csv(
    results: Results,
    actor: int,
    key: str,
    number: int,
    games: list[Checked],
    reason: str,
    *,
    save: bool = True,
) -> dict[str, Any]:
    return results.scores.enter_csv(actor, key, number, games, reason, save=save)


def table_lines(game: str, seats: list[str], values: dict[str, Any]) -> list[Line]:
    """A table form's lines. A blank field is refused, not taken as 0 (a correction
    form opens filled, so a blank is a field somebody emptied); only the pips of the
    player who went out may be left blank, being 0 by the rules."""
    spec = find_game(game)
    pairs = spec.teams(len(seats))
    lines = []
    for seat, name in enumerate(seats):
        # Partners share their pair's points: the form asks for them once.
        first = next((team[0] for team in pairs if seat in team), seat)
        points = values["points"][first] if spec.entry.points else "0"
        pips = values["pips"][seat] if spec.entry.pips else "0"
        if pips == "" and values["out"] == str(seat):
            pips = "0"
        for value, what in ((points, _("points")), (pips, _("pips left"))):
            if value == "":
                raise EntryError(
                    _("{name}: {what} is empty — write 0 if it is 0").format(name=name, what=what)
                )
        lines.append(
            Line(
                name,
                parse_int(points, _("{name}: points").format(name=name)),
                parse_int(pips, _("{name}: pips").format(name=name)),
                values["out"] == str(seat),
            )
        )
    return lines


def fingerprint_of(values: dict[str, Any]) -> str:
    """What a review showed, so that saving saves exactly that."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:24]


def clubs_and_teams(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """The clubs and teams of a players' list: "Name; Club" or "Name; Club; Team"."""
    clubs: dict[str, str] = {}
    teams: dict[str, str] = {}
    for line in text.splitlines()[:MAX_NAMES]:
        parts = [part.strip() for part in line.split(";")]
        if len(parts) > 1 and parts[0]:
            clubs[parts[0]] = parts[1][:80]
        if len(parts) > 2 and parts[0]:
            teams[parts[0]] = parts[2][:80]
    return clubs, teams


def names_and_pairs(text: str) -> tuple[list[str], list[list[str]]]:
    """Players one per line (or comma-separated, without clubs); a pair as "Anna &
    Ben"; a club and a team after the name: "Anna Berg; SC Kiel; Kiel 1"."""
    names: list[str] = []
    pairs: list[list[str]] = []
    lines = (
        [line.split(";")[0] for line in text.splitlines()]
        if ";" in text
        else text.replace(",", "\n").splitlines()
    )
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if "&" in line or "+" in line:
            pairs.append([part.strip() for part in line.replace("+", "&").split("&")])
        else:
            names.append(line)
    return names[:MAX_NAMES], pairs[: MAX_NAMES // 2]


def warnings_said(found: dict[str, Any]) -> dict[str, Any]:
    """``found`` (a table's entry checked) with its warnings in the reader's words."""
    return {**found, "warnings": [say(w) for w in found["warnings"]]}


def seats_of(shown: dict[str, Any], number: int, table: int) -> list[str]:
    for one in shown["drawn"]:
        if one["number"] == number:
            for drawn in one["tables"]:
                if drawn["number"] == table:
                    return list(drawn["seats"])
    raise HTTPException(404, _("no such table"))


def file_name(shown: dict[str, Any]) -> str:
    """A file name for the event's exports: its name as an address keeps it (umlauts
    spelled out, "Clubabend Neumühle" is clubabend-neumuehle)."""
    return slugify(shown["name"]) or "event"


async def start_online_round(
    request: Request, actor: int, key: str, number: int, absent: list[str]
) -> dict[str, Any]:
    """Open an online round's tables on this server, seats as drawn; if a table cannot
    be opened the round is left to be started again."""
    results = results_of(request)
    tables = tables_of(request)
    me = who(request)
    assert me is not None
    shown = await run(results.events.event, key, actor)
    # The round's tables count as one new table of the organiser's (their tables at
    # once, their address's new tables), and a round opens so many at most.
    await room_for_a_table(request, me)
    seats = await run(
        results.rounds.start_online,
        actor,
        key,
        number,
        absent,
        most_tables=limits_of(request).online_round_tables,
    )
    made: dict[int, str] = {}
    spec = find_game(shown["game"])
    try:
        for table, holders in seats.items():
            try:
                # The event keeps its options but the number of players, which is each
                # table's: read here, where they come out of the database.
                options = spec.options_from_json({**shown["options"], "players": len(holders)})
            except RuleError as exc:
                raise TableError.of(exc, "options") from None
            live = await tables.create(
                spec,
                options,
                [
                    SeatHolder("person", s.name, s.user_id)
                    if s.bot is None
                    else SeatHolder("bot", s.name, s.user_id, None, s.bot)
                    for s in holders
                ],
                Identity(user_id=actor, name=me.name),
                capped=False,  # the organiser's bots play for the absent, at every table
            )
            made[table] = live.id
        done = await run(results.rounds.started_online, key, number, made)
    except (TableError, ResultsError) as exc:
        await run(results.rounds.failed_online, key, number)
        raise refusal(exc, 422) from None
    for table_id in made.values():
        await tables.live[table_id].start_if_ready()
    return dict(done)


async def events_listing(
    request: Request,
    *,
    error: str | None = None,
    form: dict[str, str] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    results = results_of(request)
    me = viewer(request)
    mine = [] if me is None else await run(results.groups.listing, me)
    return page(
        request,
        "events.html",
        status_code=status_code,
        events=await run(results.events.listing, me),
        my_groups=mine,
        error=error,
        form=form or {},
        today=results.context.today().isoformat(),
        tiebreaks=TIEBREAKS,
    )


async def event_shown(
    request: Request,
    key: str,
    *,
    error: str | None = None,
    asked: dict[str, list[dict[str, Any]]] | None = None,
    names: str = "",
    csv_review: dict[str, Any] | None = None,
    saved: tuple[int, int] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    results = results_of(request)
    me = viewer(request)
    shown = await run(results.events.event, key, me)
    return page(
        request,
        "event.html",
        status_code=status_code,
        event=shown,
        waits=waits_said(shown["waiting"]),
        signed_in=me is not None,
        is_admin=await run(results.admin.is_admin, me),
        face=find_game(shown["game"]),
        error=error,
        asked=asked or {},
        names=names,
        csv_review=csv_review,
        saved=saved,
        ranking=ranking_explained(shown),
        ids={p["name"]: p["id"] for p in shown["players"]},
        drawn_names={
            name
            for one in shown["drawn"]
            for name in [*(n for t in one["tables"] for n in t["seats"]), *one["byes"]]
        },
    )


async def table_shown(
    request: Request,
    key: str,
    number: int,
    table: int,
    *,
    error: str | None = None,
    values: dict[str, Any] | None = None,
    review: dict[str, Any] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    results = results_of(request)
    shown = await run(results.events.event, key, viewer(request))
    seats = seats_of(shown, number, table)
    history = await run(results.scores.history, key, number, table)
    found = next(
        drawn
        for one in shown["drawn"]
        if one["number"] == number
        for drawn in one["tables"]
        if drawn["number"] == table
    )
    round_status = next(one["status"] for one in shown["drawn"] if one["number"] == number)
    spec = find_game(shown["game"])
    if values is None and found["result"]:
        # A correction starts from the result as it stands, not from empty fields.
        values = values_of(seats, found["result"]["players"])
    return page(
        request,
        "event_table.html",
        status_code=status_code,
        event=shown,
        number=number,
        table=found,
        seats=seats,
        round_status=round_status,
        face=spec,
        partners={seat: team[0] for team in spec.teams(len(seats)) for seat in team},
        history=history,
        error=error,
        values=values or {},
        review=review,
        reviewed=fingerprint_of(values) if review and values else "",
        warnings=[say(w) for w in review["warnings"]] if review else [],
    )


def values_of(seats: list[str], players: list[dict[str, Any]]) -> dict[str, Any]:
    """A table form's fields filled with a result's lines."""
    by_name = {name_key(str(line["name"])): line for line in players}
    lines = [by_name.get(name_key(name), {}) for name in seats]
    out = next((str(seat) for seat, line in enumerate(lines) if line.get("out")), "")
    return {
        "points": [str(line.get("points", "")) for line in lines],
        "pips": [str(line.get("pips", "")) for line in lines],
        "out": out,
        "reason": "",
    }
