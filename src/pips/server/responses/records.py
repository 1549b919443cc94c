"""What the API answers about finished games: records, their positions, analyses and
exercises, an account's games, and the websocket protocol's description."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from pips.server.responses import Answer, Told

Tile = list[int]
"""A tile as ``[high, low]``."""


class GameRecord(Answer):
    """A finished game in ``pips.record/1`` form (docs/record-format.md); the fields
    marked optional are present only where the game had them. A record is an open
    format read back from storage: the answer is the stored record as it is."""

    model_config = ConfigDict(extra="allow")

    format: str = Field(description='Always "pips.record/1".')
    game: str
    options: dict[str, Any]
    seats: list[str]
    lots: dict[str, Any] | None = None
    bots: list[str | None] | None = None
    stand_ins: list[dict[str, Any]] | None = None
    seed: int | None = None
    commitments: str | None = None
    played_at: str
    generator: str
    hands: list[dict[str, Any]]
    result: dict[str, Any] | None = None


class PositionShown(Told):
    """One position of a finished game, every hand face up."""

    hand: int
    move: int
    view: dict[str, Any] = Field(description="The public view, as a table's state gives it.")
    hands: list[list[Tile]] = Field(description="Every seat's tiles, face up.")
    event: dict[str, Any] | None = Field(description="The move that led here; null: the deal.")
    said: str = Field(description="The move in words, in the reader's language.")
    names: list[str]


class ChoiceValued(Told):
    move: str
    value: float = Field(description="The expected result of this play.")


class DecisionValued(Told):
    """One decision, valued from the deciding seat's view."""

    hand: int
    move: int = Field(description="The move's number in its hand (1: the first).")
    seat: int
    choices: list[ChoiceValued]
    played: str
    best: str
    loss: float
    size: str = Field(description='"", inaccuracy, mistake or blunder.')


class SeatAnalysed(Told):
    seat: int
    name: str
    decisions: int
    average_loss: float
    flagged: dict[str, int] = Field(description="Decisions of each size.")


class GameAnalysis(Told):
    """Every decision of a finished game valued, and each seat's summary."""

    game: str
    seats: list[str]
    level: str
    seed: int
    information: str
    summary: list[SeatAnalysed]
    decisions: list[DecisionValued]


class GamePlayed(Told):
    """A finished game of an account."""

    id: str
    game: str
    finished_at: str | None
    seats: list[str] | None
    mine: list[str] = Field(
        description="The seats' names the account sat under (a guest's before registering)."
    )
    result: dict[str, Any] | None
    record: str = Field(description="Where its record is (/api/records/ID).")


class ExerciseListed(Told):
    """A position where one's play lost by a clear margin."""

    id: str
    table: str
    hand: int
    move: int
    size: str = Field(description="mistake or blunder.")
    loss: float


class ExerciseShown(Told):
    """An exercise as its seat saw it before the move."""

    id: str
    table: str
    game: str
    title: str
    names: list[str]
    seat: int
    hand: int
    move: int
    layout: dict[str, Any]
    hand_sizes: list[int]
    stock_size: int | None
    scores: list[int] | None
    tiles: list[Tile] = Field(description="The seat's own hand.")
    choices: list[str]


class ExerciseAnswered(Told):
    """A play checked against the analysis."""

    right: bool = Field(description="As good as the best play.")
    best: str
    played: str = Field(description="What was played in the game.")
    values: dict[str, float] = Field(description="Every choice's expected result.")
    said: list[str]


class AsyncApiDocument(Answer):
    """The websocket protocol as an AsyncAPI 3 document (its schema is AsyncAPI's own)."""

    model_config = ConfigDict(extra="allow")

    asyncapi: str
    info: dict[str, Any]
