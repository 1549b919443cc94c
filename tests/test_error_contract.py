"""One error contract, as docs/api.md ("One error model") documents it (issue 52):

* ``field`` is the JSON path of the fault, in one form everywhere (``query.month``,
  ``body.seats[1].bot``, ``body.results[0].players[0].points``, ``path.game``);
* ``rule`` is a SPEC id or null: an unknown bot or game is no rule of the SPEC;
* every 429 carries ``Retry-After``; a refused request spends none of a rate (the
  cap of tables at once, a table refused after it was counted);
* a success of a rate-limited operation carries the IETF ``RateLimit`` fields;
* a body that is not JSON is a 400, not a 422;
* a table asked for by nobody is ``sign_in_required``, not ``csrf_failed``;
* a check changes nothing: any token asks it as its account would without one, and
  every check refuses with a 4xx in the error model, never a 200;
* 405 is in the model and in the docs.

Each over HTTP, through the app in this process."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from pips.core.names import name_key
from pips.server.app import create_app
from pips.server.errors import CODES, SPEC_ID, Problem, json_path
from pips.server.limits import Limits, RateLimit
from pips.server.settings import Settings
from pips.store.db import Database
from pips.store.models import User
from tests.test_results_server import Site, fido

ROOT = Path(__file__).parent.parent
DRAW = {"game": "draw", "options": {"players": 2}}
OPEN_TABLE = {**DRAW, "seats": [{"kind": "me"}, {"kind": "open"}]}


def problem(answer: Any, status: int) -> dict[str, Any]:
    """The refusal ``answer``, held to the model and to ``status``."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json"
    body = answer.json()
    Problem.model_validate(body)
    assert set(body) == {"code", "message", "rule", "field"}, body
    assert CODES[body["code"]] == status, body
    assert body["rule"] is None or SPEC_ID.match(body["rule"]), body
    return dict(body)


@pytest.fixture
def site(tmp_path: Path) -> Site:
    return Site(f"sqlite:///{tmp_path / 'pips.db'}")


def client(site: Site) -> TestClient:
    """A client of nobody signed in (its app started: the database made)."""
    made = TestClient(site.app)
    made.__enter__()
    return made


def token_of(site: Site, name: str, *scopes: str) -> str:
    with site.db.session() as session:
        user = session.scalar(select(User.id).where(User.name_key == name_key(name)))
    assert user is not None
    token, _kept = site.app.state.tokens.create(user, "test", scopes)
    return str(token)


# -- field and rule ----------------------------------------------------------------------


def test_json_path_is_one_form() -> None:
    assert json_path(["body", "seats", 1, "bot"]) == "body.seats[1].bot"
    assert json_path(["query", "month"]) == "query.month"
    assert json_path(["body", "known_players", "Jörg M."]) == 'body.known_players["Jörg M."]'
    assert json_path([]) is None


def test_field_is_the_json_path_of_the_fault_and_rule_a_spec_id_or_null(site: Site) -> None:
    anna = site.person("Anna")
    month = problem(anna.client.get("/api/results", params={"month": "Oktober"}), 422)
    assert month["field"] == "query.month" and month["code"] == "invalid", month
    listed = problem(anna.client.get("/api/lists/fido", params={"month": "2026-13"}), 422)
    assert listed["field"] == "query.month", listed
    exported = problem(anna.client.get("/api/results/export.csv?month=x"), 422)
    assert exported["field"] == "query.month"
    # An unknown bot: the seat's bot, and no rule (it was "bots").
    seats = [{"kind": "me"}, {"kind": "bot", "bot": "wizard"}]
    bot = problem(anna.post("/api/tables", {**DRAW, "seats": seats}), 422)
    assert bot["field"] == "body.seats[1].bot" and bot["rule"] is None, bot
    assert bot["code"] == "invalid"
    # A rule of the SPEC: its id, and the option at fault.
    fido_set = {"game": "fido", "options": {"players": 3, "set": 7}, "seats": [{"kind": "me"}] * 3}
    broken = problem(anna.post("/api/tables", fido_set), 422)
    assert broken == {**broken, "code": "rule_broken", "rule": "F-01", "field": "body.options.set"}
    # Lists' items by index in brackets, however deep.
    game = fido("2026-10-03", ("Anna", 14, 0), ("Ben", 3, 5))
    game["players"][0]["points"] = "many"
    item = problem(anna.post("/api/results/check", {"results": [game]}), 422)
    assert item["field"] == "body.results[0].players[0].points", item
    # An unknown game (it was the rule "game"), where a game is a part of the path.
    unknown = problem(anna.post("/api/games/chess/check", {"options": {}}), 404)
    assert unknown["field"] == "path.game" and unknown["rule"] is None


# -- limits ------------------------------------------------------------------------------


@pytest.fixture
def tight(tmp_path: Path) -> Iterator[TestClient]:
    """A server where a person may have one table at once, and an address may make two
    tables (refilled at one a day: never within a test)."""
    limits = Limits(tables_at_once=1)
    limits.tables = RateLimit(2, 1 / 1440, "new tables", name="tables")
    app = create_app(
        Settings(warm=False, publish_lists=False),
        db=Database(f"sqlite:///{tmp_path / 'pips.db'}"),
        secret="t",
        limits=limits,
    )
    with TestClient(app) as client:
        yield client


def guest(client: TestClient, name: str) -> dict[str, str]:
    csrf = client.get("/api/session").json()["csrf"]
    made = client.post("/guest", data={"name": name, "csrf": csrf}, follow_redirects=False)
    assert made.status_code in (200, 303), made.text
    return {"X-CSRF-Token": client.get("/api/session").json()["csrf"]}


def test_every_429_says_when_and_refusals_spend_no_rate(tight: TestClient) -> None:
    headers = guest(tight, "Greta")
    first = tight.post("/api/tables", json=OPEN_TABLE, headers=headers)
    assert first.status_code == 201, first.text
    # The success says what is left of the quota (IETF RateLimit fields).
    assert first.headers["RateLimit-Policy"] == '"tables";q=2;w=172800'
    assert re.fullmatch(r'"tables";r=1;t=\d+', first.headers["RateLimit"]), first.headers
    # The cap of tables at once: a 429 that says when, however often it is asked ...
    for _ in range(4):
        capped = tight.post("/api/tables", json=OPEN_TABLE, headers=headers)
        assert problem(capped, 429)["code"] == "too_many_requests"
        assert int(capped.headers["Retry-After"]) > 0
    aborted = tight.post(f"/api/tables/{first.json()['id']}/abort", headers=headers)
    assert aborted.status_code == 200, aborted.text
    # ... and a table refused once counted (two seats "me") gives its count back.
    twice = {**DRAW, "seats": [{"kind": "me"}, {"kind": "me"}]}
    for _ in range(3):
        assert problem(tight.post("/api/tables", json=twice, headers=headers), 422)
    # So the second of the rate is still there: none of the refusals spent it.
    second = tight.post("/api/tables", json=OPEN_TABLE, headers=headers)
    assert second.status_code == 201, second.text
    assert re.fullmatch(r'"tables";r=0;t=\d+', second.headers["RateLimit"])
    tight.post(f"/api/tables/{second.json()['id']}/abort", headers=headers)
    # The rate is spent now: 429 with Retry-After and the quota that ran out.
    spent = tight.post("/api/tables", json=OPEN_TABLE, headers=headers)
    assert problem(spent, 429)["code"] == "too_many_requests"
    assert int(spent.headers["Retry-After"]) > 0
    assert spent.headers["RateLimit"].startswith('"tables";r=0;')


def test_a_refused_event_spends_none_of_the_rate_of_new_events(site: Site) -> None:
    site.app.state.limits.tune({"events": (1, 1 / 1440)})  # one event a day
    anna = site.person("Anna")
    slug = anna.post("/api/groups", {"name": "Annas Runde"}).json()["slug"]
    body = {"name": "Abend", "game": "fido", "date": "2026-10-10", "rounds": 1}
    for _ in range(3):  # a group that is not hers: refused, and counted for nothing
        refused = anna.post("/api/events", {**body, "group": "nirgends"})
        assert 400 <= refused.status_code < 500 and refused.status_code != 429, refused.text
    made = anna.post("/api/events", {**body, "group": slug})
    assert made.status_code == 201, made.text
    assert made.headers["RateLimit"].startswith('"events";r=0;')
    spent = anna.post("/api/events", {**body, "group": slug})
    assert problem(spent, 429) and int(spent.headers["Retry-After"]) > 0


def test_a_rate_limited_success_carries_the_ratelimit_fields(site: Site) -> None:
    game = fido("2026-10-03", ("Anna", 14, 0), ("Ben", 3, 5), ("Cem", 1, 9))
    checked = client(site).post("/api/results/check", json={"results": [game]})
    assert checked.status_code == 200, checked.text
    assert checked.headers["RateLimit-Policy"] == '"checks";q=10;w=20'
    assert checked.headers["RateLimit"] == '"checks";r=9;t=2'
    # An operation no rate counts says nothing of one.
    assert "RateLimit" not in client(site).get("/api/tables").headers


# -- bodies and who asks -----------------------------------------------------------------


def test_a_body_that_is_not_json_is_a_400(site: Site) -> None:
    anna = site.person("Anna")
    for path in ("/api/tables", "/api/results/check", "/api/groups", "/api/games/fido/check"):
        answer = anna.client.post(
            path,
            content=b"{not json",
            headers={"X-CSRF-Token": anna.csrf, "Content-Type": "application/json"},
        )
        said = problem(answer, 400)
        assert said["code"] == "bad_request" and said["field"] == "body", said


def test_a_table_asked_for_by_nobody_needs_a_sign_in_not_a_csrf_token(site: Site) -> None:
    nobody = client(site)
    made = nobody.post("/api/tables", json=OPEN_TABLE)
    assert problem(made, 401)["code"] == "sign_in_required"
    for action in ("join", "leave", "rematch"):
        asked = nobody.post(f"/api/tables/abcdef/{action}")
        assert problem(asked, 401)["code"] == "sign_in_required", action
    # A browser that is someone, without its CSRF token, is still refused for that.
    anna = site.person("Anna")
    assert problem(anna.client.post("/api/tables", json=OPEN_TABLE), 403)["code"] == "csrf_failed"


# -- checks ------------------------------------------------------------------------------


def test_a_check_answers_a_token_of_any_scope_as_its_account(site: Site) -> None:
    anna = site.person("Anna")
    game = fido("2026-10-03", ("Anna", 14, 0), ("Ben", 3, 5), ("Cem", 1, 9))
    batch = {"results": [game]}
    session = anna.post("/api/results/check", batch)
    assert session.status_code == 200, session.text
    anonymous = client(site).post("/api/results/check", json=batch)
    assert anonymous.status_code == 200, anonymous.text
    for scopes in (("read",), ("play",), ("results",), ("read", "play", "results")):
        bearer = {"Authorization": f"Bearer {token_of(site, 'Anna', *scopes)}"}
        answer = client(site).post("/api/results/check", json=batch, headers=bearer)
        assert answer.status_code == 200, (scopes, answer.text)
        assert answer.json() == session.json(), scopes
        options = client(site).post(
            "/api/games/fido/check", json={"options": {"players": 4}}, headers=bearer
        )
        assert options.status_code == 200, (scopes, options.text)
    # A token that is no token is still refused: a check is no way around that.
    bad = {"Authorization": "Bearer pips_nothing"}
    refused = client(site).post("/api/results/check", json=batch, headers=bad)
    assert problem(refused, 401)["code"] == "token_invalid"


def test_every_check_refuses_with_a_4xx_in_the_model(site: Site) -> None:
    anna = site.person("Anna")
    options = anna.post("/api/games/fido/check", {"options": {"players": 2}})
    assert problem(options, 422)["rule"] == "F-02"
    manual = problem(
        anna.post("/api/games/fido/check", {"options": {"players": 4, "deal_mode": "manual"}}), 422
    )
    assert manual["rule"] == "F-24" and manual["field"] == "body.options.deal_mode"
    game = fido("2026-10-03", ("Anna", 14, 0))  # one player: no game
    assert problem(anna.post("/api/results/check", {"results": [game]}), 422)
    table = anna.post("/api/events/nothing/rounds/1/tables/1/check", {"players": []})
    assert table.status_code in (404, 422) and problem(table, table.status_code)
    # A success is the answer's own model: no {"ok": false} to read a refusal from.
    good = anna.post("/api/games/fido/check", {"options": {"players": 4}})
    assert good.status_code == 200 and "ok" not in good.json(), good.text
    # Every operation marked as changing nothing is a check, and declares its 4xx.
    described = site.app.openapi()["paths"]
    checks = [path for path, operations in described.items() if path.endswith("/check")]
    assert len(checks) == 3, checks
    for path in checks:
        declared = described[path]["post"]["responses"]
        assert {"400", "401", "403", "422"} <= set(declared), path


# -- 405 ---------------------------------------------------------------------------------


def test_a_method_an_address_does_not_take_is_405_in_the_model_and_the_docs(site: Site) -> None:
    answer = client(site).put("/api/tables")
    assert problem(answer, 405)["code"] == "method_not_allowed"
    assert "GET" in answer.headers["Allow"]
    docs = (ROOT / "docs" / "api.md").read_text()
    assert "| `method_not_allowed` | 405 |" in docs
