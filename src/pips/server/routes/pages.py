"""The pages of the live game: lobby, signing in, a table, a replay, a player's games."""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from pips.server import accounts
from pips.server.round import Identity
from pips.server.routes.common import database_of, tables_of
from pips.server.web import check_csrf, page, who

api = APIRouter()


@api.get("/", response_class=HTMLResponse, include_in_schema=False)
async def lobby(request: Request) -> HTMLResponse:
    listed = [t.summary() for t in tables_of(request).live.values() if not t.private]
    return page(request, "lobby.html", tables=listed)


@api.post("/register", include_in_schema=False)
@api.post("/login", include_in_schema=False)
async def sign_in(
    request: Request, name: str = Form(), password: str = Form(), csrf: str = Form("")
) -> Response:
    """Register a new account or sign in to one (the path says which)."""
    check_csrf(request, csrf)
    action = accounts.register if request.url.path == "/register" else accounts.sign_in
    try:
        user = action(database_of(request), name, password)
    except accounts.AccountError as exc:
        return page(request, "lobby.html", tables=[], error=str(exc))
    request.session.update(user_id=user.id, name=user.name)
    request.session.pop("guest", None)
    return RedirectResponse("/", status_code=303)


@api.post("/guest", include_in_schema=False)
async def guest(request: Request, name: str = Form(), csrf: str = Form("")) -> Response:
    check_csrf(request, csrf)
    try:
        chosen = accounts.check_name(name)
    except accounts.AccountError as exc:
        return page(request, "lobby.html", tables=[], error=str(exc))
    request.session.pop("user_id", None)
    request.session.update(guest=secrets.token_urlsafe(12), name=chosen)
    return RedirectResponse(request.headers.get("referer") or "/", status_code=303)


@api.post("/logout", include_in_schema=False)
async def logout(request: Request, csrf: str = Form("")) -> Response:
    check_csrf(request, csrf)
    request.session.clear()
    return RedirectResponse("/", status_code=303)


@api.get("/t/{table_id}", response_class=HTMLResponse, include_in_schema=False)
async def table_page(request: Request, table_id: str, invite: str = "") -> Response:
    tables = tables_of(request)
    table = tables.live.get(table_id)
    if table is None:
        if await tables.repository.status(table_id) == "finished":
            return RedirectResponse(f"/replay/{table_id}", status_code=303)
        raise HTTPException(404, "no such table")
    if table.private and invite != table.invite and table.seat_of(who(request) or Identity()) < 0:
        raise HTTPException(404, "no such table")
    return page(request, "table.html", table=table.summary(), invite=invite)


@api.get("/replay/{table_id}", response_class=HTMLResponse, include_in_schema=False)
async def replay_page(request: Request, table_id: str) -> HTMLResponse:
    return page(request, "replay.html", table_id=table_id)


@api.get("/players/{name}", response_class=HTMLResponse, include_in_schema=False)
async def history_page(request: Request, name: str) -> HTMLResponse:
    finished = await tables_of(request).repository.finished_games(name)
    if finished is None:
        raise HTTPException(404, "no such player")
    return page(request, "history.html", name=name, finished=finished)
