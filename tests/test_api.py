"""The JSON API does what its description says, and scripts can use it.

* An independent fuzzer, schemathesis, runs its coverage, fuzzing and stateful phases
  against a real ``pips serve`` on SQLite, anonymously and with an API token, and finds no
  server error and no answer outside the description (status, content type, schema).
* One error model for every refusal (:mod:`pips.server.errors`), in the reader's
  language, with the rule and the field where there are ones.
* Personal API tokens: made on the account page and with ``pips admin tokens``, shown
  once, kept hashed, narrowed by scopes, revoked at once; the worked examples of
  docs/api.md run against a real server.
* The websocket protocol's AsyncAPI document is valid AsyncAPI 2.6 (and every message the
  protocol tests see is checked against it, tests/protocol_schema.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from websockets.sync.client import connect

from pips.core.names import name_key
from pips.server.accounts.tokens import Tokens
from pips.server.errors import CODES, Problem
from pips.store.db import Database
from pips.store.models import User
from tests.protocol_schema import (
    check_client_message,
    check_document,
    check_server_message,
    document,
)
from tests.server_helpers import Browser, Server, an_address, register

ROOT = Path(__file__).parent.parent
EXAMPLES = ROOT / "docs" / "examples"
CHECKS = (
    "not_a_server_error,response_schema_conformance,status_code_conformance,"
    "content_type_conformance"
)


class Site:
    """One server for the module: an administrator "Jürgen" with a token of every
    scope, and the token's text."""

    def __init__(self, server: Server, token: str) -> None:
        self.server = server
        self.token = token

    @property
    def url(self) -> str:
        return self.server.url

    def bearer(self, token: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token or self.token}", "X-Forwarded-For": an_address()}

    def open_table(self) -> str:
        """A draw table for two made with the site's token: its seat, and one open."""
        seats = [{"kind": "me"}, {"kind": "open"}]
        made = httpx.post(
            self.url + "/api/tables",
            json={"game": "draw", "options": {"players": 2}, "seats": seats},
            headers=self.bearer(),
        )
        assert made.status_code == 201, made.text
        return str(made.json()["id"])

    def make_token(self, name: str, *scopes: str) -> str:
        """A token made in this process, as the account page makes them (the command
        line's own tests below make theirs with ``pips admin tokens``)."""
        db = Database(self.server.database)
        with db.session() as session:
            user = session.scalar(select(User.id).where(User.name_key == name_key(name)))
        assert user is not None, name
        token, _kept = Tokens(db).create(user, "test", scopes)
        db.engine.dispose()
        return token


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    home = tmp_path_factory.mktemp("api")
    # The bots at tables the fuzzer makes play at a walk (50 ms a move), not flat out:
    # their games are not what is tested here, and the rest of the suite shares the cores.
    # A process of its own: the tables the fuzzer makes go on playing in it.
    server = Server(home, bot_delay=0.05).start()
    try:
        assert register(Browser(server), "Jürgen").status_code in (200, 303)
        server.run_pips("admin", "grant", "Jürgen")
        scopes = ("--scope=read", "--scope=results", "--scope=play")
        made = server.run_pips("admin", "tokens", "create", "Jürgen", "--label", "all", *scopes)
        yield Site(server, made.strip())
    finally:
        server.stop()


def schemathesis(site: Site, directory: Path, *headers: str) -> subprocess.CompletedProcess[str]:
    """schemathesis's command line against the site's description, every phase; the
    seed is fixed so that a failure is found again by the same command."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "run",
            f"{site.url}/openapi.json",
            "--checks",
            CHECKS,
            "--phases",
            "coverage,fuzzing,stateful",
            "--max-examples",
            "6",
            "--seed",
            "38",
            # One worker: with two threads, hypothesis's parsing of its own lambdas
            # once raised "AST constructor recursion depth mismatch" (CPython 3.11 parses
            # in threads unsafely), an error of the tool, not of the server.
            "--workers",
            "1",
            "--generation-database",
            "none",
            "--request-timeout",
            "60",
            "--no-color",
            # The account's event stream never ends by design (an empty line every few
            # seconds keeps it alive), so no request timeout ends it either: it is
            # tested as a stream in tests/test_bot_api.py.
            "--exclude-operation-id",
            "streamEvents",
            # Declaring the token's account a bot cannot be taken back, and a bot
            # account enters no results: the module's later tests (the club's script)
            # need the person it is. Tested in tests/test_bot_api*.py.
            "--exclude-operation-id",
            "upgradeToBotAccount",
            *(f"--header={h}" for h in headers),
        ],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "SCHEMATHESIS_HOOKS": ""},
    )


@pytest.mark.process
@pytest.mark.parametrize("signed_in", [False, True], ids=["anonymously", "with-a-token"])
def test_schemathesis_finds_no_server_error_and_nothing_undocumented(
    site: Site, tmp_path: Path, signed_in: bool
) -> None:
    """No 500 from any input, and every answer (status, content type, body) is one the
    OpenAPI description declares: ISSUE 38's four checks, zero failures."""
    headers = [f"Authorization: Bearer {site.token}"] if signed_in else []
    done = schemathesis(site, tmp_path, *headers, f"X-Forwarded-For: {an_address()}")
    summary = done.stdout[done.stdout.find("SUMMARY") :]
    # The failures are said before the warnings (whose hints are long).
    said = done.stdout[: done.stdout.find("=== WARNINGS")]
    assert done.returncode == 0, said[-8000:] + done.stderr[-2000:]
    tested = re.search(r"Tested: (\d+)", summary)
    assert tested is not None and int(tested.group(1)) >= 60, summary
    cases = re.search(r"(\d+) generated, (\d+) passed", summary)
    assert cases is not None and int(cases.group(1)) == int(cases.group(2)) > 1500, summary
    for phase in ("Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in summary, summary
    log = (site.server.home / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]


# -- the description --------------------------------------------------------------------


@pytest.mark.process
def test_every_refusal_every_operation_declares_is_the_error_model(site: Site) -> None:
    schema = httpx.get(site.url + "/openapi.json").json()
    required = schema["components"]["schemas"]["Problem"]["required"]
    assert required == ["code", "message", "rule", "field"]
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    operations = [
        (path, method, operation)
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    ]
    assert len(operations) >= 60
    for path, method, operation in operations:
        responses = operation["responses"]
        # A token may be refused anywhere; a body may be too large or not JSON.
        assert {"401", "403", "422"} <= set(responses), (path, method)
        if method == "post":
            assert {"413", "422"} <= set(responses), (path, method)
        for status, answer in responses.items():
            if int(status) < 400 or path == "/readyz":
                continue
            problem = answer["content"]["application/json"]["schema"]
            assert problem == {"$ref": "#/components/schemas/Problem"}, (path, method, status)
            if status == "429":
                assert "Retry-After" in answer["headers"], (path, method)
    limited = [p for p, m, o in operations if "429" in o["responses"]]
    assert "/api/tables" in limited and "/api/results/check" in limited
    assert schema["components"]["securitySchemes"]["token"]["scheme"] == "bearer"
    pdf = schema["paths"]["/sheet.pdf"]["get"]["responses"]["200"]["content"]
    assert list(pdf) == ["application/pdf"]
    csv_body = schema["paths"]["/api/results/csv"]["post"]["requestBody"]["content"]
    assert list(csv_body) == ["text/csv"]


def test_the_asyncapi_document_is_valid_asyncapi_2_6_and_has_the_error_model() -> None:
    assert check_document() == []
    error = document()["components"]["messages"]["error"]["payload"]
    assert set(error["required"]) >= {"code", "message", "rule", "field"}
    assert set(error["properties"]["code"]["enum"]) == set(CODES)
    # The schema can fail: a message without its payload's type is refused.
    check_client_message({"v": 1, "type": "ping"})
    with pytest.raises(AssertionError):
        check_client_message({"v": 1, "type": "move", "move": "first"})


# -- the error model ---------------------------------------------------------------------


def problem(answer: httpx.Response) -> dict[str, Any]:
    body = answer.json()
    Problem.model_validate(body)
    assert answer.headers["content-type"] == "application/json", answer.headers
    return dict(body)


@pytest.mark.process
def test_refusals_share_one_model_in_the_readers_language(site: Site) -> None:
    german = {"Accept-Language": "de-DE,de;q=0.9", "X-Forwarded-For": an_address()}
    month = problem(httpx.get(site.url + "/api/results", params={"month": "x"}, headers=german))
    assert month["code"] == "invalid" and "kein Monat" in month["message"], month
    offset = problem(httpx.get(site.url + "/api/lists/fido?offset=-1", headers=german))
    assert offset["field"] == "query.offset" and "mindestens 0" in offset["message"], offset
    missing = problem(httpx.get(site.url + "/api/tables/gibtsnicht", headers=german))
    assert missing == {
        "code": "not_found",
        "message": "diesen Tisch gibt es nicht",
        "rule": None,
        "field": None,
    }
    nowhere = problem(httpx.get(site.url + "/api/keine/seite", headers=german))
    assert nowhere["code"] == "not_found" and nowhere["message"] == "nicht gefunden"
    unreadable = httpx.post(
        site.url + "/api/groups",
        content=b"\xe8\xff",
        headers={**site.bearer(), **german, "Content-Type": "application/json"},
    )
    assert unreadable.status_code == 400 and problem(unreadable)["code"] == "bad_request"
    # A rule refused: its id apart from its words, and the field it came from.
    fido_for_two = {"game": "fido", "options": {"players": 2}, "seats": [{"kind": "me"}] * 2}
    broken = httpx.post(
        site.url + "/api/tables", json=fido_for_two, headers={**site.bearer(), **german}
    )
    assert broken.status_code == 422
    said = problem(broken)
    assert (
        said["code"] == "rule_broken" and said["rule"] == "F-02" and said["field"] == "body.options"
    )
    assert "F-02" not in said["message"] and "Spieler" in said["message"], said
    # The guard's 413, before any route.
    huge = httpx.post(site.url + "/api/groups", content=b"x" * 2_000_000, headers=site.bearer())
    assert huge.status_code == 413 and problem(huge)["code"] == "too_large"


@pytest.mark.process
def test_a_limit_answers_429_with_retry_after_in_the_model(site: Site) -> None:
    address = an_address()
    batch: dict[str, list[object]] = {"results": []}
    answers = [
        httpx.post(
            site.url + "/api/results/check", json=batch, headers={"X-Forwarded-For": address}
        )
        for _ in range(40)
    ]
    limited = [a for a in answers if a.status_code == 429]
    assert limited, [a.status_code for a in answers]
    assert problem(limited[0])["code"] == "too_many_requests"
    assert int(limited[0].headers["Retry-After"]) >= 1


@pytest.mark.process
def test_the_events_list_answers(site: Site) -> None:
    """It was a server error (the service's listing was called as the service)."""
    listed = httpx.get(site.url + "/api/events")
    assert listed.status_code == 200 and isinstance(listed.json(), list)


@pytest.mark.process
def test_numbers_too_large_for_the_database_are_422_not_500(site: Site) -> None:
    """schemathesis found it: a player's number of 27 digits in a merge reached SQLite."""
    huge = 109041264165405775496216576
    merge = httpx.post(
        site.url + "/api/players/merge", json={"player": huge, "into": huge}, headers=site.bearer()
    )
    assert merge.status_code == 422 and problem(merge)["field"] == "body.player", merge.text
    known = {"results": [], "known_players": {"Anna": huge}}
    check = httpx.post(site.url + "/api/results/check", json=known, headers=site.bearer())
    assert check.status_code == 422 and problem(check)["field"] == "body.known_players.Anna"


@pytest.mark.process
def test_a_nul_character_is_refused_before_any_route(site: Site) -> None:
    """PostgreSQL stores no NUL in text: a NUL anywhere in a request is a 422 in the
    model, never a database error; a file saved as UTF-16 is told how to save it."""
    for answer, field in (
        (httpx.get(site.url + "/api/players", params={"name": "An\x00na"}), "query"),
        (httpx.get(site.url + "/api/tables?x=%00"), "query"),
        (httpx.get(site.url + "/api/groups/kiel%00"), "path"),
        (
            httpx.post(
                site.url + "/api/groups",
                content=b'{"name": "Kiel\\u0000"}',
                headers={**site.bearer(), "Content-Type": "application/json"},
            ),
            "body",
        ),
    ):
        assert answer.status_code == 422, answer.text
        assert problem(answer) == {
            "code": "invalid",
            "message": "no text of pips holds the character NUL (0x00)",
            "rule": None,
            "field": field,
        }
    utf16 = "Spiel;Datum;Ort\r\n1;03.10.2026;Kiel\r\n".encode("utf-16")
    upload = httpx.post(
        site.url + "/api/results/csv",
        content=utf16,
        headers={**site.bearer(), "Content-Type": "text/csv", "Accept-Language": "de"},
    )
    assert upload.status_code == 422 and "UTF-16" in problem(upload)["message"]


@pytest.mark.process
def test_a_chat_line_with_a_control_character_is_refused(site: Site) -> None:
    table = site.open_table()
    with connect(f"{site.server.ws_url}/ws/{table}", additional_headers=site.bearer()) as ws:
        while json.loads(ws.recv(timeout=10))["type"] != "state":
            pass
        ws.send(json.dumps({"v": 1, "type": "chat", "text": "gut\u0000 gespielt"}))
        said = json.loads(ws.recv(timeout=10))
        check_server_message(said)
        assert said["type"] == "error" and said["code"] == "invalid" and said["field"] == "text"


@pytest.mark.process
def test_an_unknown_claim_decision_is_a_422_not_a_500(site: Site) -> None:
    answer = httpx.post(site.url + "/api/players/1/claim/maybe", headers=site.bearer())
    assert answer.status_code == 422 and problem(answer)["field"] == "path.decision"


# -- tokens ------------------------------------------------------------------------------


@pytest.mark.process
def test_a_token_is_its_account_without_cookie_or_csrf(site: Site) -> None:
    me = httpx.get(site.url + "/api/session", headers=site.bearer()).json()
    assert me["name"] == "Jürgen" and me["account"] is True
    made = httpx.post(
        site.url + "/api/groups", json={"name": "Domino-Club Kiel"}, headers=site.bearer()
    )
    assert made.status_code == 201, made.text
    # The same request with a session cookie but no CSRF token is refused.
    browser = Browser(site.server)
    assert register(browser, "Ottilie").status_code in (200, 303)
    browser.http.headers.pop("x-csrf-token", None)
    cookie_only = browser.http.post("/api/groups", json={"name": "Ohne Token"})
    assert cookie_only.status_code == 403 and cookie_only.json()["code"] == "csrf_failed"


@pytest.mark.process
def test_scopes_narrow_a_token_and_the_account_still_decides(site: Site) -> None:
    reader = site.make_token("Jürgen", "read")
    assert (
        httpx.get(site.url + "/api/results/waiting", headers=site.bearer(reader)).status_code == 200
    )
    refused = httpx.post(
        site.url + "/api/groups", json={"name": "Lesend"}, headers=site.bearer(reader)
    )
    assert refused.status_code == 403 and refused.json()["code"] == "scope_missing"
    assert "results" in refused.json()["message"]
    # A person who is no administrator: a token of every scope is not one either.
    browser = Browser(site.server)
    assert register(browser, "Zoë Öztürk").status_code in (200, 303)
    plain = site.make_token("Zoë Öztürk", "read", "results", "play")
    admin_only = httpx.get(site.url + "/api/admin/waiting", headers=site.bearer(plain))
    assert admin_only.status_code == 403 and admin_only.json()["code"] == "forbidden"
    assert httpx.get(site.url + "/api/admin/waiting", headers=site.bearer()).status_code == 200
    # Tokens are for the API: a page's form refuses one.
    form = httpx.post(site.url + "/groups", data={"name": "x"}, headers=site.bearer(plain))
    assert form.status_code == 403


@pytest.mark.process
def test_a_revoked_or_unknown_token_is_refused_at_once(site: Site) -> None:
    token = site.make_token("Jürgen", "read")
    assert httpx.get(site.url + "/api/session", headers=site.bearer(token)).status_code == 200
    listed = site.server.run_pips("admin", "tokens", "list", "jürgen")
    number = next(line.split()[0] for line in listed.splitlines() if token[:9] in line)
    site.server.run_pips("admin", "tokens", "revoke", number)
    gone = httpx.get(site.url + "/api/session", headers=site.bearer(token))
    assert gone.status_code == 401 and gone.json()["code"] == "token_invalid"
    assert gone.headers["WWW-Authenticate"] == "Bearer"
    for wrong in ("Bearer pips_" + "A" * 43, "Bearer Bearer", "Bearer"):
        header = {"Authorization": wrong}
        answer = httpx.get(site.url + "/api/tables", headers=header)
        assert answer.status_code == 401 and answer.json()["code"] == "token_invalid", wrong
    # Another scheme is not a token (a staging site's basic authentication): the
    # request is anonymous (issue 48).
    basic = httpx.get(site.url + "/api/tables", headers={"Authorization": "Basic abc"})
    assert basic.status_code == 200


@pytest.mark.process
def test_tokens_are_kept_only_as_digests(site: Site) -> None:
    database = site.server.home / "pips.db"
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT token_hash, shown, scopes FROM api_tokens").fetchall()
    assert rows and all(len(digest) == 64 and "…" not in shown for digest, shown, _ in rows)
    assert hashlib.sha256(site.token.encode()).hexdigest() in {r[0] for r in rows}
    assert site.token.encode() not in database.read_bytes()


@pytest.mark.process
def test_the_account_page_makes_a_token_shows_it_once_and_revokes_it(site: Site) -> None:
    browser = Browser(site.server)
    assert register(browser, "Jörg Müller").status_code in (200, 303)
    page = browser.http.get("/account")
    assert page.status_code == 200 and "API" in page.text
    csrf = browser.http.get("/api/session").json()["csrf"]
    made = browser.http.post(
        "/account/tokens",
        data={"label": "Vereins-Skript", "scope": ["read", "results"], "csrf": csrf},
    )
    assert made.status_code == 200 and made.headers["Cache-Control"] == "no-store"
    token = re.search(r'<code id="new-token">(pips_[\w-]+)</code>', made.text)
    assert token is not None, made.text
    entered = httpx.get(site.url + "/api/session", headers=site.bearer(token.group(1))).json()
    assert entered["name"] == "Jörg Müller"
    again = browser.http.get("/account").text
    assert token.group(1) not in again and token.group(1)[:9] + "…" in again
    assert "Vereins-Skript" in again
    number = re.search(r'action="/account/tokens/(\d+)/revoke"', again)
    assert number is not None
    # Another account cannot revoke it.
    other = Browser(site.server)
    assert register(other, "Greta").status_code in (200, 303)
    other_csrf = other.http.get("/api/session").json()["csrf"]
    foreign = other.http.post(
        f"/account/tokens/{number.group(1)}/revoke", data={"csrf": other_csrf}
    )
    assert foreign.status_code == 404
    bad = browser.http.post(
        "/account/tokens", data={"label": "x", "scope": ["admin"], "csrf": csrf}
    )
    assert bad.status_code == 422 and "unknown scope" in bad.text
    browser.http.post(f"/account/tokens/{number.group(1)}/revoke", data={"csrf": csrf})
    refused = httpx.get(site.url + "/api/session", headers=site.bearer(token.group(1)))
    assert refused.status_code == 401
    assert "revoked" in browser.http.get("/account").text
    assert Browser(site.server).http.get("/account").status_code == 401


@pytest.mark.process
def test_pips_admin_tokens_refuses_bad_input_with_a_line(site: Site) -> None:
    for arguments in (
        ("create", "Niemand", "--label", "x", "--scope", "read"),
        ("create", "Jürgen", "--label", "x", "--scope", "admin"),
        ("create", "Jürgen", "--label", "", "--scope", "read"),
        ("revoke", "999999"),
    ):
        with pytest.raises(RuntimeError) as refused:
            site.server.run_pips("admin", "tokens", *arguments)
        assert "Traceback" not in str(refused.value) and "error:" in str(refused.value)


@pytest.mark.process
def test_a_websocket_with_a_token_plays_and_a_bad_one_is_told_why(site: Site) -> None:
    reader = site.make_token("Jürgen", "read")
    table = site.open_table()
    for token, code, closed in (
        (reader, "scope_missing", 4403),
        ("pips_nope", "token_invalid", 4401),
    ):
        with connect(
            f"{site.server.ws_url}/ws/{table}", additional_headers=site.bearer(token)
        ) as ws:
            said = json.loads(ws.recv(timeout=10))
            check_server_message(said)
            assert said["type"] == "error" and said["code"] == code, said
            with pytest.raises(Exception):  # noqa: B017 - closed by the server
                ws.recv(timeout=10)
            assert ws.close_code == closed


# -- the worked examples of docs/api.md --------------------------------------------------


def run_example(
    site: Site, script: str, token: str, *arguments: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / script), *arguments],
        env={**os.environ, "PIPS_URL": site.url, "PIPS_TOKEN": token},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.process
def test_the_club_script_posts_a_german_spreadsheet(site: Site, tmp_path: Path) -> None:
    token = site.make_token("Jürgen", "results")
    rows = [
        "Spiel;Datum;Ort;Spielart;Satz;Teiler;Sitz;Spieler;Punkte;Augen;Raus;Endstand;Platz",
        "7;03.10.2026;Gaststätte Linde;FIDO;6;3;1;Jürgen;14;0;;;",
        "7;03.10.2026;Gaststätte Linde;FIDO;6;3;2;Zoë Öztürk;9;13;;;",
        "7;03.10.2026;Gaststätte Linde;FIDO;6;3;3;Bärbel;5;1;;;",
    ]
    sheet = tmp_path / "abend.csv"
    sheet.write_bytes(("\r\n".join(rows) + "\r\n").encode("cp1252"))
    done = run_example(site, "club_results.py", token, str(sheet), "--new-players", "Bärbel")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 results entered" in done.stdout
    again = run_example(site, "club_results.py", token, str(sheet), "--new-players", "Bärbel")
    assert again.returncode == 1 and "refused (409 conflict)" in again.stderr, again.stderr
    reader = site.make_token("Jürgen", "read")
    refused = run_example(site, "club_results.py", reader, str(sheet))
    assert refused.returncode == 1 and "scope_missing" in refused.stderr


@pytest.mark.process
def test_the_token_bot_plays_a_whole_match(site: Site) -> None:
    token = site.make_token("Jürgen", "play")
    done = run_example(site, "token_bot.py", token)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "final scores:" in done.stdout
    history = httpx.get(site.url + "/api/players/Jürgen/history", headers=site.bearer()).json()
    assert history and history[0]["game"] == "draw"
