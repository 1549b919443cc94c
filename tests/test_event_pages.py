"""An event's pages over HTTP, on SQLite and PostgreSQL (issue 50): the public pages
per round, player and club, linked to each other and in both languages; "your table"
found by name; the organiser's controls before the standings; forms answered with a
redirect back to where the organiser was (Post/Redirect/Get, issue 51); a player added
by mistake removed before they played."""

from __future__ import annotations

import html
import re
from typing import Any

from fastapi.testclient import TestClient

from tests.test_events import event_of, lines_for, new_event
from tests.test_results_server import Person, Site

NAMES = [
    "Jörg Müller; SC Kiel",
    "Łukasz Dąbrowski; Hafenclub",
    "Jiří Dvořák; Hafenclub",
    "Şükrü Öztürk; SC Kiel",
    "Anna Berg; SC Kiel",
    "Ben Ohm; Hafenclub",
    "Cleo Zabel; SC Kiel",
    "Dörte Voss; Hafenclub",
]


def form(person: Person, path: str, **fields: Any) -> Any:
    """A page's form sent as a browser sends it (not following the redirect)."""
    return person.client.post(path, data={"csrf": person.csrf, **fields}, follow_redirects=False)


def with_players(site: Site, **extra: Any) -> tuple[Person, str]:
    anna, key = new_event(site, **extra)
    added = form(anna, f"/events/{key}/players", names="\n".join(NAMES))
    assert added.status_code == 303, added.text
    return anna, key


def test_a_rounds_page_tells_results_in_and_missing_and_who_sits_where(site: Site) -> None:
    anna, key = with_players(site)
    assert form(anna, f"/events/{key}/draw").status_code == 303
    one = event_of(anna, key)["drawn"][0]
    first = one["tables"][0]
    entered = anna.post(
        f"/api/events/{key}/rounds/1/tables/{first['number']}",
        {"players": lines_for(first["seats"], __import__("random").Random(1))},
    )
    assert entered.status_code == 200, entered.text
    visitor = TestClient(site.app)
    page = visitor.get(f"/events/{key}/rounds/1", headers={"Accept-Language": "en"})
    assert page.status_code == 200, page.text
    text = page.text
    assert "Results in: 1 of 2 tables" in text
    missing = one["tables"][1]["number"]
    assert re.search(rf'id="missing"[^>]*>Missing: table {missing}<', text), text
    # Who sits where: every player once, alphabetically as a German list is read.
    listed = re.findall(
        r'<li><span class="who"><span class="name"><a href="[^"]+">([^<]+)</a>', text
    )
    names = [n.split(";")[0] for n in NAMES]
    assert sorted(listed) == sorted(names) and len(listed) == 8
    assert listed[:3] == ["Anna Berg", "Ben Ohm", "Cleo Zabel"]
    assert "table 1, seat 1" in text
    # Every page links the others: the event, the round, the players.
    assert f'href="/events/{key}"' in text and f'href="/events/{key}/players/' in text
    german = visitor.get(f"/events/{key}/rounds/1", headers={"Accept-Language": "de"}).text
    assert "Durchgang 1" in german and "Wer sitzt wo" in german and "Tisch 1, Sitz 1" in german
    assert "Ergebnisse eingetragen: 1 von 2 Tischen" in german
    assert visitor.get(f"/events/{key}/rounds/2").status_code == 404


def test_player_and_club_pages_link_each_other(site: Site) -> None:
    anna, key = with_players(site)
    assert form(anna, f"/events/{key}/draw").status_code == 303
    shown = event_of(anna, key)
    jorg = next(p for p in shown["players"] if p["name"] == "Jörg Müller")
    visitor = TestClient(site.app)
    page = visitor.get(f"/events/{key}/players/{jorg['id']}", headers={"Accept-Language": "de"})
    assert page.status_code == 200, page.text
    assert "Jörg Müller" in page.text and f'href="/events/{key}/clubs/sc-kiel"' in page.text
    table = next(t for t in shown["drawn"][0]["tables"] if "Jörg Müller" in t["seats"])
    assert f'href="/events/{key}/rounds/1#t{table["number"]}"' in page.text
    for other in table["seats"]:
        assert other in page.text
    club = visitor.get(f"/events/{key}/clubs/sc-kiel", headers={"Accept-Language": "de"})
    assert club.status_code == 200, club.text
    assert f'href="/events/{key}/players/{jorg["id"]}"' in club.text
    assert "Dörte Voss" not in club.text and "Cleo Zabel" in club.text
    # The event page links both.
    event = visitor.get(f"/events/{key}").text
    assert f'href="/events/{key}/players/{jorg["id"]}"' in event
    assert f'href="/events/{key}/clubs/hafenclub"' in event
    for wrong in ("/players/999999", "/clubs/nobody", "/clubs/NOT%20A%20SLUG", "/players/x"):
        answer = visitor.get(f"/events/{key}{wrong}")
        assert answer.status_code in (404, 422), (wrong, answer.status_code)


def test_your_table_is_found_by_name_without_an_account(site: Site) -> None:
    anna, key = with_players(site)
    visitor = TestClient(site.app)
    before = visitor.get(f"/events/{key}/find", params={"name": "jorg"})
    assert "Jörg Müller" in before.text and "no round drawn yet" in before.text
    assert form(anna, f"/events/{key}/draw").status_code == 303
    table = next(
        t for t in event_of(anna, key)["drawn"][0]["tables"] if "Jörg Müller" in t["seats"]
    )
    seat = table["seats"].index("Jörg Müller") + 1
    # Without umlauts, in any case, or part of the name: as people type it at a venue.
    for typed in ("jorg", "JÖRG", "muller", "Mueller", "jörg müller"):
        found = visitor.get(f"/events/{key}/find", params={"name": typed})
        assert f"table {table['number']}, seat {seat}" in found.text, typed
    nobody = visitor.get(f"/events/{key}/find", params={"name": "Zacharias"}).text
    assert "Nobody of that name plays in this event." in nobody
    assert visitor.get(f"/events/{key}/find", params={"name": "x" * 101}).status_code == 422


def test_controls_come_before_the_standings_and_an_empty_event_reads_well(site: Site) -> None:
    anna, key = new_event(site)
    page = anna.client.get(f"/events/{key}", headers={"Accept-Language": "en"}).text
    assert "round 0 of" not in page and "under way" not in page
    assert "3 rounds planned" in page and "not started yet" in page
    # Nobody to draw: no button to draw with.
    assert 'id="draw-round"' not in page
    assert page.index('id="organiser"') < page.index('id="standings"')
    assert (
        form(anna, f"/events/{key}/players", names="Anna Berg\nBen Ohm\nCleo\nDora").status_code
        == 303
    )
    page = anna.client.get(f"/events/{key}").text
    assert 'id="draw-round"' in page and 'id="search"' in page


def test_a_check_in_tick_comes_back_to_the_same_player(site: Site) -> None:
    anna, key = with_players(site, check_in=True)
    player = event_of(anna, key)["players"][5]["id"]
    ticked = form(anna, f"/events/{key}/check-in", player=player, present="on")
    # Post/Redirect/Get: a reload shows the page, it does not send the tick again;
    # and the organiser is back at the player they ticked.
    assert ticked.status_code == 303
    assert ticked.headers["location"] == f"/events/{key}#player-{player}"
    assert next(p for p in event_of(anna, key)["players"] if p["id"] == player)["checked_in"]
    page = anna.client.get(ticked.headers["location"]).text
    assert f'id="player-{player}"' in page


def test_a_player_added_by_mistake_is_removed_before_they_play(site: Site) -> None:
    anna, key = with_players(site)
    players = event_of(anna, key)["players"]
    wrong = next(p for p in players if p["name"] == "Cleo Zabel")
    removed = form(anna, f"/events/{key}/remove", player=wrong["id"])
    assert removed.status_code == 303, removed.text
    left = [p["name"] for p in event_of(anna, key)["players"]]
    assert "Cleo Zabel" not in left and len(left) == 7
    # Somebody else cannot.
    ben = site.person("Ben")
    other = next(p for p in players if p["name"] == "Ben Ohm")
    assert form(ben, f"/events/{key}/remove", player=other["id"]).status_code == 403
    assert form(anna, f"/events/{key}/players", names="Emil Ernst\nFrida Fuchs").status_code == 303
    assert form(anna, f"/events/{key}/draw").status_code == 303
    # Once drawn, a player withdraws instead: their games stay.
    refused = form(anna, f"/events/{key}/remove", player=other["id"])
    assert refused.status_code == 409
    assert "withdraw them instead" in refused.text
    assert len(event_of(anna, key)["players"]) == 9


def test_a_name_typed_twice_in_one_club_is_caught(site: Site) -> None:
    anna, key = with_players(site)
    # "Jorg Muller" of SC Kiel beside "Jörg Müller" of SC Kiel: one person typed twice.
    twice = anna.post(
        f"/api/events/{key}/players",
        {"names": ["Jorg Muller"], "clubs": {"Jorg Muller": "SC Kiel"}},
    )
    assert twice.status_code == 409 and "Jörg Müller" in twice.text, twice.text
    # Within one list as well.
    both = anna.post(
        f"/api/events/{key}/players",
        {
            "names": ["Eva Groß", "Eva Gross"],
            "clubs": {"Eva Groß": "Hafenclub", "Eva Gross": "Hafenclub"},
        },
    )
    assert both.status_code == 409, both.text
    assert len(event_of(anna, key)["players"]) == 8
    # Confirmed as a new player, it is another person.
    confirmed = anna.post(
        f"/api/events/{key}/players",
        {"names": ["Joerg Mueller"], "clubs": {"Joerg Mueller": "SC Kiel"},
         "new_players": ["Joerg Mueller"]},
    )  # fmt: skip
    assert confirmed.status_code == 200, confirmed.text


def test_a_look_alike_name_is_confirmed_as_new_on_the_page_without_script(site: Site) -> None:
    """New-user review: the page said to confirm "Jorg Muller" as a new player and
    offered no way to (the server took a pick the page never showed)."""
    anna, key = with_players(site)
    refused = form(anna, f"/events/{key}/players", names="Jorg Muller; SC Kiel")
    assert refused.status_code == 409
    page = html.unescape(refused.text)
    assert "“Jorg Muller” looks like “Jörg Müller” of the same club" in page
    choice = re.search(r'<input type="radio" name="pick:([^"]+)" value="new">', refused.text)
    assert choice is not None and html.unescape(choice.group(1)) == "Jorg Muller"
    assert "Jorg Muller; SC Kiel" in page  # the names typed are kept
    confirmed = form(
        anna, f"/events/{key}/players", names="Jorg Muller; SC Kiel", **{"pick:Jorg Muller": "new"}
    )
    assert confirmed.status_code == 303, confirmed.text
    assert "Jorg Muller" in [p["name"] for p in event_of(anna, key)["players"]]


def test_a_new_event_preselects_the_organisers_only_club(site: Site) -> None:
    root = site.admin()
    anna = site.person("Anna")
    slug = site.approved_group(anna, "Kiel", root)
    page = anna.client.get("/events").text
    assert re.search(rf'<option value="{slug}" selected>', page), page


def test_a_result_of_an_event_links_its_event_round_and_table(site: Site) -> None:
    anna, key = with_players(site)
    assert form(anna, f"/events/{key}/draw").status_code == 303
    rng = __import__("random").Random(3)
    for table in event_of(anna, key)["drawn"][0]["tables"]:
        entered = anna.post(
            f"/api/events/{key}/rounds/1/tables/{table['number']}",
            {"players": lines_for(table["seats"], rng)},
        )
        assert entered.status_code == 200, entered.text
    closed = anna.post(f"/api/events/{key}/close")
    assert closed.status_code == 200, closed.text
    listed = anna.client.get("/api/results", params={"month": "2026-10"}).json()["results"]
    result = listed[0]
    page = anna.client.get(f"/results/{result['id']}", headers={"Accept-Language": "de"}).text
    shown = event_of(anna, key)["drawn"][0]["tables"]
    names = {p["name"] for p in result["players"]}
    table = next(t for t in shown if set(t["seats"]) == names)
    assert f'href="/events/{key}"' in page
    assert f'href="/events/{key}/rounds/1/tables/{table["number"]}"' in page
    # Nobody disputed it: nothing to withdraw a dispute of.
    assert "/resolve" not in page


def test_the_admin_page_says_the_games_name_and_since_today(site: Site) -> None:
    from tests.test_results_server import fido

    root = site.admin()
    anna = site.person("Anna")
    entered = anna.enter(fido("2026-10-09", ("Anna", 14, 0), ("Ben", 17, 13), ("Cleo", 9, 1)))
    assert entered.status_code in (200, 201), entered.text
    page = root.client.get("/admin", headers={"Accept-Language": "de"}).text
    unconfirmed = page[page.index('id="unconfirmed"') :][:3000]
    assert "wartet seit heute" in unconfirmed and "0 Tagen" not in unconfirmed, unconfirmed
    assert "FIDO-Divisorspiel" in unconfirmed and "(fido," not in unconfirmed


def test_a_representative_asks_for_approval_and_the_administrators_see_it(site: Site) -> None:
    root = site.admin()
    anna = site.person("Anna")
    made = anna.post("/api/groups", {"name": "Neumühle"})
    assert made.status_code == 201, made.text
    slug = made.json()["slug"]
    ben = site.person("Ben")
    # Only the representative asks.
    assert form(ben, f"/groups/{slug}/ask-approval").status_code == 403
    asked = form(anna, f"/groups/{slug}/ask-approval")
    assert asked.status_code == 303 and asked.headers["location"] == f"/groups/{slug}#approval"
    page = anna.client.get(f"/groups/{slug}", headers={"Accept-Language": "de"}).text
    assert 'id="approval-asked"' in page and 'id="ask-approval"' not in page
    admin = root.client.get("/admin", headers={"Accept-Language": "de"}).text
    listed = admin[admin.index('id="groups"') :][:1500]
    assert "Neumühle" in listed and "Genehmigung erbeten am" in listed, listed
    approved = root.post(f"/api/groups/{slug}/approve", {"approve": True})
    assert approved.status_code == 200
    assert form(anna, f"/groups/{slug}/ask-approval").status_code == 409


def test_a_refused_draw_names_its_cause_at_the_organisers_forms(site: Site) -> None:
    """One of eight ticked present: the refusal says so (it said "1 players cannot be
    seated"), in a box inside the organiser's section, not above the title."""
    anna, key = with_players(site, check_in=True)
    player = event_of(anna, key)["players"][0]["id"]
    form(anna, f"/events/{key}/check-in", player=player, present="on")
    refused = anna.client.post(
        f"/events/{key}/draw", data={"csrf": anna.csrf}, headers={"Accept-Language": "en"}
    )
    assert refused.status_code >= 400
    box = re.search(
        r'<section id="organiser".*?<p class="error alert" role="alert"[^>]*>([^<]*)<',
        refused.text,
        re.S,
    )
    assert box is not None, refused.text
    assert "Checked in: 1 of 8; a table needs at least 3." in box.group(1)
    german = anna.client.post(
        f"/events/{key}/draw", data={"csrf": anna.csrf}, headers={"Accept-Language": "de"}
    )
    assert "Als anwesend abgehakt: 1 von 8; ein Tisch braucht mindestens" in german.text


def test_a_reload_of_a_buttons_address_shows_the_event(site: Site) -> None:
    """After a refusal the address is /events/KEY/draw: a reload (a GET) was a bare 405."""
    anna, key = with_players(site)
    for action in ("draw", "close", "check-in", "players"):
        again = anna.client.get(f"/events/{key}/{action}", follow_redirects=False)
        assert again.status_code == 303, action
        assert again.headers["location"] == f"/events/{key}"
    # The pages of the same shape still are what they were.
    assert anna.client.get(f"/events/{key}/standings").status_code == 200
    assert anna.client.get(f"/events/{key}/find").status_code == 200


def test_check_in_is_offered_for_any_event_and_called_anwesenheit(site: Site) -> None:
    """The check-in box sat only inside "A championship: …" and was called
    "Anmeldung" (which reads as registering in advance)."""
    anna, _key = new_event(site)
    page = anna.client.get("/events", headers={"Accept-Language": "de"}).text
    championship = re.search(r'<details id="championship".*?</details>', page, re.S)
    assert championship is not None
    assert 'name="check_in"' in page and 'name="check_in"' not in championship.group(0)
    assert "Anwesenheit: ausgelost wird nur, wer als anwesend abgehakt ist" in page
    assert "Anmeldung" not in page


def test_the_pairings_pdf_is_linked_and_named_in_german(site: Site) -> None:
    """The pairings PDF had no link on any page and was saved as "…-pairings-1.pdf"."""
    anna, key = with_players(site)
    assert form(anna, f"/events/{key}/draw").status_code == 303
    link = f"/events/{key}/rounds/1/pairings.pdf"
    assert link in anna.client.get(f"/events/{key}").text
    assert link in anna.client.get(f"/events/{key}/rounds/1").text
    pdf = anna.client.get(link, headers={"Accept-Language": "de"})
    assert pdf.status_code == 200
    assert "-paarungen-1.pdf" in pdf.headers["content-disposition"]


def test_the_final_tables_page_is_headed_final_table(site: Site) -> None:
    """It was headed "Round 2 · Table 1" while the event's page says "Final table"."""
    import random

    anna, key = with_players(site)
    assert form(anna, f"/events/{key}/draw").status_code == 303
    for one in event_of(anna, key)["drawn"][0]["tables"]:
        entered = anna.post(
            f"/api/events/{key}/rounds/1/tables/{one['number']}",
            {"players": lines_for(one["seats"], random.Random(one["number"]))},
        )
        assert entered.status_code == 200, entered.text
    drawn = form(anna, f"/events/{key}/final", size="4")
    assert drawn.status_code == 303, drawn.text
    page = anna.client.get(f"/events/{key}/rounds/2/tables/1", headers={"Accept-Language": "de"})
    assert "<h1>Finaltisch</h1>" in page.text
    assert "Durchgang 2 · Tisch 1" not in page.text


def test_a_saved_tables_result_is_said_on_the_page_it_returns_to(site: Site) -> None:
    """After "save" the event page came back with no word that anything was saved."""
    anna, key = with_players(site)
    assert form(anna, f"/events/{key}/draw").status_code == 303
    one = event_of(anna, key)["drawn"][0]["tables"][0]
    path = f"/events/{key}/rounds/1/tables/{one['number']}"
    fields: dict[str, Any] = {"out": "0"}
    for seat in range(len(one["seats"])):
        fields[f"points{seat}"] = str(10 * seat)
        fields[f"pips{seat}"] = "0" if seat == 0 else "3"
    checked = form(anna, path, action="check", **fields)
    fingerprint = re.search(r'name="reviewed" value="([^"]+)"', checked.text)
    assert fingerprint is not None, checked.text
    saved = form(anna, path, action="save", reviewed=fingerprint[1], **fields)
    assert saved.status_code == 303, saved.text
    assert saved.headers["location"] == f"/events/{key}?saved=1-{one['number']}#round-1"
    page = anna.client.get(saved.headers["location"], headers={"Accept-Language": "de"})
    assert f"Ergebnis für Tisch {one['number']} gespeichert." in page.text
    # A made-up flag shows nothing and breaks nothing.
    for junk in ("x", "9999999-1", "1-1-1", "-1-2"):
        other = anna.client.get(f"/events/{key}?saved={junk}")
        assert other.status_code == 200 and 'id="saved"' not in other.text
