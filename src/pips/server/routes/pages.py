"""The pages of the live game: lobby, signing in, a table, a replay, a player's games."""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
from typing import Any
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markdown_it import MarkdownIt
from markupsafe import Markup
from pydantic import Field

from pips import i18n
from pips.bots.base import BOT_LEVELS
from pips.core.errors import RuleError
from pips.core.phrase import N_
from pips.games.registry import find_game
from pips.i18n import _, explain
from pips.results.guests import adopt_guest
from pips.server import accounts, exercises, standing
from pips.server.accounts.identity import Identity
from pips.server.errors import refusal, refusals
from pips.server.requests import BotSeat, Strict
from pips.server.responses.records import ExerciseAnswered, ExerciseListed, ExerciseShown
from pips.server.round import ForCreator, SeatChoice
from pips.server.routes.common import (
    address,
    cluster_of,
    results_of,
    room_for_a_table,
    tables_of,
)
from pips.server.tables import TableError
from pips.server.web import accounts_of, check_csrf, language_of, local_path, page, who
from pips.store.db import Database

api = APIRouter()

DEVICE_COOKIE = "pips_device"
DEVICE_DAYS = 365


@api.get("/", response_class=HTMLResponse, include_in_schema=False)
async def lobby(request: Request) -> HTMLResponse:
    return page(request, "lobby.html", **await listed(request))


async def listed(request: Request) -> dict[str, Any]:
    """The public tables of the lobby, of every server process: those to join or
    watch, and recent finished ones."""
    playing, finished = await cluster_of(request).public()
    me = who(request)
    mine = [] if me is None else await tables_of(request).repository.seated_tables(me)
    for table in mine:
        table["title"] = find_game(table["game"]).title
    return {
        "tables": playing,
        "recent": finished,
        "bot_levels": BOT_LEVELS,
        "mine": mine,
        "mine_ids": {table["id"] for table in mine},
    }


REFUSAL_PAUSE = 1.0
"""Seconds a sign-in refused as a flood's (429: too many attempts from the address; 503:
the hashes busy; :attr:`~pips.server.accounts.AccountError.held`) is held before it is
answered, holding one of its address's turns
(:attr:`~pips.server.limits.Limits.requests_at_once`). A guesser who asks again the
moment they are refused is answered six times a second per address (a /64), not as
often as a core renders a page: each refusal is cheap, but a flood of them answered at
once took the server's core from the tables (benchmarks/attack.py, the sign-in cells).
A person refused waits a second longer for a page that tells them to wait anyway. The
wait after wrong passwords for a name is not paused: it counts its own seconds."""

pause = asyncio.sleep
"""How a refusal is held (a test holds it until it lets go)."""


async def refused_sign_in(request: Request, exc: accounts.AccountError) -> HTMLResponse:
    if exc.held:
        await pause(REFUSAL_PAUSE)
    listing = await listed(request)
    response = page(request, "lobby.html", exc.status, error=explain(exc), **listing)
    if exc.retry_after is not None:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


def signed_in(request: Request, token: str, language: str | None = None) -> None:
    # A new session at every sign-in: a new token and a new CSRF token, so nothing
    # learnt of the session before it (a planted cookie, a token in a form) is any use.
    # The language carries over: the account's, else the one chosen before.
    chosen = language or request.session.get("lang")
    request.session.clear()
    request.session["token"] = token
    if isinstance(chosen, str) and chosen in i18n.LANGUAGES:
        request.session["lang"] = chosen
    accounts.csrf_token(request.session)


@api.post("/register", include_in_schema=False)
@api.post("/login", include_in_schema=False)
async def sign_in(
    request: Request, name: str = Form(), password: str = Form(), csrf: str = Form("")
) -> Response:
    """Register a new account or sign in to one (the path says which)."""
    check_csrf(request, csrf)
    service = accounts_of(request)
    before = who(request)
    try:
        if request.url.path == "/register":
            token, me = await service.register(name, password, address(request))
            if before is not None and before.guest and me.user_id is not None:
                await kept_as_guest(request, before.guest, me)
        else:
            device = request.cookies.get(DEVICE_COOKIE, "")
            token, me = await service.sign_in(name, password, address(request), device)
    except accounts.AccountError as exc:
        return await refused_sign_in(request, exc)
    kept = await service.language(me.user_id) if me.user_id is not None else None
    if kept is None and me.user_id is not None and request.session.get("lang"):
        # A language chosen before registering or signing in becomes the account's.
        chosen = str(request.session["lang"])
        if chosen in i18n.LANGUAGES:
            await service.set_language(me.user_id, chosen)
    signed_in(request, token, kept)
    response = RedirectResponse("/", status_code=303)
    if me.user_id is not None:
        # This browser is the owner's from now on: a guesser elsewhere never makes it
        # wait (accounts.Throttle).
        response.set_cookie(
            DEVICE_COOKIE,
            service.device_token(me.user_id),
            max_age=DEVICE_DAYS * 24 * 3600,
            httponly=True,
            samesite="lax",
            secure=request.url.scheme == "https",
        )
    return response


async def kept_as_guest(request: Request, guest: str, me: Identity) -> None:
    """A guest registers: what they played as a guest becomes the account's (issue 51),
    in the database and at the tables this process holds."""
    assert me.user_id is not None
    results = results_of(request)
    await asyncio.to_thread(adopt_guest, results.db, results.players, guest, me.user_id)
    for table in tables_of(request).live.values():
        standing.adopt_guest(table.round, guest, me.user_id)


@api.post("/guest", include_in_schema=False)
async def guest(request: Request, name: str = Form(), csrf: str = Form("")) -> Response:
    check_csrf(request, csrf)
    me = who(request)
    try:
        token, _ = await accounts_of(request).guest(
            name, address(request), me if me is not None and me.guest else None
        )
    except accounts.AccountError as exc:
        return await refused_sign_in(request, exc)
    signed_in(request, token)
    return RedirectResponse(back_to(request), status_code=303)


GUEST_WORD = N_("Guest")
"""The start of a generated guest name ("Guest-4821"; in German "Gast-4821")."""


async def generated_guest(request: Request) -> str:
    """A guest name made for a newcomer (renamed later from the page's header): the
    language's word for guest and a number no one else holds now."""
    service = accounts_of(request)
    for _attempt in range(5):
        name = f"{_(GUEST_WORD)}-{secrets.randbelow(9000) + 1000}"
        try:
            token, _me = await service.guest(name, address(request), None)
        except accounts.AccountError as exc:
            if exc.status == 429:
                raise
            continue  # held by someone: another number
        signed_in(request, token)
        return name
    raise accounts.AccountError(_("no guest name is free just now: try again"), 503)


async def someone(request: Request) -> Identity | HTMLResponse:
    """Who asks, named a guest first if they have no name yet (play now, an
    invitation); the refusal's page where no name can be given."""
    me = who(request)
    if me is not None:
        return me
    try:
        await generated_guest(request)
    except accounts.AccountError as exc:
        return await refused_sign_in(request, exc)
    named = who(request)
    assert named is not None
    return named


@api.post("/play", include_in_schema=False)
async def play_now(
    request: Request,
    game: str = Form(),
    level: str = Form("greedy"),
    where: str = Form("bots"),
    csrf: str = Form(""),
) -> Response:
    """Play now, in one click: a newcomer is given a guest name, then seated at a new
    table against bots of the chosen level, or at the next public table of the game
    with a free seat (against bots when there is none)."""
    check_csrf(request, csrf)
    try:
        spec = find_game(game)
    except RuleError:
        raise HTTPException(400, _("no such game")) from None
    if level not in {bot for _label, bot in BOT_LEVELS} or where not in ("bots", "table"):
        raise HTTPException(400, _("choose a level of the list"))
    me = await someone(request)
    if not isinstance(me, Identity):
        return me  # no name could be given: the refusal's page
    cluster = cluster_of(request)
    if where == "table":
        playing, _finished = await cluster.public()
        for table in playing:
            free = any(s["kind"] == "open" and not s.get("kept") for s in table["seats"])
            if table["game"] != spec.name or table["status"] != "waiting" or not free:
                continue
            with contextlib.suppress(LookupError, TableError):
                await cluster.calls.join(table["id"], me, "", language_of(request))
                return RedirectResponse(f"/t/{table['id']}", status_code=303)
    try:
        await room_for_a_table(request, me)
    except HTTPException as exc:
        # Too many tables: the lobby says so above the player's own tables, each with
        # its way back (and there, to leave it).
        listing = await listed(request)
        return page(request, "lobby.html", exc.status_code, error=exc.detail, **listing)
    # The options a form starts from: the game as it is mostly played.
    options = spec.example
    seats: list[SeatChoice] = [
        ForCreator(),
        *(BotSeat(kind="bot", bot=level).choice() for _ in range(options.players - 1)),
    ]
    tables = tables_of(request)
    try:
        made = await tables.create(spec, options, seats, me, address=address(request))
    except TableError as exc:
        raise refusal(exc, 422) from None
    await made.start_if_ready()
    return RedirectResponse(f"/t/{made.id}", status_code=303)


def back_to(request: Request) -> str:
    """Where a form returns: the page it came from on this site, else the lobby."""
    return local_path(request.headers.get("referer") or "", request)


@api.post("/language", include_in_schema=False)
async def choose_language(request: Request, lang: str = Form(), csrf: str = Form("")) -> Response:
    """The language chosen in a page: kept in the session and, signed in, with the
    account; back to the page it was chosen on."""
    check_csrf(request, csrf)
    if lang not in i18n.LANGUAGES:
        raise HTTPException(400, f"unknown language; choose from {', '.join(i18n.LANGUAGES)}")
    request.session["lang"] = lang
    me = who(request)
    if me is not None and me.user_id is not None:
        await accounts_of(request).set_language(me.user_id, lang)
    return RedirectResponse(back_to(request), status_code=303)


@api.post("/logout", include_in_schema=False)
async def logout(request: Request, csrf: str = Form("")) -> Response:
    check_csrf(request, csrf)
    chosen = request.session.get("lang")
    ended = await accounts_of(request).sign_out(request.session)
    if ended is not None:
        # Its sockets close too, in whichever process they are.
        await cluster_of(request).endings.end([ended])
    if isinstance(chosen, str) and chosen in i18n.LANGUAGES:
        request.session["lang"] = chosen  # signing out does not change the language
    return RedirectResponse("/", status_code=303)


@api.get("/t/{table_id}", response_class=HTMLResponse, include_in_schema=False)
async def table_page(request: Request, table_id: str, invite: str = "") -> Response:
    found = await cluster_of(request).calls.look(
        table_id, who(request), invite, language_of(request)
    )
    if found is None:
        if await tables_of(request).repository.status(table_id) == "finished":
            return RedirectResponse(f"/replay/{table_id}", status_code=303)
        raise HTTPException(404, _("no such table"))
    return page(request, "table.html", table=found.summary, invite=invite)


@api.post("/t/{table_id}/sit", include_in_schema=False)
async def sit_down(
    request: Request, table_id: str, invite: str = Form(""), csrf: str = Form("")
) -> Response:
    """Take an open seat from the table's page in one tap: someone who came by an
    invitation with no name yet is given a guest name first (issue 51: it took four
    taps and a name)."""
    check_csrf(request, csrf)
    me = await someone(request)
    if not isinstance(me, Identity):
        return me  # no name could be given: the refusal's page
    try:
        await cluster_of(request).calls.join(table_id, me, invite, language_of(request))
    except LookupError:
        raise HTTPException(404, _("no such table")) from None
    except TableError as exc:
        raise refusal(exc, 409) from None
    return RedirectResponse(f"/t/{table_id}?invite={quote(invite)}", status_code=303)


RULE_ID = re.compile(r"\b([A-Z]{1,2}-\d{2})\b")


def rules_html(text: str) -> str:
    """A game's rules in brief as HTML; the first mention of each rule id becomes the
    place a link ``#F-22`` (from an error or an option) lands."""
    html = MarkdownIt("commonmark", {"html": False}).render(text)
    seen: set[str] = set()

    def anchor(found: re.Match[str]) -> str:
        rule = found.group(1)
        if rule in seen:
            return rule
        seen.add(rule)
        return f'<span id="{rule}" class="rule-id">{rule}</span>'

    return RULE_ID.sub(anchor, html)


@api.get("/rules/{game}", response_class=HTMLResponse, include_in_schema=False)
async def rules(request: Request, game: str) -> HTMLResponse:
    """A game's rules help: its rules in brief with their SPEC ids, and its options."""
    try:
        spec = find_game(game)
    except RuleError:
        raise HTTPException(404, _("no such game")) from None
    return page(request, "rules.html", spec=spec, rules=Markup(rules_html(_(spec.summary))))


@api.get("/favicon.ico", include_in_schema=False)
async def favicon() -> RedirectResponse:
    return RedirectResponse("/static/favicon.svg", status_code=301)


@api.get("/fair", response_class=HTMLResponse, include_in_schema=False)
async def fair(request: Request) -> HTMLResponse:
    """How the deals are made and how a player checks one."""
    return page(request, "fair.html")


@api.get("/replay/{table_id}", response_class=HTMLResponse, include_in_schema=False)
async def replay_page(request: Request, table_id: str) -> HTMLResponse:
    return page(request, "replay.html", table_id=table_id)


@api.get("/accounts/{name}/games", response_class=HTMLResponse, include_in_schema=False)
async def history_page(request: Request, name: str) -> HTMLResponse:
    """An account's finished games at the server's tables (a player's page, with their
    results and lists, is ``/players/{id}``)."""
    finished = await tables_of(request).repository.finished_games(name, who(request))
    if finished is None:
        raise HTTPException(404, _("no such player"))
    for game in finished:
        game["title"] = find_game(game["game"]).title
        game["players"] = [
            {"name": seat_shown(seated, name, game["mine"]), "mine": seated in game["mine"]}
            for seated in game["seats"] or []
        ]
    return page(request, "history.html", name=name, finished=finished)


LEVELLED = re.compile(r"(?P<level>[a-z]+) (?P<number>[0-9]{1,2})")
"""A bot's name at a table as a record keeps it: its level's English word and its seat
(:func:`pips.server.round.bot_seat_name`)."""


def seat_shown(seated: str, account: str, mine: list[str]) -> str:
    """A seat's name on an account's list of games, as the table showed it: the account's
    own seat by the account's name (also where it sat as a guest before registering),
    a bot by its level in the reader's language ("Gelegenheitsspieler 1", not
    "casual 1")."""
    if seated in mine:
        return account
    found = LEVELLED.fullmatch(seated)
    if found and found["level"] in {word for word, _bot in BOT_LEVELS}:
        return f"{_(found['level'])} {found['number']}"
    return seated


# -- exercises: learn from your mistakes (issue 51) ---------------------------------------


class ExerciseAnswer(Strict):
    """The play chosen in an exercise, by the name its choices give it."""

    choice: str = Field(max_length=60)


def _exerciser(request: Request) -> Identity:
    me = who(request)
    if me is None:
        raise HTTPException(401, _("sign in or choose a guest name first"))
    return me


def _db(request: Request) -> Database:
    db: Database = tables_of(request).repository.db
    return db


@api.get("/api/exercises", tags=["records"], responses=refusals(401))
async def list_exercises(request: Request) -> list[ExerciseListed]:
    """The positions of your own analysed games where your play lost by a clear margin
    (a mistake or a blunder), newest game first."""
    return [
        ExerciseListed.model_validate(e)
        for e in await exercises.listed(_db(request), _exerciser(request))
    ]


@api.get("/api/exercises/{exercise_id}", tags=["records"], responses=refusals(401, 404))
async def get_exercise(request: Request, exercise_id: str) -> ExerciseShown:
    """One exercise as your seat saw it before the move: the layout, your hand, the
    other hands' and the stock's sizes, and the choices. Nothing hidden at the table."""
    me = _exerciser(request)
    try:
        found = await asyncio.to_thread(exercises.position, _db(request), me, exercise_id)
    except exercises.NoExercise:
        raise HTTPException(404, _("no such exercise")) from None
    return ExerciseShown.model_validate(i18n.translated(found))


@api.post(
    "/api/exercises/{exercise_id}/answer", tags=["records"], responses=refusals(401, 404, 422)
)
async def answer_exercise(
    request: Request, exercise_id: str, body: ExerciseAnswer
) -> ExerciseAnswered:
    """Check a play against the analysis: whether it is as good as the best one, every
    choice's expected result, and the difference in words."""
    check_csrf(request, request.headers.get("x-csrf-token"))
    me = _exerciser(request)
    try:
        told = await asyncio.to_thread(exercises.answer, _db(request), me, exercise_id, body.choice)
    except exercises.NoExercise:
        raise HTTPException(404, _("no such exercise")) from None
    except ValueError:
        raise HTTPException(422, _("that is not one of this position's plays")) from None
    return ExerciseAnswered.model_validate(i18n.translated(told))


@api.get("/exercises", response_class=HTMLResponse, include_in_schema=False)
async def exercises_page(request: Request) -> Response:
    """Your mistakes as exercises, one at a time."""
    me = who(request)
    found = [] if me is None else await exercises.listed(_db(request), me)
    return page(request, "exercises.html", exercises=found)
