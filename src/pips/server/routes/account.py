"""The account's own page (``/account``): its personal API tokens, made and revoked.

A token is shown once, in the answer to the form that made it, and never again: the
page lists only its first characters, its scopes and its last use."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from pips.i18n import _
from pips.server.accounts import AccountError
from pips.server.accounts.ending import token_key
from pips.server.accounts.tokens import SCOPES
from pips.server.errors import Refusal
from pips.server.routes.common import cluster_of
from pips.server.web import check_csrf, page, tokens_of, who

api = APIRouter()


def _account(request: Request) -> int:
    me = who(request)
    if me is None or me.user_id is None:
        raise Refusal(401, _("sign in with an account first"))
    return me.user_id


async def _page(request: Request, user_id: int, status: int = 200, **shown: Any) -> HTMLResponse:
    listed = await asyncio.to_thread(tokens_of(request).listing, user_id)
    return page(request, "account.html", status, tokens=listed, scopes=SCOPES, **shown)


@api.get("/account", response_class=HTMLResponse, include_in_schema=False)
async def account_page(request: Request) -> HTMLResponse:
    return await _page(request, _account(request))


@api.post("/account/tokens", response_class=HTMLResponse, include_in_schema=False)
async def create_token(
    request: Request,
    label: str = Form(""),
    scope: list[str] = Form([]),  # noqa: B008 - FastAPI's way to read repeated fields
    csrf: str = Form(""),
) -> HTMLResponse:
    """Make a token and show it, this once, in the page answering the form."""
    check_csrf(request, csrf)
    user_id = _account(request)
    try:
        token, made = await asyncio.to_thread(
            tokens_of(request).create, user_id, label[:200], scope[:10]
        )
    except AccountError as exc:
        return await _page(request, user_id, exc.status, error=str(exc), label=label[:60])
    response = await _page(request, user_id, new_token=token, made=made)
    # The token is in this page only: no cache may keep it.
    response.headers["Cache-Control"] = "no-store"
    return response


@api.post("/account/tokens/{token_id}/revoke", include_in_schema=False)
async def revoke_token(request: Request, token_id: int, csrf: str = Form("")) -> Response:
    check_csrf(request, csrf)
    user_id = _account(request)
    try:
        await asyncio.to_thread(tokens_of(request).revoke, token_id, user_id)
    except AccountError as exc:
        return await _page(request, user_id, exc.status, error=str(exc))
    # Revoked at once: its sockets close too, in whichever process they are.
    await cluster_of(request).endings.end([token_key(token_id)])
    return RedirectResponse("/account", status_code=303)
