"""What an event prints: standings (a page, CSV, PDF), the check-in list, a round's
pairings, and its table cards and score sheets. A PDF is made in the lane of papers,
once per what it shows, and an address may ask for so many
(:func:`pips.server.routes.common.printed`)."""

from __future__ import annotations

from datetime import date
from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from pips.core.phrase import phrase
from pips.games.registry import find_game
from pips.i18n import _, current, numeric_date, speaking
from pips.results.common import NotFound
from pips.results.standings_table import standings_csv
from pips.server.errors import CsvResponse, PdfResponse, refusals
from pips.server.routes.common import (
    count_print,
    printed,
    refused,
    results_of,
    run,
    site_address,
)
from pips.server.routes.events.common import (
    Key,
    RoundNumber,
    file_name,
)
from pips.server.web import language_of, page

api = APIRouter()


@api.get(
    "/events/{key}/standings.csv",
    tags=["events"],
    responses=refusals(404, 429),
    response_class=CsvResponse,
)
async def standings_as_csv(
    request: Request, key: Key, of: Literal["players", "clubs", "teams"] = "players"
) -> Response:
    """The standings so far as CSV in the reader's language: of the players (place,
    name, club, points, the chosen tie-breaks, games, marks), the clubs or the teams."""
    await count_print(request)
    shown, lines = await run(results_of(request).events.event_standings, key)
    suffix = {"players": "", "clubs": "-" + _("clubs"), "teams": "-" + _("teams")}[of]
    name = file_name(shown) + suffix
    headers = {"Content-Disposition": f'attachment; filename="{name}.csv"'}
    return Response(
        standings_csv(shown, lines, of, current()), media_type="text/csv", headers=headers
    )


@api.get(
    "/events/{key}/standings.pdf",
    tags=["events"],
    responses=refusals(404, 429, 503),
    response_class=PdfResponse,
)
async def standings_as_pdf(request: Request, key: Key) -> Response:
    """The standings so far on paper, with the club and team standings."""
    from pips.results.listings import standings_sheet  # reportlab loads when paper is asked for

    await count_print(request)
    shown, lines = await run(results_of(request).events.event_standings, key)
    pdf = await printed(request, standings_sheet, shown, lines, language=current())
    headers = {"Content-Disposition": f'attachment; filename="{file_name(shown)}.pdf"'}
    return Response(pdf, media_type="application/pdf", headers=headers)


@api.get(
    "/events/{key}/check-in.pdf",
    tags=["events"],
    responses=refusals(404, 429, 503),
    response_class=PdfResponse,
)
async def check_in_pdf(request: Request, key: Key) -> Response:
    """The check-in list on paper: every player, alphabetically, with a box to tick."""
    from pips.results.listings import check_in_sheet

    await count_print(request)
    shown = await run(results_of(request).events.event, key)
    subtitle = " · ".join(
        part
        for part in (
            _(find_game(shown["game"]).title),
            numeric_date(date.fromisoformat(shown["date"])),
            shown["place"],
        )
        if part
    )
    pdf = await printed(
        request, check_in_sheet, shown["name"], subtitle, shown["players"], language=current()
    )
    check_in = _("check-in")
    name = f"{file_name(shown)}-{check_in}.pdf"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(pdf, media_type="application/pdf", headers=headers)


@api.get(
    "/events/{key}/rounds/{number}/sheets.pdf",
    tags=["events"],
    responses=refusals(404, 429, 503),
    response_class=PdfResponse,
)
async def round_sheets_pdf(request: Request, key: Key, number: RoundNumber) -> Response:
    """A round on paper: per table a card and its pre-filled score sheet."""
    from pips.results.sheet import SheetError, round_sheets

    await count_print(request)
    shown, drawn = await run(results_of(request).rounds.round_draw, key, number)
    top = shown["options"].get("set")
    this = next(one for one in shown["drawn"] if one["number"] == number)
    try:
        pdf = await printed(
            request,
            round_sheets,
            shown["game"],
            drawn,
            top if isinstance(top, int) else None,
            place=shown["place"],
            day=date.fromisoformat(this["date"]),
            event=shown["name"],
            tops={table["number"]: table["set"] for table in this["tables"]},
            # Each seat's own club; the organiser's group is nobody's club here.
            clubs={p["name"]: p["club"] for p in shown["players"] if p["club"]},
            final=this["method"] == "final",
            address=site_address(request) + f"/events/{key}",
            language=current(),
        )
    except (SheetError, ValueError) as exc:
        raise refused(exc) from None
    round_word = _("round")
    name = f"{file_name(shown)}-{round_word}-{number}.pdf"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(pdf, media_type="application/pdf", headers=headers)


@api.get(
    "/events/{key}/rounds/{number}/pairings.pdf",
    tags=["events"],
    responses=refusals(404, 429, 503),
    response_class=PdfResponse,
)
async def pairings_pdf(request: Request, key: Key, number: RoundNumber) -> Response:
    """A round's pairings to check: each table's players with their points and rank
    before the round, repeats and club-mates marked, and how the round was drawn."""
    from pips.results.pairings import pairings_sheet

    await count_print(request)
    shown = await run(results_of(request).events.event, key)
    if not any(one["number"] == number for one in shown["drawn"]):
        raise refused(NotFound(phrase("round {number} has not been drawn", number=number)))
    pdf = await printed(request, pairings_sheet, shown, number, language=current())
    # Outside the f-string: the extractor did not find it inside, so it stayed English.
    pairings = _("pairings").lower()  # a file name, lower case as the others
    name = f"{file_name(shown)}-{pairings}-{number}.pdf"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(pdf, media_type="application/pdf", headers=headers)


@api.get("/events/{key}/standings", response_class=HTMLResponse, include_in_schema=False)
async def standings_page(request: Request, key: Key) -> HTMLResponse:
    """The standings as the PDF and CSV have them, on a page in the reader's language:
    the players' (with the chosen tie-breaks and marks), the clubs' and the teams'."""
    from pips.results.standings_table import (
        group_table,
        standings_explained,
        standings_subtitle,
        standings_table,
    )

    shown, lines = await run(results_of(request).events.event_standings, key)
    with speaking(language_of(request)):
        game = _(find_game(shown["game"]).title)
        tables = [(standings_table(shown, lines), "standings", "")]
        if shown["clubs"]:
            clubs = group_table(shown["clubs"], shown["counted"], _("Club"))
            tables.append((clubs, "clubs-standings", _("Club standings")))
        if shown["teams"]:
            teams = group_table(shown["teams"], shown["counted"], _("Team"))
            tables.append((teams, "teams-standings", _("Team standings")))
        said, explained = standings_subtitle(shown, game), standings_explained(shown)
    return page(
        request, "standings.html", event=shown, tables=tables, subtitle=said, explained=explained
    )
