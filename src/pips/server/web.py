"""What every page and form of the server shares: templates, who is asking, CSRF, the
language of the person asking."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from fastapi import Request
from fastapi.requests import HTTPConnection
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from pips import __version__, i18n
from pips.core.phrase import N_
from pips.games.registry import all_games
from pips.i18n import _
from pips.results.common import slugify
from pips.server import accounts
from pips.server.accounts.identity import Identity
from pips.server.accounts.tokens import Grant, Tokens
from pips.server.errors import Refusal
from pips.server.form_words import form_word
from pips.text import visible

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=HERE / "templates")
templates.env.add_extension("jinja2.ext.i18n")
# Old-style gettext: a template formats with str.format as the code does
# ({{ _("Hand {n}").format(n=3) }}), and a "%" in a message needs no escaping.
templates.env.install_gettext_callables(  # type: ignore[attr-defined]
    gettext=i18n._, ngettext=i18n.ngettext, newstyle=False
)


TIME_ZONE = ZoneInfo(os.environ.get("PIPS_TIME_ZONE") or "Europe/Berlin")
"""Where the server's readers live: times are kept in UTC and shown in this zone
(``PIPS_TIME_ZONE``, an IANA name; most FIDO players are in Central Europe)."""


def local(moment: datetime) -> datetime:
    """A stored moment (UTC, naive or not) as the readers' wall clock shows it."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.astimezone(TIME_ZONE)


def _day(value: Any) -> str:
    """A date, or a date and time in the readers' time zone, in the reader's form:
    2026-10-03 14:05 / 03.10.2026 14:05."""
    if isinstance(value, datetime):
        moment = local(value)
        return f"{i18n.numeric_date(moment.date())} {moment:%H:%M}"
    if isinstance(value, date):
        return i18n.numeric_date(value)
    text = str(value or "")
    if len(text) > 10:
        try:
            return _day(datetime.fromisoformat(text))
        except ValueError:
            pass
    try:
        day = date.fromisoformat(text[:10])
    except ValueError:
        return text
    return i18n.numeric_date(day)


def _number(value: float, digits: int = 2, sign: bool = False) -> str:
    """A number with the reader's decimal separator (12.50 / 12,50)."""
    shown = i18n.format_number(abs(value) if sign else value, digits=digits)
    return ("+" if value >= 0 else "-") + shown if sign else shown


def _tiebreak(key: str) -> str:
    """A tie-break's words (:data:`pips.results.standings.TIEBREAKS`) in the reader's
    language."""
    from pips.results.standings import TIEBREAKS

    return i18n._(TIEBREAKS.get(key, key))


templates.env.filters["day"] = _day
templates.env.filters["tiebreak"] = _tiebreak
templates.env.filters["number"] = _number
templates.env.filters["form_word"] = form_word
templates.env.filters["month"] = lambda month: i18n.month_name(str(month))
templates.env.filters["slug"] = slugify  # a club's address on an event's pages
# Words the core and the services made (pips.core.phrase), said in the reader's language.
templates.env.globals["say"] = i18n.say


SCRIPT_MESSAGES: tuple[str, ...] = tuple(
    json.loads((i18n.CATALOGS / "script-messages.json").read_text(encoding="utf-8"))
)
"""The messages the pages' scripts mark with ``t(...)``, as Babel's JavaScript extractor
found them when scripts/compile_catalogs.py ran (not at every start)."""

RESULT_WORDS = (
    # A result's status, where it came from, and what a review did, as the results
    # pages show them (looked up by value in the templates).
    N_("provisional"),
    N_("confirmed"),
    N_("disputed"),
    N_("held"),
    N_("withdrawn"),
    N_("api"),
    N_("form"),
    N_("csv"),
    N_("server"),
    N_("confirm"),
    N_("dispute"),
    N_("resolve"),
    N_("reject"),
    N_("uphold"),
    N_("withdraw"),
    N_("clear"),
)


def script_words(language: str) -> dict[str, str]:
    """The scripts' messages in ``language`` (those translated), for ``window.t``."""
    with i18n.speaking(language):
        return {m: i18n._(m) for m in SCRIPT_MESSAGES if i18n._(m) != m}


def language_of(request: HTTPConnection) -> str:
    """The language to answer in: the one chosen in a page (kept in the session, and
    with the account), else the best of the browser's ``Accept-Language``."""
    chosen = request.session.get("lang")
    if isinstance(chosen, str) and chosen in i18n.LANGUAGES:
        return chosen
    return i18n.negotiate(request.headers.get("accept-language"))


def accounts_of(request: HTTPConnection) -> accounts.Accounts:
    """The accounts service of the application serving ``request``."""
    service: accounts.Accounts = request.app.state.accounts
    return service


def who(request: HTTPConnection) -> Identity | None:
    """Who is asking: an account (signed in, or by its API token), a guest, or nobody
    yet."""
    grant = token_grant(request)
    if grant is not None:
        return grant.identity
    return accounts_of(request).identity(request.session)


def token_grant(connection: HTTPConnection) -> Grant | None:
    """The API token a request came with, if it came with one (checked by
    :func:`use_token`)."""
    grant: Grant | None = getattr(connection.state, "grant", None)
    return grant


TAG_SCOPES = {
    "tables": "play",
    "records": "play",
    "results": "results",
    "groups": "results",
    "events": "results",
    "players": "results",
    "administration": "results",
    "world list": "results",
    "bot": "play",
    "challenges": "play",
    "tokens": "*",
}
"""The scope a token needs to change things, by the operation's tag (to read: ``read``;
a websocket: ``play``; ``*``: any, the route narrows it: a token makes tokens of its own
scopes only)."""

PLAYING_READS = frozenset({"bot", "challenges"})
"""Tags whose reads are play too: a bot's event and game streams need ``play``, the one
scope a bot's token needs."""


ANY_SCOPE = ""
"""What :func:`scope_needed` answers for an operation any live token may do."""


Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


def changes_nothing(endpoint: Endpoint) -> Endpoint:
    """Marks an operation that changes nothing though it is a ``POST`` (a check of
    what a request would do): any token may ask it, whatever its scopes, and it
    answers a token as it answers the same account without one."""
    setattr(endpoint, "changes_nothing", True)  # noqa: B010 (a mark on a function)
    return endpoint


def scope_needed(connection: HTTPConnection) -> str | None:
    """The scope a token needs for this request (``None``: no token may do it, such as a
    page's form, which is a browser's; :data:`ANY_SCOPE`: any token may)."""
    if connection.scope["type"] == "websocket":
        return "play"
    route = connection.scope.get("route")
    if getattr(getattr(route, "endpoint", None), "changes_nothing", False):
        return ANY_SCOPE
    tags = list(getattr(route, "tags", None) or [])
    if connection.scope.get("method") in ("GET", "HEAD"):
        return "play" if tags and tags[0] in PLAYING_READS else "read"
    needed = TAG_SCOPES.get(str(tags[0])) if tags else None
    # "*": any live token, the route narrowing it (a token makes a token of at most its
    # own scopes, for its own account): no token holds a scope called "*".
    return ANY_SCOPE if needed == "*" else needed


async def use_token(connection: HTTPConnection) -> None:
    """A request with ``Authorization: Bearer pips_...`` is the token's account, if the
    token is live and has the scope the request needs; else it is refused (401 or 403)
    whatever cookie it carries. Only ``Bearer`` is a token: ``Basic`` and the rest are
    left to whoever asked for them. A websocket learns of a refusal from
    ``connection.state.refused`` (it answers with an error message, not a status)."""
    header = connection.headers.get("authorization")
    scheme, _space, token = (header or "").strip().partition(" ")
    if scheme.lower() != "bearer":
        # Not a token: another scheme is someone else's (a staging site's basic
        # authentication in front of the server), and the request goes on as if the
        # header were not there.
        return
    grant = None
    if token.strip():
        grant = await asyncio.to_thread(tokens_of(connection).grant, token.strip())
    refused: Refusal | None = None
    if grant is None:
        refused = Refusal(
            401,
            _("the API token is unknown or revoked (Authorization: Bearer pips_...)"),
            code="token_invalid",
            headers={"WWW-Authenticate": "Bearer"},
        )
    else:
        needed = scope_needed(connection)
        if needed != ANY_SCOPE and needed not in grant.scopes:
            refused = Refusal(
                403,
                _("this API token may not do that: it needs the scope {scope!r}").format(
                    scope=needed
                )
                if needed
                else _("an API token is for the API (/api/...), not for a page's forms"),
                code="scope_missing",
            )
    if refused is None:
        connection.state.grant = grant
    elif connection.scope["type"] == "websocket":
        connection.state.refused = refused
    else:
        raise refused


def tokens_of(connection: HTTPConnection) -> Tokens:
    tokens: Tokens = connection.app.state.tokens
    return tokens


async def use_language(connection: HTTPConnection) -> None:
    """Answer this request (or websocket) in the asker's language: every message made
    while serving it, errors included, and the page it renders."""
    i18n.use(language_of(connection))


def page(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    context.update(
        me=who(request),
        csrf=accounts.csrf_token(request.session),
        games=all_games(),
        faces={g.name: g for g in all_games()},
        version=__version__,
        lang=language_of(request),
        languages=i18n.LANGUAGES,
    )
    context["words"] = script_words(context["lang"])
    # The template is rendered here, in the asker's language.
    with i18n.speaking(context["lang"]):
        return templates.TemplateResponse(request, template, context, status_code=status_code)


ERROR_HEADINGS = {
    400: N_("That request is not understood"),
    401: N_("Sign in first"),
    403: N_("Not allowed"),
    404: N_("Not found"),
    405: N_("Not allowed"),
    409: N_("That cannot be done now"),
    413: N_("Too large"),
    422: N_("That request is not understood"),
    429: N_("Too many requests"),
}
"""The heading of an error page, by status."""


def wants_page(request: Request) -> bool:
    """Whether an error is answered with a page (a browser following a link) rather
    than JSON (the API, a script)."""
    if request.url.path.startswith(("/api/", "/ws/", "/metrics", "/health", "/openapi")):
        return False
    return "text/html" in request.headers.get("accept", "")


def error_page(request: Request, status: int, detail: Any) -> HTMLResponse:
    """An error as a page in the reader's language: what went wrong and where to go."""
    heading = _(ERROR_HEADINGS.get(status, N_("Something went wrong")))
    # Starlette's own details ("Not Found") are English: the heading says it already.
    said = visible(detail) if isinstance(detail, str) and detail not in STARLETTE_WORDS else ""
    return page(request, "error.html", status, heading=heading, detail=said, status=status)


STARLETTE_WORDS = {"Not Found", "Method Not Allowed", "Internal Server Error", "Bad Request"}


def local_path(target: str, request: HTTPConnection, fallback: str = "/") -> str:
    """Where to send a browser back to: ``target`` (a page's ``Referer``) if it is a
    page of this site, as a path of this site, else ``fallback``. Never another site:
    a path starting ``//`` or ``/\\`` is another host to a browser, and browsers drop
    tabs and line breaks from a URL before they read it."""
    parts = urlsplit(target)
    base = urlsplit(str(request.base_url))
    if (parts.scheme, parts.netloc) not in (("", ""), (base.scheme, base.netloc)):
        return fallback
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    if (
        not path.startswith("/")
        or path.startswith("//")
        or any(c == "\\" or ord(c) < 0x21 or ord(c) == 0x7F for c in path)
    ):
        return fallback
    return path


def check_csrf(request: Request, token: str | None) -> None:
    """A browser's request must carry its session's CSRF token; a request with an API
    token carries no cookie to ride on and needs none."""
    if token_grant(request) is not None:
        return
    expected = request.session.get("csrf")
    if not expected or token != expected:
        raise Refusal(403, _("missing or wrong CSRF token: reload the page"), code="csrf_failed")


def viewer(request: HTTPConnection) -> int | None:
    """The id of the signed-in account asking, if any (what it may see)."""
    me = who(request)
    return None if me is None else me.user_id


def account(request: Request) -> int:
    """The id of the signed-in account (not a guest), or 401."""
    me = who(request)
    if me is None or me.user_id is None:
        raise Refusal(401, _("sign in with an account first"))
    return me.user_id
