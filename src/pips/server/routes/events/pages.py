"""The events' pages (``/events``): the list, an event, a table's result form and the
organiser's forms."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from fastapi import APIRouter, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from pips.i18n import _, explain
from pips.results.entry import GAMES, EntryError
from pips.results.entry_formats import decode_csv, parse_int
from pips.results.players import UnknownPlayers
from pips.results.service import ResultsError
from pips.server.routes.common import choices, results_of, run
from pips.server.routes.events.common import (
    MAX_NAMES,
    MAX_UPLOAD,
    Key,
    NewEvent,
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
from pips.server.web import account, check_csrf

api = APIRouter()


@api.get("/events", response_class=HTMLResponse, include_in_schema=False)
async def events_page(request: Request) -> HTMLResponse:
    return await events_listing(request)


@api.post("/events", include_in_schema=False)
async def create_from_form(request: Request) -> Response:
    data = await request.form()
    check_csrf(request, str(data.get("csrf", "")))
    actor = account(request)
    form = {k: str(v) for k, v in data.items() if isinstance(v, str)}
    try:
        options: dict[str, bool | int | str | None] = {}
        if form.get("set", "").strip():
            options["set"] = parse_int(form["set"], "set")
        if form.get("target", "").strip():
            options["target"] = parse_int(form["target"], "target")
        body = NewEvent(
            name=form.get("name", "")[:200],
            game=form.get("game", GAMES[0])[:40],
            date=form.get("date", "")[:20],
            rounds=max(1, min(50, parse_int(form.get("rounds", "1") or "1", "rounds"))),
            options=options,
            place=form.get("place", "")[:200],
            group=form.get("group") or None,
            online=form.get("online") == "on",
            bots=form.get("bots") == "on",
            fixed_pairs=form.get("fixed_pairs") == "on",
            days=[d for d in re.split(r"[,;\s]+", form.get("days", "")[:500]) if d],
            pairing="swiss" if form.get("pairing") == "swiss" else "lot",
            tiebreaks=[str(t)[:20] for t in data.getlist("tiebreaks")][:5]
            or ["wins", "average-place"],
            check_in=form.get("check_in") == "on",
        )
        await count_new_event(request, actor)
        made = await asyncio.to_thread(create_event_of, results_of(request), actor, body)
    except (ResultsError, EntryError) as exc:
        status = exc.status if isinstance(exc, ResultsError) else 422
        return await events_listing(request, error=explain(exc), form=form, status_code=status)
    except HTTPException as exc:
        return await events_listing(
            request, error=str(exc.detail), form=form, status_code=exc.status_code
        )
    return RedirectResponse(f"/events/{made['key']}", status_code=303)


@api.get("/events/{key}", response_class=HTMLResponse, include_in_schema=False)
async def event_page(request: Request, key: Key) -> HTMLResponse:
    return await event_shown(request, key)


@api.post("/events/{key}/{action}", include_in_schema=False)
async def event_form(request: Request, key: Key, action: str) -> Response:
    """The organiser's buttons on the event page: players, withdraw, draw, redraw,
    start, close; and a player's own: accept."""
    data = await request.form()
    check_csrf(request, str(data.get("csrf", "")))
    actor = account(request)
    results = results_of(request)
    text = str(data.get("names", ""))[:50_000]
    # Back where the organiser was (Post/Redirect/Get): a tick on the 80th player of
    # 120 returns to that player, not to the top of the page.
    anchor = ""
    try:
        if action == "players":
            names, pairs = names_and_pairs(text)
            clubs, teams = clubs_and_teams(text)
            new, known = choices(data, MAX_NAMES)
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
            player = parse_int(str(data.get("player", "")), "player")
            if data.get("confirm") != "yes":
                return await confirm_withdrawal(request, key, player)
            await asyncio.to_thread(results.events.withdraw_player, actor, key, player)
            anchor = f"#player-{player}"
        elif action == "remove":
            player = parse_int(str(data.get("player", "")), "player")
            await asyncio.to_thread(results.events.remove_player, actor, key, player)
            anchor = "#players"
        elif action == "draw":
            method = str(data.get("method", "")) or None
            top = str(data.get("set", "")).strip()
            await asyncio.to_thread(
                results.rounds.draw_next,
                actor,
                key,
                method=method if method in ("lot", "swiss") else None,
                top=parse_int(top, _("set")) if top else None,
            )
        elif action == "final":
            size = parse_int(str(data.get("size", "")), _("players"))
            await asyncio.to_thread(results.rounds.draw_next, actor, key, final=size)
        elif action == "seeds":
            await asyncio.to_thread(results.events.seed, actor, key, None)
        elif action == "accept":
            player = parse_int(str(data.get("player", "")), "player")
            await asyncio.to_thread(results.events.accept, actor, key, player)
        elif action == "check-in":
            player = parse_int(str(data.get("player", "")), "player")
            present = data.get("present") == "on"
            await asyncio.to_thread(results.events.check_in, actor, key, player, present)
            anchor = f"#player-{player}"
        elif action == "redraw":
            number = parse_int(str(data.get("round", "")), "round")
            await asyncio.to_thread(results.rounds.redraw, actor, key, number)
        elif action == "start":
            number = parse_int(str(data.get("round", "")), "round")
            absent = [str(n) for n in data.getlist("absent")][:MAX_NAMES]
            await start_online_round(request, actor, key, number, absent)
        elif action == "close":
            if data.get("confirm") != "yes":
                return await confirm_closing(request, key, actor)
            await asyncio.to_thread(results.closing.close, actor, key)
        elif action in ("confirm", "sanction"):
            review = await confirm_many(
                request, key, actor, action, save=data.get("confirm") == "yes"
            )
            if review is not None:
                return review
        else:
            raise HTTPException(404, _("no such page"))
    except UnknownPlayers as exc:
        return await event_shown(
            request, key, error=explain(exc), asked=exc.candidates, names=text, status_code=422
        )
    except (ResultsError, EntryError) as exc:
        status = exc.status if isinstance(exc, ResultsError) else 422
        return await event_shown(request, key, error=explain(exc), names=text, status_code=status)
    except HTTPException as exc:
        if exc.status_code == 404:
            raise
        return await event_shown(request, key, error=str(exc.detail), status_code=exc.status_code)
    return RedirectResponse(f"/events/{key}{anchor}", status_code=303)


@api.get(
    "/events/{key}/rounds/{number}/tables/{table}",
    response_class=HTMLResponse,
    include_in_schema=False,
)
async def table_page(
    request: Request, key: Key, number: RoundNumber, table: TableNumber
) -> HTMLResponse:
    return await table_shown(request, key, number, table)


@api.post("/events/{key}/rounds/{number}/tables/{table}", include_in_schema=False)
async def table_form(
    request: Request, key: Key, number: RoundNumber, table: TableNumber
) -> Response:
    data = await request.form()
    check_csrf(request, str(data.get("csrf", "")))
    actor = account(request)
    results = results_of(request)
    shown = await run(results.events.event, key, actor)
    seats = seats_of(shown, number, table)
    values: dict[str, Any] = {
        "points": [str(data.get(f"points{i}", "")).strip() for i in range(len(seats))],
        "pips": [str(data.get(f"pips{i}", "")).strip() for i in range(len(seats))],
        "out": str(data.get("out", "")),
        "reason": str(data.get("reason", ""))[:500],
    }
    # A result is saved only as it was shown for review: the form carries the
    # fingerprint of the values the review showed, and any change shows it again.
    reviewed = str(data.get("reviewed", ""))
    try:
        lines = table_lines(shown["game"], seats, values)
        if data.get("action") != "save" or reviewed != fingerprint_of(values):
            review = await asyncio.to_thread(
                results.scores.preview,
                actor,
                key,
                number,
                table,
                lines,
                reason=values["reason"],
            )
            return await table_shown(request, key, number, table, values=values, review=review)
        await asyncio.to_thread(
            results.scores.enter,
            actor,
            key,
            number,
            table,
            lines,
            reason=values["reason"],
            source="form",
        )
    except (ResultsError, EntryError) as exc:
        status = exc.status if isinstance(exc, ResultsError) else 422
        return await table_shown(
            request, key, number, table, error=explain(exc), values=values, status_code=status
        )
    return RedirectResponse(f"/events/{key}#round-{number}", status_code=303)


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
