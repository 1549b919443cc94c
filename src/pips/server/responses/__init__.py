"""What the JSON API answers, each a declared model: the description (``/openapi.json``)
gives every success its fields, and a client made from it (openapi-python-client,
openapi-typescript) reads typed answers, not bags of anything.

The models here are the tables', groups' and checks' answers; the other areas have
a module each (:mod:`~pips.server.responses.records`, :mod:`~pips.server.responses.register`,
:mod:`~pips.server.responses.lists`, :mod:`~pips.server.responses.events`). An
answer that is a message of the websocket too (a table's state, its summary) is the
TypedDict of :mod:`pips.server.messages`.
``tests/test_openapi_clients.py`` walks the description and fails on a success answer
with no fields declared."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator


class Answer(BaseModel):
    """An answer of the API (fields are only ever added, never taken away)."""


class Told(Answer):
    """An answer made from what a service returns, which declares every key of it: a
    key the model does not know refuses (a failing test), where it would otherwise
    vanish silently from the answer. The description still lets clients meet fields
    added later (no ``additionalProperties: false``)."""

    @model_validator(mode="before")
    @classmethod
    def every_key_declared(cls, data: Any) -> Any:
        if isinstance(data, dict):
            known = {f.alias or name for name, f in cls.model_fields.items()}
            unknown = set(data) - known
            if unknown:
                raise ValueError(f"{cls.__name__} does not declare {sorted(unknown)}")
        return data


class SessionInfo(Answer):
    """Who this session is, and the CSRF token a browser's changes carry."""

    name: str | None = Field(description="The account's or guest's name; null: nobody yet.")
    account: bool = Field(description="Signed in with an account (not a guest).")
    csrf: str = Field(description="The session's token for the X-CSRF-Token header.")


class TableMade(Answer):
    """A table made: its id, its invitation (for a private one) and its page."""

    id: str
    invite: str = Field(description="For ?invite= at a private table.")
    url: str = Field(description="The table's page, /t/ID.")


class OptionsChecked(Answer):
    """Options that make a game: its summary in a line, and its seats."""

    brief: str = Field(description="The game in a line, in the reader's language.")
    players: int


TableStatus = Literal["waiting", "playing", "finished", "abandoned"]


class Seated(Answer):
    """The asker's seat at a table after joining or standing up (-1: none), and the
    table's status."""

    seat: int = Field(description="The asker's seat (0-based); -1: no seat.")
    status: TableStatus


class RematchMade(Answer):
    """The rematch of a finished table, and whether the asker is seated at it."""

    id: str
    url: str
    seated: bool


class RecordPublished(Answer):
    """Whether a private table's record is public now (everyone who played asked)."""

    id: str
    public: bool


class PlayerChecked(Answer):
    """A player's line of a checked result."""

    name: str
    points: int
    pips: int
    final: int = Field(description="The points that count (after the game's scoring).")
    rank: int = Field(description="The place (1: first; equal places share a number).")
    new: bool = Field(description="The name would be a new player.")


class ResultChecked(Answer):
    """A result as entering it would save it: its final scores and places."""

    game: str
    date: str = Field(description="YYYY-MM-DD")
    set: int
    divisor: int | None
    target: int | None
    players: list[PlayerChecked]
    warnings: list[str] = Field(description="What looks unusual (check the sheet).")


class ResultsEntered(Answer):
    """Results entered: their ids, pages, and the names that became new players."""

    ids: list[int]
    urls: list[str]
    new_players: list[str]


class CsvEntered(Answer):
    """The games of a CSV entered: their ids, and the names that became new players."""

    ids: list[int]
    new_players: list[str]


class Alive(Answer):
    """The process answers: its node id."""

    ok: Literal[True]
    node: str


Membership = Literal["member", "invited", "asked"]


class GroupShown(Answer):
    """A group as its page shows it to the asker: its members are public; invitations
    and requests to join only to the representative and to the account they name."""

    name: str
    slug: str = Field(description="Its short name, in addresses and ?group=.")
    representative: str
    members: list[str]
    invited: list[str]
    asked: list[str]
    membership: Membership | None = Field(description="The asker's own standing in it.")
    created_at: str
    approved: bool = Field(description="An approved group's results are confirmed by it.")


class GroupListed(Answer):
    """A group in the list of groups."""

    name: str
    slug: str
    members: int
    approved: bool


class GroupApproval(Answer):
    """A group approved (or its approval withdrawn) by an administrator."""

    group: str = Field(description="The group's slug.")
    name: str
    approved: bool
