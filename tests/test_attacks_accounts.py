"""The server under attack, accounts and limits: each attack that once worked against
``pips serve`` (one login stalling every table, no throttle, login time telling who
exists, cookies alive after sign-out, look-alike names, one person filling the server),
tried again against a real server process and shown refused (docs/server.md, "Accounts
and security" and "Limits"). The tests share one server per database, each as people
of its own (names, addresses), as the public shares one server."""

from __future__ import annotations

import json
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from sqlalchemy import select

from pips.store.models import ChatLine
from tests.server_helpers import Browser, Server, bots, first_state, register

# -- 2. accounts -------------------------------------------------------------------


def test_wrong_passwords_lock_the_account_and_the_right_one_waits_too(
    shared_server: Server,
) -> None:
    server = shared_server
    ann = Browser(server)
    assert register(ann, "Lotte").status_code == 303
    statuses = []
    for _ in range(7):
        attacker = Browser(server)  # a new address each time: the account is what counts
        statuses.append(attacker.form("/login", name="Lotte", password="wrong-guess").status_code)
    assert statuses[:5] == [401] * 5 and statuses[5:] == [429, 429]
    right = Browser(server).form("/login", name="Lotte", password="password-1")
    assert right.status_code == 429 and int(right.headers["retry-after"]) >= 1
    assert "try again in" in right.text


def test_one_address_gets_a_burst_of_attempts_then_waits(shared_server: Server) -> None:
    server = shared_server
    attacker = Browser(server)
    codes = [
        attacker.form("/login", name=f"nobody-{i}", password="whatever-1").status_code
        for i in range(16)
    ]
    # Ten at once, then one every six seconds: the rest are refused unhashed.
    assert codes[:10] == [401] * 10 and codes.count(429) >= 4 and set(codes) == {401, 429}


def test_signing_in_to_no_account_takes_as_long_as_to_one(shared_server: Server) -> None:
    """Login time once told whether an account exists (389 ms against 16 ms)."""
    server = shared_server
    assert register(Browser(server), "Real Name").status_code == 303

    def timed(name: str) -> float:
        start = time.perf_counter()
        answer = Browser(server).form("/login", name=name, password="wrong-guess")
        assert answer.status_code == 401
        return time.perf_counter() - start

    # Taken in turns, so that the load of other tests on the machine weighs on both.
    existing, missing = [], []
    for i in range(4):
        existing.append(timed("Real Name"))
        missing.append(timed(f"Ghost {i}"))
    ratio = statistics.median(existing) / statistics.median(missing)
    assert 0.5 < ratio < 2.0, (existing, missing)


def test_hashing_leaves_the_tables_answering(shared_server: Server) -> None:
    """Eight clients signing in as fast as they can: another table's ping is answered in
    a fraction of the time one sign-in takes (hashing runs off the event loop)."""
    server = shared_server
    ann = Browser(server, "Hasso")
    table = ann.create("draw", {"players": 2}, [{"kind": "me"}, *bots(1)])
    register(Browser(server), "Target")
    stop = threading.Event()
    sign_ins: list[float] = []

    def attack() -> None:
        while not stop.is_set():
            start = time.perf_counter()
            Browser(server).form("/login", name="Target", password="wrong-guess-x")
            sign_ins.append(time.perf_counter() - start)

    attackers = [threading.Thread(target=attack, daemon=True) for _ in range(8)]
    for thread in attackers:
        thread.start()
    pings = []
    with ann.socket(table) as connection:
        first_state(connection)
        time.sleep(0.5)
        for _ in range(30):
            start = time.perf_counter()
            connection.send(json.dumps({"v": 1, "type": "ping"}))
            while json.loads(connection.recv(timeout=30))["type"] != "pong":
                pass
            pings.append(time.perf_counter() - start)
            time.sleep(0.05)
    stop.set()
    for thread in attackers:
        thread.join(30)
    assert sign_ins, "no sign-in was attempted"
    assert statistics.median(pings) < statistics.median(sign_ins) / 4, (pings, sign_ins)


def test_a_copied_session_cookie_is_worthless_after_sign_out(shared_server: Server) -> None:
    server = shared_server
    ann = Browser(server)
    before = ann.csrf
    assert register(ann, "Kuki").status_code == 303
    assert ann.csrf != before  # a new CSRF token at sign-in
    stolen = dict(ann.http.cookies.items())
    assert ann.form("/logout").status_code == 303
    thief = httpx.Client(base_url=server.url, cookies=stolen)
    assert thief.get("/api/session").json()["name"] is None


def test_names_are_one_per_folded_key_for_accounts_and_guests(shared_server: Server) -> None:
    server = shared_server
    assert register(Browser(server), "alice").status_code == 303
    shout = register(Browser(server), "ALICE")
    assert shout.status_code == 409 and "taken" in shout.text
    wide = register(Browser(server), "ａｌｉｃｅ")
    assert wide.status_code == 409
    guest = Browser(server).form("/guest", name="Alice")
    assert guest.status_code == 409 and "taken" in guest.text
    assert Browser(server).form("/guest", name="Zoë").status_code == 303
    assert register(Browser(server), "ZOË").status_code == 409  # the guest holds it
    for name in ("Eve\x00", "Eve\u202eevil", "Bell\x07ring"):
        refused = register(Browser(server), name)
        assert refused.status_code == 422 and "control or invisible" in refused.text
    joerg = Browser(server)
    assert register(joerg, "Jörg Müller").status_code == 303
    assert joerg.http.get("/api/session").json()["name"] == "Jörg Müller"
    assert (
        Browser(server).form("/login", name="jörg müller", password="password-1").status_code == 303
    )


# -- 5. limits per person ------------------------------------------------------------


def test_one_person_cannot_fill_the_server_with_tables(shared_server: Server) -> None:
    server = shared_server
    ann = Browser(server, "Filla")
    # Tables that wait for a second player: none can end while the test runs (a table of
    # bots alone may, and a finished table no longer counts).
    waiting = {
        "game": "draw",
        "options": {"players": 2},
        "seats": [{"kind": "me"}, {"kind": "open"}],
    }
    answers = [ann.post("/api/tables", waiting) for _ in range(5)]
    assert [a.status_code for a in answers] == [201, 201, 201, 429, 429]
    assert "3 tables waiting or playing" in answers[3].json()["detail"]
    # A new guest name from the same address does not start again: the address's own
    # budget of new tables (5 at once, LIMITS) runs out, three of it already spent.
    again = Browser(server)
    again.address = ann.address
    again.http.headers["X-Forwarded-For"] = ann.address
    again.form("/guest", name="Filla Two")
    codes = [again.post("/api/tables", waiting).status_code for _ in range(3)]
    assert codes[-1] == 429
    assert codes.count(201) <= 2


def test_chat_is_for_players_at_a_bounded_rate(shared_server: Server) -> None:
    server = shared_server
    ann = Browser(server, "Chayenne")
    table = ann.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}])
    watcher = Browser(server)
    with watcher.socket(table) as anonymous:
        first_state(anonymous)
        anonymous.send(json.dumps({"v": 1, "type": "chat", "text": "spam"}))
        answer = json.loads(anonymous.recv(timeout=10))
        assert answer["type"] == "error" and "signed-in" in answer["message"]
    with ann.socket(table) as player:
        first_state(player)
        for i in range(8):
            player.send(json.dumps({"v": 1, "type": "chat", "text": f"hello {i}"}))
        kinds = [json.loads(player.recv(timeout=10))["type"] for _ in range(8)]
    assert kinds.count("chat") == 5 and kinds.count("error") == 3
    long = json.dumps({"v": 1, "type": "chat", "text": "x" * 301})
    with ann.socket(table) as player:
        first_state(player)
        player.send(long)
        assert "300" in json.loads(player.recv(timeout=10))["message"]


def test_a_tables_chat_keeps_a_bounded_history(tmp_path: Path) -> None:
    import asyncio

    from pips.server.repository import TableRepository
    from pips.server.round import SeatHolder
    from pips.store.db import Database

    db = Database(f"sqlite:///{tmp_path / 'chat.db'}")
    db.upgrade()
    repository = TableRepository(db)

    async def talk() -> None:
        await repository.create(
            "t1",
            "draw",
            {"players": 2},
            None,
            "ab" * 32,
            [SeatHolder("open", "")] * 2,
            private=False,
            invite="x",
            turn_seconds=None,
            created_by=None,
        )
        for i in range(12):
            await repository.add_chat("t1", "Ann", f"line {i}", keep=5)

    asyncio.run(talk())
    with db.session() as session:
        kept = session.scalars(select(ChatLine.text).order_by(ChatLine.id)).all()
    assert kept == [f"line {i}" for i in range(7, 12)]


def test_request_bodies_over_the_limit_are_refused_unread(shared_server: Server) -> None:
    server = shared_server
    ann = Browser(server, "Bodo")
    tables_before = ann.http.get("/api/tables").json()
    huge = b'{"game": "draw", "seats": [' + b'{"kind": "open"},' * 200_000 + b"]}"
    declared = ann.http.post(
        "/api/tables",
        content=huge,
        headers={"X-CSRF-Token": ann.csrf, "Content-Type": "application/json"},
    )
    assert declared.status_code == 413 and "over 65536 bytes" in declared.text

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(huge), 65_536):
            yield huge[start : start + 65_536]

    streamed = ann.http.post(
        "/api/tables",
        content=chunks(),
        headers={"X-CSRF-Token": ann.csrf, "Content-Type": "application/json"},
    )
    assert streamed.status_code == 413
    assert ann.http.get("/api/tables").json() == tables_before


def test_checking_results_without_an_account_is_bounded(shared_server: Server) -> None:
    server = shared_server
    game = {
        "game": "draw",
        "date": "2026-11-01",
        "set": 6,
        "players": [{"name": "A", "pips": 0, "out": True}, {"name": "B", "pips": 9}],
    }
    anonymous = Browser(server)
    too_many = anonymous.post("/api/results/check", {"results": [game] * 501})
    assert too_many.status_code == 422
    codes = [
        anonymous.post("/api/results/check", {"results": [game]}).status_code for _ in range(11)
    ]
    assert 200 in codes and codes[-1] == 429
