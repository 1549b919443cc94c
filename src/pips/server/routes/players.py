"""Players as people: a player's page, claims of players by accounts (decided by the
group's representative or an administrator), merges by an administrator, and what
waits for an administrator (``/admin``)."""

from __future__ import annotations

import asyncio
from typing import Literal

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import Field

from pips.core.phrase import phrase
from pips.i18n import _, explain
from pips.results.service import Filter, ResultsError
from pips.server.errors import refusals
from pips.server.requests import Name, Strict
from pips.server.responses.register import AdminWaiting, ClaimsDecided, PlayerShown
from pips.server.routes.common import BodyRowId, RowId, results_of, run
from pips.server.web import account, check_csrf, local_path, page, viewer, who

api = APIRouter()


class MergeBody(Strict):
    player: BodyRowId
    into: BodyRowId


@api.get("/api/players", tags=["players"])
async def find_players(request: Request, name: str) -> list[PlayerShown]:
    """The players of a name (several people may share one)."""
    results = results_of(request)
    return [PlayerShown.model_validate(p) for p in await run(results.players.named, name[:40])]


@api.get("/api/players/{player_id:int}", tags=["players"], responses=refusals(404))
async def get_player(request: Request, player_id: RowId) -> PlayerShown:
    results = results_of(request)
    return PlayerShown.model_validate(await run(results.players.player, player_id))


@api.post("/api/players/{player_id:int}/claim", tags=["players"], responses=refusals(404, 409))
async def claim_player(request: Request, player_id: RowId) -> PlayerShown:
    """Ask to be this player (the signed-in account); the group's representative or
    an administrator decides."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return PlayerShown.model_validate(await run(results.claims.claim, actor, player_id))


@api.post(
    "/api/players/{player_id:int}/claim/{decision}", tags=["players"], responses=refusals(404, 409)
)
async def decide_claim(
    request: Request,
    player_id: RowId,
    decision: Literal["approve", "refuse"],
    claimant: str | None = None,
) -> PlayerShown:
    """``approve`` or ``refuse`` a waiting claim of a player: the oldest, or the one of
    the account ``claimant``."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    decided = await run(results.claims.decide, actor, player_id, decision == "approve", claimant)
    return PlayerShown.model_validate(decided)


class ClaimOf(Strict):
    """A waiting claim: the player's id and the claiming account's name (none: the
    oldest claim of the player)."""

    player: BodyRowId
    claimant: Name | None = None


class DecideClaims(Strict):
    """Claims to approve (``approve`` true) or refuse in one step; ``save`` false (the
    default) only shows what would be decided (the review)."""

    claims: list[ClaimOf] = Field(min_length=1, max_length=500)
    approve: bool
    save: bool = False


@api.post("/api/players/claims", tags=["players"], responses=refusals(403, 404, 409))
async def decide_claims(request: Request, body: DecideClaims) -> ClaimsDecided:
    """Approve or refuse many claims at once (a representative's or an
    administrator's decisions), all or none: each as
    ``POST /api/players/ID/claim/DECISION`` would; one claim the account may not
    decide, or that no longer waits, refuses the whole step. Without ``save``: what
    would be decided, with the players each claimant's other players would merge."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    claims = [(c.player, c.claimant) for c in body.claims]
    decide = results_of(request).claims.decide_all
    return ClaimsDecided.model_validate(
        await run(decide, actor, claims, body.approve, save=body.save)
    )


@api.post("/api/players/{player_id}/agree", tags=["players"], responses=refusals(404, 409))
async def agree_player(request: Request, player_id: RowId) -> PlayerShown:
    """The representative of the club another named a player for ("Name; Club" at an
    event) agrees that the player is the club's; until then the club's word does not
    cover the player."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return PlayerShown.model_validate(await run(results.reviews.agree, actor, player_id))


@api.post("/api/players/merge", tags=["players"], responses=refusals(404, 409))
async def merge_players(request: Request, body: MergeBody) -> PlayerShown:
    """Merge ``player`` into ``into`` (an administrator)."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return PlayerShown.model_validate(
        await run(results.claims.merge, actor, body.player, body.into)
    )


@api.get("/api/admin/waiting", tags=["administration"])
async def admin_waiting(request: Request) -> AdminWaiting:
    """Disputes to decide, results held by a flag, groups to approve, claims."""
    results = results_of(request)
    actor = account(request)
    waiting = dict(await run(results.admin.waiting, actor))
    waiting["claims"] = await run(results.claims.waiting, actor)
    return AdminWaiting.model_validate(waiting)


@api.get("/players/{player_id:int}", response_class=HTMLResponse, include_in_schema=False)
async def player_page(request: Request, player_id: RowId) -> HTMLResponse:
    return await _player_page(request, player_id)


async def _player_page(
    request: Request, player_id: int, *, error: str | None = None, status_code: int = 200
) -> HTMLResponse:
    results = results_of(request)
    player = await run(results.players.player, player_id)
    rows, total = await asyncio.to_thread(
        results.register.listing, Filter(player=str(player["id"]), limit=50), viewer(request)
    )
    return page(
        request,
        "player.html",
        status_code=status_code,
        player=player,
        rows=rows,
        total=total,
        error=error,
    )


@api.post("/players/{player_id:int}/claim", include_in_schema=False)
async def claim_form(request: Request, player_id: RowId, csrf: str = Form("")) -> Response:
    return await _player_action(request, player_id, csrf, "claim")


@api.post("/players/{player_id:int}/claim/{decision}", include_in_schema=False)
async def decide_form(
    request: Request, player_id: RowId, decision: str, csrf: str = Form("")
) -> Response:
    return await _player_action(request, player_id, csrf, decision)


async def _player_action(request: Request, player_id: int, csrf: str, action: str) -> Response:
    results = results_of(request)
    check_csrf(request, csrf)
    actor = account(request)
    try:
        if action == "claim":
            await asyncio.to_thread(results.claims.claim, actor, player_id)
        elif action in ("approve", "refuse"):
            await asyncio.to_thread(results.claims.decide, actor, player_id, action == "approve")
        else:
            raise ResultsError(phrase("a claim is approved or refused"))
    except ResultsError as exc:
        return await _player_page(request, player_id, error=explain(exc), status_code=exc.status)
    target = local_path(request.headers.get("referer", ""), request, f"/players/{player_id}")
    return RedirectResponse(target, status_code=303)


@api.get("/admin", response_class=HTMLResponse, include_in_schema=False)
async def admin_page(request: Request) -> HTMLResponse:
    results = results_of(request)
    me = who(request)
    if me is None or me.user_id is None or not await run(results.admin.is_admin, me.user_id):
        return page(
            request,
            "admin.html",
            status_code=403,
            error=_("This page is for administrators (granted with pips admin grant)."),
            waiting=None,
        )
    waiting = dict(await run(results.admin.waiting, me.user_id))
    waiting["claims"] = await run(results.claims.waiting, me.user_id)
    waiting["results"] = [
        r for r in await run(results.reviews.waiting, me.user_id) if r["status"] != "disputed"
    ]
    return page(request, "admin.html", waiting=waiting)
