"""Standing up from a table (issue 51): abort before the first move, resign, leave with a
bot taking the seat, each refused where it does not apply; the tables limit counts a
table left no more, and the lobby lists your own tables with the way back to them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.server_helpers import Browser, Server, bots, first_state

pytestmark = pytest.mark.process


def status_of(web: Browser, table: str) -> str:
    return str(web.http.get(f"/api/tables/{table}").json()["table"]["status"])


def a_move_is_made(web: Browser, table: str) -> dict[str, Any]:
    """Play (as the page would) until a move has been made: the state after it."""
    with web.socket(table) as connection:
        state = first_state(connection)
        while state["moves_made"] == 0:
            if "legal" in state:
                connection.send(json.dumps({"v": 1, "type": "move", "move": 0, "moves_made": 0}))
            state = first_state(connection)
        return state


def test_a_game_is_aborted_before_its_first_move_only(shared_server: Server) -> None:
    ann = Browser(shared_server, "Abbruch")
    waiting = ann.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}])
    # Only someone seated may abort; nothing changes for anyone else's asking.
    stranger = Browser(shared_server, "Fremder")
    assert stranger.post(f"/api/tables/{waiting}/abort").status_code == 404
    assert status_of(ann, waiting) == "waiting"
    answer = ann.post(f"/api/tables/{waiting}/abort")
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "abandoned"
    assert status_of(ann, waiting) == "abandoned"
    # The closed table is no longer among the lobby's tables.
    assert waiting not in ann.http.get("/").text
    # Once a move is made the game is resigned or left, not aborted.
    played = ann.create("draw", {"players": 2}, [{"kind": "me"}, *bots(1)], seed=3)
    a_move_is_made(ann, played)
    refused = ann.post(f"/api/tables/{played}/abort")
    assert refused.status_code == 409 and "no longer aborted" in refused.json()["message"]
    assert status_of(ann, played) == "playing"


def test_resigning_alone_with_bots_closes_the_table_and_frees_its_place(
    shared_server: Server,
) -> None:
    """A newcomer trying games (three tables at once at most) is not stuck: a table
    given up no longer counts, and the lobby lists the tables that do, with links."""
    guest = Browser(shared_server, "Probiererin")
    tables = [guest.create("family", {"players": 2}, [{"kind": "me"}, *bots(1)]) for _ in range(3)]
    lobby = guest.http.get("/").text
    assert 'id="your-tables"' in lobby and all(f"/t/{t}" in lobby for t in tables)
    refused = guest.form("/play", game="family", level="greedy", where="bots")
    assert refused.status_code == 429
    assert "leave one of them" in refused.text and f"/t/{tables[0]}" in refused.text
    a_move_is_made(guest, tables[0])
    answer = guest.post(f"/api/tables/{tables[0]}/resign")
    assert answer.status_code == 200, answer.text
    assert status_of(guest, tables[0]) == "abandoned"
    again = guest.form("/play", game="family", level="greedy", where="bots")
    assert again.status_code == 303, again.text
    # Resigned twice, or at a table that is over: refused, nothing changes.
    assert guest.post(f"/api/tables/{tables[0]}/resign").status_code in (404, 409)


def test_a_player_who_leaves_gives_the_seat_to_a_bot_and_the_others_play_on(
    shared_server: Server,
) -> None:
    ann = Browser(shared_server, "Gehende")
    table = ann.create("draw", {"players": 3}, [{"kind": "me"}, {"kind": "open"}, *bots(1)], seed=8)
    bo = Browser(shared_server, "Bleibender")
    assert bo.post(f"/api/tables/{table}/join").status_code == 200
    with bo.socket(table) as connection:
        state = first_state(connection)
        answer = ann.post(f"/api/tables/{table}/leave")
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"seat": -1, "status": "playing"}
        while not any(
            s["kind"] == "bot" and s["name"] == "Gehende" for s in state["table"]["seats"]
        ):
            state = first_state(connection)
        assert state["table"]["status"] == "playing"
    # The seat is no longer hers: coming back she watches, and it is no longer one of
    # her tables.
    with ann.socket(table) as connection:
        assert first_state(connection)["seat"] == -1
    assert f"/t/{table}" not in ann.http.get("/").text.split('id="tables"')[0]
    assert ann.post(f"/api/tables/{table}/leave").status_code == 404
