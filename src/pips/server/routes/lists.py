"""The world list (the pips rating) by month and player, and printable score sheets."""

from __future__ import annotations

import asyncio
import io
import math
from datetime import date
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from pips.games.registry import find_game
from pips.results.entry import GAMES
from pips.results.rating import NAME as RATING_NAME
from pips.results.sheet import SheetError, score_sheet
from pips.server.routes.common import Count, Offset, PageNumber, Players, SetSize, results_of, run
from pips.server.web import page

PAGE = 100
"""Rows of a world list page."""

api = APIRouter()


@api.get("/api/lists/{game}", tags=["world list"])
async def get_list(
    request: Request, game: str, month: str | None = None, offset: Offset = 0, limit: Count = PAGE
) -> dict[str, Any]:
    """A published monthly list (the newest without ``month``)."""
    results = results_of(request)
    shown = await run(results.world_list, game, month, offset=offset, limit=limit)
    if shown is None:
        raise HTTPException(
            404, f"no published list of {game}" + (f" for {month}" if month else "")
        )
    return dict(shown)


@api.get("/api/lists/{game}/months", tags=["world list"])
async def list_months(request: Request, game: str) -> list[dict[str, Any]]:
    results = results_of(request)
    return list(await run(results.months, game))


@api.get("/api/lists/{game}/players/{name}", tags=["world list"])
async def rating_history(request: Request, game: str, name: str) -> list[dict[str, Any]]:
    """A player's place and rating in every published list of the game."""
    results = results_of(request)
    return list(await run(results.player_history, game, name))


@api.get("/sheet.pdf", tags=["score sheets"])
async def sheet_pdf(
    game: str = GAMES[0],
    players: Players = 4,
    set: SetSize = None,
    place: str = "",
    day: str = "",
    names: str = "",
) -> Response:
    """A printable score sheet (``set`` is 12 for double-12)."""
    try:
        when = date.fromisoformat(day) if day else None
        pdf = await asyncio.to_thread(
            score_sheet,
            game,
            players,
            set,
            names=names.split(",") if names else (),
            place=place[:80],
            day=when,
        )
    except (SheetError, ValueError) as exc:
        raise HTTPException(422, str(exc)) from None
    headers = {"Content-Disposition": f'inline; filename="pips-{game}-sheet.pdf"'}
    return Response(pdf, media_type="application/pdf", headers=headers)


@api.get("/list", response_class=HTMLResponse, include_in_schema=False)
async def list_page(
    request: Request, game: str = GAMES[0], month: str = "", page_number: PageNumber = 1
) -> HTMLResponse:
    results = results_of(request)
    if game not in GAMES:
        raise HTTPException(404, f"no game {game!r}")
    shown = await run(
        results.world_list,
        game,
        month or None,
        offset=PAGE * max(0, page_number - 1),
        limit=PAGE,
    )
    months = await run(results.months, game)
    pages = 1 if shown is None else max(1, math.ceil(shown["players"] / PAGE))
    return page(
        request,
        "list.html",
        status_code=200 if shown or not month else 404,
        game=game,
        title=find_game(game).title,
        shown=shown,
        months=months,
        page_number=page_number,
        pages=pages,
        rating_name=RATING_NAME,
    )


@api.get("/list/{game}/players/{name}", response_class=HTMLResponse, include_in_schema=False)
async def player_rating_page(request: Request, game: str, name: str) -> HTMLResponse:
    results = results_of(request)
    history = await run(results.player_history, game, name)
    if game not in GAMES:
        raise HTTPException(404, f"no game {game!r}")
    return page(
        request,
        "rating.html",
        game=game,
        title=find_game(game).title,
        name=name,
        history=history,
        rating_name=RATING_NAME,
    )


@api.get("/list/{game}/players/{name}/plot.svg", include_in_schema=False)
async def player_plot(request: Request, game: str, name: str) -> Response:
    results = results_of(request)
    history = await run(results.player_history, game, name)
    if not history:
        raise HTTPException(404, f"{name} is in no published list of {game}")
    svg = await asyncio.to_thread(_plot, name, game, history)
    return Response(svg, media_type="image/svg+xml")


def _plot(name: str, game: str, history: list[dict[str, Any]]) -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    months = [h["month"] for h in history]
    figure = Figure(figsize=(7, 3.2), dpi=100)
    axes = figure.subplots()
    axes.plot(months, [h["rating"] for h in history], marker="o", label=RATING_NAME)
    axes.fill_between(
        months,
        [h["mu"] - 3 * h["sigma"] for h in history],
        [h["mu"] + 3 * h["sigma"] for h in history],
        alpha=0.15,
        label="mu ± 3 sigma",
    )
    axes.set_title(f"{name} · {game}")
    axes.set_ylabel(RATING_NAME)
    axes.legend(loc="best", fontsize="small")
    axes.tick_params(axis="x", labelrotation=45, labelsize="small")
    figure.tight_layout()
    out = io.BytesIO()
    figure.savefig(out, format="svg")
    return out.getvalue()
