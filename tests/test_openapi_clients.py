"""Clients are made from the description (issue 52, "A description clients are generated
from"), as an outside developer makes them:

* every JSON success answer is a declared model (a walk of ``/openapi.json``; the few
  not yet declared are listed, and the list may only shrink);
* operations are named for what they do, servers are declared, no two paths are
  ambiguous;
* openapi-python-client (pinned, installed by the test into a virtual environment of
  its own in the cache) makes a client with no warning (with the settings of
  docs/examples/openapi-python-client.yaml), and that client plays a whole match at a
  real ``pips serve`` (the moves over the table's websocket, which the description
  points to) and enters a club's results from its CSV;
* openapi-typescript makes the types of the same description with no warning, and the
  TypeScript compiler accepts code written against them (npm packages pinned in
  tests/openapi_typescript, installed by the test into a cache; skipped only where
  npm is not installed)."""

from __future__ import annotations

import csv
import importlib
import io
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import pytest
from fastapi import FastAPI
from pydantic import ValidationError
from websockets.sync.client import connect

from pips.core.view import event_to_json, move_to_json
from pips.games.match import Match
from pips.games.registry import all_games, find_game
from pips.results.entry_formats import CSV_FIELDS
from pips.server.app import create_app
from pips.server.responses.lists import ListInputs
from pips.server.responses.register import PlayerShown
from pips.server.settings import Settings
from pips.store.db import Database
from tests.in_thread import ThreadServer
from tests.protocol_schema import check_document, check_server_message, document
from tests.server_helpers import Browser, Server, an_address, register

ROOT = Path(__file__).parent.parent
SETTINGS = ROOT / "docs" / "examples" / "openapi-python-client.yaml"
NPM_PACKAGES = Path(__file__).parent / "openapi_typescript"
GENERATOR = "openapi-python-client==0.29.1"
"""Pinned, and installed by the test into a virtual environment of its own in the
cache: it pins typer below 0.28, which pips's own command line is past."""


def cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pips-tests"


def generator() -> Path:
    """The bin folder of a virtual environment holding :data:`GENERATOR` (and the ruff
    its post-hook formats with), made once into the cache."""
    home = cache() / "openapi-python-client"
    made = home / "bin" / "openapi-python-client"
    stamp = home / "installed"
    if not made.exists() or not stamp.exists() or stamp.read_text() != GENERATOR:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(home)], check=True)
        subprocess.run(
            [str(home / "bin" / "python"), "-m", "pip", "install", "--quiet", GENERATOR],
            check=True,
            timeout=600,
        )
        stamp.write_text(GENERATOR)
    return home / "bin"


UNTYPED: set[str] = set()
"""Operations whose success answer is not yet a declared model (a JSON object of any
fields, or a list of them): none now, and it stays so: a new operation declares its
answer (:mod:`pips.server.responses`)."""


@pytest.fixture(scope="module")
def description(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    home = tmp_path_factory.mktemp("description")
    app: FastAPI = create_app(
        Settings(warm=False, publish_lists=False),
        db=Database(f"sqlite:///{home / 'pips.db'}"),
        secret="t",
    )
    return app.openapi()


def resolve(schema: dict[str, Any], described: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = described["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def untyped(schema: dict[str, Any], described: dict[str, Any]) -> bool:
    """Whether ``schema`` is an object of any fields (or a list of such), or anything."""
    schema = resolve(schema, described)
    if not schema:
        return True
    if schema.get("type") == "array":
        return untyped(schema.get("items", {}), described)
    if "anyOf" in schema or "oneOf" in schema:
        return any(untyped(s, described) for s in schema.get("anyOf", schema.get("oneOf", [])))
    if schema.get("type") == "object":
        return not schema.get("properties") and not isinstance(
            schema.get("additionalProperties"), dict
        )
    return False


def operations(described: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in described["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_every_json_success_answer_is_a_declared_model(description: dict[str, Any]) -> None:
    found = set()
    for _path, _method, operation in operations(description):
        for status, answer in operation["responses"].items():
            json_answer = answer.get("content", {}).get("application/json")
            if (
                status.startswith("2")
                and json_answer is not None
                and untyped(json_answer.get("schema", {}), description)
            ):
                found.add(operation["operationId"])
    assert not found - UNTYPED, f"declare the answers of {sorted(found - UNTYPED)}"
    assert not UNTYPED - found, f"declared now, take off the list: {sorted(UNTYPED - found)}"


def test_the_walk_finds_an_untyped_answer(description: dict[str, Any]) -> None:
    assert untyped({"type": "object", "additionalProperties": True}, description)
    assert untyped({"type": "array", "items": {}}, description)
    assert not untyped({"$ref": "#/components/schemas/TableMade"}, description)


def test_an_answer_declares_every_key_its_service_gives() -> None:
    """A key a service adds and the model does not declare fails the answer (a failing
    test), rather than vanishing from what clients get."""
    player = {
        "id": 1,
        "name": "Anna",
        "group": None,
        "account": None,
        "claimed_by": None,
        "claims": [],
        "results": 3,
    }
    assert PlayerShown.model_validate(player).model_dump() == player
    with pytest.raises(ValidationError, match="does not declare"):
        PlayerShown.model_validate({**player, "email": "anna@example.org"})
    rows = {"game": "fido", "month": "2026-01", "as_of": "2026-01-31", "settings": {}}
    inputs = {**rows, "start": {"mu": 25.0, "sigma": 8.3}, "games": [], "list": []}
    assert ListInputs.model_validate(inputs).model_dump(by_alias=True) == inputs


def test_operations_are_named_for_what_they_do(description: dict[str, Any]) -> None:
    names = [operation["operationId"] for _path, _method, operation in operations(description)]
    assert len(names) == len(set(names))
    for name in names:
        # FastAPI's own ids end in the path and the method (create_table_api_tables_post).
        assert not name.endswith(("_get", "_post", "_put", "_delete")), name
        assert "_api_" not in name, name
    assert {"create_table", "join_table", "abort_table", "enter_csv"} <= set(names)


def test_servers_are_declared_and_no_path_is_ambiguous(description: dict[str, Any]) -> None:
    assert description["servers"] and description["servers"][0]["url"]
    split = [path.strip("/").split("/") for path in description["paths"]]

    def variable(part: str) -> bool:
        return part.startswith("{")

    ambiguous = []
    for a, b in itertools.combinations(split, 2):
        if len(a) != len(b) or any(
            x != y and not variable(x) and not variable(y) for x, y in zip(a, b, strict=True)
        ):
            continue
        # A path is ambiguous beside another when each is more precise somewhere.
        if any(not variable(x) and variable(y) for x, y in zip(a, b, strict=True)) and any(
            variable(x) and not variable(y) for x, y in zip(a, b, strict=True)
        ):
            ambiguous.append(("/".join(a), "/".join(b)))
    assert ambiguous == []


def test_file_bodies_are_declared(description: dict[str, Any]) -> None:
    paths = description["paths"]
    upload = paths["/api/results/csv"]["post"]["requestBody"]["content"]
    assert "text/csv" in upload
    assert "application/pdf" in paths["/sheet.pdf"]["get"]["responses"]["200"]["content"]
    svg = paths["/api/records/{table_id}/analysis.svg"]["get"]["responses"]["200"]["content"]
    assert "image/svg+xml" in svg
    csv_answer = paths["/api/results/export.csv"]["get"]["responses"]["200"]["content"]
    assert "text/csv" in csv_answer


def test_a_rate_limited_success_declares_its_ratelimit_headers(
    description: dict[str, Any],
) -> None:
    made = description["paths"]["/api/tables"]["post"]["responses"]["201"]
    assert {"RateLimit", "RateLimit-Policy"} <= set(made["headers"])
    listed = description["paths"]["/api/tables"]["get"]["responses"]["200"]
    assert "headers" not in listed


# -- clients made from the description ----------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = ThreadServer(tmp_path_factory.mktemp("clients"), bot_delay=0.0).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def served(server: Server, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The description as the server serves it, saved as a developer saves it."""
    saved = tmp_path_factory.mktemp("openapi") / "openapi.json"
    saved.write_bytes(httpx.get(server.url + "/openapi.json", timeout=30).content)
    return saved


@pytest.fixture(scope="module")
def python_client(served: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The package openapi-python-client makes, imported."""
    home = tmp_path_factory.mktemp("python-client")
    tools = generator()
    made = subprocess.run(
        [
            str(tools / "openapi-python-client"),
            "generate",
            "--path",
            str(served),
            "--meta",
            "none",
            "--output-path",
            str(home / "pips_client"),
            "--config",
            str(SETTINGS),
        ],
        capture_output=True,
        text=True,
        # Its post-hook formats the client with ruff, found on the PATH.
        env={**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}"},
        timeout=600,
        check=False,
    )
    said = made.stdout + made.stderr
    assert made.returncode == 0, said
    assert "warning" not in said.lower(), said
    sys.path.insert(0, str(home))
    try:
        return importlib.import_module("pips_client")
    finally:
        sys.path.remove(str(home))


def token(server: Server, name: str) -> str:
    assert register(Browser(server), name).status_code in (200, 303)
    server.run_pips("admin", "grant", name)
    scopes = ("--scope=read", "--scope=results", "--scope=play")
    return server.run_pips("admin", "tokens", "create", name, "--label", "client", *scopes).strip()


def test_the_python_client_plays_a_match_and_enters_a_clubs_results(
    server: Server, python_client: Any
) -> None:
    def generated(name: str) -> Any:  # the generated package's modules (made by the fixture)
        return importlib.import_module(f"pips_client.{name}")

    approve_group, create_group = (
        generated("api.groups.approve_group"),
        generated("api.groups.create_group"),
    )
    enter_csv, list_results = (
        generated("api.results.enter_csv"),
        generated("api.results.list_results"),
    )
    check_options, create_table = (
        generated("api.tables.check_options"),
        generated("api.tables.create_table"),
    )
    get_table, models = generated("api.tables.get_table"), generated("models")
    ApproveBody, Choice, GroupBody = models.ApproveBody, models.Choice, models.GroupBody
    NewTable, Problem, File = models.NewTable, models.Problem, generated("types").File

    secret = token(server, "Clara Client")
    headers = {"X-Forwarded-For": an_address()}
    client = python_client.AuthenticatedClient(
        base_url=server.url, token=secret, headers=headers, timeout=httpx.Timeout(30)
    )
    # A refusal is the error model, typed.
    refused = check_options.sync(
        "fido", client=client, body=Choice.from_dict({"options": {"players": 2}})
    )
    assert isinstance(refused, Problem) and refused.rule == "F-02", refused
    checked = check_options.sync(
        "draw", client=client, body=Choice.from_dict({"options": {"players": 2}})
    )
    assert checked is not None and not isinstance(checked, Problem) and checked.players == 2
    # A whole match of the draw game against a bot.
    body = NewTable.from_dict(
        {
            "game": "draw",
            "options": {"players": 2},
            "seats": [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}],
        }
    )
    made = create_table.sync_detailed(client=client, body=body)
    assert made.status_code == 201 and not isinstance(made.parsed, Problem), made.content
    assert made.parsed is not None
    assert made.headers["RateLimit"].startswith('"tables";')
    table = made.parsed.id
    auth = {"Authorization": f"Bearer {secret}", **headers}
    with connect(f"{server.ws_url}/ws/{table}", additional_headers=auth) as socket:
        while True:
            message = json.loads(socket.recv(timeout=60))
            if message["type"] != "state":
                continue
            if message.get("match", {}).get("over"):
                break
            if message.get("legal"):
                move = {"v": 1, "type": "move", "move": 0, "moves_made": message["moves_made"]}
                socket.send(json.dumps(move))
    state = get_table.sync(table, client=client)
    assert state is not None and not isinstance(state, Problem)
    assert state.table.status == "finished" and state.table.game == "draw"
    # A club's evening from its spreadsheet, entered for its approved group.
    group = create_group.sync(client=client, body=GroupBody.from_dict({"name": "DC Kiel"}))
    assert group is not None and not isinstance(group, Problem), group
    slug = group.slug
    approved = approve_group.sync(
        slug, client=client, body=ApproveBody.from_dict({"approve": True})
    )
    assert approved is not None and not isinstance(approved, Problem), approved
    rows = [
        [1, "2026-10-03", "Kiel", "fido", 6, 3, 1, "Clara Client", 14, 0, "yes", "", ""],
        [1, "2026-10-03", "Kiel", "fido", 6, 3, 2, "Ben Berg", 17, 13, "", "", ""],
        [1, "2026-10-03", "Kiel", "fido", 6, 3, 3, "Cleo Kurz", 9, 1, "", "", ""],
    ]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_FIELDS)
    writer.writerows(rows)
    upload = File(payload=io.BytesIO(out.getvalue().encode()), mime_type="text/csv")
    entered = enter_csv.sync(client=client, body=upload, group=slug)
    assert entered is not None and not isinstance(entered, Problem), entered
    assert len(entered.ids) == 1 and set(entered.new_players) == {"Ben Berg", "Cleo Kurz"}
    listed = list_results.sync(client=client, group=slug)
    assert listed is not None and not isinstance(listed, Problem)
    # The list is typed too: its fields are attributes, not a bag of any keys.
    assert listed.total == 1 and len(listed.results) == 1


# -- openapi-typescript -------------------------------------------------------------------


def npm_tools() -> Path:
    """The pinned npm packages, installed once into the cache (``npm ci``)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed (Debian: apt-get install npm)")
    lock = (NPM_PACKAGES / "package-lock.json").read_bytes()
    home = cache() / "openapi-typescript"
    kept = home / "package-lock.json"
    installed = home / "node_modules" / ".bin" / "openapi-typescript"
    if not installed.exists() or not kept.exists() or kept.read_bytes() != lock:
        home.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(NPM_PACKAGES / name, home / name)
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=home, check=True, timeout=600)
    return home / "node_modules" / ".bin"


WRITTEN_AGAINST_THE_TYPES = """
import type { components, operations } from "./pips";
type Made = operations["create_table"]["responses"][201]["content"]["application/json"];
const made: Made = { id: "abc", invite: "def", url: "/t/abc" };
const refused: components["schemas"]["Problem"] = {
  code: "rule_broken", message: "...", rule: "F-02", field: "body.options",
};
const seat: components["schemas"]["BotSeat"] = { kind: "bot", bot: "greedy" };
console.log(made.id, refused.code, seat.bot);
"""


def test_openapi_typescript_makes_types_the_compiler_accepts(served: Path, tmp_path: Path) -> None:
    tools = npm_tools()
    made = subprocess.run(
        [str(tools / "openapi-typescript"), str(served), "-o", str(tmp_path / "pips.d.ts")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    said = made.stdout + made.stderr
    assert made.returncode == 0, said
    assert "warn" not in said.lower(), said

    def compiled(code: str) -> subprocess.CompletedProcess[str]:
        (tmp_path / "client.ts").write_text(code)
        return subprocess.run(
            [str(tools / "tsc"), "--noEmit", "--strict", "client.ts", "pips.d.ts"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    accepted = compiled(WRITTEN_AGAINST_THE_TYPES)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    # A type error is found: the check can fail.
    assert compiled(WRITTEN_AGAINST_THE_TYPES.replace('"abc"', "7", 1)).returncode != 0


# -- the AsyncAPI document ----------------------------------------------------------------


def test_the_asyncapi_document_says_how_to_connect_and_types_what_a_bot_plays_from(
    server: Server,
) -> None:
    made = document()
    assert check_document() == []
    text = json.dumps(made)
    assert ":class:`" not in text and ":func:`" not in text and "``" not in text
    assert made["servers"]["pips"]["protocol"] == "wss"
    schemes = made["components"]["securitySchemes"]
    assert schemes["token"]["scheme"] == "bearer" and schemes["invite"]["in"] == "query"
    channel = made["channels"]["/ws/{table_id}"]
    assert channel["parameters"]["table_id"]["description"]
    for code in ("4401", "4403", "4404", "4429"):
        assert code in made["info"]["x-close-codes"] and code in channel["description"]
    state = made["components"]["messages"]["state"]["payload"]["properties"]
    assert state["legal"]["items"] == {"$ref": "#/components/schemas/Move"}
    assert state["event"] == {"$ref": "#/components/schemas/Event"}
    schemas = made["components"]["schemas"]
    views = [v["$ref"].rsplit("/", 1)[-1] for v in schemas["View"]["oneOf"]]
    games = {schemas[v]["properties"]["game"]["const"] for v in views}
    assert games == {"fido", "family", "draw", "doubles", "partnership"}
    fido = schemas["ViewFido"]["properties"]["options"]["$ref"].rsplit("/", 1)[-1]
    assert "mother_theresa" in schemas[fido]["properties"]
    # A table's state validates against the document, and fails it once its view's
    # options are not the game's: the schemas can fail.
    guest = Browser(server, "Vera View")
    seats = [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}]
    table = guest.create("draw", {"players": 2}, seats)
    state = guest.http.get(f"/api/tables/{table}").json()
    assert state["view"]["game"] == "draw"
    check_server_message(state)
    state["view"]["options"]["players"] = "two"
    with pytest.raises(AssertionError):
        check_server_message(state)


@pytest.mark.parametrize("game", [spec.name for spec in all_games()])
def test_every_games_view_moves_and_events_are_in_the_asyncapi_document(game: str) -> None:
    """Each game's views (a seat's and a spectator's), legal moves and events, through
    hands to their ends, hold to the document's View, Move and Event."""
    made = document()

    def validator(name: str) -> Any:
        root = {"$ref": f"#/components/schemas/{name}", "components": made["components"]}
        return jsonschema_rs.Draft7Validator(root)

    views, moves, events = validator("View"), validator("Move"), validator("Event")
    spec = find_game(game)
    chooser = random.Random(7)
    match = Match(
        spec,
        spec.options_from_json({"players": spec.player_counts[-1] if game != "doubles" else 4}),
        chooser,
    )
    for _ in range(300):
        if match.is_over:
            break
        seat = match.current_seat
        assert seat is not None
        for viewer in (seat, -1):
            view = json.loads(json.dumps(match.current.view(viewer).to_json()))
            assert not list(views.iter_errors(view)), view
        legal = list(match.legal_moves())
        for move in legal:
            assert not list(moves.iter_errors(json.loads(json.dumps(move_to_json(seat, move)))))
        event = event_to_json(match.play(chooser.choice(legal)))
        assert not list(events.iter_errors(json.loads(json.dumps(event)))), event
    wrong = json.loads(json.dumps(match.current.view(-1).to_json()))
    wrong["game"] = "fido" if game != "fido" else "draw"
    assert list(views.iter_errors(wrong)), "a view of one game with another's options"
