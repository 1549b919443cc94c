"""The websocket of a table: one connection per client, its messages in and out.

What a client may send is declared in :mod:`pips.server.messages`; a frame that is not
one of those, or comes too fast, is answered with an error to that client only and
changes nothing. A client that floods is cut off.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from pips.core.phrase import phrase
from pips.i18n import SOURCE, reason, speaking, translated
from pips.server import messages
from pips.server.limits import Limited
from pips.server.round import Identity
from pips.server.routes.common import limits_of, tables_of
from pips.server.routes.tables import visible
from pips.server.tables import LiveTable, TableError
from pips.server.web import language_of, who

api = APIRouter()

RATE = 20.0
"""Messages per second a websocket client may send on average (burst of the same)."""


class WebClient:
    """A websocket as a table client."""

    def __init__(self, socket: WebSocket, language: str) -> None:
        self.socket = socket
        self.language = language

    async def send(self, message: Any) -> None:
        # The table speaks in phrases (pips.core.phrase); each client hears them in
        # its own language, so players of one table may read different ones.
        if self.language != SOURCE:
            with speaking(self.language):
                message = translated(message)
        await self.socket.send_text(json.dumps(message, separators=(",", ":")))


def same_origin(websocket: WebSocket) -> bool:
    """A browser says where the page that opens a socket came from: only this site's
    own pages may act with its cookies (no cross-site websocket hijacking). Programs
    that send no ``Origin`` are not browsers riding someone's session."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    host = websocket.headers.get("host", "")
    return urlsplit(origin).netloc.lower() == host.lower()


@api.websocket("/ws/{table_id}")
async def socket(websocket: WebSocket, table_id: str, invite: str = "") -> None:
    if not same_origin(websocket):
        # Refused before the handshake completes: the browser sees a 403.
        await websocket.close(code=4403)
        return
    tables = tables_of(websocket)
    table = tables.live.get(table_id)
    language = language_of(websocket)
    await websocket.accept()
    if table is None or not visible(websocket, table, invite):
        await WebClient(websocket, language).send(messages.error(phrase("no such table")))
        await websocket.close(code=4404)
        return
    me = who(websocket) or Identity()
    client = WebClient(websocket, language)
    chat_limit = limits_of(websocket).chat
    await tables.arrive(table, client, me)
    allowance, last = RATE, time.monotonic()
    try:
        while True:
            received = await websocket.receive()
            if received["type"] == "websocket.disconnect":
                break
            frame = received.get("text")
            moment = time.monotonic()
            allowance = min(RATE, allowance + (moment - last) * RATE)
            last = moment
            if allowance < 1:
                await client.send(messages.error(phrase("too many messages: slow down")))
                if allowance < -RATE:
                    await websocket.close(code=4429)
                    return
                allowance -= 1
                continue
            allowance -= 1
            if frame is None:
                await client.send(messages.error(phrase("frames are JSON text, not binary")))
                continue
            try:
                message = messages.parse(frame)
            except messages.ProtocolError as exc:
                await client.send(messages.error(reason(exc)))
                continue
            if isinstance(message, messages.PingMessage):
                await client.send(messages.pong())
            elif isinstance(message, messages.ChatMessage):
                try:
                    may_chat(table, me)
                    chat_limit.hit(f"{table.id}/{me.user_id}/{me.guest}")
                except (TableError, Limited) as exc:
                    await client.send(messages.error(reason(exc)))
                    continue
                await tables.chat(table, me.name, message.text)
            elif isinstance(message, messages.HintMessage):
                try:
                    await client.send(await tables.hint(table, table.seat_of(me)))
                except TableError as exc:
                    await client.send(messages.error(reason(exc)))
            else:
                try:
                    await tables.play(table, table.seat_of(me), message.move, message.moves_made)
                except TableError as exc:
                    await client.send(messages.error(reason(exc)))
                else:
                    # The game itself paces accepted moves (one per turn): only refused
                    # ones, chat and pings count against the rate.
                    allowance = min(RATE, allowance + 1)
    except WebSocketDisconnect:
        pass
    finally:
        await tables.left(table, client)


def may_chat(table: LiveTable, me: Identity) -> None:
    """Chat is for the table's players and for spectators with an account; anonymous
    watchers read it but cannot write."""
    if me.user_id is None and table.seat_of(me) < 0 and table.round.returning(me) < 0:
        raise TableError(phrase("only the players and signed-in spectators can chat here"))
