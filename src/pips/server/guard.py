"""What every HTTP response of the server carries, and what no request may exceed.

:class:`Guard` is plain ASGI middleware, outermost, so it holds for every route:

* **Security headers**: a Content Security Policy with no inline script or style and no
  framing (``frame-ancestors 'none'``), ``X-Content-Type-Options: nosniff``,
  ``X-Frame-Options: DENY`` for older browsers, ``Referrer-Policy: same-origin``.
  The API's documentation page (``/docs``) starts its viewer (served from this
  server) with an inline script, so it gets a policy that allows that.
* **Body sizes**: a request body larger than the limit (the ``Content-Length``, or the
  bytes actually sent) is answered 413 before any route parses it; uploads of results
  have a larger limit than everything else.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from pips.i18n import _, negotiate, speaking

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
    def __init__(self, app: App, *, body_bytes: int, upload_bytes: int) -> None:
        self.app = app
        self.body_bytes = body_bytes
        self.upload_bytes = upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        policy = DOCS_POLICY if path.startswith(DOCS) else POLICY

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [
                    (b"content-security-policy", policy.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"same-origin"),
                ]
                message["headers"] = headers
            await send(message)

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


async def _too_large(send: Send, scope: Scope, limit: int) -> None:
    # Before any route: the reader's language from the request's own header.
    with speaking(negotiate(_header(scope, b"accept-language"))):
        message = _("the request body is over {limit} bytes").format(limit=limit)
    problem = {"code": "too_large", "message": message, "rule": None, "field": "body"}
    body = json.dumps(problem, ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
