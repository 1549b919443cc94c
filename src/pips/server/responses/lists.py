"""What the API answers about the world lists: a published list, its months, a
player's lines in them, and what a list was computed from."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from pips.server.responses import Told


class ListRow(Told):
    """A player's line in a published list, and its movement since the list before."""

    place: int
    name: str
    player: int | None = Field(description="The player's id.")
    rating: float
    mu: float
    sigma: float
    games: int
    last_played: str
    previous_place: int | None
    move: int | None = Field(description="Places climbed (negative: fallen); null: new.")
    change: float | None = Field(description="The rating's change; null: new.")


class WorldListShown(Told):
    """One page of a published monthly list, with the biggest moves."""

    game: str
    month: str
    computed_at: str
    cutoff: str
    settings: dict[str, Any]
    games: int
    players: int
    late: int
    held: int
    title: str
    offset: int
    rows: list[ListRow]
    risers: list[ListRow]
    fallers: list[ListRow]
    newcomers: int


class ListMonth(Told):
    """A month with a published list of a game."""

    month: str
    games: int
    players: int
    computed_at: str


class RatingLine(ListRow):
    """A player's line in one month's list."""

    month: str


class RatingStart(Told):
    mu: float
    sigma: float


class GameRated(Told):
    """A game a list counted: its teams of player numbers, places and update weight."""

    date: str
    order: int
    teams: list[list[str]] = Field(description="Teams of player numbers (as strings).")
    ranks: list[int]
    weight: float


class InputRow(Told):
    place: int
    player: str
    mu: float
    sigma: float


class ListInputs(Told):
    """What a published list was computed from, to compute it again."""

    game: str
    month: str
    as_of: str
    settings: dict[str, Any]
    start: RatingStart
    games: list[GameRated]
    rows: list[InputRow] = Field(alias="list", description="The list's rows to compare.")
