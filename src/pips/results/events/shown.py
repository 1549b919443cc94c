"""An event as its page and the JSON API show it: players, rounds drawn, tables with
their results, the standings, and the clubs' and teams' standings."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from itertools import combinations
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pips.core.names import name_key
from pips.games.registry import find_game
from pips.results.events.common import (
    day_of,
    event_standings,
    manages,
    scores_of,
    set_of,
)
from pips.results.review import waits_of
from pips.results.standings import (
    DEFAULT_TIEBREAKS,
    Standing,
    group_standings,
)
from pips.store.models import (
    Event,
    EventPlayer,
    Result,
)
from pips.text import surname_key


def _waiting(session: Session, event: Event) -> list[dict[str, Any]]:
    """What the closed event's results wait for, per person who can act."""
    rows = session.scalars(select(Result).where(Result.event_id == event.id)).all()
    return waits_of(session, rows)


def event_json(session: Session, event: Event, viewer: int | None = None) -> dict[str, Any]:
    """The event as its page and the API show it: players, rounds, tables with their
    results, and the standings so far (``manage`` and ``mine`` for ``viewer``)."""
    return event_and_standings(session, event, viewer)[0]


def event_and_standings(
    session: Session, event: Event, viewer: int | None = None
) -> tuple[dict[str, Any], list[Standing]]:
    """:func:`event_json` and the standings it shows, as :class:`Standing` lines (the
    exports' figures), from one reading of the event."""
    scores = scores_of(session, event)
    spec = find_game(event.game)
    players = {p.name_key: p for p in event.players}
    lines = event_standings(event, scores)
    clubs = {p.name: p.club for p in event.players}
    teams = {p.name: p.team for p in event.players}
    # Each round as it was drawn: the standings before it and who had met.
    standing_before: dict[int, dict[str, Standing]] = {}
    met: dict[int, Counter[frozenset[str]]] = {}
    seen: Counter[frozenset[str]] = Counter()
    for one in event.drawn:
        standing_before[one.number] = {
            s.name: s for s in event_standings(event, scores, before=one.number)
        }
        met[one.number] = Counter(seen)
        for t in one.tables:
            seen.update(frozenset(p) for p in combinations(t.seats, 2))
    shown = {
        "key": event.key,
        "name": event.name,
        "game": event.game,
        "title": spec.title,
        "options": event.options,
        "date": event.played_on.isoformat(),
        "place": event.place,
        "group": None if event.group is None else event.group.slug,
        "group_name": None if event.group is None else event.group.name,
        "organiser": event.organiser.name,
        "rounds": event.rounds,
        "scoring": event.scoring,
        "online": event.online,
        "bots": event.bots,
        "fixed_pairs": event.fixed_pairs,
        "schedule": event.schedule,
        "pairing": event.pairing,
        "tiebreaks": list(event.tiebreaks or DEFAULT_TIEBREAKS),
        "check_in": event.check_in,
        "counted": event.counted,
        "clubs_apart": event.clubs_apart,
        "status": event.status,
        "closed_at": None if event.closed_at is None else event.closed_at.isoformat(),
        "sanctioned": event.sanctioned_at is not None,
        "waiting": [] if event.status != "closed" else _waiting(session, event),
        "manage": viewer is not None and manages(session, event, viewer),
        "players": [
            {
                "id": p.id,
                "name": p.name,
                "player": p.player_id,
                "account": p.user_id is not None,
                "first_round": p.first_round,
                "withdrawn_from": p.withdrawn_from,
                "pair": p.pair,
                "seed": p.seed,
                "club": p.club,
                "team": p.team,
                "checked_in": p.checked_in,
                "accepted": p.accepted,
                "mine": viewer is not None and p.user_id == viewer,
            }
            for p in sorted(event.players, key=lambda p: surname_key(p.name))
        ],
        "drawn": [
            {
                "number": one.number,
                "seed": one.seed,
                "status": one.status,
                "date": day_of(event, one).isoformat(),
                "method": one.method,
                "top": one.top,
                "byes": list(one.byes),
                "clubs_apart": event.clubs_apart or "normal",
                "seeds_apart": one.number == 1 and any(p.seed for p in event.players),
                "tables": [
                    {
                        "number": t.number,
                        "seats": list(t.seats),
                        "before": seats_before(
                            t.seats, standing_before[one.number], met[one.number], clubs
                        ),
                        "set": set_of(event, len(t.seats), one, t),
                        "table_id": t.table_id,
                        "mine": viewer is not None
                        and viewer
                        in {getattr(players.get(name_key(n)), "user_id", None) for n in t.seats},
                        "result": None if t.id not in scores else scores[t.id].to_json(),
                    }
                    for t in one.tables
                ],
            }
            for one in event.drawn
        ],
        "standings": [standing_json(s, players) for s in lines],
        "clubs": [asdict(g) for g in group_standings(lines, clubs, event.counted)],
        "teams": [asdict(g) for g in group_standings(lines, teams, event.counted)],
    }
    return shown, lines


def standing_json(s: Standing, players: Mapping[str, EventPlayer]) -> dict[str, Any]:
    player = players.get(name_key(s.name))
    return {
        "place": s.place,
        "name": s.name,
        "points": s.points,
        "wins": s.wins,
        "games": s.games,
        "byes": s.byes,
        "average_place": s.average_place,
        "buchholz": s.buchholz,
        "best": s.best,
        "final_place": s.final_place,
        "withdrawn": player is not None and player.withdrawn_from is not None,
        "withdrawn_from": None if player is None else player.withdrawn_from,
        "late_from": None if player is None or player.first_round == 1 else player.first_round,
        "club": "" if player is None else player.club,
    }


def seats_before(
    seats: Sequence[str],
    before: Mapping[str, Standing],
    met: Counter[frozenset[str]],
    clubs: Mapping[str, str],
) -> list[dict[str, Any]]:
    """Each seat of a table as the draw saw it, so that the pairing can be checked:
    the player's points and rank before the round (``None`` before any game), whom at
    the table they had met before (a repeat) and who at it is of their club."""
    shown = []
    for name in seats:
        line = before.get(name)
        played = line is not None and (line.games > 0 or line.byes > 0)
        club = clubs.get(name, "")
        shown.append(
            {
                "name": name,
                "points": line.points if played and line else None,
                "rank": line.place if played and line else None,
                "repeats": [o for o in seats if o != name and met[frozenset((name, o))]],
                "club_mates": [o for o in seats if o != name and club and clubs.get(o) == club],
            }
        )
    return shown
