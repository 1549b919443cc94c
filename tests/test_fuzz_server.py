"""Hypothesis against a real server process: whatever a client sends to the JSON
endpoints or a table's websocket, the answer is a clear refusal (4xx, or an ``error``
message on the socket that stays open), never a 500, a traceback or a dropped
connection."""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.in_thread import ThreadServer
from tests.protocol_schema import check_server_message
from tests.server_helpers import Browser, database_urls, new_database

pytestmark = pytest.mark.process

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=20,
)

VALID_TABLE = {
    "game": "draw",
    "options": {"players": 2},
    "seats": [{"kind": "me"}, {"kind": "open"}],
}
VALID_RESULT = {
    "game": "draw",
    "date": "2026-11-01",
    "set": 6,
    "players": [{"name": "Ann", "pips": 0, "out": True}, {"name": "Ben", "pips": 7}],
}


def mutated(valid: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A valid body with one field replaced, removed or added: closer to a lie than
    noise is."""
    keys = st.sampled_from(sorted(valid))
    return st.one_of(
        st.tuples(keys, json_values).map(lambda kv: {**valid, kv[0]: kv[1]}),
        keys.map(lambda k: {key: v for key, v in valid.items() if key != k}),
        st.tuples(st.text(max_size=8), json_values).map(lambda kv: {**valid, kv[0]: kv[1]}),
        json_values,
    )


ENDPOINTS: list[tuple[str, dict[str, Any]]] = [
    ("/api/tables", VALID_TABLE),
    ("/api/results/check", {"results": [VALID_RESULT]}),
    ("/api/results", {"results": [VALID_RESULT]}),
    ("/api/groups", {"name": "Club"}),
]


@pytest.mark.parametrize("database", database_urls())
def test_json_endpoints_refuse_anything_clearly(tmp_path: Path, database: str) -> None:
    server = ThreadServer(tmp_path, new_database(database, tmp_path)).start()
    try:
        ann = Browser(server)
        ann.form("/register", name="Ann", password="password-1")

        @settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
        @given(
            st.sampled_from(ENDPOINTS).flatmap(lambda e: st.tuples(st.just(e[0]), mutated(e[1])))
        )
        def post(case: tuple[str, Any]) -> None:
            path, body = case
            # A new address each time: the limits per address are not what is tested.
            headers = {
                "X-CSRF-Token": ann.csrf,
                "X-Forwarded-For": f"10.9.{secrets.randbelow(250)}.{secrets.randbelow(250)}",
            }
            response = ann.http.post(path, json=body, headers=headers)
            assert response.status_code < 500, (path, body, response.text)

        post()

        @settings(max_examples=40, deadline=None)
        @given(
            st.sampled_from(
                ["/api/results", "/api/lists/fido", "/list", "/results", "/api/results/export.csv"]
            ),
            st.dictionaries(
                st.sampled_from(
                    ["month", "offset", "limit", "page_number", "game", "group", "player", "status"]
                ),
                st.one_of(st.text(max_size=12), st.integers(-(2**70), 2**70).map(str)),
                max_size=4,
            ),
        )
        def get(path: str, query: dict[str, str]) -> None:
            response = ann.http.get(path, params=query)
            assert response.status_code < 500, (path, query, response.text)

        get()
    finally:
        server.stop()
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]


frames = st.one_of(
    json_values.map(json.dumps),
    st.text(max_size=200),
    st.binary(max_size=200),
    st.tuples(st.sampled_from(["move", "chat", "ping", "join", ""]), json_values).map(
        lambda tv: json.dumps(
            {"v": 1, "type": tv[0], "move": tv[1], "moves_made": tv[1], "text": tv[1]}
        )
    ),
    st.tuples(json_values, json_values).map(
        lambda mv: json.dumps({"v": 1, "type": "move", "move": mv[0], "moves_made": mv[1]})
    ),
)


def test_a_tables_websocket_answers_any_frame_and_stays_open(tmp_path: Path) -> None:
    """Any frame at a table's socket: an answer of the protocol, the socket open. The
    frames are read before anything is stored, so SQLite alone (the JSON endpoints
    above are fuzzed on PostgreSQL too)."""
    server = ThreadServer(tmp_path, new_database(database_urls()[0], tmp_path)).start()
    try:
        ann = Browser(server, "Ann")
        table = ann.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}])
        with ann.socket(table) as connection:
            assert json.loads(connection.recv(timeout=10))["type"] == "state"

            @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
            @given(frames)
            def send(frame: str | bytes) -> None:
                connection.send(frame)
                answer = json.loads(connection.recv(timeout=10))
                check_server_message(answer)
                assert answer["type"] in ("error", "pong", "chat"), (frame, answer)
                time.sleep(0.06)  # within the rate a client may send at

            send()
            connection.send(json.dumps({"v": 1, "type": "ping"}))
            assert json.loads(connection.recv(timeout=10))["type"] == "pong"
    finally:
        server.stop()
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]
