"""Learn from your mistakes (issue 51): positions from a person's own analysed games come
back as exercises, as lichess does for chess.

An exercise is a decision of the person's seat that the game's kept analysis
(:mod:`pips.server.analyses`, ``tables.analysis``) marks a mistake or a blunder: the
move played lost at least the game's ``mistake_points[1]`` of expected result against
the best one. It is shown as that seat saw it before the move, and nothing more: the
layout, the seat's own hand, the other hands' sizes and the stock's (the hidden tiles
stay hidden, as they were at the table, C-06). The answer is checked against the
analysis's values of the choices, and the difference is said in words.

Only the person who held the seat sees its exercises (an account by its id, a guest by
its token), whatever the table's privacy: it is their own play.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from pips import record
from pips.core.phrase import Figure, phrase
from pips.display import replay_positions
from pips.server.accounts.identity import Identity
from pips.store.db import Database
from pips.store.models.play import GameTable, Seat

CLEAR = ("mistake", "blunder")
"""The sizes of loss an exercise is made of: by a clear margin (not an inaccuracy)."""
GAMES = 30
"""The newest analysed games of a person looked through for exercises."""


class NoExercise(LookupError):
    """No such exercise of this person (never another's: the same answer for both)."""


@dataclass(frozen=True)
class Found:
    """One exercise: where it comes from and the analysis's decision there."""

    table_id: str
    seat: int
    decision: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.table_id}-{self.decision['hand']}-{self.decision['move']}"


def _games(db: Database, who: Identity) -> list[tuple[str, dict[str, Any], dict[str, Any], str]]:
    """(table id, record, analysis, the person's name there) of their newest analysed
    finished games."""
    if who.user_id is None and who.guest is None:
        return []
    mine = Seat.user_id == who.user_id if who.user_id is not None else Seat.guest == who.guest
    query = (
        select(GameTable.id, GameTable.record, GameTable.analysis, Seat.name)
        .join(Seat, Seat.table_id == GameTable.id)
        .where(mine, GameTable.status == "finished", GameTable.analysis.is_not(None))
        .order_by(GameTable.finished_at.desc())
        .limit(GAMES)
    )
    with db.session() as session:
        return [
            (row.id, row.record, row.analysis, row.name)
            for row in session.execute(query)
            if row.record is not None and row.analysis is not None
        ]


def found_in(db: Database, who: Identity) -> list[Found]:
    """Every exercise of ``who``, newest game first, in the order of play."""
    out: list[Found] = []
    for table_id, data, analysis, name in _games(db, who):
        seats = list(data.get("seats") or [])
        if name not in seats:
            continue
        seat = seats.index(name)
        out.extend(
            Found(table_id, seat, d)
            for d in analysis.get("decisions", [])
            if d.get("seat") == seat and d.get("size") in CLEAR
        )
    return out


def _one(db: Database, who: Identity, exercise_id: str) -> tuple[Found, dict[str, Any]]:
    for found in found_in(db, who):
        if found.id == exercise_id:
            for table_id, data, _analysis, _name in _games(db, who):
                if table_id == found.table_id:
                    return found, data
    raise NoExercise(exercise_id)


def position(db: Database, who: Identity, exercise_id: str) -> dict[str, Any]:
    """The exercise as its seat saw it before the move: the layout, its own hand, the
    others' and the stock's sizes, the scores, and the choices (the analysis's names)."""
    found, data = _one(db, who, exercise_id)
    replayed = record.replay(data)
    hand, move = int(found.decision["hand"]), int(found.decision["move"])
    before = next(p for p in replay_positions(replayed) if (p.hand, p.move) == (hand, move - 1))
    view = before.view.to_json(history=False)
    return {
        "id": found.id,
        "table": found.table_id,
        "game": replayed.spec.name,
        "title": phrase(replayed.spec.title),
        "names": list(replayed.seats),
        "seat": found.seat,
        "hand": hand,
        "move": move,
        "layout": view["layout"],
        "hand_sizes": view["hand_sizes"],
        "stock_size": view.get("stock_size"),
        "scores": view.get("scores"),
        "tiles": [t.to_json() for t in before.hands[found.seat]],
        "choices": [c["move"] for c in found.decision["choices"]],
    }


def answer(db: Database, who: Identity, exercise_id: str, choice: str) -> dict[str, Any]:
    """Whether ``choice`` is as good as the analysis's best play, with the values and
    the difference in words; :class:`ValueError` for a choice the position does not
    have."""
    found, _data = _one(db, who, exercise_id)
    values = {str(c["move"]): float(c["value"]) for c in found.decision["choices"]}
    if choice not in values:
        raise ValueError(choice)
    best = str(found.decision["best"])
    played = str(found.decision["played"])
    difference = values[best] - values[choice]
    right = difference <= 1e-9
    said = [
        phrase(
            "The best play is {best}: its expected result is {value}.",
            best=best,
            value=Figure(values[best], sign=True),
        )
    ]
    if not right:
        said.append(
            phrase(
                "{choice} expects {value}, {difference} less.",
                choice=choice,
                value=Figure(values[choice], sign=True),
                difference=Figure(difference),
            )
        )
    said.append(
        phrase(
            "In the game you played {played} ({value}), {loss} less than the best.",
            played=played,
            value=Figure(values.get(played, 0.0), sign=True),
            loss=Figure(float(found.decision["loss"])),
        )
    )
    return {
        "right": right,
        "best": best,
        "played": played,
        "values": values,
        "said": said,
    }


async def listed(db: Database, who: Identity) -> list[dict[str, Any]]:
    """The person's exercises: id, game, hand, move and how much was lost."""

    def read() -> list[dict[str, Any]]:
        return [
            {
                "id": f.id,
                "table": f.table_id,
                "hand": f.decision["hand"],
                "move": f.decision["move"],
                "size": f.decision["size"],
                "loss": round(float(f.decision["loss"]), 2),
            }
            for f in found_in(db, who)
        ]

    return await asyncio.to_thread(read)
