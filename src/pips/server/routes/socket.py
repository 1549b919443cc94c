"""The websocket of a table: one connection per client, its messages in and out.

What a client may send is declared in :mod:`pips.server.messages`; a frame that is not
one of those, or comes too fast, is answered with an error to that client only and
changes nothing. A client that floods is cut off, and so is one whose session is
signed out or whose API token is revoked (:mod:`pips.server.accounts.ending`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.requests import HTTPConnection

from pips.core.phrase import phrase
from pips.i18n import LANGUAGES
from pips.server import messages
from pips.server.accounts.ending import ENDED, Watch, session_key, token_key
from pips.server.accounts.identity import Identity
from pips.server.errors import Refusal
from pips.server.limits import Limited
from pips.server.routes.common import address, cluster_of, limits_of
from pips.server.web import accounts_of, language_of, token_grant, tokens_of, who

api = APIRouter()

RECHECK = 5.0
"""Seconds after which a socket's next frame checks again, in the database, that its
session or token is still live: signing out and revoking on a page close the socket at
once, in every process; this finds what ended where no server process heard it (``pips
admin tokens revoke``)."""

RATE = 20.0
"""Messages per second a websocket client may send on average (burst of the same)."""


class WebClient:
    """A websocket as a table client."""

    def __init__(self, socket: WebSocket, language: str) -> None:
        self.socket = socket
        self.language = language

    async def send(self, message: Any) -> None:
        await self.send_text(messages.encode_for(message, self.language))

    async def send_text(self, text: str) -> None:
        await self.socket.send_text(text)

    async def close(self, code: int) -> None:
        await self.socket.close(code=code)


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
async def socket(websocket: WebSocket, table_id: str, invite: str = "", lang: str = "") -> None:
    if not same_origin(websocket):
        # Refused before the handshake completes: the browser sees a 403.
        await websocket.close(code=4403)
        return
    await websocket.accept()
    # The page says the language it is in; other clients get the usual choice.
    client = WebClient(websocket, lang if lang in LANGUAGES else language_of(websocket))
    token_refused: Refusal | None = getattr(websocket.state, "refused", None)
    if token_refused is not None:
        # A bearer token that is unknown, revoked or without the scope "play".
        await client.send(
            messages.error(str(token_refused.detail), token_refused.code)  # type: ignore[arg-type]
        )
        await websocket.close(code=4000 + token_refused.status_code)
        return
    found = who(websocket)
    me = found or Identity()
    sockets = limits_of(websocket).sockets
    here, anonymous = address(websocket), found is None
    try:
        await sockets.open(here, anonymous)
    except Limited as exc:
        await client.send(messages.refused(exc, "too_many_requests"))
        await websocket.close(code=4429)
        return
    endings = cluster_of(websocket).endings

    async def end(key: str) -> None:
        # Its token revoked or its session signed out, here or at another process.
        if key.startswith("token:"):
            said = messages.error(phrase("the API token was revoked"), "token_invalid")
        else:
            said = messages.error(phrase("signed out: sign in again"), "sign_in_required")
        with contextlib.suppress(Exception):  # the client may be gone already
            await client.send(said)
        await websocket.close(code=ENDED)

    watch = endings.watch(let_in_by(websocket) if found is not None else (), end)
    try:
        await _serve(websocket, client, me, table_id, invite, watch)
    finally:
        endings.forget(watch)
        await sockets.close(here, anonymous)


def let_in_by(connection: HTTPConnection) -> tuple[str, ...]:
    """What let the socket (or the Bot API's stream) in: its API token, else its
    session (whose ending closes it)."""
    grant = token_grant(connection)
    if grant is not None:
        return (token_key(grant.token_id),)
    token = connection.session.get("token")
    return (session_key(token),) if isinstance(token, str) else ()


def _still_let_in(websocket: WebSocket, keys: tuple[str, ...]) -> bool:
    """Whether what let the socket in still would (reads the database)."""
    for key in keys:
        kind, _colon, value = key.partition(":")
        if kind == "token" and not tokens_of(websocket).live(int(value)):
            return False
        if kind == "session" and not accounts_of(websocket).session_live(value):
            return False
    return True


async def _serve(
    websocket: WebSocket,
    client: WebClient,
    me: Identity,
    table_id: str,
    invite: str,
    watch: Watch,
) -> None:
    # The table may live in another server process: the cluster forwards to it.
    link = await cluster_of(websocket).connect(table_id, client, me, invite)
    if link is None:
        await client.send(messages.error(phrase("no such table"), "not_found"))
        await websocket.close(code=4404)
        return
    allowance, last = RATE, time.monotonic()
    checked = last
    try:
        while True:
            received = await websocket.receive()
            if received["type"] == "websocket.disconnect" or watch.ended:
                # A frame sent before its session ended, arriving after: unread.
                break
            frame = received.get("text")
            moment = time.monotonic()
            if watch.keys and moment - checked >= RECHECK:
                # Ended where no process heard it (a token revoked on the command line).
                checked = moment
                if not await asyncio.to_thread(_still_let_in, websocket, watch.keys):
                    await cluster_of(websocket).endings.end(list(watch.keys))
                    break
            allowance = min(RATE, allowance + (moment - last) * RATE + link.paced())
            last = moment
            if allowance < 1:
                await client.send(
                    messages.error(phrase("too many messages: slow down"), "too_many_requests")
                )
                if allowance < -RATE:
                    await websocket.close(code=4429)
                    return
                allowance -= 1
                continue
            allowance -= 1
            if frame is None:
                await client.send(messages.error(phrase("frames are JSON text, not binary")))
                continue
            if await link.frame(frame):
                # The game itself paces accepted moves (one per turn): only refused
                # ones, chat and pings count against the rate.
                allowance = min(RATE, allowance + 1)
    except (WebSocketDisconnect, RuntimeError):
        pass  # gone, or closed by the table (it moved to another process)
    finally:
        await link.leave()
