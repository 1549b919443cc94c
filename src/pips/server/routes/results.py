"""Results of games played at real tables: entered by form, CSV or JSON, listed, shown,
confirmed, disputed, resolved, withdrawn.

Every change needs an account and, from a browser, the session's CSRF token (a form
field, or the ``X-CSRF-Token`` header of a JSON request). What each account may do is
decided in :mod:`pips.results`; this module only turns requests into calls and errors
into answers (a page with the message, or JSON ``{"detail": ...}``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field, StringConstraints

from pips.core.names import name_key
from pips.core.phrase import phrase
from pips.games.registry import find_game
from pips.i18n import _, explain, say
from pips.results.entries import Entered
from pips.results.entry import GAMES, NAME_LENGTH, Checked, Entry, EntryError, Line, default_set
from pips.results.entry_formats import (
    decode_csv,
    entry_from_json,
    parse_date,
    parse_int,
    parse_target,
    read_csv,
)
from pips.results.plausible import unusual
from pips.results.players import UnknownPlayers
from pips.results.service import Filter, Results, ResultsError
from pips.server.limits import Limited
from pips.server.routes.common import (
    Count,
    Offset,
    PageNumber,
    Players,
    RowId,
    SetSize,
    address,
    choices,
    limits_of,
    results_of,
    run,
)
from pips.server.web import account, check_csrf, page, viewer, who

MAX_UPLOAD = 2_000_000
"""Bytes of a CSV upload."""

MAX_BATCH = 500
"""Results checked or entered in one request (a club's month fits many times over)."""

api = APIRouter()


PlayerName = Annotated[str, StringConstraints(max_length=NAME_LENGTH)]


class ResultsBatch(BaseModel):
    """Results to enter: one game's object (see ``docs/results.md``) or ``results``, a
    list of them, all saved or none. ``new_players``: names that are new players though
    they look like known ones (entry asks: "did you mean Anna Berg?")."""

    results: list[dict[str, Any]]
    group: str | None = None
    new_players: list[PlayerName] = Field(default=[], max_length=MAX_BATCH)
    known_players: dict[PlayerName, int] = Field(default={}, max_length=MAX_BATCH)
    """Names given the known player meant (their number, from the question)."""


class Review(BaseModel):
    comment: str = ""


@api.post("/api/results/check", tags=["results"])
async def check_results(request: Request, body: ResultsBatch) -> list[dict[str, Any]]:
    """Check results without saving them: each one's final scores and places. Open to
    anyone, so it is rate-limited per address and checked one batch at a time."""
    results = results_of(request)
    limits = limits_of(request)
    try:
        await limits.checks.take(address(request))
    except Limited as exc:
        raise HTTPException(429, explain(exc), {"Retry-After": str(exc.retry_after)}) from None
    async with limits.checking:
        checked = await asyncio.to_thread(_checked_all, results, body.results)
    await run(results.entries.duplicates, checked)
    me = who(request)
    new: list[str] = []
    if me is not None and me.user_id is not None:
        # Signed in: what entering would say of the names, too.
        entered = await run(
            results.entries.enter,
            me.user_id,
            checked,
            source="api",
            group=body.group,
            new_players=body.new_players,
            known_players=body.known_players,
            save=False,
        )
        new = entered.new_players
    return [_preview(c, new) for c in checked]


@api.post("/api/results", tags=["results"], status_code=201)
async def enter_results(request: Request, body: ResultsBatch) -> dict[str, Any]:
    """Enter finished games (all or none). Needs an account and ``X-CSRF-Token``."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    async with limits_of(request).checking:
        checked = await asyncio.to_thread(_checked_all, results, body.results)
    entered = await run(
        results.entries.enter,
        actor,
        checked,
        source="api",
        group=body.group,
        new_players=body.new_players,
        known_players=body.known_players,
    )
    ids = entered.ids
    return {"ids": ids, "urls": [f"/results/{i}" for i in ids], "new_players": entered.new_players}


@api.post("/api/results/csv", tags=["results"], status_code=201)
async def enter_csv(
    request: Request, group: str | None = None, new_players: str = ""
) -> dict[str, Any]:
    """Enter the games of a CSV body (``text/csv``, the columns of ``pips ranking
    export``), all or none. ``new_players``: names, comma-separated, confirmed as new
    players though they look like known ones."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    body = await request.body()
    entered = await run(_enter_csv, results, actor, body, group, _names(new_players))
    return {"ids": entered.ids, "new_players": entered.new_players}


@api.get("/api/results", tags=["results"])
async def list_results(
    request: Request,
    group: str | None = None,
    game: str | None = None,
    month: str | None = None,
    player: str | None = None,
    status: str | None = None,
    limit: Count = 50,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Results, newest game first, filtered by group, game, month, player or status."""
    results = results_of(request)
    rows, total = await run(
        results.register.listing,
        Filter(group, game, month, player, status, limit, offset),
        viewer(request),
    )
    return {"total": total, "results": rows}


@api.get("/api/results/export.csv", tags=["results"])
async def export_csv(request: Request, month: str, group: str | None = None) -> Response:
    """A month's counted results in the federation's fields (SPEC F-25)."""
    results = results_of(request)
    text = await run(results.register.export, month, group)
    name = f"pips-results-{month}{'-' + group if group else ''}.csv"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(text, media_type="text/csv", headers=headers)


@api.get("/api/results/waiting", tags=["results"])
async def waiting_results(request: Request) -> list[dict[str, Any]]:
    """The results that wait on the signed-in account to count, oldest first: its
    own lines to confirm, its approved group's results (as representative), and for an
    administrator every result nobody else can confirm and every dispute; with each
    one's age in days and why it is listed."""
    actor = account(request)
    found = await run(results_of(request).reviews.waiting, actor)
    return [{**r, "why": say(r["why"])} for r in found]


@api.get("/api/results/{result_id}", tags=["results"])
async def get_result(request: Request, result_id: RowId) -> dict[str, Any]:
    results = results_of(request)
    return dict(await run(results.register.result, result_id, viewer(request)))


@api.post("/api/results/{result_id}/{action}", tags=["results"])
async def review_result(
    request: Request, result_id: RowId, action: str, body: Review | None = None
) -> dict[str, Any]:
    """``confirm``, ``dispute`` (with a comment), ``resolve`` (one's own dispute),
    ``reject`` or ``uphold`` a dispute, ``withdraw``, ``clear`` a flag (see
    ``docs/results.md``)."""
    results = results_of(request)
    check_csrf(request, request.headers.get("x-csrf-token"))
    actor = account(request)
    comment = body.comment if body else ""
    return dict(await run(results.reviews.review, actor, result_id, action, comment))


@api.get("/results", response_class=HTMLResponse, include_in_schema=False)
async def results_page(
    request: Request,
    group: str = "",
    game: str = "",
    month: str = "",
    player: str = "",
    status: str = "",
    page_number: PageNumber = 1,
) -> HTMLResponse:
    results = results_of(request)
    where = Filter(
        group or None,
        game or None,
        month or None,
        player or None,
        status or None,
        limit=50,
        offset=50 * max(0, page_number - 1),
    )
    error = None
    try:
        rows, total = await asyncio.to_thread(results.register.listing, where, viewer(request))
    except ResultsError as exc:  # a malformed month: say so, list nothing
        rows, total, error = [], 0, explain(exc)
    return page(
        request,
        "results.html",
        status_code=200 if error is None else 422,
        error=error,
        rows=rows,
        total=total,
        where=where,
        groups=await run(results.groups.listing),
        page_number=page_number,
    )


@api.get("/results/new", response_class=HTMLResponse, include_in_schema=False)
async def new_result(
    request: Request, game: str = GAMES[0], players: Players = 4, set: SetSize = None
) -> HTMLResponse:
    results = results_of(request)
    spec = find_game(game if game in GAMES else GAMES[0])
    if players not in spec.players:
        players = int(spec.defaults.get("players", spec.players[0]))
    form = {
        "game": spec.name,
        "players": players,
        "set": set or default_set(spec.name, players),
        "date": "",
        "place": "",
        "group": "",
        "lines": [{} for _ in range(players)],
    }
    return await _form_page(request, results, form)


@api.post("/results/new", response_class=HTMLResponse, include_in_schema=False)
async def post_result(request: Request) -> Response:
    results = results_of(request)
    data = await request.form()
    check_csrf(request, str(data.get("csrf", "")))
    actor = account(request)
    form = _form_values(data)
    try:
        checked = results.entries.check(_form_entry(form))
    except EntryError as exc:
        return await _form_page(request, results, form, error=explain(exc), status_code=422)
    new_players, known_players = choices(data, MAX_BATCH)
    # The answers to "which player is meant?" go along with the form from now on.
    form["picked"] = {
        **dict.fromkeys(new_players, "new"),
        **{name: str(number) for name, number in known_players.items()},
    }
    try:
        await run(results.entries.duplicates, [checked])
        entered = await asyncio.to_thread(
            results.entries.enter,
            actor,
            [checked],
            source="form",
            group=form["group"] or None,
            new_players=new_players,
            known_players=known_players,
            save=data.get("action") == "save",
        )
    except UnknownPlayers as exc:
        return await _form_page(
            request,
            results,
            form,
            checked=checked,
            error=explain(exc),
            asked=exc.candidates,
            status_code=exc.status,
        )
    except (ResultsError, HTTPException) as exc:
        status = exc.status if isinstance(exc, ResultsError) else exc.status_code
        detail = explain(exc) if isinstance(exc, ResultsError) else str(exc.detail)
        return await _form_page(
            request, results, form, checked=checked, error=detail, status_code=status
        )
    if data.get("action") != "save":
        return await _form_page(
            request, results, form, checked=checked, new_players=entered.new_players
        )
    return RedirectResponse(f"/results/{entered.ids[0]}", status_code=303)


@api.get("/results/upload", response_class=HTMLResponse, include_in_schema=False)
async def upload_page(request: Request) -> HTMLResponse:
    results = results_of(request)
    return await _upload_page(request, results)


@api.post("/results/upload", response_class=HTMLResponse, include_in_schema=False)
async def upload(
    request: Request,
    file: UploadFile | None = None,
    csrf: str = Form(""),
    group: str = Form(""),
    new_players: str = Form(""),
    csv_text: str = Form("", max_length=MAX_UPLOAD),
    reviewed: str = Form("", max_length=64),
    action: str = Form("check", max_length=10),
) -> Response:
    """A CSV is checked and shown first (every game's finals, places and warnings);
    only the reviewed text, sent back unchanged with "save", is entered."""
    results = results_of(request)
    check_csrf(request, csrf)
    actor = account(request)
    if file is not None and file.filename:
        body = await file.read(MAX_UPLOAD + 1)
    else:
        body = csv_text.encode("utf-8")
    picked_new, known = choices(await request.form(), MAX_BATCH)
    new = _names(new_players) + picked_new
    new_players = ", ".join(new)
    text = ""
    try:
        # A browser sends a text area back with CRLF line ends: the same text.
        text = decode_csv(body[: MAX_UPLOAD + 1]).replace("\r\n", "\n")
        fingerprint = _text_fingerprint(text, group, new, known)
        save = action == "save" and reviewed == fingerprint
        entered = await asyncio.to_thread(
            _enter_csv, results, actor, text.encode("utf-8"), group or None, new, save, known
        )
    except UnknownPlayers as exc:
        return await _upload_page(
            request,
            results,
            error=explain(exc),
            status_code=exc.status,
            group=group,
            new_players=new_players,
            asked=exc.candidates,
            csv_text=text,
        )
    except (ResultsError, EntryError) as exc:
        status = exc.status if isinstance(exc, ResultsError) else 422
        return await _upload_page(
            request,
            results,
            error=explain(exc),
            status_code=status,
            group=group,
            new_players=new_players,
        )
    if not save:
        games = read_csv(text, results.context.today())
        return await _upload_page(
            request,
            results,
            group=group,
            new_players=new_players,
            review=[
                {
                    **_preview(c, entered.new_players),
                    "label": c.called(i),
                    "warnings": [say(w) for w in unusual(c)],
                }
                for i, c in enumerate(games, 1)
            ],
            new=entered.new_players,
            csv_text=text,
            reviewed=fingerprint,
            picked={name: str(number) for name, number in known.items()},
        )
    return await _upload_page(
        request, results, entered=entered.ids, new=entered.new_players, group=group
    )


def _text_fingerprint(text: str, group: str, new: list[str], known: dict[str, int]) -> str:
    """What a review showed, so that saving saves exactly that."""
    shown = json.dumps([text, group, sorted(new), sorted(known.items())]).encode()
    return hashlib.sha256(shown).hexdigest()[:24]


@api.get("/results/waiting", response_class=HTMLResponse, include_in_schema=False)
async def waiting_page(request: Request) -> HTMLResponse:
    me = who(request)
    if me is None or me.user_id is None:
        return page(request, "results_waiting.html", rows=None, status_code=401)
    rows = await run(results_of(request).reviews.waiting, me.user_id)
    return page(request, "results_waiting.html", rows=rows)


@api.get("/results/{result_id}", response_class=HTMLResponse, include_in_schema=False)
async def result_page(request: Request, result_id: RowId) -> HTMLResponse:
    results = results_of(request)
    shown = await run(results.register.result, result_id, viewer(request))
    return page(request, "result.html", result=shown)


@api.post("/results/{result_id}/{action}", include_in_schema=False)
async def review_form(
    request: Request, result_id: RowId, action: str, csrf: str = Form(""), comment: str = Form("")
) -> Response:
    results = results_of(request)
    check_csrf(request, csrf)
    actor = account(request)
    try:
        await asyncio.to_thread(results.reviews.review, actor, result_id, action, comment)
    except ResultsError as exc:
        shown = await run(results.register.result, result_id, viewer(request))
        return page(
            request, "result.html", status_code=exc.status, result=shown, error=explain(exc)
        )
    return RedirectResponse(f"/results/{result_id}", status_code=303)


# -- helpers ---------------------------------------------------------------------------


def _checked_all(results: Results, items: list[dict[str, Any]]) -> list[Checked]:
    if not items:
        raise HTTPException(422, _("no results given"))
    if len(items) > MAX_BATCH:
        raise HTTPException(422, _("at most {count} results at once").format(count=MAX_BATCH))
    checked = []
    for number, item in enumerate(items, 1):
        try:
            checked.append(results.entries.check(entry_from_json(item)))
        except EntryError as exc:
            if len(items) > 1:
                message = _("result {number}: {problem}").format(
                    number=number, problem=explain(exc)
                )
            else:
                message = explain(exc)
            raise HTTPException(422, message) from None
    return checked


def _names(text: str) -> list[str]:
    """Names given comma-separated (a form field, a query parameter)."""
    return [n.strip() for n in text.split(",") if n.strip()][:MAX_BATCH]


def _enter_csv(
    results: Results,
    actor: int | None,
    body: bytes,
    group: str | None,
    new: list[str],
    save: bool = True,
    known: dict[str, int] | None = None,
) -> Entered:
    if actor is None:
        raise ResultsError(phrase("sign in with an account first"))
    if len(body) > MAX_UPLOAD:
        raise EntryError(
            phrase("a CSV upload is at most {count} MB", count=MAX_UPLOAD // 1_000_000)
        )
    checked = read_csv(decode_csv(body), results.context.today())
    if len(checked) > MAX_BATCH * 4:
        raise EntryError(phrase("a CSV upload holds at most {count} games", count=MAX_BATCH * 4))
    return results.entries.enter(
        actor, checked, source="csv", group=group, new_players=new, known_players=known, save=save
    )


def _preview(checked: Checked, new: Sequence[str] = ()) -> dict[str, Any]:
    e = checked.entry
    fresh = {name_key(n) for n in new}
    return {
        "game": e.game,
        "date": e.played_on.isoformat(),
        "set": e.set,
        "divisor": checked.divisor,
        "target": checked.target,
        "players": [
            {
                "name": ln.name,
                "points": ln.points,
                "pips": ln.pips,
                "final": f,
                "rank": r,
                "new": name_key(ln.name) in fresh,
            }
            for ln, f, r in zip(e.lines, checked.final, checked.ranks, strict=True)
        ],
        "warnings": [say(w) for w in unusual(checked)],
    }


def _form_values(data: Any) -> dict[str, Any]:
    game = str(data.get("game", GAMES[0]))
    spec = find_game(game if game in GAMES else GAMES[0])
    try:
        players = int(data.get("players", 4))
    except ValueError:
        players = 4
    if players not in spec.players:
        players = int(spec.defaults.get("players", spec.players[0]))
    lines = []
    for seat in range(players):
        lines.append(
            {
                "name": str(data.get(f"name{seat}", "")),
                "points": str(data.get(f"points{seat}", "")),
                "pips": str(data.get(f"pips{seat}", "")),
                "out": str(data.get("out", "")) == str(seat),
            }
        )
    for team in spec.teams(players):
        # Partners share their pair's points: the form asks for them once.
        for seat in team[1:]:
            lines[seat]["points"] = lines[team[0]]["points"]
    return {
        "game": game,
        "players": players,
        "set": str(data.get("set", "")),
        "date": str(data.get("date", "")),
        "place": str(data.get("place", "")),
        "group": str(data.get("group", "")),
        "target": str(data.get("target", "")),
        "lines": lines,
    }


def _form_entry(form: dict[str, Any]) -> Entry:
    return Entry(
        form["game"],
        parse_date(form["date"]),
        parse_int(form["set"], "set"),
        tuple(
            Line(
                line["name"],
                parse_int(line["points"], f"seat {seat + 1} points"),
                parse_int(line["pips"], f"seat {seat + 1} pips"),
                bool(line["out"]),
            )
            for seat, line in enumerate(form["lines"])
        ),
        form["place"],
        parse_target(form["target"]) if form.get("target", "").strip() else None,
    )


async def _my_groups(request: Request, results: Results) -> list[dict[str, Any]]:
    me = who(request)
    if me is None or me.user_id is None:
        return []
    return list(await asyncio.to_thread(results.groups.listing, me.user_id))


async def _form_page(
    request: Request,
    results: Results,
    form: dict[str, Any],
    *,
    checked: Checked | None = None,
    error: str | None = None,
    status_code: int = 200,
    asked: dict[str, list[dict[str, Any]]] | None = None,
    new_players: list[str] | None = None,
) -> HTMLResponse:
    mine = await _my_groups(request, results)
    # Offer the players of the groups one belongs to as names (a datalist).
    known: set[str] = set()
    for group in mine:
        known.update(p["name"] for p in await run(results.players.of_group, group["slug"]))
    spec = find_game(form["game"])
    return page(
        request,
        "result_form.html",
        accounts=sorted(known),
        status_code=status_code,
        form=form,
        checked=checked,
        error=error,
        asked=asked or {},
        new_players=new_players or [],
        warnings=[say(w) for w in unusual(checked)] if checked else [],
        my_groups=mine,
        default_target=spec.target(
            spec.options_from_json({**spec.defaults, "players": form["players"]})
        ),
        today=results.context.today().isoformat(),
    )


async def _upload_page(
    request: Request,
    results: Results,
    *,
    entered: list[int] | None = None,
    new: list[str] | None = None,
    error: str | None = None,
    status_code: int = 200,
    group: str = "",
    new_players: str = "",
    asked: dict[str, list[dict[str, Any]]] | None = None,
    review: list[dict[str, Any]] | None = None,
    csv_text: str = "",
    reviewed: str = "",
    picked: dict[str, str] | None = None,
) -> HTMLResponse:
    mine = await _my_groups(request, results)
    return page(
        request,
        "upload.html",
        status_code=status_code,
        entered=entered,
        new=new or [],
        error=error,
        my_groups=mine,
        group=group,
        new_players=new_players,
        asked=asked or {},
        review=review,
        csv_text=csv_text,
        reviewed=reviewed,
        picked=picked or {},
    )
