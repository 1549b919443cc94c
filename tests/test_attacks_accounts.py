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
import pytest
from sqlalchemy import select

from pips.store.models import ChatLine
from tests.server_helpers import (
    Browser,
    Server,
    bots,
    first_state,
    register,
    running,
    wait_for,
)

# -- 2. accounts -------------------------------------------------------------------


def test_a_lockout_attempt_never_locks_the_owner_out(shared_server: Server) -> None:
    """Issue 32: a few wrong passwords an hour from one address once kept a victim
    locked out for good. Now the guesser's address waits, the owner at another address
    signs in at once; a guesser at many addresses makes new addresses wait, but never
    the owner's browser (its device cookie), and an administrator unlocks the name."""
    server = shared_server
    owner = Browser(server)
    assert register(owner, "Lotte").status_code == 303
    assert owner.form("/logout").status_code == 303
    guesser = Browser(server)
    statuses = [
        guesser.form("/login", name="Lotte", password="wrong-guess").status_code for _ in range(7)
    ]
    assert statuses[:5] == [401] * 5 and statuses[5:] == [429, 429]
    right = guesser.form("/login", name="Lotte", password="password-1")
    assert right.status_code == 429 and int(right.headers["retry-after"]) >= 1
    assert "try again in" in right.text
    # The owner, elsewhere, is not held back.
    assert owner.form("/login", name="Lotte", password="password-1").status_code == 303
    assert owner.form("/logout").status_code == 303
    # A guesser at thirty more addresses (written as the database keeps them: thirty
    # argon2 hashes more would only slow the test): every new address now waits ...
    everywhere(server, "Lotte", 30)
    stranger = Browser(server).form("/login", name="Lotte", password="password-1")
    assert stranger.status_code == 429
    # ... but the owner's own browser signs in (its device cookie) ...
    assert owner.form("/login", name="Lotte", password="password-1").status_code == 303
    # ... and after an administrator's unlock (pips admin unlock) anyone with the
    # password does.
    everywhere(server, "Lotte", 30)
    server.run_pips("admin", "unlock", "Lotte")
    assert Browser(server).form("/login", name="Lotte", password="password-1").status_code == 303


def everywhere(server: Server, name: str, count: int) -> None:
    """``count`` wrong passwords for ``name`` from every address together, just now."""
    from pips.core.names import name_key
    from pips.server.accounts.throttle import EVERY_ADDRESS
    from pips.store.db import Database
    from pips.store.models import SignInFailure

    db = Database(server.database)
    try:
        with db.session() as session, session.begin():
            session.merge(
                SignInFailure(
                    name_key=name_key(name), address=EVERY_ADDRESS, count=count, at=time.time()
                )
            )
    finally:
        db.dispose()


@pytest.mark.process
def test_one_address_gets_a_burst_of_attempts_then_waits(tmp_path: Path) -> None:
    # Ten at once, then (as set here) one every 100 minutes, so that a slow machine does
    # not earn attempts back during the test: the rest are refused, unhashed.
    with running(tmp_path, limits={"sign-in": (10.0, 0.01)}) as server:
        attacker = Browser(server)
        codes = [
            attacker.form("/login", name=f"nobody-{i}", password="whatever-1").status_code
            for i in range(16)
        ]
        assert codes == [401] * 10 + [429] * 6
        assert Browser(server).form("/login", name="nobody", password="x" * 8).status_code == 401


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


def test_a_lookalike_name_is_refused_beside_the_real_one(shared_server: Server) -> None:
    """Issue 32: "Honеst" with a Cyrillic е registered beside "Honest". Names are
    compared by their UTS #39 confusable skeleton, across accounts and guests."""
    server = shared_server
    assert register(Browser(server), "Honest").status_code == 303
    for fake in ("Hon\u0435st", "H\u043enest", "Ηonest"):  # Cyrillic е, Cyrillic о, Greek Η
        refused = register(Browser(server), fake)
        assert refused.status_code == 409 and "looks like" in refused.text, fake
        guest = Browser(server).form("/guest", name=fake)
        assert guest.status_code == 409 and "looks like" in guest.text, fake
    # A live guest's name is held against lookalike accounts too; umlauts are letters
    # of their own, not lookalikes.
    assert Browser(server).form("/guest", name="Mirko").status_code == 303
    assert register(Browser(server), "Mirk\u043e").status_code == 409
    assert register(Browser(server), "Jörn").status_code == 303
    assert register(Browser(server), "Jorn").status_code == 303


def test_a_guest_name_is_held_only_while_the_guest_is_live(shared_server: Server) -> None:
    """Issue 32: a guest name held a name against registration for 14 days, and every
    name a guest renamed through stayed held. Now a rename gives the old name up at
    once, a guest not seen for an hour holds nothing, and against a registration a
    guest holds a name for a day at most."""
    from datetime import timedelta

    from sqlalchemy import update

    from pips.core.names import name_key
    from pips.store.db import Database
    from pips.store.models import GuestName, SignIn, now

    server = shared_server
    squatter = Browser(server, "Squat One")
    assert register(Browser(server), "Squat One").status_code == 409
    assert squatter.form("/guest", name="Squat Two").status_code == 303
    assert register(Browser(server), "Squat One").status_code == 303  # given up at once
    assert register(Browser(server), "Squat Two").status_code == 409  # held while live
    db = Database(server.database)
    try:
        with db.session() as session, session.begin():
            # Live, but first taken two days ago: held against guests, not against
            # someone registering the name.
            session.execute(
                update(SignIn)
                .where(SignIn.name_key == name_key("Squat Two"))
                .values(created_at=now() - timedelta(days=2))
            )
            session.execute(
                update(GuestName)
                .where(GuestName.name_key == name_key("Squat Two"))
                .values(first_taken=now() - timedelta(days=2))
            )
        assert Browser(server).form("/guest", name="Squat Two").status_code == 409
        assert register(Browser(server), "Squat Two").status_code == 303
        keeper = Browser(server, "Squat Three")
        assert keeper.http.get("/api/session").json()["name"] == "Squat Three"
        with db.session() as session, session.begin():
            session.execute(
                update(SignIn)
                .where(SignIn.name_key == name_key("Squat Three"))
                .values(seen_at=now() - timedelta(hours=2))
            )
        # Not seen for two hours: the name is free for another guest.
        assert Browser(server).form("/guest", name="Squat Three").status_code == 303
    finally:
        db.dispose()


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
    assert "3 tables waiting or playing" in answers[3].json()["message"]
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


def test_one_address_cannot_open_a_flood_of_websockets(shared_server: Server) -> None:
    """Issue 32: 1,500 watchers from one address slowed a player's move 40 times. Now an
    address has at most 50 sockets open, 20 of them without a session; the others are
    refused at once and the socket closed (benchmarks/attack.py measures the ping)."""
    from contextlib import ExitStack

    from websockets.sync.client import connect

    server = shared_server
    host = Browser(server, "Wanda")
    table = host.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}])
    refused = 0
    with ExitStack() as sockets:
        for _ in range(22):
            socket = sockets.enter_context(
                connect(
                    f"{server.ws_url}/ws/{table}",
                    additional_headers={"X-Forwarded-For": "10.98.0.1"},
                )
            )
            refused += "too many open connections" in str(socket.recv(timeout=30))
    assert refused == 2
    # Closed again, they count no more (once the server has seen them close).

    def watched() -> bool:
        with connect(
            f"{server.ws_url}/ws/{table}", additional_headers={"X-Forwarded-For": "10.98.0.1"}
        ) as socket:
            return bool(json.loads(socket.recv(timeout=30))["type"] == "state")

    assert wait_for(watched, 30, 0.2)
