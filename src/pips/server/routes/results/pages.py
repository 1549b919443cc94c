"""The results' pages (/results): the list, the entry form laid out like the score sheet,
uploads with their preview, review."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import Field

from pips.core.phrase import N_, phrase
from pips.games.registry import find_game
from pips.i18n import _, explain, ngettext, say
from pips.results.entry import GAMES, EntryError, default_set
from pips.results.entry_formats import decode_csv
from pips.results.plausible import unusual
from pips.results.players import UnknownPlayers
from pips.results.service import Filter, ResultsError
from pips.server.forms import PageForm, reshown_by
from pips.server.requests import ResultStatus
from pips.server.routes.common import (
    PageNumber,
    PlayerCount,
    RowId,
    SetSize,
    results_of,
    run,
)
from pips.server.routes.events.public import where_played
from pips.server.routes.results.common import (
    MAX_UPLOAD,
    csv_games,
    enter_csv_of,
    form_entry,
    form_page,
    form_values,
    names_in,
    preview,
    text_fingerprint,
    upload_page_of,
)
from pips.server.routes.results.forms import ResultForm, UploadForm
from pips.server.web import account, check_csrf, page, viewer, who
from pips.store.ids import row_id

api = APIRouter()


@api.get("/results", response_class=HTMLResponse, include_in_schema=False)
async def results_page(
    request: Request,
    group: str = "",
    game: str = "",
    month: str = "",
    player: str = "",
    status: ResultStatus | Literal[""] = "",
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
    request: Request, game: str = GAMES[0], players: PlayerCount = 4, set: SetSize = None
) -> HTMLResponse:
    results = results_of(request)
    spec = find_game(game if game in GAMES else GAMES[0])
    if players not in spec.player_counts:
        players = int(spec.defaults.get("players", spec.player_counts[0]))
    form = {
        "game": spec.name,
        "players": players,
        "set": set or default_set(spec.name, players),
        "date": "",
        "place": "",
        "group": "",
        "lines": [{} for _ in range(players)],
    }
    return await form_page(request, results, form)


async def result_form_again(request: Request, error: str, sent: dict[str, str]) -> Response:
    results = results_of(request)
    return await form_page(request, results, form_values(sent), error=error, status_code=422)


@api.post("/results/new", response_class=HTMLResponse, include_in_schema=False)
@reshown_by(ResultForm, result_form_again)
async def post_result(request: Request, sent: Annotated[ResultForm, Form()]) -> Response:
    """A result typed from a score sheet: checked against its game's rules, then (its
    ``action`` "save") entered, or (``check``) shown as it would be entered."""
    results = results_of(request)
    check_csrf(request, sent.csrf)
    actor = account(request)
    form = form_values(sent.flat())
    try:
        checked = results.entries.check(form_entry(form))
    except EntryError as exc:
        return await form_page(request, results, form, error=explain(exc), status_code=422)
    new_players, known_players = sent.choices()
    # The answers to "which player is meant?" go along with the form from now on.
    form["picked"] = {
        **dict.fromkeys(new_players, "new"),
        **{name: str(number) for name, number in known_players.items()},
    }
    try:
        # Entering (or its check, save false) refuses a duplicate in the same session.
        entered = await asyncio.to_thread(
            results.entries.enter,
            actor,
            [checked],
            source="form",
            group=form["group"] or None,
            new_players=new_players,
            known_players=known_players,
            save=sent.action == "save",
        )
    except UnknownPlayers as exc:
        return await form_page(
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
        return await form_page(
            request, results, form, checked=checked, error=detail, status_code=status
        )
    if sent.action != "save":
        return await form_page(
            request, results, form, checked=checked, new_players=entered.new_players
        )
    return RedirectResponse(f"/results/{entered.ids[0]}", status_code=303)


@api.get("/results/upload", response_class=HTMLResponse, include_in_schema=False)
async def upload_page(request: Request) -> HTMLResponse:
    results = results_of(request)
    done = request.session.pop(UPLOADED, None)
    if isinstance(done, dict):
        more = int(done.get("more") or 0)
        return await upload_page_of(
            request,
            results,
            entered=from_ranges(str(done.get("ids", ""))),
            new=[str(n) for n in done.get("new", [])] + ([f"… (+{more})"] if more else []),
            group=str(done.get("group", "")),
        )
    return await upload_page_of(request, results)


async def upload_again(request: Request, error: str, sent: dict[str, str]) -> Response:
    results = results_of(request)
    return await upload_page_of(
        request,
        results,
        error=error,
        status_code=422,
        group=sent.get("group", "")[:60],
        new_players=sent.get("new_players", "")[:20_000],
    )


@api.post("/results/upload", response_class=HTMLResponse, include_in_schema=False)
@reshown_by(UploadForm, upload_again)
async def upload(request: Request, form: Annotated[UploadForm, Form()]) -> Response:
    """A CSV is checked and shown first (every game's finals, places and warnings);
    only the reviewed text, sent back unchanged with "save", is entered."""
    results = results_of(request)
    check_csrf(request, form.csrf)
    actor = account(request)
    if form.file is not None and form.file.filename:
        body = await form.file.read(MAX_UPLOAD + 1)
    else:
        body = form.csv_text.encode("utf-8")
    group, action, reviewed = form.group, form.action, form.reviewed
    new, known = form.choices(names_in(form.new_players))
    new_players = ", ".join(new)
    text = ""
    try:
        if len(body) > MAX_UPLOAD:
            raise EntryError(
                phrase("a CSV upload is at most {count} MB", count=MAX_UPLOAD // 1_000_000)
            )
        # A browser sends a text area back with CRLF line ends: the same text.
        text = decode_csv(body)
        fingerprint = text_fingerprint(text, group, new, known)
        save = action == "save" and reviewed == fingerprint
        games = await csv_games(request, text)
        entered = await asyncio.to_thread(
            enter_csv_of, results, actor, games, group or None, new, save, known
        )
    except UnknownPlayers as exc:
        return await upload_page_of(
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
        return await upload_page_of(
            request,
            results,
            error=explain(exc),
            status_code=status,
            group=group,
            new_players=new_players,
        )
    if not save:
        return await upload_page_of(
            request,
            results,
            group=group,
            new_players=new_players,
            review=[
                {
                    **preview(c, entered.new_players),
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
    # Post/Redirect/Get: a reload of the answer shows it again, it does not enter the
    # file twice. What was entered rides along in the session, once (its numbers as
    # ranges: a file's results are numbered one after another).
    request.session[UPLOADED] = {
        "ids": id_ranges(entered.ids),
        "new": entered.new_players[:MOST_NAMES_SHOWN],
        "more": max(0, len(entered.new_players) - MOST_NAMES_SHOWN),
        "group": group,
    }
    return RedirectResponse("/results/upload#entered", status_code=303)


UPLOADED = "uploaded"
MOST_NAMES_SHOWN = 40
"""New players named after an upload (a session cookie holds a few kilobytes)."""


def id_ranges(ids: list[int]) -> str:
    """Numbers as ranges, "12-57,60"."""
    parts: list[str] = []
    for number in sorted(ids):
        if parts and "-" in parts[-1] and int(parts[-1].split("-")[1]) == number - 1:
            parts[-1] = f"{parts[-1].split('-')[0]}-{number}"
        elif parts and "-" not in parts[-1] and int(parts[-1]) == number - 1:
            parts[-1] = f"{parts[-1]}-{number}"
        else:
            parts.append(str(number))
    return ",".join(parts)


def from_ranges(text: str) -> list[int]:
    found: list[int] = []
    for part in text.split(","):
        low, _dash, high = part.partition("-")
        first, last = row_id(low), row_id(high or low)
        if first is not None and last is not None:
            # Bounded before the range is made: "1-2147483647" is not 2^31 numbers.
            found.extend(range(first, min(last, first + 10_000) + 1))
        if len(found) >= 10_000:
            break
    return found[:10_000]


@api.get("/results/waiting", response_class=HTMLResponse, include_in_schema=False)
async def waiting_page(request: Request) -> HTMLResponse:
    me = who(request)
    if me is None or me.user_id is None:
        return page(request, "results_waiting.html", rows=None, status_code=401)
    results = results_of(request)
    rows = await run(results.reviews.waiting, me.user_id)
    claims = await run(results.claims.waiting, me.user_id)
    return page(request, "results_waiting.html", rows=rows, claims=claims)


class WaitingForm(PageForm):
    """The fields of the waiting page's forms (confirm, decide, claims), as its page
    names them when one is refused while parsing."""

    confirm: Literal["", "yes"] = Field("", title=N_("Confirmation"))
    ids: str = Field("", max_length=12_000, title=N_("Results"))
    action: Literal["reject", "uphold"] = Field("reject", title=N_("Decision"))
    decision: Literal["approve", "refuse"] = Field("approve", title=N_("Decision"))
    claims: str = Field("", max_length=50_000, title=N_("Claims"))
    comment: str = Field("", max_length=500, title=N_("Comment"))


async def waiting_again(request: Request, error: str, sent: dict[str, str]) -> Response:
    """The waiting page again, saying why a form of it was refused (nothing changed)."""
    actor = account(request)
    results = results_of(request)
    rows = await run(results.reviews.waiting, actor)
    claims = await run(results.claims.waiting, actor)
    return page(
        request, "results_waiting.html", rows=rows, claims=claims, error=error, status_code=422
    )


@api.post("/results/waiting/confirm", include_in_schema=False)
@reshown_by(WaitingForm, waiting_again)
async def confirm_waiting(
    request: Request,
    csrf: Annotated[str, Form(max_length=200)] = "",
    confirm: Annotated[Literal["", "yes"], Form()] = "",
    ids: Annotated[str, Form(max_length=12_000, pattern=r"^[0-9,]*$")] = "",
) -> Response:
    """Confirm the results waiting for the signed-in account in one step: first the
    review (what will change), then, confirmed, exactly the results it showed
    (``ids``, as the review listed them)."""
    check_csrf(request, csrf)
    actor = account(request)
    results = results_of(request)
    if confirm == "yes":
        ids_shown = row_ids([ids])
        try:
            await asyncio.to_thread(results.reviews.confirm_all, actor, ids_shown[:1000], save=True)
        except ResultsError as exc:
            return await _waiting_refused(request, actor, exc)
        return RedirectResponse("/results/waiting", status_code=303)
    waiting = await run(results.reviews.waiting, actor)
    provisional = [r["id"] for r in waiting if r["status"] == "provisional"]
    review = await run(results.reviews.confirm_all, actor, provisional) if provisional else None
    lines = [
        _("Result {id}, {date}: {players}").format(
            id=r["id"], date=r["date"], players=", ".join(r["players"])
        )
        + (" · " + _("counts") if r["counts"] else " · " + _("still waits for others"))
        for r in (review or {}).get("results", [])
    ] or [_("Nothing waits for your word.")]
    count = len((review or {}).get("results", []))
    return page(
        request,
        "confirm.html",
        question=_("Confirm the results waiting for you?"),
        consequences=lines,
        answer=ngettext("Confirm {count} result", "Confirm {count} results", count).format(
            count=count
        ),
        action="/results/waiting/confirm",
        fields={"ids": ",".join(str(r["id"]) for r in (review or {}).get("results", []))},
        back="/results/waiting",
    )


async def _waiting_refused(request: Request, actor: int, exc: ResultsError) -> HTMLResponse:
    """The waiting page again, saying why a step was refused (nothing changed)."""
    results = results_of(request)
    rows = await run(results.reviews.waiting, actor)
    claims = await run(results.claims.waiting, actor)
    return page(
        request,
        "results_waiting.html",
        rows=rows,
        claims=claims,
        error=explain(exc),
        status_code=exc.status,
    )


@api.post("/results/waiting/decide", include_in_schema=False)
@reshown_by(WaitingForm, waiting_again)
async def decide_waiting(
    request: Request,
    action: Annotated[Literal["reject", "uphold"], Form()],
    csrf: Annotated[str, Form(max_length=200)] = "",
    confirm: Annotated[Literal["", "yes"], Form()] = "",
    ids: Annotated[list[str] | None, Form(max_length=1000)] = None,
    comment: Annotated[str, Form(max_length=500)] = "",
) -> Response:
    """Reject or uphold the chosen disputes in one step: first the review (what
    becomes of each result), then, confirmed, exactly the results it showed."""
    check_csrf(request, csrf)
    actor = account(request)
    results = results_of(request)
    chosen = row_ids(ids or [])
    try:
        if not chosen:
            raise ResultsError(phrase("choose at least one result"))
        review = await asyncio.to_thread(
            results.reviews.decide_all, actor, action, chosen, comment, save=confirm == "yes"
        )
    except ResultsError as exc:
        return await _waiting_refused(request, actor, exc)
    if confirm == "yes":
        return RedirectResponse("/results/waiting", status_code=303)
    lines = [
        _("Result {id}, {date}: {players}").format(
            id=r["id"], date=r["date"], players=", ".join(r["players"])
        )
        + " · "
        + (_("withdrawn") if r["status"] == "withdrawn" else _("stands"))
        + (" · " + _("counts") if r["counts"] else "")
        for r in review["results"]
    ]
    count = len(review["results"])
    question = (
        _("Uphold these disputes and withdraw the results?")
        if action == "uphold"
        else _("Reject these disputes? The results stand.")
    )
    answer = (
        ngettext("Uphold {count} dispute", "Uphold {count} disputes", count)
        if action == "uphold"
        else ngettext("Reject {count} dispute", "Reject {count} disputes", count)
    )
    return page(
        request,
        "confirm.html",
        question=question,
        consequences=lines,
        answer=answer.format(count=count),
        action="/results/waiting/decide",
        fields={
            "action": action,
            "ids": ",".join(str(r["id"]) for r in review["results"]),
            "comment": comment,
        },
        back="/results/waiting",
    )


@api.post("/results/waiting/claims", include_in_schema=False)
@reshown_by(WaitingForm, waiting_again)
async def decide_waiting_claims(
    request: Request,
    decision: Annotated[Literal["approve", "refuse"], Form()],
    csrf: Annotated[str, Form(max_length=200)] = "",
    confirm: Annotated[Literal["", "yes"], Form()] = "",
    claims: Annotated[list[str] | None, Form(max_length=500)] = None,
) -> Response:
    """Approve or refuse the chosen claims in one step (each ``PLAYER:CLAIMANT``):
    first the review, then, confirmed, exactly the claims it showed."""
    check_csrf(request, csrf)
    actor = account(request)
    results = results_of(request)
    chosen = claim_refs(claims or [])
    approve = decision == "approve"
    try:
        if not chosen:
            raise ResultsError(phrase("choose at least one claim"))
        review = await asyncio.to_thread(
            results.claims.decide_all, actor, chosen, approve, save=confirm == "yes"
        )
    except ResultsError as exc:
        return await _waiting_refused(request, actor, exc)
    if confirm == "yes":
        return RedirectResponse("/results/waiting", status_code=303)
    lines = [
        _("{player}: claimed by {who}").format(player=c["name"], who=c["claimant"])
        + (
            " · " + _("merges {names} into it").format(names=", ".join(c["merged"]))
            if c["merged"]
            else ""
        )
        for c in review["claims"]
    ]
    count = len(review["claims"])
    answer = (
        ngettext("Approve {count} claim", "Approve {count} claims", count)
        if approve
        else ngettext("Refuse {count} claim", "Refuse {count} claims", count)
    )
    return page(
        request,
        "confirm.html",
        question=_("Approve these claims?") if approve else _("Refuse these claims?"),
        consequences=lines,
        answer=answer.format(count=count),
        action="/results/waiting/claims",
        fields={
            "decision": decision,
            "claims": "\n".join(f"{c['player']}:{c['claimant']}" for c in review["claims"]),
        },
        back="/results/waiting",
    )


def row_ids(values: list[str]) -> list[int]:
    """Result ids from checkboxes or a review's comma-separated list; anything else
    is left out (a hostile form changes nothing it did not name)."""
    found = (row_id(p) for v in values for p in v.replace(",", " ").split())
    return [number for number in found if number is not None][:1000]


def claim_refs(values: list[str]) -> list[tuple[int, str | None]]:
    """Claims (``PLAYER:CLAIMANT``, one a line) from checkboxes or a review."""
    found: list[tuple[int, str | None]] = []
    for line in (part for v in values for part in v.splitlines()):
        number, _sep, claimant = line.strip().partition(":")
        player = row_id(number)
        if player is not None and claimant.strip():
            found.append((player, claimant.strip()))
    return found[:500]


async def played_at(request: Request, shown: dict[str, Any]) -> dict[str, Any] | None:
    """Where a result from an event was played, for the links of its page."""
    if shown.get("event") is None:
        return None
    names = [p["name"] for p in shown["players"]]
    found = await run(where_played, results_of(request), shown["event"], names)
    return dict(found) if found else None


@api.get("/results/{result_id:int}", response_class=HTMLResponse, include_in_schema=False)
async def result_page(request: Request, result_id: RowId) -> HTMLResponse:
    results = results_of(request)
    shown = await run(results.register.result, result_id, viewer(request))
    return page(request, "result.html", result=shown, played_at=await played_at(request, shown))


@api.post("/results/{result_id:int}/{action}", include_in_schema=False)
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
            request,
            "result.html",
            status_code=exc.status,
            result=shown,
            error=explain(exc),
            played_at=await played_at(request, shown),
        )
    return RedirectResponse(f"/results/{result_id}", status_code=303)
