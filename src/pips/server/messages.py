"""The websocket protocol, version 1: every message of both directions, declared once.

One JSON object per frame, each with ``"v": 1`` and a ``type``. A client sends (validated
by pydantic, anything else refused with an ``error`` to that client only):

* ``move``: ``{"v": 1, "type": "move", "move": i, "moves_made": n}`` plays the legal move
  numbered ``i`` (from 0) of the ``legal`` list of the last state message, which was
  sent when ``n`` moves had been made (a stale list is refused);
* ``chat``: ``{"v": 1, "type": "chat", "text": "..."}`` (1 to 300 characters);
* ``ping``;
* ``hint``: ``{"v": 1, "type": "hint"}`` asks for the expert bot's advice at your turn
  (only where the table's ``hints`` is true).

The server sends (declared as typed dicts, so building one costs nothing at run time;
their JSON schemas are in :func:`asyncapi`, served at ``/api/asyncapi.json``):

* ``state``: the table, the names, the seat's own view (never another seat's tiles), the
  last event as that seat may see it and in words, the legal moves when it is that
  seat's turn, how the hand's points came about, the match's scores;
  between hands, the hand that has just ended (``hand_over``) and the running match
  sheet (``hands``); the turn timer's seconds left; on arrival the hand's moves so far;
* ``hint`` (to the asker only), ``chat``, ``pong``, ``error`` (to the sender only;
  nothing changed).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, NotRequired

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict

from pips.core.phrase import phrase
from pips.core.view import MoveEvent, event_to_json
from pips.i18n import SOURCE, speaking, translated
from pips.server.errors import Code, json_path, parts
from pips.server.protocol_doc import around

VERSION: Literal[1] = 1
MAX_FRAME = 2048
"""Bytes: a client frame larger than this is refused unread."""


def encode(message: Any) -> str:
    """A message as the text of one websocket frame: compact JSON, UTF-8 as it is.

    Every move is told to every seat in a message of its own, so the server encodes
    four to nine of them per move: with orjson that is a fifth of the time Python's
    json took, which was a quarter of the event loop's work at 400 moves a second
    (benchmarks/load.py --profile, docs/benchmarks.md)."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


def encode_for(message: Any, language: str) -> str:
    """A message as one client hears it: its phrases said in ``language``, then encoded.
    The table speaks in phrases (:mod:`pips.core.phrase`); each client hears them in its
    own language, so players of one table may read different ones."""
    if language != SOURCE:
        with speaking(language):
            message = translated(message)
    return encode(message)


# -- client to server ---------------------------------------------------------------------


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    v: Literal[1]


class MoveMessage(_Message):
    """Play the legal move numbered ``move`` of the list sent at ``moves_made``."""

    type: Literal["move"]
    move: int
    moves_made: int


class ChatMessage(_Message):
    """Say something to the table."""

    type: Literal["chat"]
    # One line of text: no control characters (PostgreSQL stores no NUL in text).
    text: Annotated[str, Field(min_length=1, max_length=300, pattern=r"^[^\x00-\x1f\x7f]*$")]


class PingMessage(_Message):
    """Ask for a ``pong`` (keeps a connection alive, measures latency)."""

    type: Literal["ping"]


class HintMessage(_Message):
    """Ask for the expert bot's advice at your turn (where the table offers hints)."""

    type: Literal["hint"]


Incoming = MoveMessage | ChatMessage | PingMessage | HintMessage
ClientMessage = Annotated[Incoming, Field(discriminator="type")]
_CLIENT: TypeAdapter[Incoming] = TypeAdapter(ClientMessage)


class ProtocolError(ValueError):
    """A frame that is not a valid client message; the text says why, in one line, and
    ``field`` names the part at fault where one is."""

    def __init__(self, message: object, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def parse(frame: str | bytes) -> Incoming:
    """A client's frame as its message; :class:`ProtocolError` for anything else."""
    if len(frame) > MAX_FRAME:
        raise ProtocolError(phrase("message too large (over {size} bytes)", size=MAX_FRAME))
    try:
        data = json.loads(frame)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ProtocolError(phrase("not JSON")) from None
    if not isinstance(data, dict):
        raise ProtocolError(phrase("a message is a JSON object"))
    # JSON's true and 1.0 equal 1 in Python, but they are no protocol version.
    if type(data.get("v")) is not int or data["v"] != VERSION:
        raise ProtocolError(
            phrase(
                "unknown protocol version {version!r}; this server speaks {ours}",
                version=data.get("v"),
                ours=VERSION,
            )
        )
    try:
        return _CLIENT.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        # The message's type comes first in the location (the union's tag): left out.
        location = list(first["loc"])
        if [str(p) for p in location[:1]] == [str(data.get("type"))]:
            location = location[1:]
        where = json_path(location) or "message"
        raise ProtocolError(f"{where}: {first['msg']}", field=where) from None


# -- server to client ---------------------------------------------------------------------

_STRICT = ConfigDict(extra="forbid")
"""A server message holds what it declares and nothing else (checked in the tests)."""


@with_config(_STRICT)
class Face(TypedDict):
    """What a client needs to know of the game to draw its table."""

    stock: bool
    pass_word: str


@with_config(_STRICT)
class TableSummary(TypedDict):
    id: str
    game: str
    title: str
    options: dict[str, Any]
    status: Literal["waiting", "playing", "finished", "abandoned"]
    """``abandoned``: closed unfinished (aborted, given up, or left with nobody there)."""
    private: bool
    seats: list[dict[str, Any]]
    scores: list[int] | None
    pairs: bool
    face: Face
    turn_seconds: int | None
    practice: bool
    """Dealt from a seed its creator chose (``seed``, shown to everyone): not rated."""
    seed: int | None
    hints: bool
    """Whether a seat may ask for a hint (practice tables, one person and bots)."""


@with_config(_STRICT)
class MatchState(TypedDict):
    scores: list[int]
    target: int | None
    over: bool
    result: dict[str, list[int]] | None
    outcome: str | None
    """Who won, in words (the reader's language), once the match is over."""


@with_config(_STRICT)
class Sheet(TypedDict):
    """A finished hand's lines, as every client shows them (:mod:`pips.display`)."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    explanation: str


@with_config(_STRICT)
class HandEnd(TypedDict):
    """A hand that has just ended, shown to every seat between hands: how it ended,
    its last move, every hand face up, the layout as it was left and the sheet."""

    hand: int
    ended: str
    out: int | None
    last: dict[str, Any] | None
    said: str
    hands: list[list[list[int]]]
    layout: dict[str, Any]
    sheet: Sheet
    scores: list[int]
    match_over: bool


@with_config(_STRICT)
class HandLine(TypedDict):
    """One finished hand on the running match sheet."""

    hand: int
    ended: str
    out: int | None
    change: list[int]
    totals: list[int]


@with_config(_STRICT)
class Timer(TypedDict):
    """The turn timer of the seat to move: seconds left when the message was made."""

    seat: int
    left: float


@with_config(_STRICT)
class SharedState(TypedDict):
    """The part of a state message every seat gets alike."""

    v: Literal[1]
    type: Literal["state"]
    table: TableSummary
    names: list[str]
    moves_made: int
    commitment: NotRequired[str]
    """SHA-256 of the current hand's deal and a secret salt, sent from the deal on; the
    finished record reveals the salt (docs/server.md, "Fair deals")."""
    hand_over: NotRequired[HandEnd]
    hands: NotRequired[list[HandLine]]
    """The running match sheet."""
    match: NotRequired[MatchState]
    timer: NotRequired[Timer]
    away: NotRequired[list[bool]]
    """Per seat: its person has no connection (the seat waits, or a bot plays it)."""
    rematch: NotRequired[str]
    """The table of this finished table's rematch, once a player asked for one."""
    stand_in: NotRequired[list[bool]]
    """Per seat: a bot plays it for its person, who was away past the grace period."""


@with_config(_STRICT)
class StateMessage(SharedState):
    """The table as one seat sees it (``seat`` -1: a spectator)."""

    seat: int
    view: NotRequired[dict[str, Any]]
    hand_order: NotRequired[list[list[int]]]
    event: NotRequired[dict[str, Any]]
    said: NotRequired[str]
    legal: NotRequired[list[dict[str, Any]]]
    choices: NotRequired[list[int]]
    """The legal moves worth offering: one per group that makes no difference."""
    log: NotRequired[list[str]]
    """On arrival: the hand's moves so far as this seat may see them, in words."""


ChatLine = TypedDict(
    "ChatLine", {"v": Literal[1], "type": Literal["chat"], "from": str, "text": str}
)
ChatLine.__pydantic_config__ = _STRICT  # type: ignore[attr-defined]


@with_config(_STRICT)
class Hint(TypedDict):
    """The expert bot's advice to the asking seat only: the legal move it would play
    and why."""

    v: Literal[1]
    type: Literal["hint"]
    move: int
    moves_made: int
    reasons: list[str]


@with_config(_STRICT)
class Pong(TypedDict):
    v: Literal[1]
    type: Literal["pong"]


@with_config(_STRICT)
class Error(TypedDict):
    """A refusal, to the sender only; nothing changed. The fields of the API's error
    model (:class:`pips.server.errors.Problem`): a stable ``code``, the ``message`` in
    the reader's language, the ``rule`` that refused and the ``field`` at fault."""

    v: Literal[1]
    type: Literal["error"]
    code: Code
    message: str
    rule: str | None
    field: str | None


ServerMessage = StateMessage | ChatLine | Hint | Pong | Error
SERVER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)
"""Validates a server message (the protocol tests hold every message sent to it)."""


def event_json(event: MoveEvent) -> dict[str, Any]:
    return event_to_json(event)


def chat(author: str, text: str) -> ChatLine:
    return {"v": VERSION, "type": "chat", "from": author, "text": text}


def pong() -> Pong:
    return {"v": VERSION, "type": "pong"}


def error(
    message: str, code: Code = "invalid", rule: str | None = None, field: str | None = None
) -> Error:
    return {
        "v": VERSION,
        "type": "error",
        "code": code,
        "message": message,
        "rule": rule,
        "field": field,
    }


def refused(exc: BaseException, code: Code) -> Error:
    """``exc`` (a table's, a limit's, a protocol's refusal) as an ``error`` message: a
    broken rule as ``rule_broken`` with its id, else ``code``."""
    words, rule, field = parts(exc)
    return error(
        str(words) if not isinstance(words, str) else words,
        "rule_broken" if rule else code,
        rule,
        field,
    )


def asyncapi(version: str) -> dict[str, Any]:
    """The protocol as an AsyncAPI 2.6 document: the channel ``/ws/{table_id}``, what
    the client publishes and what it subscribes to, each message with its JSON schema;
    servers, security, close codes and the typed view, moves and event
    (:func:`pips.server.protocol_doc.around`)."""
    sent: dict[str, Any] = {
        "move": MoveMessage,
        "chat": ChatMessage,
        "ping": PingMessage,
        "hintRequest": HintMessage,
    }
    received: dict[str, Any] = {
        "state": StateMessage,
        "chatLine": ChatLine,
        "hint": Hint,
        "pong": Pong,
        "error": Error,
    }
    messages: dict[str, Any] = {}
    for name, kind in {**sent, **received}.items():
        schema = TypeAdapter(kind).json_schema(ref_template="#/components/schemas/{model}")
        for key, definition in schema.pop("$defs", {}).items():
            messages.setdefault("__schemas__", {})[key] = definition
        messages[name] = {"name": name, "payload": schema}
    schemas = messages.pop("__schemas__", {})
    return around(
        {
            "asyncapi": "2.6.0",
            "info": {
                "title": "pips table protocol",
                "version": f"{VERSION} (pips {version})",
                "description": (__doc__ or "").strip(),
            },
            "channels": {
                "/ws/{table_id}": {
                    "parameters": {"table_id": {"schema": {"type": "string"}}},
                    "publish": {
                        "message": {"oneOf": [{"$ref": f"#/components/messages/{n}"} for n in sent]}
                    },
                    "subscribe": {
                        "message": {
                            "oneOf": [{"$ref": f"#/components/messages/{n}"} for n in received]
                        }
                    },
                }
            },
            "components": {"messages": messages, "schemas": schemas},
        }
    )
