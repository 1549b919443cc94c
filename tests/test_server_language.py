"""The server answers each person in their language (issue 20): the browser's
Accept-Language, else a choice made in a page, kept in the session and with the account."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.server_helpers import Browser, database_urls, new_database, running


def language(html: str) -> str:
    found = re.search(r'<html lang="(\w+)">', html)
    assert found, html[:200]
    return found[1]


@pytest.mark.parametrize("database", database_urls())
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
        assert '"Seat {number}": "Platz {number}"' in page  # the scripts' words
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
