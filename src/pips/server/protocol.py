"""The websocket protocol, version 1: typed messages, one JSON object per frame.

Every message carries ``"v": 1``. A client sends:

* ``{"v": 1, "type": "move", "move": i, "moves_made": n}``: play the legal move numbered
  ``i`` (from 0) of the ``legal`` list in the last state message, which was sent when
  ``n`` moves had been made (a stale list is refused);
* ``{"v": 1, "type": "chat", "text": "..."}`` (at most 300 characters);
* ``{"v": 1, "type": "ping"}``.

The server sends ``state`` (the table, the seat's own view, the last event as that seat
may see it, and ``legal`` moves when it is that seat's turn), ``chat``, ``pong`` and
``error`` (to the sender only; nothing changed).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

VERSION = 1
MAX_FRAME = 2048
"""Bytes: a client frame larger than this is refused unread."""


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    v: Literal[1]


class MoveMessage(_Message):
    type: Literal["move"]
    move: int
    moves_made: int


class ChatMessage(_Message):
    type: Literal["chat"]
    text: Annotated[str, Field(min_length=1, max_length=300)]


class PingMessage(_Message):
    type: Literal["ping"]


ClientMessage = Annotated[MoveMessage | ChatMessage | PingMessage, Field(discriminator="type")]
_ADAPTER: TypeAdapter[MoveMessage | ChatMessage | PingMessage] = TypeAdapter(ClientMessage)


class ProtocolError(ValueError):
    """A frame that is not a valid client message; the text says why, in one line."""


def parse(frame: str | bytes) -> MoveMessage | ChatMessage | PingMessage:
    if len(frame) > MAX_FRAME:
        raise ProtocolError(f"message too large (over {MAX_FRAME} bytes)")
    try:
        data = json.loads(frame)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ProtocolError("not JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("a message is a JSON object")
    if data.get("v") != VERSION:
        raise ProtocolError(
            f"unknown protocol version {data.get('v')!r}; this server speaks {VERSION}"
        )
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "message"
        raise ProtocolError(f"{where}: {first['msg']}") from None


def error(message: str) -> dict[str, Any]:
    return {"v": VERSION, "type": "error", "message": message}
