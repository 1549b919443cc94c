"""What the Bot API answers (docs/bots-api.md), typed: the OpenAPI description and the
generated clients read these."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter


class BotAccount(BaseModel):
    """An account as the Bot API shows it."""

    name: str
    bot: bool


class TokenMade(BaseModel):
    """A new API token: ``token`` is shown this once, never again."""

    token: str
    id: int
    label: str
    scopes: list[str]


class ChallengeSide(BaseModel):
    name: str
    bot: bool


class ChallengeOut(BaseModel):
    """A challenge: who asks whom, to play what, and (once accepted) at which table."""

    id: str
    status: Literal["created", "accepted", "declined", "canceled"]
    challenger: ChallengeSide
    challenged: ChallengeSide
    game: str
    options: dict[str, bool | int | str | None]
    seats: list[dict[str, str]]
    turn_seconds: int | None
    table: str | None
    url: str | None


class GameRef(BaseModel):
    """A table as an event names it."""

    id: str
    game: str
    status: str
    url: str


class ChallengeEvent(BaseModel):
    type: Literal["challenge", "challengeCanceled", "challengeDeclined"]
    challenge: ChallengeOut


class GameEvent(BaseModel):
    type: Literal["gameStart", "gameFinish"]
    game: GameRef


class SeatTaken(BaseModel):
    """Where a seek or an accepted challenge seated the asker."""

    id: str
    url: str
    seat: int
    status: str
    created: bool


class Moved(BaseModel):
    """A move accepted: the moves made since the game began, and the table's status."""

    moves_made: int
    status: str


class BotRating(BaseModel):
    place: int
    name: str
    rating: float
    mu: float
    sigma: float
    games: int


class Leaderboard(BaseModel):
    """The bots' rating pool of one game: openskill's Plackett-Luce over the games bot
    accounts played with one another at this server (``rating`` is ``mu - 3 sigma``)."""

    game: str
    bots: list[BotRating]


Event = Annotated[ChallengeEvent | GameEvent, Field(discriminator="type")]
"""One line of the event stream."""

EVENT_SCHEMA = {
    "oneOf": [
        {"$ref": "#/components/schemas/ChallengeEvent"},
        {"$ref": "#/components/schemas/GameEvent"},
    ]
}


def schemas() -> dict[str, Any]:
    """The schemas the streams' lines refer to, for the OpenAPI description's
    components (a streamed answer has no response model FastAPI would add)."""
    found = TypeAdapter(Event).json_schema(ref_template="#/components/schemas/{model}")
    defs: dict[str, Any] = found.get("$defs", {})
    return defs
