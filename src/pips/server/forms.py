"""The pages' forms, typed where they enter (issue 48: parse, don't validate).

A form a page posts is declared as a :class:`PageForm` (a
:class:`~pips.server.requests.Strict` model: every field bounded, nothing undeclared)
and taken by its route as ``Annotated[TheForm, Form()]``, so FastAPI parses it once and
the route reads typed values; ``tests/test_typed_edges.py`` walks these forms like
every other body.

What a browser's form cannot declare field by field is gathered into a typed field
before the model validates it: a seat's fields (``points0``, ``pips3``) into
``points``/``pips`` by seat, the answers to "which player is meant?" (``pick:NAME``)
into :attr:`Picks.picks`. Any other field is refused by its name.

A form refused while parsing changes nothing and is not answered with a bare error:
the route's page is shown again with its input and a sentence in the reader's language
saying which field is wrong (:func:`reshown_by`, :func:`form_refused`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Annotated, Any, Literal, TypeVar

from fastapi import Request
from fastapi.datastructures import FormData
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)
from pydantic_core import PydanticCustomError
from starlette.exceptions import HTTPException as StarletteHTTPException

from pips.core.phrase import N_
from pips.i18n import _
from pips.server.errors import PYDANTIC_WORDS
from pips.server.requests import Name, Strict
from pips.store.ids import MAX_ID, row_id
from pips.text import visible

CSRF_LENGTH = 200
"""Characters of a form's CSRF token (far more than the token has)."""

MAX_PICKS = 1000
"""Answers to "which player is meant?" in one form (an event's players at most)."""

MOST_SEATS = 20
"""Seats a form's ``points``/``pips``/``name`` fields may number (``points0`` to
``points19``): more than any game seats."""

Csrf = Annotated[str, StringConstraints(max_length=CSRF_LENGTH)]
Number = Annotated[str, StringConstraints(max_length=12)]
"""A number as a person typed it into a field, read with the words of its page
(``Anna: points is not a whole number``); bounded here."""
Seat = Annotated[int, Field(ge=0, lt=MOST_SEATS)]


def _pick(value: object) -> Literal["new"] | int:
    if isinstance(value, list) and value:
        # A name answered again (a hidden earlier answer, then the radio button): the
        # last answer holds, as the form lists them.
        value = value[-1]
    if value == "new":
        return "new"
    if isinstance(value, str) and (number := row_id(value)) is not None:
        return number
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_ID:
        return value
    raise PydanticCustomError("pick", "is not a known player's number or new")


Pick = Annotated[Literal["new"] | int, BeforeValidator(_pick)]
"""An answer to "which player is meant?": a known player's number, or ``new``."""

FORM_WORDS: dict[str, str] = {
    **PYDANTIC_WORDS,
    "pick": N_("is not a known player's number or new"),
}
"""What is wrong with a field, in words of ours (so in the reader's language)."""


class PageForm(Strict):
    """A form a page posts: its fields and the page's CSRF token. Read laxly in type
    (a form's every value is text: ``"3"`` is its 3), strictly in fields."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)

    csrf: Csrf = ""


class Picks(PageForm):
    """A form that may carry the answers to "which player is meant?" (``pick:NAME``
    radio buttons, one group per name, and their hidden copies)."""

    picks: dict[Name, Pick] = Field({}, max_length=MAX_PICKS, title=N_("which player is meant"))

    @model_validator(mode="before")
    @classmethod
    def _gather_picks(cls, data: Any) -> Any:
        return gather(data, {"pick": re.compile(r"^pick:(.*)$", re.DOTALL)}, "picks")

    def choices(self, new: Sequence[str] = ()) -> tuple[list[str], dict[str, int]]:
        """Names confirmed as new players (``new`` too) and names given a known player."""
        confirmed = list(new) + [name for name, pick in self.picks.items() if pick == "new"]
        known = {name: pick for name, pick in self.picks.items() if isinstance(pick, int)}
        return confirmed, known


def gather(data: Any, patterns: Mapping[str, re.Pattern[str]], into: str = "") -> Any:
    """``data`` (a form's fields) with the fields a pattern matches moved under its name
    (``into``, where one pattern gathers them all): ``points3`` under ``points`` as
    ``{3: ...}``. Anything else is left for the model to take or refuse."""
    if not isinstance(data, Mapping):
        return data
    kept: dict[str, Any] = {}
    gathered: dict[str, dict[str, Any]] = {}
    for key, value in data.items():
        for name, pattern in patterns.items():
            found = pattern.match(key) if isinstance(key, str) else None
            if found is not None:
                gathered.setdefault(into or name, {})[found.group(1)] = value
                break
        else:
            kept[key] = value
    for name, values in gathered.items():
        if name in kept:  # sent both ways: refused by the field's own type
            continue
        kept[name] = values
    return kept


SEAT_FIELDS = {name: re.compile(rf"^{name}([0-9]{{1,2}})$") for name in ("name", "points", "pips")}
"""A seat's fields as a form names them: ``name0``, ``points3``, ``pips12``."""


def seat_values(values: Mapping[int, str], seats: int) -> list[str]:
    """A form's values of ``seats`` seats, a missing one blank."""
    return [values.get(seat, "").strip() for seat in range(seats)]


# -- a form refused: its page again -----------------------------------------------------

F = TypeVar("F", bound=Callable[..., Any])
Reshow = Callable[[Request, str, dict[str, str]], Awaitable[Response]]
"""Shows a form's page again: with the error said and the fields as they were sent."""

RESHOWN: dict[Callable[..., Any], tuple[type[BaseModel], Reshow]] = {}


def reshown_by(form: type[BaseModel], reshow: Reshow) -> Callable[[F], F]:
    """Mark a route taking ``form``: refused while parsing, its page is shown again by
    ``reshow`` (put under the route's decorator)."""

    def mark(endpoint: F) -> F:
        RESHOWN[endpoint] = (form, reshow)
        return endpoint

    return mark


def sent(body: object) -> dict[str, str]:
    """A refused form's text fields as they were sent, to fill its page again."""
    if not isinstance(body, FormData):
        return {}
    return {key: value for key, value in body.items() if isinstance(value, str)}


def said(errors: Sequence[Any], form: type[BaseModel]) -> str:
    """The first of a form's validation errors as a sentence: the field as its page
    calls it and what is wrong with it."""
    first = errors[0] if errors else {}
    location = [str(part) for part in first.get("loc", ())][1:]
    name = location[0] if location else ""
    declared = form.model_fields.get(name)
    title = declared.title if declared is not None and declared.title else None
    if title is None:
        field = name[:60]
    elif location[1:] and name in SEAT_FIELDS and location[1].isdigit():
        field = _("{field} of seat {number}").format(field=_(title), number=int(location[1]) + 1)
    elif location[1:] and name == "picks":
        field = location[1][:60]
    else:
        field = _(title)
    if first.get("type") == "extra_forbidden":
        field = name[:60]
    words = _(FORM_WORDS.get(str(first.get("type")), N_("is not valid")))
    try:
        words = words.format(**(first.get("ctx") or {}))
    except (KeyError, IndexError, ValueError):
        words = _("is not valid")
    return visible(_("{field} {what}").format(field=field or _("the form"), what=words))


async def form_refused(request: Request, exc: RequestValidationError) -> Response | None:
    """The page of a form refused while parsing, shown again with the error (422), for
    a route marked with :func:`reshown_by`; ``None`` for any other (its path or query
    refused: the usual answer)."""
    route = request.scope.get("route")
    marked = RESHOWN.get(getattr(route, "endpoint", None))  # type: ignore[arg-type]
    errors = exc.errors()
    if marked is None or not errors or any(e.get("loc", ("",))[0] != "body" for e in errors):
        return None
    form, reshow = marked
    try:
        return await reshow(request, said(errors, form), sent(exc.body))
    except StarletteHTTPException:
        return None  # the page itself is not there (no such event): the usual answer
