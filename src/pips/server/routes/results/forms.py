"""The forms the results' pages post, typed where they enter (:mod:`pips.server.forms`):
a result laid out like the score sheet, and an upload."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import UploadFile
from pydantic import AfterValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from pips.core.phrase import N_
from pips.results.entry import GAMES
from pips.server.forms import SEAT_FIELDS, Number, Picks, Seat, gather
from pips.server.requests import Name
from pips.server.routes.results.common import MAX_UPLOAD


def _known_game(name: str) -> str:
    if name not in GAMES:
        raise PydanticCustomError("enum", "is not one of the values allowed")
    return name


class ResultForm(Picks):
    """A result as the entry form posts it (``/results/new``): a line per seat
    (``name0``, ``points0``, ``pips0``; ``out``: the seat that went out)."""

    game: Annotated[str, Field(max_length=40), AfterValidator(_known_game)] = Field(
        GAMES[0], title=N_("Game")
    )
    players: int = Field(4, ge=1, le=20, title=N_("Players"))
    date: str = Field("", max_length=20, title=N_("Date"))
    place: str = Field("", max_length=200, title=N_("Place"))
    set: Number = Field("", title=N_("Set"))
    target: Number = Field("", title=N_("Played to"))
    group: str = Field("", max_length=60, title=N_("Group"))
    name: dict[Seat, Name] = Field({}, title=N_("player"))
    points: dict[Seat, Number] = Field({}, title=N_("points"))
    pips: dict[Seat, Number] = Field({}, title=N_("pips left"))
    out: Seat | None = None
    action: Literal["check", "save"] = "check"

    @model_validator(mode="before")
    @classmethod
    def _gather_seats(cls, data: Any) -> Any:
        return gather(data, SEAT_FIELDS)  # and pick:NAME, by Picks

    def flat(self) -> dict[str, str]:
        """The fields as the form names them (what
        :func:`~pips.server.routes.results.common.form_values` reads)."""
        flat = {
            "game": self.game,
            "players": str(self.players),
            "date": self.date,
            "place": self.place,
            "set": self.set,
            "target": self.target,
            "group": self.group,
            "out": "" if self.out is None else str(self.out),
        }
        for kind in ("name", "points", "pips"):
            values: dict[int, str] = getattr(self, kind)
            flat.update({f"{kind}{seat}": value for seat, value in values.items()})
        return flat


class UploadForm(Picks):
    """A results CSV posted (``/results/upload``): a file, or the text a review showed
    sent back; ``new_players``: names, comma-separated, that are new players."""

    file: UploadFile | None = None
    group: str = Field("", max_length=60, title=N_("Group"))
    new_players: str = Field("", max_length=20_000, title=N_("New players"))
    csv_text: str = Field("", max_length=MAX_UPLOAD, title=N_("File"))
    reviewed: str = Field("", max_length=64)
    action: Literal["check", "save"] = "check"
