"""The events' JSON API (``/api/events``): making an event, its players, rounds, results
and closing."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request, Response

from pips.results.entry import EntryError
from pips.server.errors import refusals
from pips.server.requests import Strict
from pips.server.responses.events import (
    ClosingReviewed,
    EventListed,
    EventSanctioned,
    EventShown,
    ResultsWaitFor,
    RoundCsvReviewed,
    TableChecked,
    TableScore,
)
from pips.server.responses.register import ResultsConfirmed
from pips.server.routes.common import (
    CSV_BODY,
    answer_json,
    limits_of,
    refund,
    refused,
    results_of,
    run,
)
from pips.server.routes.events.common import (
    CheckInBody,
    DrawBody,
    Key,
    NewEvent,
    NewPlayers,
    PlayerId,
    RoundNumber,
    SeedsBody,
    StartBody,
    TableNumber,
    TableResultBody,
    TableSetBody,
    count_new_event,
    create_event_of,
    enter_csv,
    round_csv_games,
    start_online_round,
    table_lines_of_body,
    warnings_said,
)
from pips.server.web import account, changes_nothing, check_csrf, viewer

api = APIRouter()


@api.get("/api/events", tags=["events"])
async def list_events(request: Request) -> list[EventListed]:
    """The latest events; an event's ``key`` (its address) only to those who act on it
    (its organiser, an administrator, its players), else ``null``."""
    listed = await run(results_of(request).events.listing, viewer(request))
    return [EventListed.model_validate(e) for e in listed]


@api.post("/api/events", tags=["events"], status_code=201, responses=refusals(404, 409, 429))
async def create_event(request: Request, body: NewEvent) -> EventShown:
    """Create an event: a group's representative (for the group) or an administrator."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    await count_new_event(request, actor)
    try:
        made = await run(create_event_of, results_of(request), actor, body)
    except HTTPException:
        # Refused (not this group's, a name taken): it spends none of the rate.
        await refund(request, limits_of(request).events, str(actor))
        raise
    return EventShown.model_validate(made)


@api.get("/api/events/{key}", tags=["events"], responses=refusals(404), response_model=EventShown)
async def get_event(request: Request, key: Key) -> Response:
    """The event: players, rounds, tables with results, standings."""
    # Read, checked against its model and written as JSON in the reads' thread: for a
    # thousand players a third of a megabyte, which on the event loop held every
    # table's moves back while it was made (hostile review: a table's p90 went from 9
    # to 134 ms under thirty anonymous readers).
    body = await run(
        answer_json, EventShown, results_of(request).events.event, key, viewer(request)
    )
    return Response(body, media_type="application/json")


@api.post("/api/events/{key}/players", tags=["events"], responses=refusals(404, 409))
async def add_players(request: Request, key: Key, body: NewPlayers) -> EventShown:
    """Add players; after the first draw they are late arrivals (from the next round)."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return EventShown.model_validate(
        await run(
            results_of(request).events.add_players,
            actor,
            key,
            body.names,
            pairs=body.pairs,
            new_players=body.new_players,
            known_players=body.known_players,
            clubs=body.clubs,
            teams=body.teams,
        )
    )


@api.post(
    "/api/events/{key}/players/{player}/withdraw", tags=["events"], responses=refusals(404, 409)
)
async def withdraw(request: Request, key: Key, player: PlayerId) -> EventShown:
    """A player withdraws: not drawn from the next round on."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return EventShown.model_validate(
        await run(results_of(request).events.withdraw_player, actor, key, player)
    )


@api.post(
    "/api/events/{key}/rounds", tags=["events"], status_code=201, responses=refusals(404, 409)
)
async def draw_round(request: Request, key: Key, body: DrawBody | None = None) -> EventShown:
    """Draw the next round (the one before must be over): by lot or by the standings
    (``method``), with a ``set`` for its tables, or the ``final`` table."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    body = body or DrawBody()
    return EventShown.model_validate(
        await run(
            results_of(request).rounds.draw_next,
            actor,
            key,
            method=body.method,
            top=body.set,
            final=body.final,
        )
    )


@api.post("/api/events/{key}/seeds", tags=["events"], responses=refusals(404, 409))
async def seed_players(request: Request, key: Key, body: SeedsBody) -> EventShown:
    """Seed the players before the first round (the top seeds sit apart)."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return EventShown.model_validate(
        await run(results_of(request).events.seed, actor, key, body.order)
    )


@api.post("/api/events/{key}/players/{player}/accept", tags=["events"], responses=refusals(404))
async def accept(request: Request, key: Key, player: PlayerId) -> EventShown:
    """The signed-in account accepts to play the event as its player ``player`` (its
    own: an online event seats only accounts that accepted)."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return EventShown.model_validate(
        await run(results_of(request).events.accept, actor, key, player)
    )


@api.post(
    "/api/events/{key}/players/{player}/check-in", tags=["events"], responses=refusals(404, 409)
)
async def check_in(
    request: Request, key: Key, player: PlayerId, body: CheckInBody | None = None
) -> EventShown:
    """Check a player in (or out, ``present`` false)."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    present = True if body is None else body.present
    return EventShown.model_validate(
        await run(results_of(request).events.check_in, actor, key, player, present)
    )


@api.post(
    "/api/events/{key}/rounds/{number}/tables/{table}/set",
    tags=["events"],
    responses=refusals(404, 409),
)
async def table_set(
    request: Request, key: Key, number: RoundNumber, table: TableNumber, body: TableSetBody
) -> EventShown:
    """Play a table with another set (before it has a result)."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return EventShown.model_validate(
        await run(results_of(request).rounds.set_table, actor, key, number, table, body.set)
    )


@api.post("/api/events/{key}/rounds/{number}/redraw", tags=["events"], responses=refusals(404, 409))
async def redraw_round(request: Request, key: Key, number: RoundNumber) -> EventShown:
    """Draw the last round again while none of its tables has begun."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return EventShown.model_validate(
        await run(results_of(request).rounds.redraw, actor, key, number)
    )


@api.post("/api/events/{key}/rounds/{number}/start", tags=["events"], responses=refusals(404, 409))
async def start_round(
    request: Request, key: Key, number: RoundNumber, body: StartBody | None = None
) -> EventShown:
    """Start an online round: its tables open on this server with the drawn seats."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return EventShown.model_validate(
        await start_online_round(request, actor, key, number, body.absent if body else [])
    )


@api.post(
    "/api/events/{key}/rounds/{number}/tables/{table}",
    tags=["events"],
    responses=refusals(404, 409),
)
async def enter_table(
    request: Request, key: Key, number: RoundNumber, table: TableNumber, body: TableResultBody
) -> EventShown:
    """Enter a table's result (a correction needs ``reason``)."""
    actor, lines = table_lines_of_body(request, body)
    return EventShown.model_validate(
        await run(
            results_of(request).scores.enter,
            actor,
            key,
            number,
            table,
            lines,
            reason=body.reason,
            source="api",
        )
    )


@api.post(
    "/api/events/{key}/rounds/{number}/tables/{table}/check",
    tags=["events"],
    responses=refusals(404, 409),
)
@changes_nothing
async def check_table(
    request: Request, key: Key, number: RoundNumber, table: TableNumber, body: TableResultBody
) -> TableChecked:
    """What entering this result would save, without saving it: the lines as they
    would count, the lines a correction replaces (``before``, lined up with
    ``players``), the fields each line changes, and warnings about what looks unusual
    for a game of this size (check the sheet)."""
    actor, lines = table_lines_of_body(request, body)
    review = await run(
        results_of(request).scores.preview,
        actor,
        key,
        number,
        table,
        lines,
        reason=body.reason,
    )
    return TableChecked.model_validate(warnings_said(review))


@api.get(
    "/api/events/{key}/rounds/{number}/tables/{table}", tags=["events"], responses=refusals(404)
)
async def table_history(
    request: Request, key: Key, number: RoundNumber, table: TableNumber
) -> list[TableScore]:
    """Every result entered for a table, with corrections and their reasons."""
    found = await run(results_of(request).scores.history, key, number, table)
    return [TableScore.model_validate(score) for score in found]


@api.post(
    "/api/events/{key}/rounds/{number}/csv",
    tags=["events"],
    responses=refusals(404, 409, 429, 503),
    openapi_extra=CSV_BODY,
)
async def enter_round_csv(
    request: Request,
    key: Key,
    number: RoundNumber,
    reason: Annotated[str, Query(max_length=500)] = "",
    check: bool = False,
) -> EventShown | RoundCsvReviewed:
    """A round's results as a results CSV body (each game goes to the table of its
    players); all or none. With ``check`` nothing is saved: the tables the games go
    to, their lines and warnings about what looks unusual, to review first."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    try:
        games = await round_csv_games(request, await request.body())
    except EntryError as exc:
        raise refused(exc) from None
    done = await run(
        enter_csv, results_of(request), actor, key, number, games, reason, save=not check
    )
    if check:
        tables = [warnings_said(drawn) for drawn in done["tables"]]
        return RoundCsvReviewed.model_validate({"tables": tables})
    return EventShown.model_validate(done)


@api.post("/api/events/{key}/close", tags=["events"], responses=refusals(404, 409))
async def close_event(
    request: Request, key: Key, check: bool = False
) -> EventShown | ClosingReviewed:
    """Close the event: its games become results for the world list. With ``check``
    nothing changes: how many results closing makes, how many count at once, and
    whose word the others wait for (per person who can act)."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    done = await run(results_of(request).closing.close, actor, key, save=not check)
    return ClosingReviewed.model_validate(done) if check else EventShown.model_validate(done)


class SaveBody(Strict):
    """``save`` false (the default): only show what would change (the review)."""

    save: bool = False


class SanctionBody(SaveBody):
    sanction: bool = True


@api.get("/api/events/{key}/waiting", tags=["events"], responses=refusals(404))
async def event_waiting(request: Request, key: Key) -> list[ResultsWaitFor]:
    """What the event's results wait for, per person who can act: each club's
    representative (for their players' results), each player (their own line), an
    administrator (what nobody else can confirm); with how many results each."""
    return [
        ResultsWaitFor.model_validate(w)
        for w in await run(results_of(request).reviews.waiting_at, key)
    ]


@api.post("/api/events/{key}/confirm", tags=["events"], responses=refusals(404, 409))
async def confirm_event(
    request: Request, key: Key, body: SaveBody | None = None
) -> ResultsConfirmed:
    """Confirm, in one step, every result of the event the signed-in account's word
    adds to (a club's representative: their players' results, agreeing to the players
    the organiser named as the club's). Without ``save`` nothing changes: the results
    that would be confirmed and whether each would count (the review)."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    save = body.save if body else False
    confirm = results_of(request).reviews.confirm_all
    return ResultsConfirmed.model_validate(await run(confirm, actor, event=key, save=save))


@api.post("/api/events/{key}/sanction", tags=["events"], responses=refusals(404, 409))
async def sanction_event(
    request: Request, key: Key, body: SanctionBody | None = None
) -> EventSanctioned:
    """An administrator sanctions the event (a federation's championship): its tables'
    results then count whoever plays; ``sanction`` false takes it back. Without
    ``save`` nothing changes: how many results would count (the review)."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    body = body or SanctionBody()
    return EventSanctioned.model_validate(
        await run(
            results_of(request).reviews.sanction,
            actor,
            key,
            sanction=body.sanction,
            save=body.save,
        )
    )
