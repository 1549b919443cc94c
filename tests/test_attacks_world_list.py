"""The world list against its adversaries (issue 32), tried against a real ``pips serve``
on SQLite and PostgreSQL as hostile users with free accounts would: each attack that
once worked is shown answered. What the list then counts is the results service's
``counts`` (docs/results.md, "Which results count"); publishing months from such results
is tested in tests/test_results_trust.py.

The tests share one server per database, each as people of its own (names, addresses),
as the public shares one server."""

from __future__ import annotations

import json
import time
from datetime import date, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from pips.store.db import Database
from pips.store.models import Result
from tests.in_thread import ThreadServer
from tests.server_helpers import Browser, Server, bots, first_state, register, wait_for

pytestmark = pytest.mark.process

DAY = (date.today().replace(day=1) - timedelta(days=1)).replace(day=3)
"""A day of last month: what people enter after an evening (backdated, as attackers do)."""


def person(server: Server, name: str) -> Browser:
    browser = Browser(server)
    made = register(browser, name)
    assert made.status_code == 303, made.text
    return browser


_administrators: dict[str, Browser] = {}


def administrator(server: Server) -> Browser:
    """The server's administrator, made once on the server's machine (``pips admin
    grant``)."""
    if server.url not in _administrators:
        browser = person(server, "Root")
        server.run_pips("admin", "grant", "Root")
        _administrators[server.url] = browser
    return _administrators[server.url]


def fido(day: date, *lines: tuple[str, int, int]) -> dict[str, Any]:
    return {
        "game": "fido",
        "date": day.isoformat(),
        "set": 6,
        "players": [{"name": n, "points": p, "pips": q} for n, p, q in lines],
    }


def enter(browser: Browser, *games: dict[str, Any], group: str | None = None) -> list[int]:
    made = browser.post("/api/results", {"results": list(games), "group": group})
    assert made.status_code == 201, made.text
    return [int(i) for i in made.json()["ids"]]


def result(browser: Browser, result_id: int) -> dict[str, Any]:
    shown = browser.http.get(f"/api/results/{result_id}")
    assert shown.status_code == 200, shown.text
    return dict(shown.json())


def club(
    server: Server, tag: str, members: list[str]
) -> tuple[Browser, Browser, str, dict[str, Browser]]:
    """An approved club: an administrator, its representative (``members[0]``, who
    founds it) and members who accepted its invitation; (admin, representative, slug,
    members by name)."""
    root = administrator(server)
    people = {name: person(server, name) for name in members}
    representative = people[members[0]]
    made = representative.post("/api/groups", {"name": f"Club {tag}"})
    assert made.status_code == 201, made.text
    slug = str(made.json()["slug"])
    assert root.post(f"/api/groups/{slug}/approve", {"approve": True}).status_code == 200
    for name in members[1:]:
        assert representative.post(f"/api/groups/{slug}/members", {"name": name}).status_code == 200
        assert people[name].post(f"/api/groups/{slug}/join", {}).status_code == 200
    return root, representative, slug, people


def test_a_ring_of_free_accounts_that_confirms_itself_counts_for_nothing(
    shared_server: Server,
) -> None:
    """Attack 1: four accounts of one person enter backdated results in which one of
    them always wins, a few a day, and confirm each other's. Before, every one counted
    (``confirmed_by: players``) and the ring topped the published month."""
    server = shared_server
    ring = [person(server, f"Ring {n}") for n in range(4)]
    games = [
        fido(DAY + timedelta(days=n % 5), ("Ring 0", 40 + n, 0), ("Ring 1", 5, 3), ("Ring 2", 4, 4))
        for n in range(15)
    ]
    ids = enter(ring[0], *games)
    for rid in ids:
        for member in ring[1:3]:
            assert member.post(f"/api/results/{rid}/confirm", {}).status_code == 200
    shown = result(ring[3], ids[0])
    assert shown["status"] == "confirmed" and shown["confirmed_by"] == "players"
    assert not shown["counts"] and "players' own accounts" in shown["why_not"]
    # Nothing of theirs counts: the federation's export of the month has none of it.
    month = DAY.strftime("%Y-%m")
    exported = ring[0].http.get("/api/results/export.csv", params={"month": month}).text
    assert "Ring 0" not in exported
    # Their own group, founded and run by them, is worth nothing until an
    # administrator approves it, which they cannot do.
    made = ring[0].post("/api/groups", {"name": "Ring Club"})
    assert made.status_code == 201
    assert ring[0].post("/api/groups/ring-club/approve", {"approve": True}).status_code == 403


def test_a_weaponised_flag_holds_nobody_and_a_withdrawal_lifts_a_hold(
    shared_server: Server,
) -> None:
    """Attack 2: one account entered a few dozen unconfirmed results naming a rival on
    one day and withdrew them: the rival's genuine results of that day stayed held for
    good. Now only confirmed results count towards the bounds, and a withdrawal lifts
    a hold it caused at once."""
    server = shared_server
    root, rep, slug, _ = club(server, "Flag", ["Frieda", "Rivka", "Gero"])
    genuine = enter(
        rep, fido(DAY, ("Rivka", 30, 0), ("Frieda", 10, 2), ("Gero", 5, 4)), group=slug
    )[0]
    assert result(rep, genuine)["counts"]
    attacker = person(server, "Mallory Flag")
    flood = [
        fido(DAY, ("Mallory Flag", 1, 9), ("Rivka", 40 + n, 0), (f"Shade {n}", 0, 9))
        for n in range(45)
    ]
    ids = enter(attacker, *flood)
    shown = result(rep, genuine)
    assert shown["held"] is None and shown["counts"]
    for rid in ids:
        assert attacker.post(f"/api/results/{rid}/withdraw", {}).status_code == 200
    assert result(rep, genuine)["counts"]
    # Genuine and confirmed, 41 games in a day are more than anyone plays: held, with
    # the cause listed for administrators ...
    many = [
        fido(
            DAY + timedelta(days=1),
            ("Gero", 20 + n, 0),
            ("Frieda", 100 if n % 2 else 5, 2),
            ("Rivka", 1, 4),
        )
        for n in range(41)
    ]
    held = enter(rep, *many, group=slug)
    shown = result(rep, held[0])
    assert shown["held"] and "41 games" in shown["held"] and not shown["counts"]
    waiting = root.http.get("/api/admin/waiting").json()
    causes = [c for h in waiting["held"] for c in h["causes"] if c["name"] == "Gero"]
    assert causes and causes[0]["kind"] == "table"
    # ... and once one of them is withdrawn (a mistake), the hold is lifted at once.
    assert rep.post(f"/api/results/{held[-1]}/withdraw", {}).status_code == 200
    shown = result(rep, held[0])
    assert shown["held"] is None and shown["counts"]
    assert "within the bounds again" in shown["holds"][0]["lifted_because"]


def test_server_games_of_accounts_in_probation_are_not_rated(shared_server: Server) -> None:
    """Attack 3: two accounts of one person played dozens of games against each other
    at the server's tables in seconds, all rated. Now a new account's games are not
    rated until its probation is over (and rematches weigh less, see
    tests/test_results_trust.py)."""
    server = shared_server
    farmer, partner = person(server, "Farmer"), person(server, "Farmhand")
    table = farmer.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}])
    assert partner.post(f"/api/tables/{table}/join", {}).status_code == 200
    with farmer.socket(table) as one, partner.socket(table) as two:
        play_to_the_end([one, two])
    listed = wait_for(
        lambda: farmer.http.get("/api/results", params={"player": "Farmer"}).json()["results"]
    )
    shown = listed[0]
    assert shown["source"] == "server" and shown["confirmed_by"] == "server"
    assert not shown["rated"] and not shown["counts"]
    assert "is in probation" in shown["unrated"] and "7 days" in shown["unrated"]


def play_to_the_end(connections: list[Any]) -> None:
    """Every seat answers its turn with its first legal move until the game ends (the
    newest state of each connection decides; a state seen twice is answered once)."""
    latest: list[dict[str, Any] | None] = [None] * len(connections)
    answered: set[tuple[int, int]] = set()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for index, connection in enumerate(connections):
            try:
                message = json.loads(connection.recv(timeout=0.1))
            except TimeoutError:
                message = None
            if message is not None and message["type"] == "state":
                latest[index] = message
            state = latest[index]
            if state is None:
                continue
            if state["match"]["over"]:
                return
            if state.get("legal") and (index, state["moves_made"]) not in answered:
                answered.add((index, state["moves_made"]))
                connection.send(
                    json.dumps(
                        {"v": 1, "type": "move", "move": 0, "moves_made": state["moves_made"]}
                    )
                )
    raise AssertionError("the game did not end")


def test_a_representative_vouches_only_for_the_groups_members(shared_server: Server) -> None:
    """Attack 4: an approved group's representative entered counting losses for any
    account, one that never played in the group included. Now the representative's
    word vouches for the group's members only; anyone else's line waits for their own
    confirmation, and an invitation they did not accept makes nobody a member.

    A mere name is no longer a way to an account either: "Viktor" new on the club's
    result is the club's new player, not Viktor's account's (players rule 3 asks the
    group's word), so the attack now needs Viktor's own player named outright."""
    server = shared_server
    _, rep, slug, _ = club(server, "Vouch", ["Vera", "Willi"])
    victim = person(server, "Viktor")
    # Viktor's own player, from a game he entered himself.
    own = enter(victim, fido(DAY, ("Viktor", 30, 0), ("Vicky", 10, 1), ("Vito", 0, 5)))[0]
    (viktor,) = [p["player"] for p in result(victim, own)["players"] if p["name"] == "Viktor"]
    lines = (("Vera", 50, 0), ("Willi", 20, 2), ("Viktor", 0, 30))
    # Naming Viktor's own player: the line waits for him.
    made = rep.post(
        "/api/results",
        {
            "results": [fido(DAY + timedelta(days=1), *lines)],
            "group": slug,
            "known_players": {"Viktor": viktor},
        },
    )
    assert made.status_code == 201, made.text
    rid = int(made.json()["ids"][0])
    shown = result(rep, rid)
    assert [p["player"] for p in shown["players"] if p["name"] == "Viktor"] == [viktor]
    assert not shown["counts"] and shown["waiting_for"] == ["Viktor"]
    assert "waits for Viktor" in shown["why_not"]
    # The representative confirming again, or inviting Viktor, changes nothing.
    assert rep.post(f"/api/results/{rid}/confirm", {}).status_code == 200
    assert rep.post(f"/api/groups/{slug}/members", {"name": "Viktor"}).status_code == 200
    assert not result(rep, rid)["counts"]
    # Viktor disputes it; had he played, his own confirmation would have completed it.
    disputed = victim.post(f"/api/results/{rid}/dispute", {"comment": "I never played them"})
    assert disputed.json()["status"] == "disputed"
    # By name only, the club's loss is its own new player's, not Viktor's.
    named = enter(rep, fido(DAY + timedelta(days=2), *lines), group=slug)[0]
    seat = [p["player"] for p in result(rep, named)["players"] if p["name"] == "Viktor"]
    assert seat != [viktor]
    his = victim.http.get("/api/results", params={"player": str(viktor)}).json()["results"]
    assert sorted(r["id"] for r in his) == [own, rid]


def test_a_claim_blocks_nobody_and_one_account_cannot_claim_everyone(
    shared_server: Server,
) -> None:
    """Attack 5 (claims): one account could claim every player without an account,
    each claim blocking the real person's. Now claims wait side by side, at most three
    of an account's at once, and the representative chooses."""
    server = shared_server
    _, rep, slug, _ = club(server, "Claim", ["Clara", "Carl"])
    names = ["Cord", "Cosima", "Cyrus", "Celia"]
    ids = enter(
        rep,
        *(
            fido(DAY + timedelta(days=n), ("Clara", 20, 0), ("Carl", 10, 1), (name, 5, 3))
            for n, name in enumerate(names)
        ),
        group=slug,
    )
    players = {p["name"]: p["player"] for rid in ids for p in result(rep, rid)["players"]}
    squatter = person(server, "Mallory Claim")
    for name in names[:3]:
        assert squatter.post(f"/api/players/{players[name]}/claim").status_code == 200
    fourth = squatter.post(f"/api/players/{players['Celia']}/claim")
    assert fourth.status_code == 422 and "3 claims waiting" in fourth.json()["message"]
    cord = person(server, "Cord")
    assert cord.post(f"/api/players/{players['Cord']}/claim").status_code == 200
    claims = rep.http.get(f"/api/players/{players['Cord']}").json()["claims"]
    assert claims == ["Mallory Claim", "Cord"]
    approved = rep.post(f"/api/players/{players['Cord']}/claim/approve?claimant=Cord")
    assert approved.status_code == 200 and approved.json()["account"] == "Cord"
    assert approved.json()["claims"] == []


def test_a_hand_entered_table_game_does_not_block_the_events_close(
    shared_server: Server,
) -> None:
    """Attack 7: a player of one table entered its game by hand before the close, and
    the event could not be closed. Now the event's result takes its place."""
    server = shared_server
    _, rep, slug, people = club(server, "Event", ["Emma", "Egon", "Elke"])
    body = {
        "name": "Abend",
        "game": "fido",
        "date": DAY.isoformat(),
        "rounds": 1,
        "options": {"set": 6},
        "group": slug,
    }
    made = rep.post("/api/events", body)
    assert made.status_code == 201, made.text
    key = made.json()["key"]
    assert (
        rep.post(f"/api/events/{key}/players", {"names": ["Emma", "Egon", "Elke"]}).status_code
        == 200
    )
    drawn = rep.post(f"/api/events/{key}/rounds").json()
    table = drawn["drawn"][0]["tables"][0]
    lines = {"Emma": (30, 0), "Egon": (12, 3), "Elke": (5, 7)}
    entered = rep.post(
        f"/api/events/{key}/rounds/1/tables/{table['number']}",
        {"players": [{"name": n, "points": p, "pips": q} for n, (p, q) in lines.items()]},
    )
    assert entered.status_code == 200, entered.text
    # Egon enters the same game by hand, outside the event, before it closes.
    seats = [(n, *lines[n]) for n in table["seats"]]
    outside = enter(people["Egon"], fido(DAY, *seats))[0]
    closed = rep.post(f"/api/events/{key}/close")
    assert closed.status_code == 200, closed.text
    gone = result(rep, outside)
    assert gone["status"] == "withdrawn"
    assert "takes its place" in gone["reviews"][-1]["comment"]
    month = DAY.strftime("%Y-%m")
    mine = rep.http.get("/api/results", params={"month": month, "player": "Emma"}).json()
    standing = [r for r in mine["results"] if r["status"] != "withdrawn"]
    assert [(r["event"] is not None, r["counts"]) for r in standing] == [(True, True)]


def test_every_option_has_a_bound_shown_in_the_lobby(shared_server: Server) -> None:
    """Attack 6 (targets): a bot table to a target of 10^12 played for ever."""
    server = shared_server
    guest = Browser(server, "Tessa")
    refused = guest.post(
        "/api/tables",
        {
            "game": "family",
            "options": {"players": 2, "target": 10**12},
            "seats": [{"kind": "me"}, *bots(1)],
        },
    )
    assert refused.status_code == 422
    assert "target must be at most 1000" in refused.json()["message"]
    lobby = guest.http.get("/").text
    assert 'name="target"' in lobby and 'max="1000"' in lobby and 'max="300"' in lobby


def test_a_private_table_stays_private_after_it_ends(shared_server: Server) -> None:
    """Attack 6 (privacy): a private table's record, positions and replay were open to
    anyone once it had finished. Now only its people see them, until they all publish
    it."""
    server = shared_server
    paula = person(server, "Paula")
    table = paula.create("draw", {"players": 2}, [{"kind": "me"}, *bots(1)], private=True)
    with paula.socket(table) as connection:
        state = first_state(connection)
        while not state["match"]["over"]:
            if state.get("legal"):
                connection.send(
                    json.dumps(
                        {"v": 1, "type": "move", "move": 0, "moves_made": state["moves_made"]}
                    )
                )
            state = first_state(connection)
    own = wait_for(lambda: (r := paula.http.get(f"/api/records/{table}")).status_code == 200 and r)
    assert own.json()["seats"][0] == "Paula"
    stranger = Browser(server)
    for path in (
        f"/api/records/{table}",
        f"/api/records/{table}/positions",
        f"/api/records/{table}/analysis",
    ):
        assert stranger.http.get(path).status_code == 404, path
    assert stranger.http.get("/api/players/Paula/history").json() == []
    assert paula.http.get("/api/players/Paula/history").json()[0]["id"] == table
    listed = stranger.http.get("/api/results", params={"player": "Paula"}).json()
    assert listed["total"] == 0
    mine = paula.http.get("/api/results", params={"player": "Paula"}).json()
    assert mine["total"] == 1 and "private table" in mine["results"][0]["unrated"]
    # Every person who played (here Paula alone) publishes it: public from then on.
    assert stranger.post(f"/api/records/{table}/publish").status_code in (401, 404)
    assert paula.post(f"/api/records/{table}/publish").json() == {"id": table, "public": True}
    assert stranger.http.get(f"/api/records/{table}").status_code == 200


def test_a_table_nobody_attends_is_abandoned_and_not_replayed(tmp_path: Any) -> None:
    """Attack 6 (unattended): a bot table nobody watched played for ever, a stored move
    a second, replayed at every restart. Now a table with nobody connected is abandoned
    after ``--unattended`` seconds (900 by default)."""
    server = ThreadServer(tmp_path, bot_delay=0.05, unattended=2).start()
    try:
        ghost = Browser(server, "Ghosthost")
        table = ghost.create("family", {"players": 4, "target": 1000}, [*bots(4)])
        assert httpx.get(server.url + f"/api/tables/{table}").status_code == 200
        wait_for(lambda: httpx.get(server.url + f"/api/tables/{table}").status_code == 404, 30)
    finally:
        server.stop()
    db = Database(server.database)
    with db.session() as session:
        from pips.store.models import GameTable, MoveRow

        row = session.get(GameTable, table)
        assert row is not None and row.status == "abandoned"
        moves = len(session.scalars(select(MoveRow.id).where(MoveRow.table_id == table)).all())
    db.dispose()
    again = ThreadServer(tmp_path, bot_delay=0.05).start()
    try:
        assert httpx.get(again.url + f"/api/tables/{table}").status_code == 404
    finally:
        again.stop()
    db = Database(server.database)
    with db.session() as session:
        after = len(session.scalars(select(MoveRow.id).where(MoveRow.table_id == table)).all())
        assert after == moves
        assert session.scalars(select(Result).where(Result.table_id == table)).first() is None
    db.dispose()
