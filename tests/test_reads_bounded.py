"""Reads that cannot take the tables' interpreter (issue 48, item 3): an event is read in
a number of queries that does not grow with its tables, and the results' and events'
database work runs at most :data:`~pips.server.routes.common.READS_AT_ONCE` at once,
more waiting being refused rather than queued for minutes."""

from __future__ import annotations

import asyncio
import threading
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from fastapi import HTTPException
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import event as sql_event

from pips.server.routes import common
from tests.databases import new_database
from tests.test_results_server import Site
from tests.test_results_trust import Club


def statements_reading(club: Club, key: str, number: int) -> int:
    """How many SQL statements reading ``key``'s round ``number`` for its sheets takes."""
    seen = [0]

    def count(*_: object) -> None:
        seen[0] += 1

    sql_event.listen(club.db.engine, "before_cursor_execute", count)
    try:
        club.results.rounds.round_draw(key, number)
    finally:
        sql_event.remove(club.db.engine, "before_cursor_execute", count)
    return seen[0]


def evening(club: Club, players: int) -> str:
    """Anna's evening of ``players`` new players with its first round drawn: its key."""
    anna = club.ids["Anna"]
    made = club.results.events.create(
        anna,
        name=f"Abend {players}",
        game="fido",
        played_on=date(2026, 10, 20),
        rounds=2,
        group="kiel",
    )
    names = [f"Spielerin {n}" for n in range(1, players + 1)]
    club.results.events.add_players(anna, made["key"], names, new_players=names)
    club.results.rounds.draw_next(anna, made["key"])
    return str(made["key"])


def test_reading_a_round_takes_as_many_queries_for_200_players_as_for_8(tmp_path: Path) -> None:
    """Each table's scores were read as the table was shown: 257 queries for a round of
    250 tables, half of what a reader of its sheets cost the server."""
    club = Club(new_database("sqlite", tmp_path))
    try:
        small, large = evening(club, 8), evening(club, 200)
        assert statements_reading(club, large, 1) == statements_reading(club, small, 1)
    finally:
        club.db.dispose()


def test_reads_run_two_at_once_and_a_flood_beyond_the_queue_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Eight readers at once: two read while six wait; with room for four waiting, the
    fifth and sixth are refused (503) at once, and nobody's read is lost."""
    monkeypatch.setattr(common, "READS_WAITING", 4)
    release = threading.Event()
    running = [0]
    most = [0]
    lock = threading.Lock()

    def read(n: int) -> int:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        release.wait(timeout=60)
        with lock:
            running[0] -= 1
        return n

    async def flood() -> list[int | str]:
        tasks = [asyncio.ensure_future(common.run(read, n)) for n in range(8)]
        while True:  # until two read and the rest are answered or wait
            await asyncio.sleep(0.01)
            with lock:
                if running[0] == common.READS_AT_ONCE and sum(t.done() for t in tasks) == 2:
                    break
        release.set()
        answers: list[int | str] = []
        for task in tasks:
            try:
                answers.append(await task)
            except HTTPException as refused:
                answers.append(f"refused {refused.status_code}")
        return answers

    answers = asyncio.run(flood())
    assert most[0] == common.READS_AT_ONCE == 2
    assert answers.count("refused 503") == 2
    assert sorted(a for a in answers if isinstance(a, int)) == [0, 1, 2, 3, 4, 5]


def test_a_client_refused_more_sheets_costs_no_read_of_the_round(site: Site) -> None:
    """Hostile review: the printed sheets' limit was counted at the printing, after the
    round was read, so each request refused 429 still cost a whole round's read. Now the
    limit is counted first: past it, no read at all."""
    from pips.server.limits import RateLimit
    from tests.test_events import new_event

    anna, key = new_event(site)
    names = [f"Spieler {n}" for n in range(1, 9)]
    anna.post(f"/api/events/{key}/players", {"names": names, "new_players": names})
    assert anna.post(f"/api/events/{key}/rounds").status_code == 201
    site.app.state.work.prints = RateLimit(2, 1, "printed sheets", name="prints")
    reads = [0]
    rounds = site.results.rounds
    read_round = rounds.round_draw

    def counted(key: str, number: int) -> Any:
        reads[0] += 1
        return read_round(key, number)

    rounds.round_draw = counted  # type: ignore[method-assign]
    answers = [anna.client.get(f"/events/{key}/rounds/1/sheets.pdf").status_code for _ in range(5)]
    assert answers == [200, 200, 429, 429, 429]
    assert reads[0] == 2
    export = anna.client.get(f"/events/{key}/standings.csv")
    assert export.status_code == 429 and "Retry-After" in export.headers


def test_the_sheets_print_the_sites_address_whatever_host_a_client_names(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hostile review: a sheet printed the Host header's address, and each new Host made
    the round's sheets be printed again (7.7 s of the papers' worker each, from one
    address). With the site's address configured, a made-up Host changes nothing."""
    import dataclasses
    import io

    import pdfplumber

    from pips.results import sheet
    from tests.test_events import new_event

    anna, key = new_event(site)
    names = [f"Spieler {n}" for n in range(1, 9)]
    anna.post(f"/api/events/{key}/players", {"names": names, "new_players": names})
    assert anna.post(f"/api/events/{key}/rounds").status_code == 201
    settings = site.app.state.settings
    site.app.state.settings = dataclasses.replace(settings, public_url="https://domino.example/")
    made = [0]
    print_round = sheet.round_sheets

    def counted(*args: Any, **kwargs: Any) -> bytes:
        made[0] += 1
        return print_round(*args, **kwargs)

    monkeypatch.setattr(sheet, "round_sheets", counted)
    texts = []
    for host in ("evil.example", "other.example", "testserver"):
        answer = anna.client.get(f"/events/{key}/rounds/1/sheets.pdf", headers={"Host": host})
        assert answer.status_code == 200
        with pdfplumber.open(io.BytesIO(answer.content)) as pdf:
            texts.append(" ".join(page.extract_text() or "" for page in pdf.pages))
    assert made[0] == 1
    assert all(f"https://domino.example/events/{key}" in text for text in texts), texts[0]
    assert not any("evil.example" in text for text in texts)


class HeldReads:
    """Reads through :func:`~pips.server.routes.common.run` as clients, each in a task of
    its own with its client named as the guard names it, held until released; who read,
    in the order they did."""

    def __init__(self) -> None:
        self.read_by: list[str] = []
        self.release = threading.Event()

    def _read(self, client: str) -> None:
        self.read_by.append(client)
        self.release.wait(timeout=60)

    async def read_as(self, client: str) -> str:
        from pips.server.limits import CLIENT

        CLIENT.set(client)
        try:
            await common.run(self._read, client)
        except HTTPException as refused:
            return f"refused {refused.status_code}"
        return "read"

    async def flood_then(self, floods: list[str], newcomer: str) -> tuple[list[str], str]:
        """The floods' reads asked at once (two read, the rest wait or are refused), then
        the newcomer's; all let go once it waits: each one's answer."""
        flooding = [asyncio.ensure_future(self.read_as(client)) for client in floods]
        await asyncio.sleep(0.05)
        coming = asyncio.ensure_future(self.read_as(newcomer))
        await asyncio.sleep(0.05)
        self.release.set()
        return list(await asyncio.gather(*flooding)), await coming


def test_an_organisers_read_waits_one_turn_per_address_not_one_per_flooders_read() -> None:
    """Hostile review of issue 53 (F1): thirty reads from five addresses queued, first
    come first served, ahead of an organiser's entry (80 ms became 1.6 s). Now the
    addresses waiting are taken in turn: the organiser's read, queued last, runs after
    at most one read of each flooding address, not after all thirty."""
    floods = [f"10.0.0.{n % 5}" for n in range(30)]
    held = HeldReads()
    answers, organiser = asyncio.run(held.flood_then(floods, "organiser"))
    assert answers == ["read"] * 30 and organiser == "read"
    assert sorted(held.read_by) == sorted([*floods, "organiser"])
    # Two read at once when the organiser came; five addresses wait: at most five more
    # reads go first (one of each address whose turn comes earlier).
    assert held.read_by.index("organiser") <= common.READS_AT_ONCE + 5


@settings(max_examples=200, deadline=None)
@given(
    clients=st.lists(st.sampled_from("abcde"), min_size=1, max_size=40),
    most=st.integers(min_value=1, max_value=3),
)
def test_shared_turns_go_round_the_clients_waiting(clients: list[str], most: int) -> None:
    """For any requests waiting at once (every turn taken), the turns go round: a
    client's k-th request waiting is given its turn before any client's (k+1)-th, the
    clients in the order they came; every request gets a turn, and the turns are all
    free again at the end."""
    from pips.server.limits import SharedTurns

    async def go() -> tuple[list[tuple[int, str]], SharedTurns]:
        turns = SharedTurns(most, room=len(clients))
        held = [await turns.take("holder") for _ in range(most)]
        given: list[tuple[int, str]] = []
        seen: dict[str, int] = {}

        async def one(client: str, rank: int) -> None:
            give_back = await turns.take(client)
            given.append((rank, client))
            give_back()
            give_back()  # once is enough: a second call gives nothing more back

        tasks = []
        for client in clients:
            seen[client] = seen.get(client, 0) + 1
            tasks.append(asyncio.ensure_future(one(client, seen[client])))
        await asyncio.sleep(0)
        assert turns.waiting == len(clients)
        for give_back in held:
            give_back()
        await asyncio.gather(*tasks)
        return given, turns

    given, turns = asyncio.run(go())
    # Round after round: in round k, every client with a k-th request, in the order
    # the clients came.
    first_come = list(dict.fromkeys(clients))
    rounds = [
        (rank, client)
        for rank in range(1, len(clients) + 1)
        for client in first_come
        if clients.count(client) >= rank
    ]
    assert given == rounds
    assert turns.free == most and turns.waiting == 0


def test_a_request_gone_while_waiting_leaves_no_turn_behind() -> None:
    """A client that hangs up while its request waits is forgotten; one that hangs up
    just as its turn came passes the turn on: nothing waits for a turn nobody holds."""
    from pips.server.limits import SharedTurns

    async def go() -> tuple[list[str], int, int]:
        turns = SharedTurns(1, room=10)
        give_back = await turns.take("holder")
        done: list[str] = []

        async def one(client: str) -> None:
            (await turns.take(client))()
            done.append(client)

        gone = asyncio.ensure_future(one("gone"))
        late = asyncio.ensure_future(one("late"))
        stays = asyncio.ensure_future(one("stays"))
        await asyncio.sleep(0)
        gone.cancel()  # hung up while waiting
        await asyncio.sleep(0)
        give_back()  # the turn is "late"'s now, and it hangs up before it runs
        late.cancel()
        await asyncio.gather(gone, late, stays, return_exceptions=True)
        return done, turns.free, turns.waiting

    assert asyncio.run(go()) == (["stays"], 1, 0)


def test_a_full_waiting_room_refuses_the_one_holding_most_not_a_newcomer() -> None:
    """Hostile review: 34 IPv6 /64s of one home's /56, six reads each (as many as the
    guard lets one address have at once), filled the 200 places of the waiting room,
    and every other client's read was refused (503). Now the /64s of one /48 are one
    site for the turns, and when the room is full the newest read of the site with
    the most waiting is refused instead: the organiser, with nothing waiting, is let in
    and read."""
    from pips.server.limits import client_key

    home = [client_key(f"2001:db8:0:{net:x}::1") for net in range(34)]
    held = HeldReads()
    answers, organiser = asyncio.run(
        held.flood_then([c for c in home for _ in range(6)], "192.0.2.7")
    )
    assert organiser == "read" and "192.0.2.7" in held.read_by
    # The home's 34 /64s are one site: the organiser waited for one of its reads, not 34.
    assert held.read_by.index("192.0.2.7") <= common.READS_AT_ONCE + 1
    assert answers.count("refused 503") >= 34 * 6 - 2 - common.READS_WAITING
    assert answers.count("read") + answers.count("refused 503") == 34 * 6


def test_the_guard_names_the_client_each_request_is_taken_in_turn_by() -> None:
    """The guard sets :data:`~pips.server.limits.CLIENT` for the request's own task:
    an IPv6 address by its /64, as the limits count it."""
    from pips.server.guard import Guard
    from pips.server.limits import CLIENT

    heard: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        heard.append(CLIENT.get())
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    guard = Guard(app, body_bytes=1000, upload_bytes=1000)

    async def ask(address: str) -> None:
        scope = {"type": "http", "method": "GET", "path": "/", "client": (address, 1)}

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b""}

        async def send(message: Any) -> None:
            pass

        await guard(scope, receive, send)

    async def both() -> None:
        await asyncio.gather(ask("2001:db8:5:6::7"), ask("192.0.2.9"))

    asyncio.run(both())
    assert heard == ["2001:db8:5:6::/64", "192.0.2.9"]
