"""The server under attack: each attack that once worked against ``pips serve``, tried
again against a real server process on 127.0.0.1, and shown refused with a clear answer
and nothing changed (docs/server.md, "Fair deals" and "Accounts and security")."""

from __future__ import annotations

import csv
import io
import json
import random
import signal
import subprocess
import sys
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from pips import record
from pips.core.fairness import deal_commitment
from pips.games.match import Match
from pips.games.registry import find_game
from pips.results.entry_formats import read_csv
from tests.cluster_helpers import BROKER, LEASE, needs_cluster
from tests.databases import one_database
from tests.in_thread import ThreadServer
from tests.server_helpers import (
    Browser,
    Server,
    bots,
    database_urls,
    first_state,
    new_database,
    new_round,
    register,
    wait_for,
)

on_every_database = pytest.mark.parametrize("database", database_urls())
every_database = pytest.mark.parametrize("server", database_urls(), indirect=True)


def dealt(spec: Any, options: Any, seed: int, seat: int) -> Any:
    """The tiles seat ``seat`` is dealt by ``random.Random(seed)`` (as once at a table)."""
    return Match(spec, options, random.Random(seed)).current.hands[seat]


# -- 1. deals nobody can predict ------------------------------------------------------


def test_a_players_own_tiles_give_no_seed_to_search_for(shared_server: Server) -> None:
    """The attack: from one's own 18 tiles, search the 31-bit seed space for the seed
    that deals them, then read every other hand. Here there is no seed to search: the
    table shows none, and no seed of a (reduced) space deals those tiles."""
    server = shared_server
    ann = Browser(server, "Tilda")
    options = {"players": 3, "set": 9}
    table = ann.create("fido", options, [{"kind": "me"}, *bots(2)])
    summary = ann.http.get(f"/api/tables/{table}").json()["table"]
    assert summary["practice"] is False and summary["seed"] is None
    with ann.socket(table) as connection:
        state = first_state(connection)
    mine = sorted(map(tuple, state["view"]["hand"]))
    assert len(mine) >= 10
    spec = find_game("fido")
    chosen = spec.options_from_json(options)
    seat = state["seat"]
    candidates = [
        seed
        for seed in range(20_000)
        if sorted(tuple(t.to_json()) for t in dealt(spec, chosen, seed, seat)) == mine
    ]
    assert candidates == []


def test_every_deal_is_committed_before_play_and_revealed_in_the_record(
    shared_server: Server, tmp_path: Path
) -> None:
    server = shared_server
    ann = Browser(server, "Dora")
    table = ann.create("doubles", {"players": 4, "target": 20}, [{"kind": "me"}, *bots(3)])
    seen: dict[int, str] = {}
    with ann.socket(table) as connection:
        while True:
            message = json.loads(connection.recv(timeout=60))
            if message["type"] != "state":
                continue
            seen.setdefault(message["moves_made"], message["commitment"])
            if message["match"]["over"]:
                break
            if message.get("legal"):
                connection.send(
                    json.dumps(
                        {"v": 1, "type": "move", "move": 0, "moves_made": message["moves_made"]}
                    )
                )
    written = wait_for(
        lambda: (r := ann.http.get(f"/api/records/{table}")).status_code == 200 and r.json()
    )
    assert written["commitments"] == "sha256(salt:deal)/1" and "seed" not in written
    commitments = [h["commitment"] for h in written["hands"]]
    # What the seat was sent during play is what the record commits to, hand by hand.
    assert set(seen.values()) == set(commitments) and len(set(commitments)) == len(commitments)
    for hand in written["hands"]:
        assert deal_commitment(hand["salt"], hand) == hand["commitment"]
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(written) + "\n")
    checked = subprocess.run(
        [sys.executable, "-m", "pips", "check", str(path)], capture_output=True, text=True
    )
    assert checked.returncode == 0 and "match the commitments" in checked.stdout
    # A deal changed after the fact no longer matches its commitment.
    forged = json.loads(json.dumps(written))
    first = forged["hands"][0]
    first["deal"][0][0], first["deal"][1][0] = first["deal"][1][0], first["deal"][0][0]
    with pytest.raises(record.RecordError, match="committed to before the first move"):
        record.replay(forged)
    # Issue 32: with its commitments stripped, a record (here the genuine one, which
    # still replays) proves nothing about its deals: `pips check` says which it could
    # not verify, and --require-proof fails it.
    stripped = json.loads(json.dumps(written))
    del stripped["commitments"]
    for hand in stripped["hands"]:
        del hand["commitment"], hand["salt"]
    plain = tmp_path / "stripped.jsonl"
    plain.write_text(json.dumps(stripped) + "\n")
    told = subprocess.run(
        [sys.executable, "-m", "pips", "check", str(plain)], capture_output=True, text=True
    )
    assert told.returncode == 0, told.stderr
    assert "match the commitments" not in told.stdout
    hands = len(stripped["hands"])
    assert f"{hands} deal(s) could not be verified" in told.stdout
    assert "record 1 hand 1" in told.stdout
    strict = subprocess.run(
        [sys.executable, "-m", "pips", "check", "--require-proof", str(plain)],
        capture_output=True,
        text=True,
    )
    assert strict.returncode == 1


def test_a_chosen_seed_makes_an_unrated_practice_table_every_seat_is_shown(
    shared_server: Server,
) -> None:
    server = shared_server
    ann, bea = Browser(server, "Sela"), Browser(server, "Bea")
    table = ann.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}], seed=42)
    assert bea.post(f"/api/tables/{table}/join").status_code == 200
    with bea.socket(table) as connection:
        state = first_state(connection)
    assert state["table"]["practice"] is True and state["table"]["seed"] == 42
    assert "commitment" not in state
    lobby = bea.http.get("/").text
    assert "practice" in lobby and "seed 42" in lobby


# -- 3. nothing lost at the end (see also the kill -9 test below) --------------------


def play_to_the_end(connection: Any) -> None:
    """Play the first legal move at each of the seat's turns until the match is over."""
    while True:
        message = json.loads(connection.recv(timeout=60))
        if message["type"] != "state":
            continue
        if message["match"]["over"]:
            return
        if message.get("legal"):
            move = {"v": 1, "type": "move", "move": 0, "moves_made": message["moves_made"]}
            connection.send(json.dumps(move))


def test_a_finished_game_has_its_record_and_result_together(shared_server: Server) -> None:
    server = shared_server
    ann = Browser(server, "Fina")
    table = ann.create("draw", {"players": 2}, [{"kind": "me"}, *bots(1)])
    with ann.socket(table) as connection:
        play_to_the_end(connection)
        # Whoever hears "over" finds the record and the result already stored.
        assert ann.http.get(f"/api/records/{table}").status_code == 200
        found = ann.http.get("/api/results", params={"player": "Fina"}).json()
        assert found["total"] == 1


# -- 6. private tables ----------------------------------------------------------------


def test_a_private_table_is_private_on_every_route(shared_server: Server) -> None:
    server = shared_server
    ann = Browser(server, "Priya")
    made = ann.post(
        "/api/tables",
        {
            "game": "draw",
            "options": {"players": 2},
            "seats": [{"kind": "me"}, {"kind": "open"}],
            "private": True,
        },
    ).json()
    table, invite = made["id"], made["invite"]
    stranger = Browser(server, "Sly")
    assert stranger.http.get(f"/t/{table}").status_code == 404
    assert stranger.http.get(f"/api/tables/{table}").status_code == 404
    assert stranger.post(f"/api/tables/{table}/join").status_code == 404
    with stranger.socket(table) as connection:
        assert json.loads(connection.recv(timeout=10))["message"] == "no such table"
    assert stranger.http.get(f"/api/tables/{table}", params={"invite": invite}).status_code == 200
    assert ann.http.get(f"/api/tables/{table}").status_code == 200  # seated: no invitation
    with stranger.socket(table, invite) as connection:
        assert first_state(connection)["table"]["id"] == table


# -- 7. the smaller holes --------------------------------------------------------------


def test_a_manual_deal_is_refused_at_a_server_table(shared_server: Server) -> None:
    server = shared_server
    ann = Browser(server, "Manu")
    response = ann.post(
        "/api/tables",
        {"game": "fido", "options": {"players": 3, "deal_mode": "manual"}, "seats": bots(3)},
    )
    assert response.status_code == 422 and "manual deals" in response.text


OUT_OF_RANGE = [
    f"/api/results/{2**64}",
    f"/results/{2**63}",
    "/api/results/0",
    "/api/results/export.csv?month=0000-01",
    "/api/results?month=0000-01",
    "/api/lists/fido?month=0000-01",
    f"/api/results?offset={2**70}",
    "/list?game=fido&month=0000-01",
    f"/list?game=fido&page_number={2**70}",
]


def test_out_of_range_numbers_and_months_get_a_4xx(shared_server: Server) -> None:
    web = Browser(shared_server)
    for path in OUT_OF_RANGE:
        response = web.http.get(path)
        assert 400 <= response.status_code < 500, (path, response.status_code, response.text)


def test_malformed_websocket_frames_get_an_error_and_keep_the_connection(
    shared_server: Server,
) -> None:
    ann = Browser(shared_server, "Mara")
    table = ann.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}])
    with ann.socket(table) as connection:
        first_state(connection)
        for frame in (b"\x00\xff binary", "not json", "[1, 2]", '{"v": 1, "type": "chat"}'):
            connection.send(frame)
            answer = json.loads(connection.recv(timeout=10))
            assert answer["type"] == "error", frame
        connection.send(json.dumps({"v": 1, "type": "ping"}))
        assert json.loads(connection.recv(timeout=10))["type"] == "pong"


def test_every_response_carries_the_security_headers(shared_server: Server) -> None:
    web = Browser(shared_server)
    for path in ("/", "/api/tables", "/static/pips.css", "/nowhere", "/results"):
        headers = web.http.get(path).headers
        policy = headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        assert "frame-ancestors 'none'" in policy
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"


def test_a_websocket_from_another_site_is_refused(shared_server: Server) -> None:
    server = shared_server
    ann = Browser(server, "Orla")
    table = ann.create("draw", {"players": 2}, [{"kind": "me"}, {"kind": "open"}])
    cookie = "; ".join(f"{k}={v}" for k, v in ann.http.cookies.items())
    uri = f"ws://127.0.0.1:{server.port}/ws/{table}"
    with pytest.raises(InvalidStatus) as refused:
        connect(uri, additional_headers={"Cookie": cookie, "Origin": "http://evil.test"})
    assert refused.value.response.status_code == 403
    own = f"http://127.0.0.1:{server.port}"
    with connect(uri, additional_headers={"Cookie": cookie, "Origin": own}) as connection:
        assert first_state(connection)["seat"] == 0


def test_an_exported_place_cannot_be_a_spreadsheet_formula(shared_server: Server) -> None:
    server = shared_server
    ann = Browser(server)
    register(ann, "Anna")
    ben = Browser(server)
    register(ben, "Ben")
    place = '=HYPERLINK("http://evil.test","x")'
    game = {
        "game": "draw",
        "date": "2026-10-03",
        "set": 6,
        "place": place,
        "players": [{"name": "Anna", "pips": 0, "out": True}, {"name": "Ben", "pips": 12}],
    }
    made = ann.post("/api/results", {"results": [game]})
    assert made.status_code == 201
    # Confirmed by Ben's account and an administrator's word, it counts and is exported.
    root = Browser(server)
    register(root, "Formula Root")
    server.run_pips("admin", "grant", "Formula Root")
    confirmed = ben.post(f"/api/results/{made.json()['ids'][0]}/confirm", {})
    assert confirmed.json()["status"] == "confirmed"
    vouched = root.post(f"/api/results/{made.json()['ids'][0]}/confirm", {})
    assert vouched.json()["counts"], vouched.text
    exported = ann.http.get("/api/results/export.csv", params={"month": "2026-10"}).text
    places = {row["place"] for row in csv.DictReader(io.StringIO(exported))}
    assert places == {"'" + place}
    back = read_csv(exported, date(2026, 11, 23))
    assert back[0].entry.place == place


@pytest.mark.process
@pytest.mark.parametrize("database", one_database())
def test_a_player_back_after_the_grace_period_takes_the_seat_back(
    tmp_path: Path, database: str
) -> None:
    server = ThreadServer(
        tmp_path, new_database(database, tmp_path), grace=1, bot_delay=0.3
    ).start()
    try:
        ann, bea = Browser(server, "Ann"), Browser(server, "Bea")
        seats = [{"kind": "me"}, {"kind": "open"}, *bots(2)]
        table = ann.create("partnership", {"target": 5}, seats)
        assert bea.post(f"/api/tables/{table}/join").status_code == 200

        def stand_ins() -> list[str]:
            seats = ann.http.get(f"/api/tables/{table}").json()["table"]["seats"]
            return [s["name"] for s in seats if s["stand_in"]]

        # Bea never connects (nor Ann, by socket): after the grace period a bot plays
        # her seat, in her name.
        wait_for(lambda: "Bea" in stand_ins())
        with bea.socket(table) as back:
            state = first_state(back)
            deadline = time.monotonic() + 60
            # Back at once, or (the bot was thinking of her move) after that move.
            while not (state["seat"] >= 0 and not state["stand_in"][state["seat"]]):
                assert time.monotonic() < deadline, "Bea never got her seat back"
                message = json.loads(back.recv(timeout=30))
                if message["type"] == "state":
                    state = message
        assert state["names"].count("Bea") == 1 and "Bea" not in stand_ins(), state
    finally:
        server.stop()


class Listener(threading.Thread):
    """A spectator of one table that keeps every move it is told of (told means
    stored: the server tells no one of a move the database does not hold), and notes
    when it hears the match is over."""

    def __init__(self, browser: Browser, table: str, heard: dict[int, dict[str, Any]]) -> None:
        super().__init__(daemon=True)
        self.connection = browser.socket(table)
        self.heard = heard
        self.over = threading.Event()

    def run(self) -> None:
        try:
            while True:
                message = json.loads(self.connection.recv(timeout=120))
                if message["type"] == "error":
                    return  # finished and gone from memory: its record says the rest
                if message["type"] != "state":
                    continue
                if "event" in message:
                    self.heard[message["moves_made"] - 1] = message["event"]
                if message.get("match", {}).get("over"):
                    self.over.set()
                    return
        except Exception:  # the server was killed: what was heard stays heard
            return


def moves_of(written: dict[str, Any]) -> list[dict[str, Any]]:
    return [move for hand in written["hands"] for move in hand["moves"]]


@pytest.mark.process
@on_every_database
def test_kill_9_at_random_instants_loses_no_acknowledged_move_and_no_result(
    tmp_path: Path, database: str
) -> None:
    """Whole matches under kill -9 at random instants, one of them right after the
    last move was told: after each restart the games go on, and in the end every move
    any client heard is in its game's record, in its place, and every game has its
    result."""
    url = new_database(database, tmp_path)
    chance = random.Random(2026)
    heard: dict[str, dict[int, dict[str, Any]]] = {}
    games = [
        ("draw", {"players": 2}, 2),
        ("doubles", {"players": 3, "target": 20}, 3),
        ("family", {"players": 3, "target": 30}, 3),
        ("partnership", {"target": 3}, 4),
    ]
    for round_number in range(4):
        server = Server(tmp_path, url, bot_delay=0.02).start()
        watcher = Browser(server)
        creator = Browser(server, f"Host {round_number}")
        if round_number < 2:
            for game, options, players in games[round_number * 2 : round_number * 2 + 2]:
                heard[creator.create(game, options, bots(players))] = {}
        last = creator.create("draw", {"players": 2}, bots(2)) if round_number == 2 else None
        if last is not None:
            heard[last] = {}
        listeners = {t: Listener(watcher, t, heard[t]) for t in heard}
        for listener in listeners.values():
            listener.start()
        if last is not None:
            # Killed right after the last move of a game is told.
            assert listeners[last].over.wait(120), "the game did not end"
        else:
            time.sleep(chance.uniform(0.2, 1.5))
        server.kill()
    server = Server(tmp_path, url, bot_delay=0.0).start()
    try:
        watcher = Browser(server)
        for table, told in heard.items():
            written = wait_for(
                lambda t=table: (
                    (r := watcher.http.get(f"/api/records/{t}")).status_code == 200 and r.json()
                ),
                timeout=120,
            )
            record.replay(written)
            stored = moves_of(written)
            for number, event in told.items():
                kept = stored[number]
                assert kept["seat"] == event["seat"], (table, number)
                for key in ("play", "at", "end", "pass"):
                    assert kept.get(key) == event.get(key), (table, number, key)
        results = watcher.http.get("/api/results", params={"limit": 100}).json()["results"]
        assert len(results) == len(heard)
        assert sum(len(t) for t in heard.values()) > 50
    finally:
        server.stop()


def test_a_seat_is_taken_over_once_and_given_back_with_its_name() -> None:
    """Two grace periods of one seat ending together once made "Bea (bot) (bot)", and
    the seat came back as a person named "Bea (bot)"."""
    from pips.server.accounts.identity import Identity
    from pips.server.round import TableError

    bea = Identity(guest="token-b", name="Bea")
    table = new_round("draw", {"players": 2}, [{"kind": "me"}, *bots(1)], bea, seed=3)
    table.start()
    seat = table.seat_of(bea)
    table.take_over(seat)
    with pytest.raises(TableError):
        table.take_over(seat)
    assert table.returning(bea) == seat and table.seat_of(bea) == -1
    table.give_back(seat)
    assert table.names()[seat] == "Bea" and table.seat_of(bea) == seat
    assert not table.is_bot(seat)


def test_the_record_says_which_moves_a_bot_made_for_an_absent_person() -> None:
    """Coming back: the seat keeps its person's name, and the record's stand_ins list
    the moves the bot made while they were away, and only those."""
    from pips import record
    from pips.server.accounts.identity import Identity

    bea = Identity(guest="token-b", name="Bea")
    table = new_round("draw", {"players": 2}, [{"kind": "me"}, *bots(1)], bea, seed=3)
    table.start()
    seat = table.seat_of(bea)
    match = table.match
    assert match is not None
    by_bea: list[int] = []
    by_bot: list[int] = []
    while not match.is_over:
        mover = match.current_seat
        assert mover is not None
        if mover == seat and len(by_bea) == 2 and not by_bot:
            table.take_over(seat)  # away after two moves of her own
        if mover == seat and len(by_bot) == 3 and table.is_bot(seat):
            table.give_back(seat)  # back after three of the bot's
        if table.is_bot(mover):
            played = table.apply(table.bot_decision())  # type: ignore[arg-type]
        else:
            played = table.apply_choice(mover, 0, table.moves_made)
        if played.seat == seat:
            (by_bot if played.stand_in else by_bea).append(played.number + 1)
    assert len(by_bot) == 3 and table.names()[seat] == "Bea"
    runs = table.stand_ins_json()
    assert runs == [{"seat": seat, "bot": "expert", "hand": 1, "moves": [by_bot[0], by_bot[-1]]}]
    written = record.write_record(
        match, table.names(), seed=3, bots=[table.bot_of(s) for s in range(2)], stand_ins=runs
    )
    assert written["bots"][seat] is None
    assert record.replay(json.loads(record.dumps(written))).stand_ins == runs
    # A run that claims another seat's move is refused.
    other = 1 - seat
    forged = {**written, "stand_ins": [{**runs[0], "seat": other}]}
    with pytest.raises(record.RecordError, match="stand_ins"):
        record.replay(forged)


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (children, theirs ...), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def gone(pids: set[int]) -> bool:
    return all(not Path(f"/proc/{p}").exists() or "Z" in zombie(p) for p in pids)


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.mark.process
def test_nothing_a_server_started_outlives_it_killed_with_minus_9(tmp_path: Path) -> None:
    """Issue 48: a server killed with -9 left its analysis worker (about 160 MB, using
    CPU) and multiprocessing's resource tracker running for good. Here a game is played
    and its analysis asked for (which starts the worker and the tracker), the server is
    killed, and everything it started ends."""
    server = Server(tmp_path).start()
    try:
        ann = Browser(server, "Ana")
        table = ann.create("draw", {"players": 2}, [{"kind": "me"}, *bots(1)])
        with ann.socket(table) as connection:
            play_to_the_end(connection)
        analysed = ann.http.get(f"/api/records/{table}/analysis", timeout=120)
        assert analysed.status_code == 200, analysed.text
        assert server.process is not None
        started = descendants(server.process.pid)
        lines = {command_line(p) for p in started}
        assert any("resource_tracker" in line for line in lines), lines
        assert any("spawn_main" in line for line in lines), lines
    finally:
        server.kill()
    wait_for(lambda: gone(started))


@pytest.mark.process
def test_a_server_stopped_with_sigterm_leaves_no_semaphore_behind(tmp_path: Path) -> None:
    """Issue 51: `pips serve` stopped with SIGTERM printed multiprocessing's "leaked
    semaphore objects" (uvicorn raises the signal again once it has stopped, and
    Python's default then killed the process before its exit handlers unlinked the
    papers' pool's semaphores). It ends through Python's exit now, quietly, with a
    SIGTERM's status."""
    server = Server(tmp_path).start()
    assert server.process is not None
    pid = server.process.pid
    # The papers' process (and with it the resource tracker) starts with the server.
    wait_for(lambda: any("resource_tracker" in command_line(p) for p in descendants(pid)))
    wait_for(lambda: any("spawn_main" in command_line(p) for p in descendants(pid)))
    started = descendants(pid)
    server.process.send_signal(signal.SIGTERM)
    assert server.process.wait(timeout=120) == 128 + signal.SIGTERM
    wait_for(lambda: gone(started))
    said = (tmp_path / "server.log").read_text()
    assert "leaked semaphore" not in said and "Traceback" not in said, said


@pytest.mark.process
@needs_cluster
def test_the_processes_of_pips_serve_workers_end_with_their_supervisor(tmp_path: Path) -> None:
    """`pips serve --workers 2` killed with -9: uvicorn's server processes once went on
    serving for good (each holds both ends of its pipe to the supervisor). They stop as
    if stopped, handing their tables on, and nothing is left."""
    url = new_database("postgresql", tmp_path)
    extra = ("--workers", "2", "--broker", str(BROKER), "--lease", str(LEASE))
    server = Server(tmp_path, url, extra=extra).start()
    assert server.process is not None
    started = descendants(server.process.pid)
    # The two server processes, and each one's papers process once it has started.
    assert sum("spawn_main" in command_line(p) for p in started) >= 2, started
    server.kill()
    wait_for(lambda: gone(started))
    assert "left, 0 tables released" in (tmp_path / "server.log").read_text()


@pytest.mark.process
def test_a_stopped_server_ends_its_busy_analysis_worker(tmp_path: Path) -> None:
    """A test server stopped under load left its workers behind: stopping waited for
    the analysis running (the worker holds its own queue, so once the server was
    killed it waited for the next job for good). Stopping ends a busy worker at once,
    and the process exits without waiting for it."""
    script = tmp_path / "server.py"
    script.write_text(
        "import os, time\n"
        "from pips.server.analyses import Analyses\n"
        "if __name__ == '__main__':\n"
        "    analyses = Analyses()\n"
        "    pool = analyses._workers(asked=True)\n"
        "    assert pool.submit(os.getpid).result() > 0\n"
        "    busy = pool.submit(time.sleep, 600)\n"
        "    print(os.getpid(), flush=True)\n"
        "    input()  # the test has seen the worker\n"
        "    analyses.close()  # as the server's lifespan ends\n"
    )
    parent = subprocess.Popen(
        [sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert parent.stdin is not None and parent.stdout is not None
    pid = int(parent.stdout.readline())
    started = descendants(pid)
    assert any("spawn_main" in command_line(p) for p in started)
    parent.stdin.write("\n")
    parent.stdin.flush()
    # A generous bound, not a measure: without the fix the process waits ten minutes.
    assert parent.wait(timeout=120) == 0
    wait_for(lambda: gone(started))


@pytest.mark.process
def test_a_worker_process_ends_when_the_server_is_killed(tmp_path: Path) -> None:
    """The server rates a month in a worker process (the pool of
    pips.server.workers, as its analyses); killed with -9, it once left that worker
    behind, every time (hundreds piled up over a day of tests), and with it the
    resource tracker."""
    script = tmp_path / "parent.py"
    script.write_text(
        "import os, time\n"
        "from pips.server.workers import worker_pool\n"
        "if __name__ == '__main__':\n"
        "    pool = worker_pool(1)\n"
        "    worker = pool.submit(os.getpid).result()\n"
        "    print(worker, flush=True)\n"
        "    pool.submit(time.sleep, 600)\n"
        "    time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    worker = int(parent.stdout.readline())
    assert Path(f"/proc/{worker}").exists()
    started = descendants(parent.pid)
    assert worker in started and len(started) == 2, started  # the worker and the tracker
    parent.kill()
    parent.wait()
    wait_for(lambda: gone(started), timeout=15)


def zombie(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return "Z"
