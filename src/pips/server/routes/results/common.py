"""What the results routes share: the shapes of requests, checking a batch, the entry
form's fields, previews and the pages' contents."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse
from pydantic import Field, StringConstraints

from pips.core.names import name_key
from pips.core.phrase import phrase
from pips.games.registry import find_game
from pips.i18n import _, explain, say
from pips.results.entries import Entered
from pips.results.entry import GAMES, NAME_LENGTH, Checked, Entry, EntryError, Line
from pips.results.entry_formats import (
    parse_date,
    parse_int,
    parse_target,
)
from pips.results.plausible import unusual
from pips.results.service import Results, ResultsError
from pips.server.requests import Comment, ResultItem, Strict
from pips.server.routes.common import BodyRowId, read_upload, run
from pips.server.web import page, who

MAX_UPLOAD = 2_000_000
"""Bytes of a CSV upload."""


MAX_BATCH = 500
"""Results checked or entered in one request (a club's month fits many times over)."""


MOST_GAMES = MAX_BATCH * 4
"""Games of a CSV upload: reading stops at the line that starts one more."""


PlayerName = Annotated[str, StringConstraints(max_length=NAME_LENGTH)]


class ResultsBatch(Strict):
    """Results to enter: one game's object (see ``docs/results.md``) or ``results``, a
    list of them, all saved or none. ``new_players``: names that are new players though
    they look like known ones (entry asks: "did you mean Anna Berg?")."""

    results: list[ResultItem]
    group: Annotated[str, StringConstraints(max_length=60)] | None = None
    new_players: list[PlayerName] = Field(default=[], max_length=MAX_BATCH)
    known_players: dict[PlayerName, BodyRowId] = Field(default={}, max_length=MAX_BATCH)
    """Names given the known player meant (their number, from the question)."""


class Review(Strict):
    comment: Comment = ""


def text_fingerprint(text: str, group: str, new: list[str], known: dict[str, int]) -> str:
    """What a review showed, so that saving saves exactly that."""
    shown = json.dumps([text, group, sorted(new), sorted(known.items())]).encode()
    return hashlib.sha256(shown).hexdigest()[:24]


def checked_all(results: Results, items: Sequence[ResultItem]) -> list[Checked]:
    if not items:
        raise HTTPException(422, _("no results given"))
    if len(items) > MAX_BATCH:
        raise HTTPException(422, _("at most {count} results at once").format(count=MAX_BATCH))
    checked = []
    for number, item in enumerate(items, 1):
        try:
            checked.append(results.entries.check(item.entry()))
        except EntryError as exc:
            if len(items) > 1:
                message = _("result {number}: {problem}").format(
                    number=number, problem=explain(exc)
                )
            else:
                message = explain(exc)
            raise HTTPException(422, message) from None
    return checked


def names_in(text: str) -> list[str]:
    """Names given comma-separated (a form field, a query parameter)."""
    return [n.strip() for n in text.split(",") if n.strip()][:MAX_BATCH]


async def csv_games(request: Request, body: bytes | str) -> list[Checked]:
    """The games of an uploaded results CSV, checked (:class:`EntryError` naming the
    line): at most :data:`MAX_UPLOAD` bytes and :data:`MOST_GAMES` games."""
    if len(body) > MAX_UPLOAD:
        raise EntryError(
            phrase("a CSV upload is at most {count} MB", count=MAX_UPLOAD // 1_000_000)
        )
    return await read_upload(request, body, MOST_GAMES)


def enter_csv_of(
    results: Results,
    actor: int | None,
    games: list[Checked],
    group: str | None,
    new: list[str],
    save: bool = True,
    known: dict[str, int] | None = None,
) -> Entered:
    if actor is None:
        raise ResultsError(phrase("sign in with an account first"))
    return results.entries.enter(
        actor, games, source="csv", group=group, new_players=new, known_players=known, save=save
    )


def preview(checked: Checked, new: Sequence[str] = ()) -> dict[str, Any]:
    e = checked.entry
    fresh = {name_key(n) for n in new}
    return {
        "game": e.game,
        "date": e.played_on.isoformat(),
        "set": e.top,
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


def form_values(data: Mapping[str, str]) -> dict[str, Any]:
    """The entry form's values (a parsed
    :class:`~pips.server.routes.results.forms.ResultForm`'s, or a refused one's as sent)
    as its page shows them."""
    game = str(data.get("game", GAMES[0]))
    spec = find_game(game if game in GAMES else GAMES[0])
    try:
        players = int(data.get("players", 4))
    except ValueError:
        players = 4
    if players not in spec.player_counts:
        players = int(spec.defaults.get("players", spec.player_counts[0]))
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
        "game": spec.name,
        "players": players,
        "set": str(data.get("set", "")),
        "date": str(data.get("date", "")),
        "place": str(data.get("place", "")),
        "group": str(data.get("group", "")),
        "target": str(data.get("target", "")),
        "lines": lines,
    }


def form_entry(form: dict[str, Any]) -> Entry:
    """The form's values (:func:`form_values`) as the entry to check; a number that is
    not one is an :class:`~pips.results.entry.EntryError` naming its field."""
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


async def my_groups(request: Request, results: Results) -> list[dict[str, Any]]:
    me = who(request)
    if me is None or me.user_id is None:
        return []
    return list(await asyncio.to_thread(results.groups.listing, me.user_id))


async def form_page(
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
    mine = await my_groups(request, results)
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
        default_target=spec.target(spec.example.changed(players=form["players"])),
        today=results.context.today().isoformat(),
    )


async def upload_page_of(
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
    mine = await my_groups(request, results)
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
