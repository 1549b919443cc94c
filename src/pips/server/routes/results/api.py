"""The results' JSON API (/api/results): check, enter (JSON, CSV), list, export, review."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import Field

from pips.i18n import current, say
from pips.results.entry import EntryError
from pips.results.service import Filter
from pips.server.errors import CsvResponse, refusals
from pips.server.requests import Comment, ResultStatus, Strict
from pips.server.responses import CsvEntered, ResultChecked, ResultsEntered
from pips.server.responses.register import (
    ResultsConfirmed,
    ResultsDecided,
    ResultShown,
    ResultsPage,
    ResultWaiting,
)
from pips.server.routes.common import (
    CSV_BODY,
    BodyRowId,
    Count,
    Month,
    Offset,
    RowId,
    address,
    limits_of,
    refused,
    results_of,
    run,
    spend,
)
from pips.server.routes.results.common import (
    ResultsBatch,
    Review,
    checked_all,
    csv_games,
    enter_csv_of,
    names_in,
    preview,
)
from pips.server.web import account, changes_nothing, check_csrf, viewer, who

api = APIRouter()


@api.post("/api/results/check", tags=["results"], responses=refusals(404, 409, 429))
@changes_nothing
async def check_results(request: Request, body: ResultsBatch) -> list[ResultChecked]:
    """Check results without saving them: each one's final scores and places. Open to
    anyone, so it is rate-limited per address and checked one batch at a time."""
    results = results_of(request)
    limits = limits_of(request)
    await spend(request, limits.checks, address(request))
    async with limits.checking:
        checked = await asyncio.to_thread(checked_all, results, body.results)
    me = who(request)
    # A result's number only to an account that may see it: never to the anonymous.
    await run(results.entries.duplicates, checked, None if me is None else me.user_id)
    new: list[str] = []
    if me is not None and me.user_id is not None:
        # Signed in: what entering would say of the names too, and of duplicates, in
        # one session.
        entered = await run(
            results.entries.enter,
            me.user_id,
            checked,
            source="api",
            group=body.group,
            new_players=body.new_players,
            known_players=body.known_players,
            save=False,
        )
        new = entered.new_players
    return [ResultChecked.model_validate(preview(c, new)) for c in checked]


@api.post("/api/results", tags=["results"], status_code=201, responses=refusals(404, 409))
async def enter_results(request: Request, body: ResultsBatch) -> ResultsEntered:
    """Enter finished games (all or none). Needs an account and ``X-CSRF-Token``."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    async with limits_of(request).checking:
        checked = await asyncio.to_thread(checked_all, results, body.results)
    entered = await run(
        results.entries.enter,
        actor,
        checked,
        source="api",
        group=body.group,
        new_players=body.new_players,
        known_players=body.known_players,
    )
    ids = entered.ids
    return ResultsEntered(
        ids=ids, urls=[f"/results/{i}" for i in ids], new_players=entered.new_players
    )


@api.post(
    "/api/results/csv",
    tags=["results"],
    status_code=201,
    responses=refusals(404, 409, 429, 503),
    openapi_extra=CSV_BODY,
)
async def enter_csv(
    request: Request, group: str | None = None, new_players: str = ""
) -> CsvEntered:
    """Enter the games of a CSV body (``text/csv``, the columns of ``pips ranking
    export``), all or none. ``new_players``: names, comma-separated, confirmed as new
    players though they look like known ones."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    try:
        games = await csv_games(request, await request.body())
    except EntryError as exc:
        raise refused(exc) from None
    entered = await run(enter_csv_of, results, actor, games, group, names_in(new_players))
    return CsvEntered(ids=entered.ids, new_players=entered.new_players)


@api.get("/api/results", tags=["results"], responses=refusals(404))
async def list_results(
    request: Request,
    group: str | None = None,
    game: str | None = None,
    month: Month | None = None,
    player: str | None = None,
    status: ResultStatus | None = None,
    limit: Count = 50,
    offset: Offset = 0,
) -> ResultsPage:
    """Results, newest game first, filtered by group, game, month, player or status."""
    results = results_of(request)
    rows, total = await run(
        results.register.listing,
        Filter(group, game, month, player, status, limit, offset),
        viewer(request),
    )
    return ResultsPage.model_validate({"total": total, "results": rows})


@api.get(
    "/api/results/export.csv", tags=["results"], responses=refusals(404), response_class=CsvResponse
)
async def export_csv(request: Request, month: Month, group: str | None = None) -> Response:
    """A month's counted results in the federation's fields (SPEC F-25)."""
    results = results_of(request)
    text = await run(results.register.export, month, group, current())
    name = f"pips-results-{month}{'-' + group if group else ''}.csv"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(text, media_type="text/csv", headers=headers)


@api.get("/api/results/waiting", tags=["results"], responses=refusals(404))
async def waiting_results(
    request: Request, event: Annotated[str | None, Query(max_length=24)] = None
) -> list[ResultWaiting]:
    """The results that wait on the signed-in account to count (of one ``event``, by
    its key), oldest first: its own lines to confirm, its approved group's results (as
    representative), and for an administrator every result nobody else can confirm
    and every dispute; with each one's age in days and why it is listed."""
    actor = account(request)
    found = await run(results_of(request).reviews.waiting, actor, 200, event)
    return [ResultWaiting.model_validate({**r, "why": say(r["why"])}) for r in found]


class ConfirmMany(Strict):
    """Results to confirm in one step; ``save`` false (the default) only shows what
    would change (the review)."""

    ids: list[BodyRowId] = Field(min_length=1, max_length=1000)
    save: bool = False


@api.post("/api/results/confirm", tags=["results"], responses=refusals(403, 404, 409))
async def confirm_results(request: Request, body: ConfirmMany) -> ResultsConfirmed:
    """Confirm many results at once (a representative's or an administrator's
    decisions), all or none: each as ``POST /api/results/ID/confirm`` would. Without
    ``save``: the results that would be confirmed and whether each would count."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    confirm = results_of(request).reviews.confirm_all
    return ResultsConfirmed.model_validate(await run(confirm, actor, body.ids, save=body.save))


class DecideMany(Strict):
    """Results to decide in one step: ``reject`` or ``uphold`` their disputes, or
    ``clear`` their flags; ``save`` false (the default) only shows what would become
    of each (the review)."""

    action: Literal["reject", "uphold", "clear"]
    ids: list[BodyRowId] = Field(min_length=1, max_length=1000)
    comment: Comment = ""
    save: bool = False


@api.post("/api/results/decide", tags=["results"], responses=refusals(403, 404, 409))
async def decide_results(request: Request, body: DecideMany) -> ResultsDecided:
    """Decide many results at once (an administrator's or a representative's
    decisions), all or none: each as ``POST /api/results/ID/ACTION`` would; one result
    the account may not decide, or that waits for no such decision, refuses the whole
    step. Without ``save``: the results and what each would become."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    decide = results_of(request).reviews.decide_all
    return ResultsDecided.model_validate(
        await run(decide, actor, body.action, body.ids, body.comment, save=body.save)
    )


@api.get("/api/results/{result_id:int}", tags=["results"], responses=refusals(404))
async def get_result(request: Request, result_id: RowId) -> ResultShown:
    results = results_of(request)
    return ResultShown.model_validate(
        await run(results.register.result, result_id, viewer(request))
    )


@api.post("/api/results/{result_id:int}/{action}", tags=["results"], responses=refusals(404, 409))
async def review_result(
    request: Request, result_id: RowId, action: str, body: Review | None = None
) -> ResultShown:
    """``confirm``, ``dispute`` (with a comment), ``resolve`` (one's own dispute),
    ``reject`` or ``uphold`` a dispute, ``withdraw``, ``clear`` a flag (see
    ``docs/results.md``)."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    comment = body.comment if body else ""
    return ResultShown.model_validate(
        await run(results.reviews.review, actor, result_id, action, comment)
    )
