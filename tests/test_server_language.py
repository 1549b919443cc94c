"""The server answers each person in their language (issue 20): the browser's
Accept-Language, else a choice made in a page, kept in the session and with the account."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.databases import one_database
from tests.server_helpers import (
    Browser,
    Player,
    first_state,
    new_database,
    running,
)

pytestmark = pytest.mark.process


def language(html: str) -> str:
    found = re.search(r'<html lang="(\w+)">', html)
    assert found, html[:200]
    return found[1]


@pytest.mark.parametrize("database", one_database())
def test_the_page_follows_the_browser_then_the_choice_then_the_account(
    tmp_path: Path, database: str
) -> None:
    with running(tmp_path, new_database(database, tmp_path)) as server:
        ann = Browser(server)
        german = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}
        page = ann.http.get("/", headers=german).text
        assert language(page) == "de" and "Weltrangliste" in page and "Anmelden" in page
        page = ann.http.get("/", headers={"Accept-Language": "en-GB"}).text
        assert language(page) == "en" and "World list" in page
        guest = Browser(server, "Bärbel")
        page = guest.http.get("/", headers=german).text
        assert "Neuer Tisch" in page and "Tisch eröffnen" in page and "FIDO-Divisorspiel" in page
        assert "Spielrichtung." in page and "Bot: Meister" in page  # a game option's help
        assert '"Seat {number}": "Sitz {number}"' in page  # the scripts' words
        # A refusal is in the asker's language too (made while serving the request).
        twin = Browser(server)
        refused = twin.http.post(
            "/guest", data={"name": "Bärbel", "csrf": twin.csrf}, headers=german
        ).text
        assert "der Name &#39;Bärbel&#39; ist vergeben: wähle einen anderen" in refused

        # A choice in the page wins over the browser, and survives signing in and out.
        response = ann.form("/language", lang="de")
        assert response.status_code == 303
        page = ann.http.get("/", headers={"Accept-Language": "en"}).text
        assert language(page) == "de" and "Gruppen" in page
        assert ann.form("/register", name="Jürgen", password="geheim123").status_code == 303
        page = ann.http.get("/", headers={"Accept-Language": "en"}).text
        assert language(page) == "de" and "Abmelden" in page

        # The account keeps it: a new browser that signs in reads German at once.
        other = Browser(server)
        assert language(other.http.get("/", headers={"Accept-Language": "en"}).text) == "en"
        assert other.form("/login", name="jürgen", password="geheim123").status_code == 303
        assert language(other.http.get("/", headers={"Accept-Language": "en"}).text) == "de"

        # Choosing again while signed in changes the account's language.
        assert other.form("/language", lang="en").status_code == 303
        third = Browser(server)
        assert third.form("/login", name="Jürgen", password="geheim123").status_code == 303
        assert language(third.http.get("/", headers={"Accept-Language": "de"}).text) == "en"


def test_a_bad_language_choice_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    with running(tmp_path) as server:
        ann = Browser(server)
        assert ann.form("/language", lang="xx").status_code == 400
        assert ann.http.post("/language", data={"lang": "de"}).status_code == 403  # no CSRF
        page = ann.http.get("/", headers={"Accept-Language": "en"}).text
        assert language(page) == "en"


def test_each_client_of_a_table_reads_it_in_their_own_language(tmp_path: Path) -> None:
    """One table, two languages: the moves, the sheet between hands and refusals reach
    each client in theirs (the table speaks in phrases; each socket says them)."""
    with running(tmp_path, bot_delay=0.0) as server:
        anna = Browser(server, "Anna")
        anna.http.headers["Accept-Language"] = "de-DE,de;q=0.9"
        check = anna.post("/api/games/fido/check", {"options": {"players": 2}}).json()
        assert check["message"] == "FIDO wird von 3 bis 9 SpielerInnen gespielt, nicht von 2"
        brief = anna.post("/api/games/fido/check", {"options": {"players": 3, "set": 6}})
        assert brief.json()["brief"].startswith("FIDO-Divisorspiel: 3 SpielerInnen, Doppel-6")
        table = anna.create(
            "fido",
            {"players": 3, "set": 6},
            [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "greedy"}],
            seed=3,
        )
        ben = Browser(server, "Ben")
        ben.http.headers["Accept-Language"] = "en-GB"
        watcher = Player(ben, table, plays=False)
        watcher.start()
        # A refusal first: a move from a stale list, in German.
        socket = anna.socket(table)
        state = first_state(socket)
        socket.send(json.dumps({"v": 1, "type": "move", "move": 0, "moves_made": -5}))
        while (message := json.loads(socket.recv(timeout=30)))["type"] != "error":
            pass
        assert message["message"] == "diese Zugliste ist veraltet", message
        socket.close()
        player = Player(anna, table)
        player.start()
        player.join(120)
        watcher.join(120)
        assert player.error is None and watcher.error is None
        assert state["table"]["title"] == "FIDO-Divisorspiel"
        # A bot is named by the level it was chosen by, in the reader's language
        # (issue 51: "Gelegenheitsspieler" was seated as "greedy-1").
        assert state["names"][1:] == ["Gelegenheitsspieler 1", "Gelegenheitsspieler 2"]
        assert watcher.messages[0]["names"][1:] == ["casual 1", "casual 2"]

        def said(messages: list[dict[str, Any]]) -> list[str]:
            return [m["said"] for m in messages if m.get("said")]

        german, english = said(player.messages), said(watcher.messages)
        assert any(" legt " in s for s in german) and not any(" lays " in s for s in german)
        assert any(" lays " in s for s in english) and not any(" legt " in s for s in english)
        over = [m["hand_over"] for m in player.messages if m.get("hand_over")][-1]
        assert over["sheet"]["title"].startswith("Runde 1: ")
        assert over["sheet"]["columns"][0] == "SpielerIn"
        assert (
            "(F-21)" in over["sheet"]["explanation"] and "abgezogen" in over["sheet"]["explanation"]
        )
        seen = [m["hand_over"] for m in watcher.messages if m.get("hand_over")][-1]
        assert seen["sheet"]["title"].startswith("Hand 1: ")
        assert seen["sheet"]["columns"][0] == "player"
