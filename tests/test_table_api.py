"""The table's helpers over HTTP and the websocket, against a real server: the lobby's
check of options (errors next to their field, with the rule), the rules help, hints at
a table of one person and bots, the turn timer's seconds in the state, and the chat kept
for a player who reloads."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.server_helpers import Browser, Server, first_state

pytestmark = pytest.mark.process


def check(web: Browser, game: str, options: dict[str, Any], status: int = 200) -> dict[str, Any]:
    response = web.http.post(f"/api/games/{game}/check", json={"options": options})
    assert response.status_code == status, response.text
    return dict(response.json())


def test_options_are_checked_with_the_field_and_rule_to_fix(shared_server: Server) -> None:
    web = Browser(shared_server)
    good = check(web, "fido", {"players": 5, "set": 15})
    assert good["players"] == 5 and "multiple of 9" in good["brief"]
    # Refused as creating the table would be: the error model, the option at fault.
    bad_set = check(web, "fido", {"players": 4, "set": 7}, 422)
    assert bad_set["field"] == "body.options.set" and bad_set["rule"] == "F-01"
    assert not bad_set["message"].startswith("F-01")  # plain words; the rule apart
    hand = check(web, "doubles", {"players": 4, "hand_size": 9}, 422)
    assert hand["field"] == "body.options.hand_size" and hand["rule"] == "DB-02"
    manual = check(web, "fido", {"players": 4, "deal_mode": "manual"}, 422)
    assert manual["field"] == "body.options.deal_mode" and manual["rule"] == "F-24"
    unknown = check(web, "chess", {}, 404)
    assert unknown["field"] == "path.game" and unknown["rule"] is None
    assert web.http.post("/api/games/fido/check", json={"options": "x"}).status_code == 422


def test_every_game_has_rules_help_with_its_rule_ids(shared_server: Server) -> None:
    web = Browser(shared_server)
    page = web.http.get("/rules/fido")
    assert page.status_code == 200
    assert 'id="F-22"' in page.text and "mother theresa" in page.text
    assert 'id="PT-11"' in web.http.get("/rules/partnership").text
    assert web.http.get("/rules/nothing").status_code == 404
    assert web.http.get("/favicon.ico", follow_redirects=True).status_code == 200


def test_a_hint_is_the_expert_bots_advice_to_the_asker_alone(shared_server: Server) -> None:
    ann = Browser(shared_server, "Hanna")
    table = ann.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}])
    with ann.socket(table) as connection:
        state = first_state(connection)
        while "legal" not in state:
            state = first_state(connection)
        connection.send(json.dumps({"v": 1, "type": "hint"}))
        while (answer := json.loads(connection.recv(timeout=30)))["type"] == "state":
            state = answer
        assert answer["type"] == "hint", answer
        assert 0 <= answer["move"] < len(state["legal"]) and answer["reasons"]
    # At a table of two people a hint would help one against the other: refused.
    bo = Browser(shared_server, "Boris")
    other = bo.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}])
    Browser(shared_server, "Carla").post(f"/api/tables/{other}/join")
    with bo.socket(other) as connection:
        state = first_state(connection)
        assert state["table"]["hints"] is False
        connection.send(json.dumps({"v": 1, "type": "hint"}))
        while (answer := json.loads(connection.recv(timeout=30)))["type"] == "state":
            pass
        assert answer["type"] == "error" and "practice tables" in answer["message"]


def test_the_turn_timer_is_in_the_state_and_chat_survives_a_reload(shared_server: Server) -> None:
    ann = Browser(shared_server, "Tilda")
    table = ann.create(
        "draw", {"players": 2}, [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}], turn_seconds=60
    )
    with ann.socket(table) as connection:
        state = first_state(connection)
        while state["view"]["turn"] != state["seat"]:
            state = first_state(connection)
        assert state["timer"]["seat"] == state["seat"] and 0 < state["timer"]["left"] <= 60
        connection.send(json.dumps({"v": 1, "type": "chat", "text": "Grüß Gott"}))
        while json.loads(connection.recv(timeout=30))["type"] != "chat":
            pass
    with ann.socket(table) as again:
        first = json.loads(again.recv(timeout=30))
        assert first == {"v": 1, "type": "chat", "from": "Tilda", "text": "Grüß Gott"}
        state = first_state(again)
        assert isinstance(state["log"], list)
