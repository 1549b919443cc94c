"""Groups (clubs): founded, joined, led by a representative; their pages and JSON API."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from pips.i18n import explain
from pips.results.service import Filter, Results, ResultsError, month_of
from pips.server.errors import refusals
from pips.server.requests import Name, Strict
from pips.server.responses import GroupApproval, GroupListed, GroupShown
from pips.server.responses.register import PlayerShown
from pips.server.routes.common import refused, results_of, run
from pips.server.web import account, check_csrf, page, viewer, who

api = APIRouter()


class GroupBody(Strict):
    name: Name


class MemberBody(Strict):
    name: Name
    remove: bool = False


class ApproveBody(Strict):
    approve: bool = True


class JoinBody(Strict):
    leave: bool = False


@api.get("/api/groups", tags=["groups"])
async def list_groups(request: Request) -> list[GroupListed]:
    """Every group, by name."""
    results = results_of(request)
    return [GroupListed.model_validate(g) for g in await run(results.groups.listing)]


@api.post("/api/groups", tags=["groups"], status_code=201, responses=refusals(409))
async def create_group(request: Request, body: GroupBody) -> GroupShown:
    """Found a group; its founder is its first member and representative."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return GroupShown.model_validate(await run(results.groups.create, actor, body.name))


@api.get("/api/groups/{slug}", tags=["groups"], responses=refusals(404))
async def get_group(request: Request, slug: str) -> GroupShown:
    results = results_of(request)
    return GroupShown.model_validate(await run(results.groups.group, slug, viewer(request)))


@api.post("/api/groups/{slug}/members", tags=["groups"], responses=refusals(404, 409))
async def change_member(request: Request, slug: str, body: MemberBody) -> GroupShown:
    """Invite an account (or accept one that asked to join), or with ``remove``
    remove a member, by account name: the representative only."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return GroupShown.model_validate(
        await run(results.groups.change_member, actor, slug, body.name, add=not body.remove)
    )


@api.post("/api/groups/{slug}/join", tags=["groups"], responses=refusals(404, 409))
async def join_group(request: Request, slug: str, body: JoinBody) -> GroupShown:
    """Accept the group's invitation or ask to join it (with ``leave``: leave it, or
    take the request back). An account is a member once both it and the
    representative agreed."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return GroupShown.model_validate(await run(results.groups.join, actor, slug, leave=body.leave))


@api.post("/api/groups/{slug}/representative", tags=["groups"], responses=refusals(404, 409))
async def hand_on(request: Request, slug: str, body: MemberBody) -> GroupShown:
    """Hand the representative's role to another member."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return GroupShown.model_validate(
        await run(results.groups.set_representative, actor, slug, body.name)
    )


@api.post("/api/groups/{slug}/approve", tags=["groups"], responses=refusals(404, 409))
async def approve_group(request: Request, slug: str, body: ApproveBody) -> GroupApproval:
    """Approve a group (or with ``approve`` false, withdraw the approval): an
    administrator only. An approved group's representative confirms its results."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return GroupApproval.model_validate(
        await run(results.admin.approve_group, actor, slug, body.approve)
    )


@api.get("/api/groups/{slug}/players", tags=["groups"], responses=refusals(404))
async def group_players(request: Request, slug: str) -> list[PlayerShown]:
    """The group's players, their accounts and waiting claims."""
    results = results_of(request)
    return [PlayerShown.model_validate(p) for p in await run(results.players.of_group, slug)]


@api.get("/groups", response_class=HTMLResponse, include_in_schema=False)
async def groups_page(request: Request) -> HTMLResponse:
    results = results_of(request)
    return page(request, "groups.html", groups=await run(results.groups.listing))


@api.post("/groups", include_in_schema=False)
async def found_group(request: Request, name: str = Form(), csrf: str = Form("")) -> Response:
    results = results_of(request)
    check_csrf(request, csrf)
    actor = account(request)
    try:
        made = await asyncio.to_thread(results.groups.create, actor, name)
    except ResultsError as exc:
        return page(
            request,
            "groups.html",
            status_code=exc.status,
            groups=await run(results.groups.listing),
            error=explain(exc),
        )
    return RedirectResponse(f"/groups/{made['slug']}", status_code=303)


@api.get("/groups/{slug}", response_class=HTMLResponse, include_in_schema=False)
async def group_page(request: Request, slug: str) -> HTMLResponse:
    results = results_of(request)
    return await _group_page(request, results, slug)


@api.post("/groups/{slug}/members", include_in_schema=False)
async def group_member(
    request: Request,
    slug: str,
    name: str = Form(),
    csrf: str = Form(""),
    action: str = Form("add"),
) -> Response:
    results = results_of(request)
    check_csrf(request, csrf)
    actor = account(request)
    try:
        if action == "representative":
            await asyncio.to_thread(results.groups.set_representative, actor, slug, name)
        else:
            await asyncio.to_thread(
                results.groups.change_member, actor, slug, name, add=action != "remove"
            )
    except ResultsError as exc:
        return await _group_page(request, results, slug, error=explain(exc), status_code=exc.status)
    return RedirectResponse(f"/groups/{slug}", status_code=303)


@api.post("/groups/{slug}/join", include_in_schema=False)
async def group_join(
    request: Request, slug: str, csrf: str = Form(""), action: str = Form("join")
) -> Response:
    results = results_of(request)
    check_csrf(request, csrf)
    actor = account(request)
    try:
        await asyncio.to_thread(results.groups.join, actor, slug, leave=action == "leave")
    except ResultsError as exc:
        return await _group_page(request, results, slug, error=explain(exc), status_code=exc.status)
    return RedirectResponse(f"/groups/{slug}", status_code=303)


@api.post("/groups/{slug}/approve", include_in_schema=False)
async def group_approval(
    request: Request, slug: str, csrf: str = Form(""), approve: str = Form("1")
) -> Response:
    results = results_of(request)
    check_csrf(request, csrf)
    actor = account(request)
    try:
        await asyncio.to_thread(results.admin.approve_group, actor, slug, approve == "1")
    except ResultsError as exc:
        return await _group_page(request, results, slug, error=explain(exc), status_code=exc.status)
    return RedirectResponse(f"/groups/{slug}", status_code=303)


@api.post("/groups/{slug}/ask-approval", include_in_schema=False)
async def group_asks_approval(request: Request, slug: str, csrf: str = Form("")) -> Response:
    """The representative asks an administrator to approve the group."""
    results = results_of(request)
    check_csrf(request, csrf)
    actor = account(request)
    try:
        await asyncio.to_thread(results.groups.ask_approval, actor, slug)
    except ResultsError as exc:
        return await _group_page(request, results, slug, error=explain(exc), status_code=exc.status)
    return RedirectResponse(f"/groups/{slug}#approval", status_code=303)


async def _group_page(
    request: Request,
    results: Results,
    slug: str,
    *,
    error: str | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    try:
        group = await asyncio.to_thread(results.groups.group, slug, viewer(request))
    except ResultsError as exc:
        raise refused(exc) from None
    rows, total = await asyncio.to_thread(
        results.register.listing, Filter(group=slug, limit=100), viewer(request)
    )
    me = who(request)
    return page(
        request,
        "group.html",
        status_code=status_code,
        group=group,
        players=await run(results.players.of_group, slug),
        is_admin=await run(results.admin.is_admin, me.user_id if me else None),
        last_month=month_of(results.context.today().replace(day=1) - timedelta(days=1)),
        rows=rows,
        total=total,
        error=error,
    )
