"""Events (issue 22): their pages, forms and JSON API.

Reading an event is open to anyone (its page is public, with the standings as they
grow); every change needs an account and the session's CSRF token, and what each
account may do is decided in :mod:`pips.results.events`. An online round's tables are
made here, on this server's live tables, with the seats the event's draw filled.
"""

from __future__ import annotations

import asyncio
import re
from datetime import date
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, HTTPException, Path, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field, StringConstraints

from pips.core.names import name_key
from pips.core.phrase import N_
from pips.games.registry import find_game
from pips.i18n import _, explain, ngettext, numeric_date, say
from pips.results.entry import (
    GAMES,
    NAME_LENGTH,
    EntryError,
    Line,
    decode_csv,
    parse_date,
    parse_flag,
    parse_int,
    read_csv,
)
from pips.results.players import UnknownPlayers
from pips.results.service import Results, ResultsError, slugify
from pips.results.standings import TIEBREAKS, Scoring, standings_csv
from pips.server.accounts.identity import Identity
from pips.server.limits import Limited
from pips.server.round import SeatHolder
from pips.server.routes.common import choices, limits_of, refused, results_of, run, tables_of
from pips.server.tables import TableError
from pips.server.web import account, check_csrf, page, viewer, who

api = APIRouter()

MAX_UPLOAD = 500_000
"""Bytes of a round's results CSV (a championship round of 250 tables is a tenth)."""
MAX_NAMES = 1000

Key = Annotated[str, Path(min_length=8, max_length=24, pattern=r"^[A-Za-z0-9_-]+$")]
RoundNumber = Annotated[int, Path(ge=1, le=50)]
TableNumber = Annotated[int, Path(ge=1, le=1000)]
PlayerId = Annotated[int, Path(ge=1, le=2**31 - 1)]
Name = Annotated[str, StringConstraints(max_length=NAME_LENGTH + 20)]


class NewEvent(BaseModel):
    """An event to create (see docs/events.md)."""

    name: str = Field(max_length=200)
    game: str = Field(max_length=40)
    date: str = Field(max_length=20)
    rounds: int = Field(ge=1, le=50)
    options: dict[str, Any] = {}
    place: str = Field("", max_length=200)
    group: str | None = Field(None, max_length=60)
    online: bool = False
    bots: bool = False
    fixed_pairs: bool = False
    days: list[Annotated[str, StringConstraints(max_length=20)]] = Field(default=[], max_length=50)
    """The days of an event over several: its rounds are spread over them."""
    pairing: Literal["lot", "swiss"] = "lot"
    """How the rounds after the first are drawn: by lot, or by the standings."""
    tiebreaks: list[Annotated[str, StringConstraints(max_length=20)]] = Field(
        default=["wins", "average-place"], max_length=5
    )
    """Equal points decided by these, in order (docs/events.md)."""
    check_in: bool = False
    """Draw only players checked in."""
    counted: int = Field(default=3, ge=1, le=20)
    """A club's or team's best players whose points make its standing."""


class DrawBody(BaseModel):
    """How to draw the next round: ``method`` (the event's pairing when not given),
    ``set`` for its tables, or ``final``: the final table of that many leaders."""

    method: Literal["lot", "swiss"] | None = None
    set: int | None = Field(default=None, ge=6, le=18)
    final: int | None = Field(default=None, ge=2, le=9)


class SeedsBody(BaseModel):
    """Seeds in ``order`` (names, the strongest first), or by the newest world list
    when ``order`` is not given."""

    order: list[Annotated[str, StringConstraints(max_length=NAME_LENGTH + 20)]] | None = Field(
        None, max_length=MAX_NAMES
    )


class CheckInBody(BaseModel):
    present: bool = True


class TableSetBody(BaseModel):
    set: int = Field(ge=6, le=18)


class NewPlayers(BaseModel):
    """Players to add (or, with fixed partners, pairs); ``new_players``: names that are
    new players though they look like known ones."""

    names: list[Name] = Field([], max_length=MAX_NAMES)
    pairs: list[list[Name]] = Field([], max_length=MAX_NAMES // 2)
    new_players: list[Name] = Field([], max_length=MAX_NAMES)
    known_players: dict[Name, int] = Field({}, max_length=MAX_NAMES)
    """Names given the known player meant (their number, from the question)."""
    clubs: dict[Name, Annotated[str, StringConstraints(max_length=80)]] = Field(
        {}, max_length=MAX_NAMES
    )
    """The club each player plays for (else the group they are a player of)."""
    teams: dict[Name, Annotated[str, StringConstraints(max_length=80)]] = Field(
        {}, max_length=MAX_NAMES
    )


class TableResultBody(BaseModel):
    """A table's result: a line per player (any order); ``reason`` for a correction."""

    players: list[dict[str, Any]] = Field(max_length=9)
    reason: str = Field("", max_length=500)


class StartBody(BaseModel):
    """Start an online round; ``absent``: players a bot plays for (if the event allows)."""

    absent: list[Name] = Field([], max_length=MAX_NAMES)


# -- JSON API ----------------------------------------------------------------------------


@api.get("/api/events", tags=["events"])
async def list_events(request: Request) -> list[dict[str, Any]]:
    return list(await run(results_of(request).events))


@api.post("/api/events", tags=["events"], status_code=201)
async def create_event(request: Request, body: NewEvent) -> dict[str, Any]:
    """Create an event: a group's representative (for the group) or an administrator."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    await _count_new_event(request, actor)
    return dict(await run(_create, results_of(request), actor, body))


@api.get("/api/events/{key}", tags=["events"])
async def get_event(request: Request, key: Key) -> dict[str, Any]:
    """The event: players, rounds, tables with results, standings."""
    return dict(await run(results_of(request).events.event, key, viewer(request)))


@api.post("/api/events/{key}/players", tags=["events"])
async def add_players(request: Request, key: Key, body: NewPlayers) -> dict[str, Any]:
    """Add players; after the first draw they are late arrivals (from the next round)."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return dict(
        await run(
            results_of(request).events.add_players,
            actor,
            key,
            body.names,
            pairs=body.pairs,
            new_players=body.new_players,
            known_players=body.known_players,
            clubs=body.clubs,
            teams=body.teams,
        )
    )


@api.post("/api/events/{key}/players/{player}/withdraw", tags=["events"])
async def withdraw(request: Request, key: Key, player: PlayerId) -> dict[str, Any]:
    """A player withdraws: not drawn from the next round on."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return dict(await run(results_of(request).events.withdraw_player, actor, key, player))


@api.post("/api/events/{key}/rounds", tags=["events"], status_code=201)
async def draw_round(request: Request, key: Key, body: DrawBody | None = None) -> dict[str, Any]:
    """Draw the next round (the one before must be over): by lot or by the standings
    (``method``), with a ``set`` for its tables, or the ``final`` table."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    body = body or DrawBody()
    return dict(
        await run(
            results_of(request).rounds.draw_next,
            actor,
            key,
            method=body.method,
            top=body.set,
            final=body.final,
        )
    )


@api.post("/api/events/{key}/seeds", tags=["events"])
async def seed_players(request: Request, key: Key, body: SeedsBody) -> dict[str, Any]:
    """Seed the players before the first round (the top seeds sit apart)."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return dict(await run(results_of(request).events.seed, actor, key, body.order))


@api.post("/api/events/{key}/players/{player}/check-in", tags=["events"])
async def check_in(
    request: Request, key: Key, player: PlayerId, body: CheckInBody | None = None
) -> dict[str, Any]:
    """Check a player in (or out, ``present`` false)."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    present = True if body is None else body.present
    return dict(await run(results_of(request).events.check_in, actor, key, player, present))


@api.post("/api/events/{key}/rounds/{number}/tables/{table}/set", tags=["events"])
async def table_set(
    request: Request, key: Key, number: RoundNumber, table: TableNumber, body: TableSetBody
) -> dict[str, Any]:
    """Play a table with another set (before it has a result)."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return dict(
        await run(results_of(request).rounds.set_table, actor, key, number, table, body.set)
    )


@api.post("/api/events/{key}/rounds/{number}/redraw", tags=["events"])
async def redraw_round(request: Request, key: Key, number: RoundNumber) -> dict[str, Any]:
    """Draw the last round again while none of its tables has begun."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return dict(await run(results_of(request).rounds.redraw, actor, key, number))


@api.post("/api/events/{key}/rounds/{number}/start", tags=["events"])
async def start_round(
    request: Request, key: Key, number: RoundNumber, body: StartBody | None = None
) -> dict[str, Any]:
    """Start an online round: its tables open on this server with the drawn seats."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return await _start(request, actor, key, number, body.absent if body else [])


@api.post("/api/events/{key}/rounds/{number}/tables/{table}", tags=["events"])
async def enter_table(
    request: Request, key: Key, number: RoundNumber, table: TableNumber, body: TableResultBody
) -> dict[str, Any]:
    """Enter a table's result (a correction needs ``reason``)."""
    actor, lines = _table_body(request, body)
    return dict(
        await run(
            results_of(request).scores.enter,
            actor,
            key,
            number,
            table,
            lines,
            reason=body.reason,
            source="api",
        )
    )


@api.post("/api/events/{key}/rounds/{number}/tables/{table}/check", tags=["events"])
async def check_table(
    request: Request, key: Key, number: RoundNumber, table: TableNumber, body: TableResultBody
) -> dict[str, Any]:
    """What entering this result would save, without saving it: the lines as they
    would count, the lines a correction replaces (``before``, lined up with
    ``players``), the fields each line changes, and warnings about what looks unusual
    for a game of this size (check the sheet)."""
    actor, lines = _table_body(request, body)
    review = await run(
        results_of(request).scores.preview,
        actor,
        key,
        number,
        table,
        lines,
        reason=body.reason,
    )
    return {**review, "warnings": [say(w) for w in review["warnings"]]}


@api.get("/api/events/{key}/rounds/{number}/tables/{table}", tags=["events"])
async def table_history(
    request: Request, key: Key, number: RoundNumber, table: TableNumber
) -> list[dict[str, Any]]:
    """Every result entered for a table, with corrections and their reasons."""
    return list(await run(results_of(request).scores.history, key, number, table))


@api.post("/api/events/{key}/rounds/{number}/csv", tags=["events"])
async def enter_round_csv(
    request: Request,
    key: Key,
    number: RoundNumber,
    reason: Annotated[str, Query(max_length=500)] = "",
    check: bool = False,
) -> dict[str, Any]:
    """A round's results as a results CSV body (each game goes to the table of its
    players); all or none. With ``check`` nothing is saved: the tables the games go
    to, their lines and warnings about what looks unusual, to review first."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    body = await request.body()
    async with limits_of(request).checking:
        done = await run(
            _enter_csv, results_of(request), actor, key, number, body, reason, save=not check
        )
    if check:
        return {
            "tables": [{**t, "warnings": [say(w) for w in t["warnings"]]} for t in done["tables"]]
        }
    return dict(done)


@api.post("/api/events/{key}/close", tags=["events"])
async def close_event(request: Request, key: Key) -> dict[str, Any]:
    """Close the event: its games become results for the world list."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    return dict(await run(results_of(request).closing.close, actor, key))


@api.get("/events/{key}/standings.csv", tags=["events"])
async def standings_as_csv(request: Request, key: Key) -> Response:
    """The standings so far as CSV."""
    shown, lines = await run(results_of(request).events.event_standings, key)
    headers = {"Content-Disposition": f'attachment; filename="{_file(shown)}.csv"'}
    return Response(standings_csv(lines), media_type="text/csv", headers=headers)


@api.get("/events/{key}/standings.pdf", tags=["events"])
async def standings_as_pdf(request: Request, key: Key) -> Response:
    """The standings so far on paper."""
    from pips.results.sheet import standings_sheet  # reportlab loads when paper is asked for

    shown, lines = await run(results_of(request).events.event_standings, key)
    word = N_("Match points") if shown["scoring"] == Scoring.MATCH_WINS else N_("Points")
    day = numeric_date(date.fromisoformat(shown["date"]))
    subtitle = " · ".join(
        part for part in (_(find_game(shown["game"]).title), day, shown["place"]) if part
    )
    pdf = await asyncio.to_thread(standings_sheet, shown["name"], subtitle, lines, points_word=word)
    headers = {"Content-Disposition": f'attachment; filename="{_file(shown)}.pdf"'}
    return Response(pdf, media_type="application/pdf", headers=headers)


@api.get("/events/{key}/check-in.pdf", tags=["events"])
async def check_in_pdf(request: Request, key: Key) -> Response:
    """The check-in list on paper: every player, alphabetically, with a box to tick."""
    from pips.results.sheet import check_in_sheet

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
    pdf = await asyncio.to_thread(check_in_sheet, shown["name"], subtitle, shown["players"])
    check_in = _("check-in")
    name = f"{_file(shown)}-{check_in}.pdf"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(pdf, media_type="application/pdf", headers=headers)


@api.get("/events/{key}/rounds/{number}/sheets.pdf", tags=["events"])
async def round_sheets_pdf(request: Request, key: Key, number: RoundNumber) -> Response:
    """A round on paper: per table a card and its pre-filled score sheet."""
    from pips.results.sheet import SheetError, round_sheets

    shown, drawn = await run(results_of(request).rounds.round_draw, key, number)
    top = shown["options"].get("set")
    try:
        pdf = await asyncio.to_thread(
            round_sheets,
            shown["game"],
            drawn,
            top if isinstance(top, int) else None,
            place=shown["place"],
            day=next(
                date.fromisoformat(one["date"]) for one in shown["drawn"] if one["number"] == number
            ),
            group=shown["group_name"] or "",
            event=shown["name"],
            tops={
                t["number"]: t["set"]
                for one in shown["drawn"]
                if one["number"] == number
                for t in one["tables"]
            },
        )
    except (SheetError, ValueError) as exc:
        raise refused(exc) from None
    round_word = _("round")
    name = f"{_file(shown)}-{round_word}-{number}.pdf"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(pdf, media_type="application/pdf", headers=headers)


# -- pages -------------------------------------------------------------------------------


@api.get("/events", response_class=HTMLResponse, include_in_schema=False)
async def events_page(request: Request) -> HTMLResponse:
    return await _events_page(request)


@api.post("/events", include_in_schema=False)
async def create_from_form(request: Request) -> Response:
    data = await request.form()
    check_csrf(request, str(data.get("csrf", "")))
    actor = account(request)
    form = {k: str(v) for k, v in data.items() if isinstance(v, str)}
    try:
        options: dict[str, Any] = {}
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
        await _count_new_event(request, actor)
        made = await asyncio.to_thread(_create, results_of(request), actor, body)
    except (ResultsError, EntryError) as exc:
        status = exc.status if isinstance(exc, ResultsError) else 422
        return await _events_page(request, error=explain(exc), form=form, status_code=status)
    except HTTPException as exc:
        return await _events_page(
            request, error=str(exc.detail), form=form, status_code=exc.status_code
        )
    return RedirectResponse(f"/events/{made['key']}", status_code=303)


@api.get("/events/{key}", response_class=HTMLResponse, include_in_schema=False)
async def event_page(request: Request, key: Key) -> HTMLResponse:
    return await _event_page(request, key)


@api.post("/events/{key}/{action}", include_in_schema=False)
async def event_form(request: Request, key: Key, action: str) -> Response:
    """The organiser's buttons on the event page: players, withdraw, draw, redraw,
    start, close."""
    data = await request.form()
    check_csrf(request, str(data.get("csrf", "")))
    actor = account(request)
    results = results_of(request)
    text = str(data.get("names", ""))[:50_000]
    try:
        if action == "players":
            names, pairs = _names_and_pairs(text)
            clubs, teams = _clubs_and_teams(text)
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
                return await _confirm_withdrawal(request, key, player)
            await asyncio.to_thread(results.events.withdraw_player, actor, key, player)
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
        elif action == "check-in":
            player = parse_int(str(data.get("player", "")), "player")
            present = data.get("present") == "on"
            await asyncio.to_thread(results.events.check_in, actor, key, player, present)
        elif action == "redraw":
            number = parse_int(str(data.get("round", "")), "round")
            await asyncio.to_thread(results.rounds.redraw, actor, key, number)
        elif action == "start":
            number = parse_int(str(data.get("round", "")), "round")
            absent = [str(n) for n in data.getlist("absent")][:MAX_NAMES]
            await _start(request, actor, key, number, absent)
        elif action == "close":
            if data.get("confirm") != "yes":
                return await _confirm_closing(request, key)
            await asyncio.to_thread(results.closing.close, actor, key)
        else:
            raise HTTPException(404, _("no such page"))
    except UnknownPlayers as exc:
        return await _event_page(
            request, key, error=explain(exc), asked=exc.candidates, names=text, status_code=422
        )
    except (ResultsError, EntryError) as exc:
        status = exc.status if isinstance(exc, ResultsError) else 422
        return await _event_page(request, key, error=explain(exc), names=text, status_code=status)
    except HTTPException as exc:
        if exc.status_code == 404:
            raise
        return await _event_page(request, key, error=str(exc.detail), status_code=exc.status_code)
    return RedirectResponse(f"/events/{key}", status_code=303)


@api.get(
    "/events/{key}/rounds/{number}/tables/{table}",
    response_class=HTMLResponse,
    include_in_schema=False,
)
async def table_page(
    request: Request, key: Key, number: RoundNumber, table: TableNumber
) -> HTMLResponse:
    return await _table_page(request, key, number, table)


@api.post("/events/{key}/rounds/{number}/tables/{table}", include_in_schema=False)
async def table_form(
    request: Request, key: Key, number: RoundNumber, table: TableNumber
) -> Response:
    data = await request.form()
    check_csrf(request, str(data.get("csrf", "")))
    actor = account(request)
    results = results_of(request)
    shown = await run(results.events.event, key, actor)
    seats = _seats(shown, number, table)
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
        lines = _table_lines(shown["game"], seats, values)
        if data.get("action") != "save" or reviewed != _fingerprint(values):
            review = await asyncio.to_thread(
                results.scores.preview,
                actor,
                key,
                number,
                table,
                lines,
                reason=values["reason"],
            )
            return await _table_page(request, key, number, table, values=values, review=review)
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
        return await _table_page(
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
        # A browser sends a text area back with CRLF line ends: the same text.
        text = decode_csv(body[: MAX_UPLOAD + 1]).replace("\r\n", "\n")
        fingerprint = _fingerprint({"text": text, "reason": reason, "round": number})
        save = action == "save" and reviewed == fingerprint
        done = await asyncio.to_thread(
            _enter_csv,
            results_of(request),
            actor,
            key,
            number,
            text.encode("utf-8"),
            reason,
            save=save,
        )
    except (ResultsError, EntryError) as exc:
        status = exc.status if isinstance(exc, ResultsError) else 422
        return await _event_page(request, key, error=explain(exc), status_code=status)
    if not save:
        review = {
            "round": number,
            "reason": reason,
            "text": text,
            "reviewed": fingerprint,
            "tables": [{**t, "warnings": [say(w) for w in t["warnings"]]} for t in done["tables"]],
        }
        return await _event_page(request, key, csv_review=review)
    return RedirectResponse(f"/events/{key}#round-{number}", status_code=303)


# -- helpers -------------------------------------------------------------------------------


async def _confirm_withdrawal(request: Request, key: str, player: int) -> HTMLResponse:
    """Withdrawing a player is asked twice: it cannot be taken back."""
    shown = await run(results_of(request).events.event, key, viewer(request))
    found = next((p for p in shown["players"] if p["id"] == player), None)
    if found is None:
        raise HTTPException(404, _("no such player"))
    first = len(shown["drawn"]) + 1
    return page(
        request,
        "confirm.html",
        question=_("Withdraw {name} from the event?").format(name=found["name"]),
        consequences=[
            _(
                "{name} is not drawn from round {number} on; the games played so far stay "
                "and the standings mark the withdrawal. This cannot be taken back (a "
                "player who comes back is added again as a late arrival)."
            ).format(name=found["name"], number=first)
        ],
        answer=_("Withdraw {name}").format(name=found["name"]),
        action=f"/events/{key}/withdraw",
        fields={"player": player},
        back=f"/events/{key}",
    )


async def _confirm_closing(request: Request, key: str) -> HTMLResponse:
    """Closing an event is asked twice: it cannot be undone."""
    shown = await run(results_of(request).events.event, key, viewer(request))
    tables = sum(1 for one in shown["drawn"] for t in one["tables"] if t["result"])
    return page(
        request,
        "confirm.html",
        question=_("Close {name}?").format(name=shown["name"]),
        consequences=[
            ngettext(
                "Its {count} table's result becomes a result for the world list.",
                "Its {count} tables' results become results for the world list.",
                tables,
            ).format(count=tables),
            _(
                "A closed event changes no more: no players, rounds or corrections. A "
                "wrong result is then withdrawn or disputed like any other. This cannot "
                "be undone."
            ),
        ],
        answer=_("Close the event"),
        action=f"/events/{key}/close",
        fields={},
        back=f"/events/{key}",
    )


async def _count_new_event(request: Request, actor: int) -> None:
    try:
        await limits_of(request).events.take(str(actor))
    except Limited as exc:
        raise HTTPException(429, explain(exc), {"Retry-After": str(exc.retry_after)}) from None


def _create(results: Results, actor: int, body: NewEvent) -> dict[str, Any]:
    return results.events.create(
        actor,
        name=body.name,
        game=body.game,
        played_on=parse_date(body.date),
        rounds=body.rounds,
        options=body.options,
        place=body.place,
        group=body.group,
        online=body.online,
        bots=body.bots,
        fixed_pairs=body.fixed_pairs,
        days=[parse_date(day) for day in body.days],
        pairing=body.pairing,
        tiebreaks=body.tiebreaks,
        check_in=body.check_in,
        counted=body.counted,
    )


def _table_body(request: Request, body: TableResultBody) -> tuple[int, list[Line]]:
    """Who sends a table's result (an account, with the session's token), and its
    lines."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    try:
        return actor, [_line(item, seat) for seat, item in enumerate(body.players)]
    except EntryError as exc:
        raise refused(exc) from None


def _line(item: Any, seat: int) -> Line:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise EntryError(_("player {number} needs a 'name'").format(number=seat + 1))
    return Line(
        item["name"],
        parse_int(item.get("points", 0), f"player {seat + 1} points"),
        parse_int(item.get("pips", 0), f"player {seat + 1} pips"),
        parse_flag(item.get("out", False)),
    )


def _enter_csv(
    results: Results,
    actor: int,
    key: str,
    number: int,
    body: bytes,
    reason: str,
    *,
    save: bool = True,
) -> dict[str, Any]:
    if len(body) > MAX_UPLOAD:
        raise EntryError(_("a round's CSV is at most 500 kB"))
    games = read_csv(decode_csv(body), results.context.today())
    return results.scores.enter_csv(actor, key, number, games, reason, save=save)


def _table_lines(game: str, seats: list[str], values: dict[str, Any]) -> list[Line]:
    """A table form's lines. A blank field is refused, not taken as 0 (a correction
    form opens filled, so a blank is a field somebody emptied); only the pips of the
    player who went out may be left blank, being 0 by the rules."""
    spec = find_game(game)
    pairs = spec.teams(len(seats))
    lines = []
    for seat, name in enumerate(seats):
        # Partners share their pair's points: the form asks for them once.
        first = next((team[0] for team in pairs if seat in team), seat)
        points = values["points"][first] if spec.entry.points else "0"
        pips = values["pips"][seat] if spec.entry.pips else "0"
        if pips == "" and values["out"] == str(seat):
            pips = "0"
        for value, what in ((points, _("points")), (pips, _("pips left"))):
            if value == "":
                raise EntryError(
                    _("{name}: {what} is empty — write 0 if it is 0").format(name=name, what=what)
                )
        lines.append(
            Line(
                name,
                parse_int(points, _("{name}: points").format(name=name)),
                parse_int(pips, _("{name}: pips").format(name=name)),
                values["out"] == str(seat),
            )
        )
    return lines


def _fingerprint(values: dict[str, Any]) -> str:
    """What a review showed, so that saving saves exactly that."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:24]


def _clubs_and_teams(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """The clubs and teams of a players' list: "Name; Club" or "Name; Club; Team"."""
    clubs: dict[str, str] = {}
    teams: dict[str, str] = {}
    for line in text.splitlines()[:MAX_NAMES]:
        parts = [part.strip() for part in line.split(";")]
        if len(parts) > 1 and parts[0]:
            clubs[parts[0]] = parts[1][:80]
        if len(parts) > 2 and parts[0]:
            teams[parts[0]] = parts[2][:80]
    return clubs, teams


def _names_and_pairs(text: str) -> tuple[list[str], list[list[str]]]:
    """Players one per line (or comma-separated, without clubs); a pair as "Anna &
    Ben"; a club and a team after the name: "Anna Berg; SC Kiel; Kiel 1"."""
    names: list[str] = []
    pairs: list[list[str]] = []
    lines = (
        [line.split(";")[0] for line in text.splitlines()]
        if ";" in text
        else text.replace(",", "\n").splitlines()
    )
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if "&" in line or "+" in line:
            pairs.append([part.strip() for part in line.replace("+", "&").split("&")])
        else:
            names.append(line)
    return names[:MAX_NAMES], pairs[: MAX_NAMES // 2]


def _seats(shown: dict[str, Any], number: int, table: int) -> list[str]:
    for one in shown["drawn"]:
        if one["number"] == number:
            for t in one["tables"]:
                if t["number"] == table:
                    return list(t["seats"])
    raise HTTPException(404, _("no such table"))


def _file(shown: dict[str, Any]) -> str:
    """A file name for the event's exports: its name as an address keeps it (umlauts
    spelled out, "Clubabend Neumühle" is clubabend-neumuehle)."""
    return slugify(shown["name"]) or "event"


async def _start(
    request: Request, actor: int, key: str, number: int, absent: list[str]
) -> dict[str, Any]:
    """Open an online round's tables on this server, seats as drawn; if a table cannot
    be opened the round is left to be started again."""
    results = results_of(request)
    tables = tables_of(request)
    me = who(request)
    assert me is not None
    shown = await run(results.events.event, key, actor)
    seats = await run(results.rounds.start_online, actor, key, number, absent)
    made: dict[int, str] = {}
    try:
        for table, holders in seats.items():
            live = await tables.create(
                shown["game"],
                {**shown["options"], "players": len(holders)},
                [
                    SeatHolder("person", s.name, s.user_id)
                    if s.bot is None
                    else SeatHolder("bot", s.name, s.user_id, None, s.bot)
                    for s in holders
                ],
                Identity(user_id=actor, name=me.name),
            )
            made[table] = live.id
        done = await run(results.rounds.started_online, key, number, made)
    except (TableError, ResultsError) as exc:
        await run(results.rounds.failed_online, key, number)
        raise HTTPException(422, explain(exc)) from None
    for table_id in made.values():
        await tables.live[table_id].start_if_ready()
    return dict(done)


async def _events_page(
    request: Request,
    *,
    error: str | None = None,
    form: dict[str, str] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    results = results_of(request)
    me = viewer(request)
    mine = [] if me is None else await run(results.groups.listing, me)
    return page(
        request,
        "events.html",
        status_code=status_code,
        events=await run(results.events.listing),
        my_groups=mine,
        error=error,
        form=form or {},
        today=results.context.today().isoformat(),
        tiebreaks=TIEBREAKS,
    )


async def _event_page(
    request: Request,
    key: str,
    *,
    error: str | None = None,
    asked: dict[str, list[dict[str, Any]]] | None = None,
    names: str = "",
    csv_review: dict[str, Any] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    results = results_of(request)
    shown = await run(results.events.event, key, viewer(request))
    return page(
        request,
        "event.html",
        status_code=status_code,
        event=shown,
        face=find_game(shown["game"]),
        error=error,
        asked=asked or {},
        names=names,
        csv_review=csv_review,
    )


async def _table_page(
    request: Request,
    key: str,
    number: int,
    table: int,
    *,
    error: str | None = None,
    values: dict[str, Any] | None = None,
    review: dict[str, Any] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    results = results_of(request)
    shown = await run(results.events.event, key, viewer(request))
    seats = _seats(shown, number, table)
    history = await run(results.scores.history, key, number, table)
    found = next(
        t
        for one in shown["drawn"]
        if one["number"] == number
        for t in one["tables"]
        if t["number"] == table
    )
    round_status = next(one["status"] for one in shown["drawn"] if one["number"] == number)
    spec = find_game(shown["game"])
    if values is None and found["result"]:
        # A correction starts from the result as it stands, not from empty fields.
        values = _values_of(seats, found["result"]["players"])
    return page(
        request,
        "event_table.html",
        status_code=status_code,
        event=shown,
        number=number,
        table=found,
        seats=seats,
        round_status=round_status,
        face=spec,
        partners={seat: team[0] for team in spec.teams(len(seats)) for seat in team},
        history=history,
        error=error,
        values=values or {},
        review=review,
        reviewed=_fingerprint(values) if review and values else "",
        warnings=[say(w) for w in review["warnings"]] if review else [],
    )


def _values_of(seats: list[str], players: list[dict[str, Any]]) -> dict[str, Any]:
    """A table form's fields filled with a result's lines."""
    by_name = {name_key(str(line["name"])): line for line in players}
    lines = [by_name.get(name_key(name), {}) for name in seats]
    out = next((str(seat) for seat, line in enumerate(lines) if line.get("out")), "")
    return {
        "points": [str(line.get("points", "")) for line in lines],
        "pips": [str(line.get("pips", "")) for line in lines],
        "out": out,
        "reason": "",
    }
