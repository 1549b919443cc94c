"""The world list (the pips rating) by month and player, and printable score sheets."""

from __future__ import annotations

import io
import math
from datetime import date, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response

from pips.games.registry import find_game
from pips.i18n import _, decimal, month_name, ngettext
from pips.results.entry import GAMES
from pips.results.rating import NAME as RATING_NAME
from pips.results.rating import worked_example
from pips.results.service import month_of
from pips.server.errors import PdfResponse, refusal, refusals
from pips.server.responses.lists import ListInputs, ListMonth, RatingLine, WorldListShown
from pips.server.routes.common import (
    Count,
    Month,
    Offset,
    PageNumber,
    PlayerCount,
    SetSize,
    printed,
    results_of,
    run,
)
from pips.server.web import page
from pips.store.ids import ascii_number, row_id
from pips.text import quoted

PAGE = 100
"""Rows of a world list page."""

api = APIRouter()


@api.get("/api/lists/{game}", tags=["world list"], responses=refusals(404))
async def get_list(
    request: Request, game: str, month: Month | None = None, offset: Offset = 0, limit: Count = PAGE
) -> WorldListShown:
    """A published monthly list (the newest without ``month``)."""
    results = results_of(request)
    shown = await run(results.lists.world_list, game, month, offset=offset, limit=limit)
    if shown is None:
        said = (
            _("no published list of the game {game} for {month}").format(
                game=quoted(game), month=quoted(month)
            )
            if month
            else _("no published list of the game {game}").format(game=quoted(game))
        )
        raise HTTPException(404, said)
    return WorldListShown.model_validate(shown)


@api.get("/api/lists/{game}/months", tags=["world list"], responses=refusals(404))
async def list_months(request: Request, game: str) -> list[ListMonth]:
    results = results_of(request)
    return [ListMonth.model_validate(m) for m in await run(results.lists.months, game)]


@api.get("/api/lists/{game}/players/{player}", tags=["world list"], responses=refusals(404))
async def rating_history(request: Request, game: str, player: str) -> list[RatingLine]:
    """A player's place and rating in every published list of the game (``player``:
    the player's id, or a name only one player has)."""
    results = results_of(request)
    _, player_id = await _player(request, player)
    found = await run(results.lists.player_history, game, player_id)
    return [RatingLine.model_validate(line) for line in found]


@api.get(
    "/api/lists/{game}/months/{month:month}/games.json",
    tags=["world list"],
    responses=refusals(404),
)
@api.get(
    # Its first address: kept for links already given, left out of the description,
    # where it was ambiguous beside /api/lists/{game}/players/{player}.
    "/api/lists/{game}/{month:month}/games.json",
    include_in_schema=False,
    name="list_inputs_first_address",
)
async def list_inputs(request: Request, game: str, month: str) -> ListInputs:
    """What a published list was computed from: its games in order (teams of player
    numbers, places, each update's weight) and its rows, to compute it again with
    openskill alone (docs/results.md, "Check a month yourself")."""
    if game not in GAMES:
        raise HTTPException(404, _("no such game"))
    return ListInputs.model_validate(await run(results_of(request).lists.inputs, game, month))


@api.get("/api/lists/{game}/waiting", tags=["world list"], responses=refusals(404))
async def waiting(request: Request, game: str, month: str) -> list[str]:
    """Why a month has no list of a game, in words."""
    results = results_of(request)
    return [line for line in await run(results.lists.explain_month, month) if _about(game, line)]


def _about(game: str, line: str) -> bool:
    return line.startswith(find_game(game).title + ":") if game in GAMES else False


async def _player(request: Request, player: str) -> tuple[str, int]:
    """A player's name and id, from an id or a name only one player has."""
    results = results_of(request)
    number = row_id(player)
    if number is not None:
        found = await run(results.players.player, number)
        return str(found["name"]), int(found["id"])
    if ascii_number(player):
        # A number no row can have (0, or beyond the database's integer): no player,
        # said before the database is asked.
        raise HTTPException(404, _("no player {player_id}").format(player_id=quoted(player)))
    named = await run(results.players.named, player[:40])
    if len(named) != 1:
        said = (
            ngettext(
                "{count} player named {name}: ask by the player's number",
                "{count} players named {name}: ask by the player's number",
                len(named),
            )
            if named
            else _("no player named {name}: ask by the player's number")
        )
        raise HTTPException(404, said.format(count=len(named), name=quoted(player)))
    return str(named[0]["name"]), int(named[0]["id"])


@api.get(
    "/sheet.pdf",
    tags=["score sheets"],
    response_class=PdfResponse,
    responses=refusals(429, 503),
)
async def sheet_pdf(
    request: Request,
    game: str = GAMES[0],
    players: PlayerCount = 4,
    set: SetSize = None,
    place: str = "",
    day: str = "",
    names: str = "",
    group: str = "",
    target: Annotated[int | None, Query(ge=1, le=10_000)] = None,
) -> Response:
    """A printable score sheet (``set`` is 12 for double-12; ``target``: the match
    target, where the game has one)."""
    # reportlab loads when paper is asked for, not at every start of the server.
    from pips.results.sheet import SheetError, score_sheet

    try:
        when = date.fromisoformat(day) if day else None
        pdf = await printed(
            request,
            score_sheet,
            game,
            players,
            set,
            names=names.split(",")[:9] if names else (),
            place=place[:80],
            day=when,
            target=target,
            group=group[:60],
        )
    except (SheetError, ValueError) as exc:
        raise refusal(exc, 422) from None
    headers = {"Content-Disposition": f'inline; filename="pips-{game}-sheet.pdf"'}
    return Response(pdf, media_type="application/pdf", headers=headers)


@api.get("/list", response_class=HTMLResponse, include_in_schema=False)
async def list_page(
    request: Request, game: str = GAMES[0], month: str = "", page_number: PageNumber = 1
) -> HTMLResponse:
    results = results_of(request)
    if game not in GAMES:
        raise HTTPException(404, _("no game {game}").format(game=quoted(game)))
    shown = await run(
        results.lists.world_list,
        game,
        month or None,
        offset=PAGE * max(0, page_number - 1),
        limit=PAGE,
    )
    months = await run(results.lists.months, game)
    pages = 1 if shown is None else max(1, math.ceil(shown["players"] / PAGE))
    why: list[str] = []
    if shown is None or month:
        # Say why a month has no list, and where its late results count.
        asked = month or month_of(results.context.today().replace(day=1) - timedelta(days=1))
        try:
            why = [
                line for line in await run(results.lists.explain_month, asked) if _about(game, line)
            ]
        except HTTPException:
            why = []
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
        why=why,
        rating_name=_(RATING_NAME),
        example=worked_example(),
    )


@api.get("/list/{game}/players/{player}", response_class=HTMLResponse, include_in_schema=False)
async def player_rating_page(request: Request, game: str, player: str) -> HTMLResponse:
    results = results_of(request)
    if game not in GAMES:
        raise HTTPException(404, _("no game {game}").format(game=quoted(game)))
    name, player_id = await _player(request, player)
    history = await run(results.lists.player_history, game, player_id)
    return page(
        request,
        "rating.html",
        game=game,
        title=find_game(game).title,
        name=name,
        player=player_id,
        history=history,
        rating_name=_(RATING_NAME),
    )


@api.get("/list/{game}/players/{player}/plot.svg", include_in_schema=False)
async def player_plot(request: Request, game: str, player: str) -> Response:
    results = results_of(request)
    if game not in GAMES:
        raise HTTPException(404, _("no game {game}").format(game=quoted(game)))
    name, player_id = await _player(request, player)
    history = await run(results.lists.player_history, game, player_id)
    if not history:
        raise HTTPException(
            404,
            _("{name} is in no published list of the {game}.").format(
                name=name, game=find_game(game).title
            ),
        )
    svg = await printed(request, _plot, name, find_game(game).title, history)
    return Response(svg, media_type="image/svg+xml")


def _plot(name: str, title: str, history: list[dict[str, Any]]) -> bytes:
    """The rating month by month, its own scale (the band of mu ± sigma drawn faint
    behind it, never setting the axis), and the place below, best at the top; every
    word in the reader's language (the papers' lane says it in theirs)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    months = [h["month"] for h in history]
    ratings = [h["rating"] for h in history]
    x = list(range(len(months)))
    figure = Figure(figsize=(7, 3.6), dpi=100)
    top, bottom = figure.subplots(2, 1, sharex=True, height_ratios=(3, 1.4))
    low, high = min(ratings), max(ratings)
    margin = max(0.5, (high - low) * 0.25)
    top.fill_between(
        x,
        [h["mu"] - h["sigma"] for h in history],
        [h["mu"] + h["sigma"] for h in history],
        color="tab:blue",
        alpha=0.08,
        label=_("estimate ± uncertainty"),
    )
    top.plot(x, ratings, marker="o", color="tab:blue", label=_(RATING_NAME))
    for i, value in zip(x, ratings, strict=True):
        top.annotate(
            decimal(value, 1),
            (i, value),
            textcoords="offset points",
            xytext=(0, 7),
            ha="center",
            fontsize="small",
        )
    top.set_ylim(low - margin, high + margin * 1.5)
    top.set_title(f"{name} · {_(title)}")
    top.set_ylabel(_(RATING_NAME))
    top.legend(loc="lower right", fontsize="x-small")
    places = [h["place"] for h in history]
    bottom.plot(x, places, marker="s", color="tab:green")
    bottom.set_ylabel(_("place"))
    bottom.invert_yaxis()
    bottom.set_ylim(max(places) + 1, max(0.5, min(places) - 1))
    # Months in the reader's words ("Nov. 2026"), as the page beside the chart.
    bottom.set_xticks(x, [month_name(m, short=True) for m in months])
    bottom.set_xlim(-0.6, len(months) - 0.4)
    bottom.tick_params(axis="x", labelrotation=45, labelsize="small")
    figure.tight_layout()
    out = io.BytesIO()
    figure.savefig(out, format="svg")
    return out.getvalue()
