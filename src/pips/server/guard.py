"""What every HTTP response of the server carries, and what no request may exceed.

:class:`Guard` is plain ASGI middleware, outermost, so it holds for every route:

* **Security headers**: a Content Security Policy with no inline script or style and no
  framing (``frame-ancestors 'none'``), ``X-Content-Type-Options: nosniff``,
  ``X-Frame-Options: DENY`` for older browsers, ``Referrer-Policy: same-origin``.
  The API's documentation page (``/docs``) starts its viewer (served from this
  server) with an inline script, so it gets a policy that allows that.
* **Rate limits**: an answer of a rate-limited operation says what is left of the
  quota it counted against (``RateLimit-Policy`` and ``RateLimit``, the IETF's
  draft-ietf-httpapi-ratelimit-headers-10), from the :class:`~pips.server.limits.Quota`
  the operation left in the request's state.
* **Requests at once**: an address (an IPv6 /64) has at most
  :attr:`~pips.server.limits.Limits.requests_at_once` requests answered at once, the
  rest waiting their turn (:class:`~pips.server.limits.AtOnce`): the event loop is
  shared by people, not by connections, so forty connections of one /64 flooding the
  sign-in with guesses (each refused at once, 429) take no more of it than six, and a
  table's moves go on. A request holds its turn until its answer starts, so an open
  stream holds none; websockets are not counted here (streams and websockets have a
  cap of their own).
* **Whose request**: the client's key (:func:`~pips.server.limits.client_key`) is set
  for the request (:data:`~pips.server.limits.CLIENT`), so that work every client shares
  is taken in turn by site, not by request (:class:`~pips.server.limits.SharedTurns`).
* **Body sizes**: a request body larger than the limit (the ``Content-Length``, or the
  bytes actually sent) is answered 413 before any route parses it; uploads of results
  have a larger limit than everything else.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from pips.core.phrase import N_
from pips.i18n import _, explain, negotiate, speaking
from pips.server.limits import CLIENT, AtOnce, Limited, client_key

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
DOCS_POLICY = (
    # The viewer's files are this server's; FastAPI starts it with an inline script.
    "default-src 'self'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
DOCS = ("/docs",)
UPLOADS = ("/results/upload", "/api/results/csv", "/api/results", "/api/results/check")
"""Paths whose bodies may be a month of results."""
EVENT_UPLOADS = ("/events/", "/api/events/")
"""With ``/csv`` at the end: a round of an event's results."""


class Guard:
    def __init__(
        self, app: App, *, body_bytes: int, upload_bytes: int, at_once: AtOnce | None = None
    ) -> None:
        self.app = app
        self.body_bytes = body_bytes
        self.upload_bytes = upload_bytes
        self.at_once = at_once

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Behind a trusted proxy, the address it forwarded (uvicorn's proxy headers).
        client = scope.get("client")
        key = client_key(str(client[0])) if client else "unknown"
        CLIENT.set(key)  # in this request's task: whom shared work takes turns by
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        policy = DOCS_POLICY if path.startswith(DOCS) else POLICY
        # The request's state (request.state), made here so that what a route leaves in
        # it is seen when its answer starts.
        state = scope.setdefault("state", {})

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [
                    (b"content-security-policy", policy.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"same-origin"),
                ]
                quota = state.get("quota")
                if quota is not None and not any(n == b"ratelimit" for n, _v in headers):
                    headers += [
                        (n.lower().encode(), v.encode()) for n, v in quota.headers().items()
                    ]
                message["headers"] = headers
            await send(message)

        if self.at_once is None:
            await self.checked(scope, receive, send_guarded, path)
            return
        try:
            give_back = await self.at_once.take(key)
        except Limited as exc:
            await _too_many(send_guarded, scope, exc)
            return

        async def send_in_turn(message: Message) -> None:
            # The answer is made once it starts: the turn is given back then, so that
            # a stream (the Bot API's, NDJSON) holds none while it is open (they have
            # a cap of their own, with the websockets).
            if message["type"] == "http.response.start":
                give_back()
            await send_guarded(message)

        try:
            await self.checked(scope, receive, send_in_turn, path)
        finally:
            give_back()

    async def checked(self, scope: Scope, receive: Receive, send_guarded: Send, path: str) -> None:
        """The request passed on, unless its path, query or body is refused."""
        for field, part in (
            ("path", bytes(scope.get("raw_path") or b"")),
            ("query", bytes(scope.get("query_string", b""))),
        ):
            if b"%00" in part or b"\x00" in part:
                await _refuse(send_guarded, scope, NUL_WORDS, field)
                return
        upload = path in UPLOADS or (path.startswith(EVENT_UPLOADS) and path.endswith("/csv"))
        limit = self.upload_bytes if upload else self.body_bytes
        if scope.get("method") not in ("POST", "PUT", "PATCH", "DELETE"):
            await self.app(scope, receive, send_guarded)
            return
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await _too_large(send_guarded, scope, limit)
            return
        # Read the body first (it is small by now), counting what actually arrives.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _too_large(send_guarded, scope, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if b"\x00" in body or b"\\u0000" in body:
            await _refuse(send_guarded, scope, UPLOAD_NUL_WORDS if upload else NUL_WORDS, "body")
            return
        given = False

        async def replay() -> Message:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send_guarded)


def _header(scope: Scope, wanted: bytes) -> str | None:
    for name, value in scope.get("headers", []):
        if name == wanted:
            return bytes(value).decode("latin-1")
    return None


def _content_length(scope: Scope) -> int | None:
    value = _header(scope, b"content-length")
    try:
        return None if value is None else int(value)
    except ValueError:
        return None


NUL_WORDS = N_("no text of pips holds the character NUL (0x00)")
"""Refused in any request before a route reads it: PostgreSQL stores no NUL in text,
and no name, comment or result has one."""
UPLOAD_NUL_WORDS = N_(
    "the file holds NUL characters (UTF-16?): save it as CSV in UTF-8 or Windows-1252"
)
"""The same for an uploaded file, which has NULs when a spreadsheet saved it as UTF-16
("Unicode text")."""


async def _too_large(send: Send, scope: Scope, limit: int) -> None:
    await _refuse(send, scope, N_("the request body is over {limit} bytes"), "body", limit)


async def _too_many(send: Send, scope: Scope, exc: Limited) -> None:
    with speaking(negotiate(_header(scope, b"accept-language"))):
        message = explain(exc)
    problem = {"code": "too_many_requests", "message": message, "rule": None, "field": None}
    body = json.dumps(problem, ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(exc.retry_after).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _refuse(
    send: Send, scope: Scope, words: str, field: str, limit: int | None = None
) -> None:
    """Answer before any route, in the error model (:mod:`pips.server.errors`): 413 for
    a body over ``limit``, else 422."""
    # The reader's language from the request's own header.
    with speaking(negotiate(_header(scope, b"accept-language"))):
        message = _(words).format(limit=limit)
    code, status = ("too_large", 413) if limit is not None else ("invalid", 422)
    problem = {"code": code, "message": message, "rule": None, "field": field}
    body = json.dumps(problem, ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
