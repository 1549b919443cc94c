"""Typed edges (issue 48, "Nothing a stranger sends runs a program"): everything a client
sends is a declared type, parsed where it enters the server, so no ``Any`` and no dict
with string keys a client filled reaches past a route (``pips.server.requests``).

The walk looks at every route of the app (path, query, header and cookie parameters,
bodies and forms, through their pydantic models) and every message a websocket client
sends, and at the OpenAPI description the same routes publish; the attacks send what a
stranger would and find a clear 422 naming the field, and nothing made."""

from __future__ import annotations

import inspect
import re
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import pytest
from fastapi import FastAPI
from fastapi.datastructures import UploadFile
from fastapi.routing import APIRoute, APIWebSocketRoute, iter_route_contexts
from pydantic import BaseModel

from pips.results.common import STATUSES
from pips.server import messages
from pips.server.app import create_app
from pips.server.requests import OptionValue
from pips.server.settings import Settings
from pips.store.db import Database
from tests.test_results_server import Site

READ_BY_HAND: dict[str, str] = {}
"""Forms a route reads field by field (``request.form()``): none. The walk cannot see
such a form's fields, so a route declares its form as a model (``pips.server.forms``)
and this stays empty."""


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    home: Path = tmp_path_factory.mktemp("edges")
    return create_app(
        Settings(warm=False, publish_lists=False, analyse_while_playing=0),
        db=Database(f"sqlite:///{home / 'pips.db'}"),
        secret="t",
    )


def routes(app: FastAPI) -> Iterator[APIRoute | APIWebSocketRoute]:
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIRoute | APIWebSocketRoute):
            yield route


def untyped(annotation: Any, where: str, seen: set[type] | None = None) -> list[str]:
    """The places under ``annotation`` a client could fill with anything: ``Any``, a
    bare ``dict`` or ``list``, or one of ``Any``."""
    seen = set() if seen is None else seen
    if annotation is Any or annotation is object:
        return [where]
    origin = get_origin(annotation)
    if origin is Annotated:
        return untyped(get_args(annotation)[0], where, seen)
    if origin in (Union, types.UnionType):
        return [p for arg in get_args(annotation) for p in untyped(arg, where, seen)]
    if origin is Literal:
        return []
    if annotation in (dict, list, tuple, set, frozenset):
        return [where]
    if origin in (dict, list, tuple, set, frozenset):
        args = get_args(annotation)
        if not args:
            return [where]
        return [
            p
            for number, arg in enumerate(args)
            if arg is not Ellipsis
            for p in untyped(arg, f"{where}[{number}]", seen)
        ]
    if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        if annotation in seen:
            return []
        seen.add(annotation)
        return [
            p
            for name, field in annotation.model_fields.items()
            for p in untyped(field.annotation, f"{where}.{name}", seen)
        ]
    return []


def params(route: APIRoute | APIWebSocketRoute) -> Iterator[tuple[str, Any]]:
    def walk(dependant: Any) -> Iterator[tuple[str, Any]]:
        for kind in ("path", "query", "header", "cookie", "body"):
            for param in getattr(dependant, f"{kind}_params"):
                yield f"{kind}.{param.name}", param.field_info.annotation
        for sub in dependant.dependencies:
            yield from walk(sub)

    yield from walk(route.dependant)


def test_no_field_a_client_fills_is_any_or_an_untyped_dict(app: FastAPI) -> None:
    found = list(routes(app))
    assert len(found) > 100  # the walk reaches the included routers
    faults = []
    for route in found:
        for where, annotation in params(route):
            if annotation is UploadFile or annotation == UploadFile | None:
                continue  # a file's bytes, read and bounded by its route
            faults += [f"{route.path} {p}" for p in untyped(annotation, where)]
    assert faults == []


def bounded(metadata: Any) -> bool:
    """Whether ``metadata`` (a field's, or an ``Annotated`` type's) sets a most length."""
    return any(getattr(m, "max_length", None) is not None for m in metadata)


def unbounded(annotation: Any, where: str, limited: bool = False) -> list[str]:
    """The texts under ``annotation`` a client could make as long as it likes: a
    ``str`` with no ``max_length`` on it or on the field that holds it (``limited``).
    An option's value is a word its own parser bounds (``OPTION_WORD``)."""
    if annotation == OptionValue:
        return []
    origin = get_origin(annotation)
    if origin is Annotated:
        inner, *metadata = get_args(annotation)
        return unbounded(inner, where, limited or bounded(metadata))
    if annotation is str:
        return [] if limited else [where]
    if origin in (Union, types.UnionType):
        return [p for arg in get_args(annotation) for p in unbounded(arg, where, limited)]
    if origin in (dict, list, tuple, set, frozenset):
        # The field's own bound counts the items, not the length of each.
        return [
            p
            for number, arg in enumerate(get_args(annotation))
            if arg is not Ellipsis
            for p in unbounded(arg, f"{where}[{number}]")
        ]
    return []


def models(annotation: Any) -> Iterator[type[BaseModel]]:
    """The pydantic models under ``annotation``, itself included."""
    origin = get_origin(annotation)
    if origin is Annotated or origin in (Union, types.UnionType, dict, list, tuple, set):
        for arg in get_args(annotation):
            yield from models(arg)
    elif inspect.isclass(annotation) and issubclass(annotation, BaseModel):
        yield annotation
        for field in annotation.model_fields.values():
            yield from models(field.annotation)


def body_models(app: FastAPI) -> dict[str, type[BaseModel]]:
    return {
        model.__name__: model
        for route in routes(app)
        for where, annotation in params(route)
        if where.startswith("body.")
        for model in models(annotation)
    }


def test_every_request_body_refuses_fields_nobody_declared(app: FastAPI) -> None:
    """A field nobody declared is a 422 naming it (docs/api.md), never dropped: an
    ``approved`` or ``representative`` sent along with a group's name was ignored."""
    found = body_models(app)
    assert {"GroupBody", "Review", "NewEvent", "ConfirmMany", "ResultItem"} <= set(found)
    # The pages' forms too (pips.server.forms): what a browser posts is a body as well.
    assert {"EventForm", "EventButtons", "TableForm", "ResultForm", "UploadForm"} <= set(found)
    assert sorted(n for n, m in found.items() if m.model_config.get("extra") != "forbid") == []


def test_every_text_of_a_request_body_has_a_bound(app: FastAPI) -> None:
    """A text with no bound was cut by the service where it was cut at all (a dispute's
    comment of 60,000 characters was kept as its first 500): a bound refuses it by name."""
    faults = [
        place
        for name, model in body_models(app).items()
        for field_name, field in model.model_fields.items()
        for place in unbounded(field.annotation, f"{name}.{field_name}", bounded(field.metadata))
    ]
    assert faults == []


FIXED_QUERIES = {"status": set(STATUSES)}
"""Queries whose values the docs list (docs/results.md: "status: provisional, confirmed,
disputed, held, withdrawn"): each is typed as those values, so another is a 422."""


def test_queries_of_a_fixed_set_of_values_are_typed_as_that_set(app: FastAPI) -> None:
    checked = 0
    for route in routes(app):
        for where, annotation in params(route):
            kind, _, name = where.partition(".")
            if kind != "query" or name not in FIXED_QUERIES:
                continue
            checked += 1
            values = {
                value
                for arg in get_args(annotation) or (annotation,)
                for value in (get_args(arg) if get_origin(arg) is Literal else [arg])
            }
            assert values - {type(None), ""} == FIXED_QUERIES[name], (route.path, where, annotation)
    assert checked >= 2  # /api/results and the results page


def test_a_body_with_a_field_nobody_declared_or_a_text_too_long_is_refused_by_name(
    site: Site,
) -> None:
    anna = site.person("Anna")
    sneaky = {"name": "Domino Club Kiel", "approved": True, "representative": "Site Admin"}
    answer = anna.post("/api/groups", sneaky)
    assert answer.status_code == 422 and answer.json()["field"] == "body.approved", answer.text
    assert anna.client.get("/api/groups").json() == []
    listed = anna.client.get("/api/results", params={"status": "evil"})
    assert listed.status_code == 422 and listed.json()["field"] == "query.status", listed.text
    assert anna.client.get("/api/results", params={"status": "held"}).status_code == 200
    long = anna.post("/api/results/1/dispute", {"comment": "Z" * 60_000})
    said = long.json()
    assert long.status_code == 422 and said["field"] == "body.comment", long.text
    assert "500" in said["message"]


def test_every_websocket_message_a_client_sends_is_typed() -> None:
    members = get_args(messages.Incoming)
    assert {m.model_fields["type"].annotation for m in members} == {
        Literal["move"],
        Literal["chat"],
        Literal["ping"],
        Literal["hint"],
    }
    for member in members:
        assert member.model_config.get("extra") == "forbid"
        assert untyped(member, member.__name__) == []


def test_the_published_description_has_no_schema_that_takes_anything(app: FastAPI) -> None:
    """What clients are told they may send: every request body and parameter has a
    schema that says what it is (an empty schema or an object of anything is a hole)."""
    described = app.openapi()
    components = described["components"]["schemas"]
    holes: list[str] = []

    def look(schema: Any, where: str, depth: int = 0) -> None:
        if depth > 30 or not isinstance(schema, dict):
            return
        ref = schema.get("$ref")
        if ref:
            look(components[ref.rsplit("/", 1)[-1]], f"{where}→{ref.rsplit('/', 1)[-1]}", depth + 1)
            return
        if schema == {} or schema.get("additionalProperties") is True:
            holes.append(where)
        if schema.get("type") == "object" and not (
            {"properties", "additionalProperties", "patternProperties"} & set(schema)
        ):
            holes.append(where)
        if schema.get("type") == "array" and not schema.get("items"):
            holes.append(where)
        for key in ("anyOf", "oneOf", "allOf"):
            for number, part in enumerate(schema.get(key, [])):
                look(part, f"{where}|{number}", depth + 1)
        for name, part in schema.get("properties", {}).items():
            look(part, f"{where}.{name}", depth + 1)
        for key in ("items", "additionalProperties"):
            if isinstance(schema.get(key), dict):
                look(schema[key], f"{where}[]", depth + 1)
        for part in schema.get("patternProperties", {}).values():
            look(part, f"{where}[]", depth + 1)

    for path, operations in described["paths"].items():
        for method, operation in operations.items():
            for param in operation.get("parameters", []):
                look(param.get("schema", {}), f"{method} {path} {param['name']}")
            body = operation.get("requestBody", {}).get("content", {})
            for media, content in body.items():
                look(content.get("schema", {}), f"{method} {path} {media}")
    assert holes == []


def test_forms_read_by_hand_are_the_listed_ones_only(app: FastAPI) -> None:
    reading = set()
    for route in routes(app):
        if re.search(r"request\.(form|json)\(\)", inspect.getsource(route.endpoint)):
            reading.add(route.endpoint.__name__)
    assert reading == set(READ_BY_HAND)


# -- attacks ------------------------------------------------------------------------------


def table_count(site: Site) -> int:
    return len(site.app.state.tables.live)


FIDO = {"game": "fido", "options": {"players": 3}}


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        # A seat of a kind there is not.
        (
            {**FIDO, "seats": [{"kind": "me"}, {"kind": "robot"}, {"kind": "open"}]},
            "body.seats[1]",
            "invalid",
        ),
        (
            {**FIDO, "seats": [{"kind": "me"}, {"bot": "greedy"}, {"kind": "open"}]},
            "body.seats[1]",
            "invalid",
        ),
        # A bot no server seats, or no bot at all.
        (
            {**FIDO, "seats": [{"kind": "me"}, {"kind": "bot", "bot": "wizard"}, {"kind": "open"}]},
            "body.seats[1].bot",
            "invalid",  # an unknown bot is no rule of the SPEC
        ),
        (
            {
                **FIDO,
                "seats": [
                    {"kind": "me"},
                    {"kind": "bot", "bot": "external:touch /tmp/x"},
                    {"kind": "open"},
                ],
            },
            "body.seats[1].bot",
            "invalid",
        ),
        (
            {**FIDO, "seats": [{"kind": "me"}, {"kind": "bot", "bot": 7}, {"kind": "open"}]},
            "body.seats[1].bot",
            "invalid",
        ),
        # Options of the wrong type, unknown, or that make no game.
        (
            {"game": "fido", "options": {"players": "three"}, "seats": [{"kind": "me"}] * 3},
            "body.options.players",
            "invalid",  # no rule of the SPEC refused it
        ),
        (
            {"game": "fido", "options": {"players": [3]}, "seats": [{"kind": "me"}] * 3},
            "body.options.players",
            "invalid",
        ),
        (
            {"game": "fido", "options": {"players": {"$gt": 1}}, "seats": [{"kind": "me"}] * 3},
            "body.options.players",
            "invalid",
        ),
        (
            {"game": "fido", "options": {"players": 3, "divisor": 2}, "seats": [{"kind": "me"}]},
            "body.options.divisor",
            "invalid",  # no rule of the SPEC refused it
        ),
        (
            {"game": "fido", "options": {"players": 3, "set": 7}, "seats": [{"kind": "me"}]},
            "body.options.set",
            "rule_broken",
        ),
        (
            {"game": "chess", "options": {}, "seats": [{"kind": "me"}]},
            "body.game",
            "invalid",  # no rule of the SPEC refused it
        ),
        # Seats that do not fit the game, or a creator in two of them.
        ({**FIDO, "seats": [{"kind": "me"}, {"kind": "open"}]}, "body.seats", "invalid"),
        ({**FIDO, "seats": [{"kind": "me"}] * 3}, "body.seats", "invalid"),
        # Fields nobody declared, at the top and in a seat.
        (
            {**FIDO, "seats": [{"kind": "me"}] + [{"kind": "open"}] * 2, "admin": True},
            "body.admin",
            "invalid",
        ),
        (
            {
                **FIDO,
                "seats": [{"kind": "me", "name": "Root"}, {"kind": "open"}, {"kind": "open"}],
            },
            "body.seats[0].name",
            "invalid",
        ),
    ],
)
def test_a_table_request_out_of_its_types_is_a_422_naming_the_field_and_makes_nothing(
    site: Site, body: dict[str, Any], field: str, code: str
) -> None:
    eve = site.person("Eve")
    before = table_count(site)
    answer = eve.post("/api/tables", body)
    assert answer.status_code == 422, answer.text
    said = answer.json()
    assert said["field"] == field and said["code"] == code, said
    assert said["message"] and "Traceback" not in said["message"]
    assert table_count(site) == before


def test_a_seat_names_its_bot_canonically_and_options_arrive_typed(site: Site) -> None:
    eve = site.person("Eve")
    seats = [{"kind": "me"}, {"kind": "bot", "bot": " Search : hard "}, {"kind": "bot"}]
    made = eve.post(
        "/api/tables", {"game": "fido", "options": {"players": 3, "set": 9}, "seats": seats}
    )
    assert made.status_code == 201, made.text
    table = site.app.state.tables.live[made.json()["id"]]
    assert [e.bot for e in table.round.entrants] == [None, "search:hard", "greedy"]
    assert table.round.options.top == 9  # the game's own options, not a dict


def test_results_items_are_typed_and_extra_fields_are_named(site: Site) -> None:
    anna = site.person("Anna")
    game = {
        "game": "fido",
        "date": "2026-10-03",
        "set": 6,
        "players": [{"name": "Anna", "points": 14, "pips": 0}, {"name": "Ben", "points": 3}],
    }
    for broken, field in [
        ({**game, "id": 5}, "body.results[0].id"),
        (
            {**game, "players": [{"name": "Anna", "points": "many"}]},
            "body.results[0].players[0].points",
        ),
        ({**game, "players": [{"points": 3}]}, "body.results[0].players[0].name"),
        ({**game, "players": []}, "body.results[0].players"),
    ]:
        answer = anna.post("/api/results/check", {"results": [broken]})
        assert answer.status_code == 422, answer.text
        assert answer.json()["field"] == field, answer.json()
    assert site.count() == 0


def test_a_check_of_options_names_the_option_to_change(site: Site) -> None:
    eve = site.person("Eve")
    bad = eve.post("/api/games/fido/check", {"options": {"players": 4, "set": 7}})
    assert bad.status_code == 422, bad.text
    assert bad.json()["field"] == "body.options.set" and bad.json()["rule"] == "F-01"
    typed = eve.post("/api/games/fido/check", {"options": {"players": 4.5}})
    assert typed.status_code == 422 and typed.json()["field"] == "body.options.players"


def test_a_result_of_a_game_pips_does_not_know_is_refused_in_words(site: Site) -> None:
    """Found by the schema fuzzer: without a set, the usual set of an unknown game was
    asked for and the request failed with a 500."""
    anna = site.person("Anna")
    game = {"game": "I", "date": "2026-10-03", "players": [{"name": "Anna"}, {"name": "Ben"}]}
    answer = anna.post("/api/results/check", {"results": [game]})
    assert answer.status_code == 422 and "I" in answer.json()["message"], answer.text
