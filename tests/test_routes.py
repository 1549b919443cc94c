"""No two routes of the server can match one path (issue "A championship across clubs
and countries", item 2: ``/players/{name}`` caught every ``/players/{player_id}``, and
``/api/lists/fido/players/games.json`` was a player's rating history). For every two
routes of one method, a path is built that the first matches, taking the second's
words where the first has a parameter; if the second matches it too, the two are
ambiguous, whichever the router happens to try first."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.routing import BaseRoute, Mount

from pips.server.app import create_app
from pips.server.settings import Settings
from pips.store.db import Database

SAMPLES = {"str": "word", "int": "7", "path": "a/b", "month": "2026-10", "float": "1.5"}
PARAMETER = re.compile(r"{([a-zA-Z_]\w*)(?::(\w+))?}")


def flat_routes(routes: list[BaseRoute], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every endpoint's full path template and route, through included routers."""
    for route in routes:
        context = getattr(route, "include_context", None)
        if context is not None:  # FastAPI keeps an included router whole
            yield from flat_routes(context.included_router.routes, prefix + context.prefix)
        elif isinstance(route, Mount):
            continue  # static files: a folder, not routes
        elif hasattr(route, "path"):
            yield prefix + route.path, route


def kinds(route: Any) -> set[str]:
    methods = getattr(route, "methods", None)
    return set(methods) - {"HEAD"} if methods else {"WEBSOCKET"}


def regex(template: str) -> re.Pattern[str]:
    """The template as the router compiles it (starlette's convertors)."""
    from starlette.routing import compile_path

    return compile_path(template)[0]


def a_path_of(template: str, other: str) -> str:
    """A path ``template`` matches, with ``other``'s literal segment wherever
    ``template`` has a parameter there and the literal suits it."""
    theirs = other.split("/")
    parts = []
    for index, segment in enumerate(template.split("/")):
        found = PARAMETER.fullmatch(segment)
        if found is None:
            parts.append(segment)
            continue
        kind = found.group(2) or "str"
        literal = theirs[index] if index < len(theirs) else ""
        if (
            literal
            and not PARAMETER.search(literal)
            and regex(f"/{{x:{kind}}}").fullmatch("/" + literal)
        ):
            parts.append(literal)
        else:
            parts.append(SAMPLES[kind])
    return "/".join(parts)


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    folder: Path = tmp_path_factory.mktemp("routes")
    return create_app(
        Settings(warm=False, publish_lists=False, analyse_while_playing=0),
        db=Database(f"sqlite:///{folder}/routes.db"),
    )


def test_the_walk_finds_every_kind_of_route(app: FastAPI) -> None:
    paths = {template for template, _route in flat_routes(app.routes)}
    assert {"/players/{player_id:int}", "/api/tables", "/"} <= paths
    assert len(paths) > 100


def test_no_two_routes_can_match_one_path(app: FastAPI) -> None:
    routes = list(flat_routes(app.routes))
    ambiguous = []
    for first, (template_a, route_a) in enumerate(routes):
        for template_b, route_b in routes[first + 1 :]:
            if not kinds(route_a) & kinds(route_b):
                continue
            for mine, theirs in ((template_a, template_b), (template_b, template_a)):
                path = a_path_of(mine, theirs)
                if regex(mine).fullmatch(path) and regex(theirs).fullmatch(path):
                    ambiguous.append((template_a, template_b, path))
                    break
    assert ambiguous == [], "\n".join(map(str, ambiguous))


def test_a_player_page_has_one_address_and_a_name_there_is_no_page(app: FastAPI) -> None:
    with TestClient(app) as client:
        assert client.get("/players/Anna").status_code == 404
        assert client.get("/players/12345").status_code == 404  # no such player, by id
        assert client.get("/api/lists/fido/players/games.json").status_code == 404
