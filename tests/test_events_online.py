"""An online event (issue 22): two rounds at the server's own tables, seats filled by
the draw, each round started by the organiser, a bot for a player marked absent, the
people playing over their websockets, the standings from the games' records, and the
games entered as the event's results when it closes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from pips.results.service import Results
from pips.store.db import Database
from tests.databases import one_database
from tests.server_helpers import (
    Browser,
    Player,
    new_database,
    register,
    running,
    wait_for,
)
from tests.test_events import new_event
from tests.test_results_server import Site

PEOPLE = ["Jürgen", "Bärbel", "Anna", "Ben", "Cleo", "Dörte"]


@pytest.mark.process
@pytest.mark.parametrize("kind", one_database())
def test_an_online_event_of_two_rounds_with_a_bot_for_the_absent(tmp_path: Path, kind: str) -> None:
    with running(tmp_path, new_database(kind, tmp_path)) as server:
        root = Browser(server)
        assert register(root, "Root").status_code == 303
        db = Database(server.database)
        Results(db).admin.set_admin("Root")
        db.dispose()
        people = {}
        for name in PEOPLE:
            people[name] = Browser(server)
            assert register(people[name], name).status_code == 303
        today = datetime.now(UTC).date().isoformat()
        made = root.post(
            "/api/events",
            {
                "name": "Online-Pokal",
                "game": "fido",
                "date": today,
                "rounds": 2,
                "options": {"set": 6},
                "online": True,
                "bots": True,
            },
        )
        assert made.status_code == 201, made.text
        key = made.json()["key"]
        # A name without an account cannot sit at a server table.
        refused = root.post(f"/api/events/{key}/players", {"names": ["Niemand"]})
        assert refused.status_code == 422 and "account" in refused.json()["message"]
        assert root.post(f"/api/events/{key}/players", {"names": PEOPLE}).status_code == 200
        # Each account accepts to play (an online event seats no account without).
        ids = {p["name"]: p["id"] for p in root.http.get(f"/api/events/{key}").json()["players"]}
        for name in PEOPLE:
            accepted = people[name].post(f"/api/events/{key}/players/{ids[name]}/accept")
            assert accepted.status_code == 200, accepted.text
        for number, absent in ((1, "Cleo"), (2, "Jürgen")):
            drawn = root.post(f"/api/events/{key}/rounds").json()["drawn"][-1]
            assert drawn["status"] == "drawn"
            assert sorted(len(t["seats"]) for t in drawn["tables"]) == [3, 3]
            # Nobody enters an online table's result by hand, nor before the start.
            path = f"/api/events/{key}/rounds/{number}/tables/1"
            assert root.post(path, {"players": []}).status_code in (409, 422)
            started = root.post(f"/api/events/{key}/rounds/{number}/start", {"absent": [absent]})
            assert started.status_code == 200, started.text
            # A second start is refused: the round's tables exist once.
            again = root.post(f"/api/events/{key}/rounds/{number}/start", {"absent": []})
            assert again.status_code == 409
            tables = started.json()["drawn"][-1]["tables"]
            players = []
            for table in tables:
                assert table["table_id"]
                for name in table["seats"]:
                    if name != absent:
                        players.append(Player(people[name], table["table_id"]))
            for player in players:
                player.start()
            for player in players:
                player.join(120)
                assert player.error is None and not player.is_alive()
            # Each person played at their own seat, and the absent player's seat was a bot's.
            for player in players:
                last = player.messages[-1]
                assert last["type"] == "state" and last["match"]["over"]
            shown = wait_for(
                lambda: (
                    (e := root.http.get(f"/api/events/{key}").json())["drawn"][-1]["status"]
                    == "closed"
                    and e
                ),
                timeout=30,
            )
            results = [t["result"] for t in shown["drawn"][-1]["tables"]]
            assert all(r is not None and r["source"] == "server" for r in results)
        totals: dict[str, int] = {}
        for one in shown["drawn"]:
            for table in one["tables"]:
                for line in table["result"]["players"]:
                    totals[line["name"]] = totals.get(line["name"], 0) + line["final"]
        assert {s["name"]: s["points"] for s in shown["standings"]} == totals
        closed = root.post(f"/api/events/{key}/close")
        assert closed.status_code == 200, closed.text
        listed = root.http.get("/api/results", params={"month": today[:7]}).json()
        assert listed["total"] == 4
        # Not rated: a game with a bot at the table, and games of accounts in their
        # probation (all of these: made today, no games before).
        assert not any(r["rated"] for r in listed["results"])
        reasons = {r["unrated"].split(" (")[0] for r in listed["results"]}
        assert "not rated: a bot or a guest played" in reasons
        assert any("is in probation" in reason for reason in reasons)


@pytest.mark.slow
def test_an_online_round_seats_only_accounts_that_accepted_and_no_table_of_bots_alone(
    site: Site,
) -> None:
    """A stranger made an online event with bots, added sixteen accounts he had no
    relation to and started its round with every one of them absent: four tables of
    bots alone from one request, beyond his own tables' limits, and every account had
    a game "played" in its name. Now each account accepts for itself first (nobody
    accepts for another), a table with every seat absent is refused (409), and the
    round's start counts as one new table of the organiser's, a round opening so many
    at most."""
    anna, key = new_event(site, online=True, bots=True)
    names = [f"Konto {n}" for n in range(8)]
    people = {name: site.person(name) for name in names}
    assert anna.post(f"/api/events/{key}/players", {"names": names}).status_code == 200
    assert anna.post(f"/api/events/{key}/rounds").status_code == 201
    start = f"/api/events/{key}/rounds/1/start"
    refused = anna.post(start, {"absent": names})
    assert refused.status_code == 409, refused.text
    assert "accepted" in refused.json()["message"]
    shown = anna.client.get(f"/api/events/{key}").json()
    ids = {p["name"]: p["id"] for p in shown["players"]}
    assert not any(p["accepted"] for p in shown["players"])
    # Nobody accepts for another account: the organiser neither.
    for_another = anna.post(f"/api/events/{key}/players/{ids[names[0]]}/accept")
    assert for_another.status_code == 404
    assert (
        people[names[1]].post(f"/api/events/{key}/players/{ids[names[0]]}/accept").status_code
        == 404
    )
    for name, person in people.items():
        accepted = person.post(f"/api/events/{key}/players/{ids[name]}/accept")
        assert accepted.status_code == 200, accepted.text
        assert next(p for p in accepted.json()["players"] if p["name"] == name)["mine"]
    # Every seat absent: no table of bots alone, in the players' names.
    alone = anna.post(start, {"absent": names})
    assert alone.status_code == 409 and "absent" in alone.json()["message"]
    drawn = anna.client.get(f"/api/events/{key}").json()["drawn"][-1]
    assert drawn["status"] == "drawn" and not any(t["table_id"] for t in drawn["tables"])
    # A round opens so many tables at most.
    site.app.state.limits.online_round_tables = len(drawn["tables"]) - 1
    assert anna.post(start, {"absent": []}).status_code == 409
    site.app.state.limits.online_round_tables = len(drawn["tables"])
    first = drawn["tables"][0]["seats"]
    started = anna.post(start, {"absent": first[:-1]})
    assert started.status_code == 200, started.text
    assert all(t["table_id"] for t in started.json()["drawn"][-1]["tables"])


@pytest.mark.slow
def test_an_online_round_counts_against_its_organisers_tables(site: Site) -> None:
    """The round's start is a new table of the organiser's: with three tables of his
    own waiting, he starts no round (429), as he makes no table."""
    anna, key = new_event(site, online=True, bots=True)
    names = [f"Konto {n}" for n in range(4)]
    people = {name: site.person(name) for name in names}
    assert anna.post(f"/api/events/{key}/players", {"names": names}).status_code == 200
    assert anna.post(f"/api/events/{key}/rounds").status_code == 201
    ids = {p["name"]: p["id"] for p in anna.client.get(f"/api/events/{key}").json()["players"]}
    for name, person in people.items():
        assert person.post(f"/api/events/{key}/players/{ids[name]}/accept").status_code == 200
    seats = [{"kind": "me"}, {"kind": "open"}]
    for _ in range(3):
        made = anna.post("/api/tables", {"game": "draw", "options": {"players": 2}, "seats": seats})
        assert made.status_code == 201, made.text
    refused = anna.post(f"/api/events/{key}/rounds/1/start", {"absent": []})
    assert refused.status_code == 429, refused.text
    assert anna.client.get(f"/api/events/{key}").json()["drawn"][-1]["status"] == "drawn"
