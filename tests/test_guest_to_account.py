"""A guest who registers keeps what they played as a guest (issue 51, item 4): the game
finished as a guest is in the new account's history and its result is the account's
player's; the table still being played is the account's seat there, and counts among
its tables; another guest's games stay theirs."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from pips.store.db import Database
from pips.store.models import ResultPlayer, User
from tests.server_helpers import Browser, Server, bots, first_state

pytestmark = pytest.mark.process


def played_to_the_end(web: Browser, table: str) -> None:
    with web.socket(table) as connection:
        state = first_state(connection)
        while state["table"]["status"] != "finished":
            if "legal" in state:
                move = {"v": 1, "type": "move", "move": 0, "moves_made": state["moves_made"]}
                connection.send(json.dumps(move))
            state = first_state(connection)


def test_a_guest_who_registers_keeps_the_games_played_as_a_guest(
    shared_server: Server,
) -> None:
    guest = Browser(shared_server, "Gast-Ines")
    other = Browser(shared_server, "Gast-Olaf")
    done = guest.create("family", {"players": 2, "target": 1}, [{"kind": "me"}, *bots(1)])
    played_to_the_end(guest, done)
    theirs = other.create("family", {"players": 2, "target": 1}, [{"kind": "me"}, *bots(1)])
    played_to_the_end(other, theirs)
    going = guest.create("draw", {"players": 2}, [{"kind": "me"}, *bots(1)])
    registered = guest.form("/register", name="Ines Gastlich", password="ein gutes Passwort")
    assert registered.status_code == 303, registered.text
    history = guest.http.get("/api/players/Ines Gastlich/history").json()
    assert [game["id"] for game in history] == [done]
    # The account's list of games names the seat by the account (the guest's name was
    # its name then), the bot by its level as the table did, and the game by its title,
    # in the reader's language.
    listed = guest.http.get("/accounts/Ines Gastlich/games", headers={"Accept-Language": "de"}).text
    row = listed.split(f'data-table="{done}"')[1].split("</tr>")[0]
    assert "<strong>Ines Gastlich</strong>" in row and "Gelegenheitsspieler 1" in row, row
    assert "Gast-Ines" not in row and "casual" not in row and ">family<" not in row, row
    # The result of the game is linked to the account and its player; Olaf's is not.
    db = Database(shared_server.database)
    try:
        with db.session() as session:
            user = session.scalars(select(User).where(User.name == "Ines Gastlich")).one()
            lines = session.scalars(select(ResultPlayer).where(ResultPlayer.user_id == user.id))
            linked = [(line.name, line.player is not None) for line in lines]
            olaf = session.scalars(
                select(ResultPlayer).where(ResultPlayer.name == "Gast-Olaf")
            ).all()
    finally:
        db.engine.dispose()
    assert linked == [("Gast-Ines", True)]
    assert olaf and all(line.user_id is None for line in olaf)
    # The table being played is the account's seat: it is among its tables, and it may
    # stand up from it.
    assert f"/t/{going}" in guest.http.get("/").text.split('id="tables"')[0]
    with guest.socket(going) as connection:
        assert first_state(connection)["seat"] >= 0
    assert guest.post(f"/api/tables/{going}/abort").status_code in (200, 409)
