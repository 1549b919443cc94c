"""The websocket of a table: one connection per client, its messages in and out.

What a client may send is declared in :mod:`pips.server.messages`; a frame that is not
one of those, or comes too fast, is answered with an error to that client only and
changes nothing. A client that floods is cut off.
"""

from __future__ import annotations

import json
import time
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from pips.server import accounts, messages
from pips.server.round import Identity
from pips.server.routes.common import tables_of
from pips.server.tables import TableError

api = APIRouter()

RATE = 20.0
"""Messages per second a websocket client may send on average (burst of the same)."""


class WebClient:
    """A websocket as a table client."""

    def __init__(self, socket: WebSocket) -> None:
        self.socket = socket

    async def send(self, message: Any) -> None:
        await self.socket.send_text(json.dumps(message, separators=(",", ":")))


@api.websocket("/ws/{table_id}")
async def socket(websocket: WebSocket, table_id: str) -> None:
    tables = tables_of(websocket)
    table = tables.live.get(table_id)
    await websocket.accept()
    if table is None:
        await websocket.send_json(messages.error("no such table"))
        await websocket.close(code=4404)
        return
    me = accounts.identity(websocket.session) or Identity()
    client = WebClient(websocket)
    await tables.arrive(table, client, me)
    allowance, last = RATE, time.monotonic()
    try:
        while True:
            frame = await websocket.receive_text()
            moment = time.monotonic()
            allowance = min(RATE, allowance + (moment - last) * RATE)
            last = moment
            if allowance < 1:
                await client.send(messages.error("too many messages: slow down"))
                if allowance < -RATE:
                    await websocket.close(code=4429)
                    return
                allowance -= 1
                continue
            allowance -= 1
            try:
                message = messages.parse(frame)
            except messages.ProtocolError as exc:
                await client.send(messages.error(str(exc)))
                continue
            if isinstance(message, messages.PingMessage):
                await client.send(messages.pong())
            elif isinstance(message, messages.ChatMessage):
                await tables.chat(table, me.name, message.text)
            else:
                try:
                    await tables.play(table, table.seat_of(me), message.move, message.moves_made)
                except TableError as exc:
                    await client.send(messages.error(str(exc)))
                else:
                    # The game itself paces accepted moves (one per turn): only refused
                    # ones, chat and pings count against the rate.
                    allowance = min(RATE, allowance + 1)
    except WebSocketDisconnect:
        pass
    finally:
        table.leave(client)
        tables.watch_seats(table)
