"""One error model for every refusal of the API, declared once.

Every refusal, whatever refused it (a route, a service, the validation of a request,
the limits, the body-size guard, a path no route has), answers with the same JSON object,
:class:`Problem`::

    {"code": "rule_broken", "message": "eine Partie ist für 3 bis 9 Spieler",
     "rule": "F-02", "field": "options.players"}

* ``code`` is stable, for programs: one of :data:`CODES` (a status's own code, or a more
  precise one such as ``csrf_failed``, ``token_invalid``, ``scope_missing``).
* ``message`` is for people, in the reader's language (``Accept-Language``, or the
  language chosen in a page).
* ``rule`` is the SPEC id (``F-13``) where a game's rule refused, else ``null``: never
  another word (an unknown bot or game is no rule of the SPEC; :func:`spec_rule`).
* ``field`` is the JSON path of the part of the request that was wrong (``query.month``,
  ``body.results[0].name``, :func:`json_path`), where one was.

The websocket's ``error`` message carries the same fields (:mod:`pips.server.messages`).
Which statuses each operation can answer is declared with it (:func:`refusals`) and,
for what every operation shares (a token refused, a body too large, a request not
understood), added to the OpenAPI description by :func:`describe`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

from fastapi import HTTPException
from fastapi.responses import Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from pips.core.errors import RuleError
from pips.core.phrase import N_, Phrase
from pips.i18n import _, reason, say
from pips.text import visible

CODES: dict[str, int] = {
    "bad_request": 400,
    "sign_in_required": 401,
    "token_invalid": 401,
    "forbidden": 403,
    "csrf_failed": 403,
    "scope_missing": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "conflict": 409,
    "too_large": 413,
    "invalid": 422,
    "rule_broken": 422,
    "too_many_requests": 429,
    "server_error": 500,
    "busy": 503,
}
"""Every code an error may carry, with its HTTP status."""

STATUS_CODES: dict[int, str] = {
    400: "bad_request",
    401: "sign_in_required",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    422: "invalid",
    429: "too_many_requests",
    500: "server_error",
    503: "busy",
}
"""A status's own code, where nothing more precise was said."""

Code = Literal[
    "bad_request",
    "sign_in_required",
    "token_invalid",
    "forbidden",
    "csrf_failed",
    "scope_missing",
    "not_found",
    "method_not_allowed",
    "conflict",
    "too_large",
    "invalid",
    "rule_broken",
    "too_many_requests",
    "server_error",
    "busy",
]


class Problem(BaseModel):
    """Why a request was refused. Nothing was changed by it."""

    code: Code = Field(description="What went wrong, for programs (stable).")
    message: str = Field(description="What went wrong, for people, in the reader's language.")
    rule: str | None = Field(
        default=None, description="The SPEC id of the game's rule that refused (F-13), if one did."
    )
    field: str | None = Field(
        default=None,
        description="The JSON path of the part of the request that was wrong (query.month, "
        "body.seats[1].bot, body.results[0].name).",
    )
    candidates: dict[str, list[Candidate]] | None = Field(
        default=None,
        description=(
            "Names that may be known players, each with the players it may mean: choose "
            "one (known_players: name to id) or confirm the name as new (new_players)."
        ),
    )


class Candidate(BaseModel):
    """A known player a name may mean, with what tells two people of one name apart."""

    id: int
    name: str
    group: str | None = None
    account: bool = False
    last_game: str | None = None


class Refusal(HTTPException):
    """An HTTP refusal in the error model: ``message`` already in the reader's language."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: str | None = None,
        rule: str | None = None,
        field: str | None = None,
        headers: dict[str, str] | None = None,
        candidates: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        super().__init__(status, message, headers)
        self.code = code or STATUS_CODES.get(status, "bad_request")
        assert self.code in CODES, self.code
        self.rule = rule
        self.field = field
        self.candidates = candidates


SPEC_ID = re.compile(r"^(C|DB|DR|F|FA|PT)-[0-9]{2}$")
"""A rule's id in the rules' SPEC (``F-02``, ``PT-11``): the only ``rule`` an error names."""


def spec_rule(rule: object) -> str | None:
    """``rule`` if it is a SPEC id; ``None`` for anything else (a refusal of an unknown
    bot or game names no rule of the SPEC, though the error that says so has a tag)."""
    return rule if isinstance(rule, str) and SPEC_ID.match(rule) else None


NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def json_path(location: Iterable[object]) -> str | None:
    """A request's part as a JSON path, the one form every ``field`` takes: names
    joined by dots, a list's items by their index in brackets, a key that is not a
    plain name quoted (``body.seats[1].bot``, ``body.known_players["Jörg M."]``);
    ``None`` for no part."""
    path = ""
    for part in location:
        if isinstance(part, int) and not isinstance(part, bool):
            path += f"[{part}]"
        elif path and not NAME.match(str(part)):
            path += f"[{json.dumps(str(part), ensure_ascii=False)}]"
        else:
            path += f".{part}" if path else str(part)
    return path or None


def parts(exc: BaseException) -> tuple[Phrase | str, str | None, str | None]:
    """What a refusal says (still to be said in the reader's language), the rule that
    refused and the field at fault, where ``exc`` knows them."""
    rule = getattr(exc, "rule", None)
    field = getattr(exc, "field", None)
    if isinstance(exc, RuleError):
        words: Phrase | str = exc.detail
    elif rule is not None and exc.args:
        words = exc.args[0]
    else:
        words = reason(exc)
    return (words, spec_rule(rule), field if isinstance(field, str) else None)


def refusal(exc: BaseException, status: int) -> Refusal:
    """``exc`` (a service's, a table's or a rule's refusal) as the HTTP refusal
    ``status``: a broken rule keeps its id apart from its words; a limit says when to
    come back, and what is left of its quota."""
    retry_after = getattr(exc, "retry_after", None)
    headers = {"Retry-After": str(retry_after)} if isinstance(retry_after, int) else None
    quota = getattr(exc, "quota", None)
    if headers is not None and quota is not None:
        headers.update(quota.headers())
    words, rule, field = parts(exc)
    candidates = getattr(exc, "candidates", None)
    return Refusal(
        status,
        say(words),
        code="rule_broken" if rule is not None and status == 422 else None,
        rule=rule,
        field=field,
        headers=headers,
        candidates=candidates if isinstance(candidates, dict) and candidates else None,
    )


def problem_of(exc: StarletteHTTPException) -> dict[str, Any]:
    """The body of the answer to ``exc``."""
    if isinstance(exc, Refusal):
        shown = Problem(
            code=exc.code,  # type: ignore[arg-type]
            message=visible(str(exc.detail)),
            rule=exc.rule,
            field=exc.field,
            candidates=exc.candidates,  # type: ignore[arg-type]
        ).model_dump()
        if shown["candidates"] is None:
            del shown["candidates"]  # only a question of names carries them
        return shown
    detail = exc.detail
    # What a client sent and a message quotes is seen as written, never as a control
    # that reorders or hides the words around it (``pips.text.visible``).
    message = visible(detail) if isinstance(detail, str) and detail not in STARLETTE_WORDS else ""
    return {
        "code": STATUS_CODES.get(exc.status_code, "bad_request"),
        "message": message or _(STATUS_WORDS.get(exc.status_code, N_("the request was refused"))),
        "rule": None,
        "field": None,
    }


STARLETTE_WORDS = {
    "Not Found",
    "Method Not Allowed",
    "Internal Server Error",
    "Bad Request",
    "There was an error parsing the body",
}
"""Starlette's and FastAPI's own (English) details: the reader gets words of ours
instead."""

STATUS_WORDS = {
    400: N_("the request's body cannot be read (JSON in UTF-8 is expected)"),
    401: N_("sign in with an account first"),
    403: N_("not allowed"),
    404: N_("not found"),
    405: N_("this address does not take that method"),
    409: N_("that cannot be done now"),
    413: N_("the request is too large"),
    422: N_("that request is not understood"),
    429: N_("too many requests: try again later"),
    500: N_("something went wrong on the server"),
    503: N_("the server is busy: try again shortly"),
}


# -- validation errors ----------------------------------------------------------------

PYDANTIC_WORDS: dict[str, str] = {
    "missing": N_("is missing"),
    "extra_forbidden": N_("is not expected here"),
    "int_parsing": N_("is not a whole number"),
    "int_type": N_("is not a whole number"),
    "int_from_float": N_("is not a whole number"),
    "float_parsing": N_("is not a number"),
    "float_type": N_("is not a number"),
    "bool_parsing": N_("is not true or false"),
    "bool_type": N_("is not true or false"),
    "string_type": N_("is not text"),
    "string_too_short": N_("is shorter than {min_length} characters"),
    "string_too_long": N_("is longer than {max_length} characters"),
    "string_pattern_mismatch": N_("is not in the expected form"),
    "too_short": N_("has fewer than {min_length} items"),
    "too_long": N_("has more than {max_length} items"),
    "greater_than": N_("must be more than {gt}"),
    "greater_than_equal": N_("must be at least {ge}"),
    "less_than": N_("must be less than {lt}"),
    "less_than_equal": N_("must be at most {le}"),
    "literal_error": N_("must be {expected}"),
    "enum": N_("is not one of the values allowed"),
    "list_type": N_("is not a list"),
    "dict_type": N_("is not an object"),
    "model_attributes_type": N_("is not an object"),
    "model_type": N_("is not an object"),
    "json_invalid": N_("is not valid JSON"),
    "date_parsing": N_("is not a date (YYYY-MM-DD)"),
    "date_from_datetime_parsing": N_("is not a date (YYYY-MM-DD)"),
    "datetime_parsing": N_("is not a date and time"),
    "month": N_("is not a month (YYYY-MM): {value}"),
    "union_tag_invalid": N_("is not one of the kinds allowed"),
    "union_tag_not_found": N_("is not one of the kinds allowed"),
    "value_error": N_("is not valid"),
    "option_value": N_("is not true, false, a whole number or a word"),
}
"""Pydantic's error types in words of ours (so in the reader's language); others are
"is not valid"."""


def _without_tags(location: Sequence[Any], body: Any) -> list[str | int]:
    """``location`` without the tags pydantic puts in it for a tagged union (a seat's
    ``kind``: ``body.seats.1.bot.bot`` is ``body.seats[1].bot``), found by walking the
    request's ``body`` along it: the first part inside an object whose ``kind`` it is."""
    kept: list[str | int] = []
    node = body if location[:1] == ["body"] else None
    untagged: object = None
    for number, part in enumerate(location):
        if number == 0:
            kept.append(str(part))
            continue
        if isinstance(node, dict) and node.get("kind") == part and untagged is not node:
            untagged = node
            continue
        kept.append(part if isinstance(part, int) else str(part))
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            node = None
    return kept


def validation_problem(errors: Iterable[Any], body: Any = None) -> tuple[int, dict[str, Any]]:
    """The first of a request's validation errors in the error model, with its status:
    the field it names and what is wrong with it (422), or a body that is no JSON at
    all (400 ``bad_request``). A rule refused while parsing (a game's options, a bot a
    server may not seat: :func:`pips.server.requests.rule_broken`) keeps its rule and
    its words."""
    first = next(iter(errors), None) or {}
    location = _without_tags(list(first.get("loc", ())), body)
    ctx = first.get("ctx") or {}
    if first.get("type") == "json_invalid":
        # Not a wrong field but no JSON: the body as a whole, as the description says.
        return 400, Problem(
            code="bad_request", message=_(STATUS_WORDS[400]), field="body"
        ).model_dump(exclude={"candidates"})
    if first.get("type") == "rule_broken":
        below = ctx.get("field")
        rule = spec_rule(ctx.get("rule"))
        return 422, Problem(
            code="rule_broken" if rule else "invalid",
            message=visible(say(ctx["said"])),
            rule=rule,
            field=json_path([*location, *(str(below).split(".") if below else [])]),
        ).model_dump(exclude={"candidates"})
    field = json_path(location)
    words = _(PYDANTIC_WORDS.get(str(first.get("type")), N_("is not valid")))
    try:
        words = words.format(**first.get("ctx", {}))
    except (KeyError, IndexError, ValueError):
        words = _("is not valid")
    shown = json_path(location[1:]) or (str(location[0]) if location else _("the request"))
    if not location[1:]:
        shown = {"body": _("the body"), "query": _("the query")}.get(shown, shown)
    return 422, Problem(
        code="invalid",
        message=visible(_("{field} {what}").format(field=shown, what=words)),
        field=field,
    ).model_dump(exclude={"candidates"})


# -- the description ---------------------------------------------------------------------


class PdfResponse(Response):
    """A printable sheet."""

    media_type = "application/pdf"


class CsvResponse(Response):
    """A spreadsheet's rows."""

    media_type = "text/csv"


class SvgResponse(Response):
    """A picture."""

    media_type = "image/svg+xml"


DESCRIPTIONS = {
    400: "The request is not understood.",
    401: "Not signed in where an account is needed, or the token is unknown or revoked.",
    403: "Not allowed: not this account's to do, a token without the scope, or a browser "
    "session without its CSRF token.",
    404: "No such thing.",
    409: "Not possible now (already done, or in another state).",
    413: "The request body is larger than the server takes.",
    422: "A field of the request is not valid, or a rule of the game refused.",
    429: "Too many requests: wait the seconds `Retry-After` says.",
    503: "The server is busy: wait the seconds `Retry-After` says.",
}

RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before asking again.",
        "schema": {"type": "integer", "minimum": 0},
    }
}


RATE_LIMIT = {
    "RateLimit-Policy": {
        "description": "The rate limit this operation counts against, as the IETF draft "
        'draft-ietf-httpapi-ratelimit-headers-10 says it: "NAME";q=REQUESTS;w=SECONDS.',
        "schema": {"type": "string"},
    },
    "RateLimit": {
        "description": 'What is left of it: "NAME";r=REMAINING;t=SECONDS until it is full '
        "again (where the request counted against it).",
        "schema": {"type": "string"},
    },
}
"""The headers of a success of an operation a rate limit counts (docs/api.md)."""


def refusals(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of an operation that can answer ``statuses`` besides those every
    operation can (added by :func:`describe`)."""
    return {status: answer(status) for status in statuses}


def answer(status: int, web_pages: bool = False) -> dict[str, Any]:
    """One documented refusal: the :class:`Problem` schema, and ``Retry-After`` where
    waiting helps. ``web_pages``: at an address a browser follows (a PDF, a CSV), a browser
    asking for HTML gets the error as a page."""
    described: dict[str, Any] = {
        "description": DESCRIPTIONS.get(status, "Refused."),
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
    if web_pages:
        described["content"]["text/html"] = {"schema": {"type": "string"}}
    if status in (429, 503):
        described["headers"] = RETRY_AFTER
    return described


def describe(schema: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI description with what every operation shares: 401 and 403 (a token
    may be refused anywhere), 422 (a NUL in any address), 413 and 400 for a body, all
    in :class:`Problem`; FastAPI's own validation error schema replaced."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    problem = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    # The models it refers to beside it, where its references point (a generator
    # resolves #/components/schemas/Candidate, not a $defs inside Problem).
    components.update(problem.pop("$defs", {}))
    # As answered: rule and field always there (null where none), candidates only for
    # a question of names (a generator makes the first required, the last optional).
    problem["required"] = ["code", "message", "rule", "field"]
    for name in ("rule", "field", "candidates"):
        problem["properties"][name].pop("default", None)
    components["Problem"] = problem
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)
    for path, operations in schema.get("paths", {}).items():
        web_pages = not path.startswith("/api/")
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            # 422 anywhere too: a NUL in any address is refused before a route (guard).
            shared = {401, 403, 422}
            if method in ("post", "put", "patch", "delete"):
                shared.add(413)
            if operation.get("requestBody"):
                shared.add(400)  # a body that is not JSON in UTF-8
            for status in shared:
                responses.setdefault(str(status), {})
            if "429" in responses:  # a rate counts it: its successes say what is left
                for status, described in responses.items():
                    if status.startswith("2"):
                        described["headers"] = {**RATE_LIMIT, **described.get("headers", {})}
            for status, described in list(responses.items()):
                if not (status.isdigit() and int(status) >= 400):
                    continue
                content = described.get("content", {})
                if content and "$ref" not in str(content) and "Validation" not in str(described):
                    continue  # an answer of its own (/readyz's report)
                declared = answer(int(status), web_pages)
                if described.get("description") not in (None, "", "Validation Error"):
                    declared["description"] = described["description"]
                headers = {**declared.get("headers", {}), **described.get("headers", {})}
                if headers:
                    declared["headers"] = headers
                responses[status] = declared
    schema["components"]["securitySchemes"] = {
        "token": {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token (pips_...), made on the account page or "
            "with `pips admin tokens create`; its scopes: read, results, play.",
        },
        "session": {
            "type": "apiKey",
            "in": "cookie",
            "name": "pips_session",
            "description": "A browser's session; what it changes needs the page's CSRF "
            "token in the X-CSRF-Token header.",
        },
    }
    schema["security"] = [{"token": []}, {"session": []}, {}]
    return schema
