"""The forms the events' pages post, typed where they enter (:mod:`pips.server.forms`):
a new event, the event page's buttons and a table's result."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, StringConstraints, model_validator

from pips.core.phrase import N_
from pips.results.entry import GAMES
from pips.results.standings import DEFAULT_TIEBREAKS, TIEBREAKS
from pips.server.forms import SEAT_FIELDS, Number, PageForm, Picks, Seat, gather, seat_values
from pips.server.requests import OPTION_WORD, Name
from pips.server.routes.common import BodyRowId
from pips.server.routes.events.common import MAX_NAMES, ClubsApart, NewEvent

Day = Annotated[str, StringConstraints(max_length=20)]


def _days(value: object) -> object:
    # One field of days as a person writes them: "10.10.2026, 11.10.2026" (a form's
    # field of a list type arrives as the list of its values).
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = " ".join(value)
    return [d for d in re.split(r"[,;\s]+", value) if d] if isinstance(value, str) else value


class EventForm(PageForm):
    """The form of a new event (``/events``): the fields of :class:`NewEvent` as the
    page asks for them."""

    name: str = Field("", max_length=80, title=N_("Name"))
    game: str = Field(GAMES[0], max_length=OPTION_WORD, title=N_("Game"))
    date: str = Field("", max_length=20, title=N_("Date"))
    place: str = Field("", max_length=200, title=N_("Venue"))
    rounds: int = Field(1, ge=1, le=50, title=N_("Rounds"))
    set: int | None = Field(None, ge=0, le=30, title=N_("Set"))
    target: int | None = Field(None, ge=1, le=1_000_000, title=N_("Played to"))
    group: str | None = Field(None, max_length=60, title=N_("Group"))
    online: bool = False
    bots: bool = False
    fixed_pairs: bool = False
    check_in: bool = False
    days: Annotated[list[Day], BeforeValidator(_days)] = Field([], max_length=50, title=N_("Days"))
    pairing: Literal["lot", "swiss"] = "lot"
    clubs_apart: ClubsApart = "normal"
    tiebreaks: list[Annotated[str, StringConstraints(max_length=20)]] = Field(
        list(DEFAULT_TIEBREAKS), max_length=len(TIEBREAKS), title=N_("Tie-breaks")
    )

    def event(self) -> NewEvent:
        """The event to create, as the JSON API takes it."""
        options: dict[str, bool | int | str | None] = {}
        if self.set is not None:
            options["set"] = self.set
        if self.target is not None:
            options["target"] = self.target
        return NewEvent(
            name=self.name,
            game=self.game,
            date=self.date,
            rounds=self.rounds,
            options=options,
            place=self.place,
            group=self.group or None,
            online=self.online,
            bots=self.bots,
            fixed_pairs=self.fixed_pairs,
            days=self.days,
            pairing=self.pairing,
            clubs_apart=self.clubs_apart,
            tiebreaks=self.tiebreaks or list(DEFAULT_TIEBREAKS),
            check_in=self.check_in,
        )

    def shown(self) -> dict[str, str]:
        """The fields as the page fills them in again."""
        shown = {
            "name": self.name,
            "game": self.game,
            "date": self.date,
            "place": self.place,
            "rounds": str(self.rounds),
            "set": "" if self.set is None else str(self.set),
            "target": "" if self.target is None else str(self.target),
            "group": self.group or "",
            "days": ", ".join(self.days),
            "pairing": self.pairing,
            "clubs_apart": self.clubs_apart,
        }
        for box in ("online", "bots", "fixed_pairs", "check_in"):
            if getattr(self, box):
                shown[box] = "on"
        return shown


class EventButtons(Picks):
    """What the event page's buttons post (``/events/{key}/{action}``): each action
    reads its own of these fields (docs/events.md)."""

    names: str = Field("", max_length=50_000, title=N_("Players"))
    """Players to add, one per line (``players``)."""
    player: BodyRowId | None = Field(None, title=N_("player"))
    """The player withdrawn, accepting or checked in."""
    confirm: Literal["", "yes"] = ""
    """The second step of a question (withdraw, close, confirm, sanction)."""
    present: bool = False
    method: Literal["lot", "swiss"] | None = None
    set: int | None = Field(None, ge=6, le=18, title=N_("Set"))
    size: int | None = Field(None, ge=2, le=9, title=N_("Final table of the leading"))
    round: int | None = Field(None, ge=1, le=50, title=N_("Round"))
    absent: list[Name] = Field([], max_length=MAX_NAMES, title=N_("Absent"))


class TableForm(PageForm):
    """A table's result as its form posts it (``points0``, ``pips0``, … a field per
    seat, ``out``: the seat that went out)."""

    points: dict[Seat, Number] = Field({}, title=N_("points"))
    pips: dict[Seat, Number] = Field({}, title=N_("pips left"))
    out: Seat | None = None
    reason: str = Field("", max_length=500, title=N_("Why is it corrected?"))
    reviewed: str = Field("", max_length=64)
    action: Literal["check", "save"] = "check"

    @model_validator(mode="before")
    @classmethod
    def _gather_seats(cls, data: Any) -> Any:
        return gather(data, {k: SEAT_FIELDS[k] for k in ("points", "pips")})

    def values(self, seats: int) -> dict[str, Any]:
        """The values of a table of ``seats`` players as its page shows them."""
        return {
            "points": seat_values(self.points, seats),
            "pips": seat_values(self.pips, seats),
            "out": "" if self.out is None else str(self.out),
            "reason": self.reason,
        }


def table_values_sent(sent: dict[str, str]) -> dict[str, Any]:
    """A refused table form's values as they were sent, to fill its page again."""
    return {
        "points": [sent.get(f"points{seat}", "")[:12] for seat in range(20)],
        "pips": [sent.get(f"pips{seat}", "")[:12] for seat in range(20)],
        "out": sent.get("out", "")[:2],
        "reason": sent.get("reason", "")[:500],
    }
