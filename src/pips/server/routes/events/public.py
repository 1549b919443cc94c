"""An event's pages for everybody, as organisers and players know them from
chess-results (issue 50): a round (its tables, which results are in and which are
missing, and who sits where, alphabetically, to print and hang up), a player (their
tables round by round), a club (its players), and "your table" found by name for players
without an account. Every one links the others; they read the event as the event page
does and change nothing."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import HTMLResponse

from pips.core.names import name_key
from pips.i18n import _
from pips.results.common import SPELLED_OUT, slugify
from pips.results.service import Results
from pips.server.routes.common import results_of, run
from pips.server.routes.events.common import Key, PlayerId, RoundNumber
from pips.server.web import page, viewer
from pips.store.models import Event
from pips.text import sort_key

api = APIRouter()

ClubSlug = Annotated[str, Path(min_length=1, max_length=60, pattern=r"^[a-z0-9-]+$")]


def players_by_key(shown: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The event's players by their folded names (seats and results name them)."""
    return {name_key(p["name"]): p for p in shown["players"]}


def ids_of(shown: dict[str, Any]) -> dict[str, int]:
    """The event's players' numbers by name, for links to their pages."""
    return {p["name"]: p["id"] for p in shown["players"]}


def round_of(shown: dict[str, Any], number: int) -> dict[str, Any]:
    one = next((r for r in shown["drawn"] if r["number"] == number), None)
    if one is None:
        raise HTTPException(404, _("no such round"))
    return dict(one)


def seating(shown: dict[str, Any], one: dict[str, Any]) -> list[dict[str, Any]]:
    """Who sits where in round ``one``, in the order of the event's list of players
    (:func:`~pips.text.sort_key`): name, club, table and seat; a player who sits
    out has no table."""
    players = players_by_key(shown)
    rows = []
    for table in one["tables"]:
        for seat, name in enumerate(table["seats"], 1):
            found = players.get(name_key(name), {})
            rows.append(
                {"name": name, "id": found.get("id"), "club": found.get("club", ""),
                 "table": table["number"], "seat": seat}
            )  # fmt: skip
    for name in one["byes"]:
        found = players.get(name_key(name), {})
        rows.append(
            {"name": name, "id": found.get("id"), "club": found.get("club", ""),
             "table": None, "seat": None}
        )  # fmt: skip
    return sorted(rows, key=lambda row: sort_key(row["name"]))


def player_rounds(shown: dict[str, Any], player: dict[str, Any]) -> list[dict[str, Any]]:
    """A player's rounds: their table and seat, the others at it, and their result
    there (final score and place) once it is in."""
    folded = name_key(player["name"])
    rows = []
    for one in shown["drawn"]:
        row: dict[str, Any] = {"round": one["number"], "method": one["method"], "table": None}
        for table in one["tables"]:
            keys = [name_key(n) for n in table["seats"]]
            if folded not in keys:
                continue
            line = None
            if table["result"]:
                line = next(
                    (x for x in table["result"]["players"] if name_key(x["name"]) == folded), None
                )
            row.update(
                table=table["number"],
                seat=keys.index(folded) + 1,
                others=[n for n in table["seats"] if name_key(n) != folded],
                line=line,
            )
        row["bye"] = row["table"] is None and player["name"] in one["byes"]
        rows.append(row)
    return rows


UNSPLIT = str.maketrans(
    {"ø": "o", "æ": "ae", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i", "ħ": "h"}
)
"""Letters that Unicode does not split into a letter and an accent, as people type
them on a keyboard without them ("Søren Kjærgaard" as "soren kjaergaard")."""


def typed_forms(text: str) -> tuple[str, str]:
    """``text`` as people type it without its accents: umlauts as their vowels ("jorg
    muller") and spelled out ("joerg mueller"); case and spaces aside."""
    plain = " ".join(unicodedata.normalize("NFC", text).casefold().translate(UNSPLIT).split())
    forms = []
    for spelling in (plain, plain.translate(SPELLED_OUT)):
        split = unicodedata.normalize("NFKD", spelling)
        forms.append("".join(c for c in split if not unicodedata.combining(c)))
    return forms[0], forms[1]


def found_by_name(shown: dict[str, Any], text: str) -> list[dict[str, Any]]:
    """The players whose name holds ``text`` (case, accents and umlauts aside: "jorg"
    and "joerg" find "Jörg"), each with their table in the newest round."""
    wanted = typed_forms(text)[0]
    if not wanted:
        return []
    last = shown["drawn"][-1] if shown["drawn"] else None
    seats = {} if last is None else {row["name"]: row for row in seating(shown, last)}
    return [
        {**p, "now": seats.get(p["name"])}
        for p in shown["players"]
        if any(wanted in form for form in typed_forms(p["name"]))
    ]


def round_counts(one: dict[str, Any]) -> dict[str, Any]:
    """How many of a round's tables have their result in, and which have not."""
    missing = [
        table["number"] for table in one["tables"] if not table["result"] and not table["table_id"]
    ]
    return {"done": len(one["tables"]) - len(missing), "missing": missing}


def where_played(results: Results, event_id: int, names: list[str]) -> dict[str, Any] | None:
    """The event a result was played at (its key and name), and its round and table
    when exactly one of the event's tables had these players (a result made by closing
    an event keeps only the event)."""
    with results.context.db.session() as session:
        event = session.get(Event, event_id)
        if event is None:
            return None
        wanted = sorted(name_key(n) for n in names)
        tables = [
            (one.number, table.number)
            for one in event.drawn
            for table in one.tables
            if sorted(name_key(n) for n in table.seats) == wanted
        ]
        number, table = tables[0] if len(tables) == 1 else (None, None)
        return {"key": event.key, "name": event.name, "round": number, "table": table}


async def _event(request: Request, key: str) -> dict[str, Any]:
    return dict(await run(results_of(request).events.event, key, viewer(request)))


@api.get("/events/{key}/rounds/{number}", response_class=HTMLResponse, include_in_schema=False)
async def round_page(request: Request, key: Key, number: RoundNumber) -> HTMLResponse:
    shown = await _event(request, key)
    one = round_of(shown, number)
    return page(
        request,
        "event_round.html",
        event=shown,
        one=one,
        seats=seating(shown, one),
        counts=round_counts(one),
        ids=ids_of(shown),
    )


@api.get("/events/{key}/players/{player}", response_class=HTMLResponse, include_in_schema=False)
async def player_page(request: Request, key: Key, player: PlayerId) -> HTMLResponse:
    shown = await _event(request, key)
    found = next((p for p in shown["players"] if p["id"] == player), None)
    if found is None:
        raise HTTPException(404, _("no such player"))
    standing = next((s for s in shown["standings"] if s["name"] == found["name"]), None)
    return page(
        request,
        "event_player.html",
        event=shown,
        player=found,
        standing=standing,
        rounds=player_rounds(shown, found),
        ids=ids_of(shown),
    )


@api.get("/events/{key}/clubs/{club}", response_class=HTMLResponse, include_in_schema=False)
async def club_page(request: Request, key: Key, club: ClubSlug) -> HTMLResponse:
    shown = await _event(request, key)
    members = [p for p in shown["players"] if p["club"] and slugify(p["club"]) == club]
    if not members:
        raise HTTPException(404, _("no such club in this event"))
    standings = {s["name"]: s for s in shown["standings"]}
    group = next((g for g in shown["clubs"] if slugify(g["name"]) == club), None)
    return page(
        request,
        "event_club.html",
        event=shown,
        club=members[0]["club"],
        group=group,
        members=sorted(members, key=lambda p: standings.get(p["name"], {}).get("place") or 10**6),
        standings=standings,
    )


@api.get("/events/{key}/find", response_class=HTMLResponse, include_in_schema=False)
async def find_page(
    request: Request, key: Key, name: Annotated[str, Query(max_length=100)] = ""
) -> HTMLResponse:
    """ "Your table" for a player without an account, and the event's search without
    a script: the players whose name holds what was typed, each with their table now."""
    shown = await _event(request, key)
    return page(
        request,
        "event_find.html",
        event=shown,
        name=name,
        found=found_by_name(shown, name)[:50] if name.strip() else [],
    )
