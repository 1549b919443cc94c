"""The events' pages (``/events``): the list, an event, a table's result form and the
organiser's forms."""

from __future__ import annotations

import asyncio
import re
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from pips.i18n import _, explain
from pips.results.entry import EntryError
from pips.results.entry_formats import decode_csv
from pips.results.events.book import LookAlike
from pips.results.players import UnknownPlayers
from pips.results.service import ResultsError
from pips.server.forms import reshown_by
from pips.server.routes.common import results_of, run
from pips.server.routes.events.common import (
    MAX_UPLOAD,
    Key,
    RoundNumber,
    TableNumber,
    clubs_and_teams,
    confirm_closing,
    confirm_withdrawal,
    count_new_event,
    create_event_of,
    enter_csv,
    event_shown,
    events_listing,
    fingerprint_of,
    names_and_pairs,
    round_csv_games,
    seats_of,
    start_online_round,
    table_lines,
    table_shown,
    warnings_said,
)
from pips.server.routes.events.decisions import confirm_many
from pips.server.routes.events.forms import (
    EventButtons,
    EventForm,
    TableForm,
    table_values_sent,
)
from pips.server.web import account, check_csrf

api = APIRouter()


@api.get("/events", response_class=HTMLResponse, include_in_schema=False)
async def events_page(request: Request) -> HTMLResponse:
    return await events_listing(request)


async def event_form_again(request: Request, error: str, sent: dict[str, str]) -> Response:
    return await events_listing(request, error=error, form=sent, status_code=422)


@api.post("/events", include_in_schema=False)
@reshown_by(EventForm, event_form_again)
async def create_from_form(request: Request, form: Annotated[EventForm, Form()]) -> Response:
    check_csrf(request, form.csrf)
    actor = account(request)
    try:
        await count_new_event(request, actor)
        made = await asyncio.to_thread(create_event_of, results_of(request), actor, form.event())
    except (ResultsError, EntryError) as exc:
        status = exc.status if isinstance(exc, ResultsError) else 422
        return await events_listing(
            request, error=explain(exc), form=form.shown(), status_code=status
        )
    except HTTPException as exc:
        return await events_listing(
            request, error=str(exc.detail), form=form.shown(), status_code=exc.status_code
        )
    return RedirectResponse(f"/events/{made['key']}", status_code=303)


@api.get("/events/{key}", response_class=HTMLResponse, include_in_schema=False)
async def event_page(request: Request, key: Key, saved: str = "") -> HTMLResponse:
    # "?saved=2-3" after a table's result was saved: the page says so at that round.
    # Anything else in it is ignored (it only chooses a sentence to show).
    found = re.fullmatch(r"([0-9]{1,3})-([0-9]{1,3})", saved[:8])
    said = (int(found[1]), int(found[2])) if found else None
    return await event_shown(request, key, saved=said)


async def event_page_again(request: Request, error: str, sent: dict[str, str]) -> Response:
    key = request.path_params["key"]
    names = sent.get("names", "")[:50_000]
    return await event_shown(request, key, error=error, names=names, status_code=422)


def needed(value: int | None, what: str) -> int:
    """A field the action needs (a button's hidden field): missing, the form is refused."""
    if value is None:
        raise EntryError(_("{field} {what}").format(field=what, what=_("is missing")))
    return value


@api.post("/events/{key}/{action}", include_in_schema=False)
@reshown_by(EventButtons, event_page_again)
async def event_form(
    request: Request, key: Key, action: str, form: Annotated[EventButtons, Form()]
) -> Response:
    """The organiser's buttons on the event page: players, withdraw, draw, redraw,
    start, close; and a player's own: accept."""
    check_csrf(request, form.csrf)
    actor = account(request)
    results = results_of(request)
    text = form.names
    # Back where the organiser was (Post/Redirect/Get): a tick on the 80th player of
    # 120 returns to that player, not to the top of the page.
    anchor = ""
    try:
        if action == "players":
            names, pairs = names_and_pairs(text)
            clubs, teams = clubs_and_teams(text)
            new, known = form.choices()
            await asyncio.to_thread(
                results.events.add_players,
                actor,
                key,
                names,
                pairs=pairs,
                new_players=new,
                known_players=known,
                clubs=clubs,
                teams=teams,
            )
        elif action == "withdraw":
            player = needed(form.player, _("player"))
            if form.confirm != "yes":
                return await confirm_withdrawal(request, key, player)
            await asyncio.to_thread(results.events.withdraw_player, actor, key, player)
            anchor = f"#player-{player}"
        elif action == "remove":
            player = needed(form.player, _("player"))
            await asyncio.to_thread(results.events.remove_player, actor, key, player)
            anchor = "#players"
        elif action == "draw":
            await asyncio.to_thread(
                results.rounds.draw_next, actor, key, method=form.method, top=form.set
            )
        elif action == "final":
            size = needed(form.size, _("players"))
            await asyncio.to_thread(results.rounds.draw_next, actor, key, final=size)
        elif action == "seeds":
            await asyncio.to_thread(results.events.seed, actor, key, None)
        elif action == "accept":
            player = needed(form.player, _("player"))
            await asyncio.to_thread(results.events.accept, actor, key, player)
        elif action == "check-in":
            player = needed(form.player, _("player"))
            await asyncio.to_thread(results.events.check_in, actor, key, player, form.present)
            anchor = f"#player-{player}"
        elif action == "redraw":
            number = needed(form.round, _("round"))
            await asyncio.to_thread(results.rounds.redraw, actor, key, number)
        elif action == "start":
            number = needed(form.round, _("round"))
            await start_online_round(request, actor, key, number, list(form.absent))
        elif action == "close":
            if form.confirm != "yes":
                return await confirm_closing(request, key, actor)
            await asyncio.to_thread(results.closing.close, actor, key)
        elif action in ("confirm", "sanction"):
            review = await confirm_many(request, key, actor, action, save=form.confirm == "yes")
            if review is not None:
                return review
        else:
            # The event's page again, saying so (a page's form is answered by its page).
            return await event_shown(request, key, error=_("no such button"), status_code=404)
    except UnknownPlayers as exc:
        return await event_shown(
            request, key, error=explain(exc), asked=exc.candidates, names=text, status_code=422
        )
    except LookAlike as exc:
        # The choice offered with the names kept: no known player to pick, only "new".
        asked: dict[str, list[dict[str, Any]]] = {exc.name: []}
        return await event_shown(
            request, key, error=explain(exc), asked=asked, names=text, status_code=409
        )
    except (ResultsError, EntryError) as exc:
        status = exc.status if isinstance(exc, ResultsError) else 422
        return await event_shown(request, key, error=explain(exc), names=text, status_code=status)
    except HTTPException as exc:
        if exc.status_code == 404:
            raise
        return await event_shown(request, key, error=str(exc.detail), status_code=exc.status_code)
    return RedirectResponse(f"/events/{key}{anchor}", status_code=303)


# The buttons' addresses answer a GET (a reload after a refusal, a bookmark of the
# closing question) by the event's page: they were a bare 405.
EVENT_ACTIONS = (
    "players", "withdraw", "remove", "draw", "final", "seeds", "accept", "check-in",
    "redraw", "start", "close", "confirm", "sanction",
)  # fmt: skip


async def back_to_event(key: Key) -> RedirectResponse:
    return RedirectResponse(f"/events/{key}", status_code=303)


for _action in EVENT_ACTIONS:
    api.add_api_route(
        f"/events/{{key}}/{_action}", back_to_event, methods=["GET"], include_in_schema=False
    )


@api.get(
    "/events/{key}/rounds/{number}/tables/{table}",
    response_class=HTMLResponse,
    include_in_schema=False,
)
async def table_page(
    request: Request, key: Key, number: RoundNumber, table: TableNumber
) -> HTMLResponse:
    return await table_shown(request, key, number, table)


async def table_page_again(request: Request, error: str, sent: dict[str, str]) -> Response:
    path = request.path_params
    return await table_shown(
        request,
        path["key"],
        int(path["number"]),
        int(path["table"]),
        error=error,
        values=table_values_sent(sent),
        status_code=422,
    )


@api.post("/events/{key}/rounds/{number}/tables/{table}", include_in_schema=False)
@reshown_by(TableForm, table_page_again)
async def table_form(
    request: Request,
    key: Key,
    number: RoundNumber,
    table: TableNumber,
    form: Annotated[TableForm, Form()],
) -> Response:
    check_csrf(request, form.csrf)
    actor = account(request)
    results = results_of(request)
    shown = await run(results.events.event, key, actor)
    seats = seats_of(shown, number, table)
    values = form.values(len(seats))
    # A result is saved only as it was shown for review: the form carries the
    # fingerprint of the values the review showed, and any change shows it again.
    try:
        lines = table_lines(shown["game"], seats, values)
        if form.action != "save" or form.reviewed != fingerprint_of(values):
            review = await asyncio.to_thread(
                results.scores.preview,
                actor,
                key,
                number,
                table,
                lines,
                reason=form.reason,
            )
            return await table_shown(request, key, number, table, values=values, review=review)
        await asyncio.to_thread(
            results.scores.enter,
            actor,
            key,
            number,
            table,
            lines,
            reason=form.reason,
            source="form",
        )
    except (ResultsError, EntryError) as exc:
        status = exc.status if isinstance(exc, ResultsError) else 422
        return await table_shown(
            request, key, number, table, error=explain(exc), values=values, status_code=status
        )
    return RedirectResponse(f"/events/{key}?saved={number}-{table}#round-{number}", status_code=303)


@api.post("/events/{key}/rounds/{number}/csv", include_in_schema=False)
async def round_csv_form(
    request: Request,
    key: Key,
    number: RoundNumber,
    file: UploadFile | None = None,
    csrf: str = Form(""),
    reason: str = Form("", max_length=500),
    csv_text: str = Form("", max_length=MAX_UPLOAD),
    reviewed: str = Form("", max_length=64),
    action: str = Form("check", max_length=10),
) -> Response:
    """A round's CSV is checked and shown (table by table, with warnings) first; only
    the reviewed text, sent back unchanged with "save", is entered."""
    check_csrf(request, csrf)
    actor = account(request)
    if file is not None and file.filename:
        body = await file.read(MAX_UPLOAD + 1)
    else:
        body = csv_text.encode("utf-8")
    try:
        if len(body) > MAX_UPLOAD:
            raise EntryError(_("a round's CSV is at most 500 kB"))
        # A browser sends a text area back with CRLF line ends: the same text.
        text = decode_csv(body)
        fingerprint = fingerprint_of({"text": text, "reason": reason, "round": number})
        save = action == "save" and reviewed == fingerprint
        games = await round_csv_games(request, text)
        done = await asyncio.to_thread(
            enter_csv, results_of(request), actor, key, number, games, reason, save=save
        )
    except (ResultsError, EntryError) as exc:
        status = exc.status if isinstance(exc, ResultsError) else 422
        return await event_shown(request, key, error=explain(exc), status_code=status)
    if not save:
        review = {
            "round": number,
            "reason": reason,
            "text": text,
            "reviewed": fingerprint,
            "tables": [warnings_said(drawn) for drawn in done["tables"]],
        }
        return await event_shown(request, key, csv_review=review)
    return RedirectResponse(f"/events/{key}#round-{number}", status_code=303)
