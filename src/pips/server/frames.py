"""What a table does with one frame a client sent: the same wherever the client is
connected (at this process, or at another one that forwards it, :mod:`pips.server.cluster`).

What a client may send is declared in :mod:`pips.server.messages`; anything else is
answered with an error to that client only and changes nothing.
"""

from __future__ import annotations

import logging

from pips.core.phrase import phrase
from pips.server import messages
from pips.server.accounts.identity import Identity
from pips.server.limits import Limited, RateLimit
from pips.server.tables import Client, LiveTable, TableError, Tables

log = logging.getLogger("pips.server")


async def handle_frame(
    tables: Tables, table: LiveTable, client: Client, me: Identity, frame: str, chat: RateLimit
) -> bool:
    """Act on ``frame`` from ``client`` (who is ``me``) at ``table``: whether it was a
    move the table accepted (the game paces those, so they do not count against a
    client's message rate)."""
    try:
        message = messages.parse(frame)
    except messages.ProtocolError as exc:
        await client.send(messages.refused(exc, "invalid"))
        return False
    if isinstance(message, messages.PingMessage):
        await client.send(messages.pong())
    elif isinstance(message, messages.ChatMessage):
        try:
            may_chat(table, me)
            chat.hit(f"{table.id}/{me.user_id}/{me.guest}")
        except TableError as exc:
            await client.send(messages.refused(exc, "forbidden"))
            return False
        except Limited as exc:
            await client.send(messages.refused(exc, "too_many_requests"))
            return False
        await table.say(me.name, message.text)
    elif isinstance(message, messages.HintMessage):
        try:
            await client.send(await table.hint(table.seat_of(me)))
        except TableError as exc:
            await client.send(messages.refused(exc, "conflict"))
    else:
        try:
            await table.submit_move(table.seat_of(me), message.move, message.moves_made)
        except TableError as exc:
            log.info("table %s: a move refused: %s", table.id, exc)
            await client.send(messages.refused(exc, "conflict"))
        else:
            return True
    return False


def may_chat(table: LiveTable, me: Identity) -> None:
    """Chat is for the table's players and for spectators with an account; anonymous
    watchers read it but cannot write."""
    if me.user_id is None and table.seat_of(me) < 0 and table.round.returning(me) < 0:
        raise TableError(phrase("only the players and signed-in spectators can chat here"))
