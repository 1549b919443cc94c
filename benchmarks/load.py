"""Load on the pips server: N websocket clients on N/4 partnership tables, from a
process of their own.

    python -m benchmarks.load                 # N = 100, 400, 1000; 20 s each
    python -m benchmarks.load --clients 1000 --think 0.6 --runs 5
    python -m benchmarks.load --clients 1000 --think 0.6 --profile
    python -m benchmarks.load --clients 1000 --think 0.6 --runs 5 --revisions 1c05283 .

The server (``pips serve``, SQLite in a fresh folder, bots not used: four people per
table, each from an address of their own) runs in one process, this load generator in
another, both on 127.0.0.1. Every client answers its turn with its first legal move, at
once (``--think 0``, as fast as the server goes) or after the pace of the server's bots
(``--think 0.6``).

Every move *sent* in the measured window counts, however late it comes back: after the
window no move is sent and the clients wait (``--settle``, 30 s) for the moves in
flight. Reported per run: moves per second, the latency from sending a move until every
seat of the table has received the update (p50, p99, over every client's moves), late
moves (sent in the window, back after it ended), lost moves (never back, or a table
whose stored move count differs from what its clients saw), errors, the CPU share of
the server and of this generator, and the server's own count of the moves it stored
and told within each bound (``/metrics``: without the network and the generator).
Target on a 2-core machine: N = 1000 at the bots' pace with p99 under 100 ms in every
run, no error, no late and no lost move.

``--profile`` samples the server with py-spy in each window (each thread while it holds
the GIL) and shows where its Python time went; ``--revisions`` serves each revision in
turn, interleaved run by run, so that a change is measured against the code before it in
the same command.

Several processes (issue 21, docs/server.md "Several server processes"):

    python -m benchmarks.load --processes 1 2 4 --clients 1000 4000 --placement spread owner

runs P ``pips serve --broker`` processes over one PostgreSQL database and one Redis
(``PIPS_TEST_POSTGRES_URL`` and ``PIPS_TEST_REDIS_URL``, as ``scripts/test`` sets them;
P = 1 stays the single process on SQLite, the baseline). Table t is made at process
t mod P, which owns it. ``spread``: seat k connects to process (t + k) mod P, as behind a
balancer that knows nothing of tables, so most moves go to the owner and back through
the broker; ``owner``: every seat connects to the owner. The broker hop's cost is the
difference of the two at the same P and N. Where the machine has 3 cores or more, the
load generator keeps the last one to itself and the servers share the others.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from tests.server_helpers import Server, new_database
from websockets.asyncio.client import ClientConnection, connect

from benchmarks.common import source_tree

console = Console()

GRACE = 3600.0
"""Seconds an absent player's seat waits for a bot: setting up thousands of tables takes
minutes, and a bot must not play the first tables' seats meanwhile."""


@dataclass
class TableLoad:
    """What the clients of one table saw."""

    id: str
    sent: dict[int, float] = field(default_factory=dict)  # moves_made before -> when sent
    seen: dict[int, list[float]] = field(default_factory=dict)  # moves_made -> receipts
    answered: list[tuple[float, float]] = field(default_factory=list)
    """(sent, reached the fourth seat) of every move that came back to all four."""
    last_seen: int = 0
    joined: list[int] = field(default_factory=list)  # each seat's first moves_made seen
    over_at: float | None = None
    """When a seat heard that the match was over."""

    def everyone(self) -> int | None:
        """The first move made once all four seats were connected (``None`` before):
        a move made earlier never reaches all four, and is not waited for."""
        return max(self.joined) if len(self.joined) == 4 else None

    def in_flight(self) -> bool:
        """Whether a move sent once everyone was there has not yet reached all four."""
        everyone = self.everyone()
        return everyone is not None and any(n >= everyone for n in self.sent)


@dataclass
class Totals:
    errors: int = 0
    error_texts: list[str] = field(default_factory=list)


@dataclass
class Window:
    """The measured time: every move *sent* in it is counted, whenever it comes back;
    after it ends no move is sent, and the clients wait up to ``settle`` seconds for the
    moves still in flight (a move back by then is late, one that never comes is lost)."""

    start: float = float("inf")
    end: float = float("inf")
    sending_until: float = float("inf")
    settle: float = 30.0


async def guest(client: httpx.AsyncClient, name: str) -> str:
    """Sign ``client`` in as a guest; the CSRF token of its new session."""
    csrf = (await client.get("/api/session")).json()["csrf"]
    response = await client.post("/guest", data={"name": name, "csrf": csrf})
    if response.status_code != 303:
        raise RuntimeError(f"guest sign-in failed: {response.status_code}")
    return str((await client.get("/api/session")).json()["csrf"])


def address_of(table: int, seat: int) -> str:
    """Each player's address of their own (the proxy header the server trusts from
    127.0.0.1), as at a public server: the limits per address hold each alone, for
    sign-in as for open websockets."""
    return f"10.{table // 256 % 256}.{table % 256}.{seat + 1}"


async def set_up_table(url: str, number: int) -> tuple[str, list[str]]:
    """Four guests at a new partnership table; their session cookies."""
    cookies: list[str] = []
    table_id = ""
    for seat in range(4):
        async with httpx.AsyncClient(
            base_url=url, timeout=60, headers={"X-Forwarded-For": address_of(number, seat)}
        ) as client:
            csrf = await guest(client, f"p{number}x{seat}")
            headers = {"X-CSRF-Token": csrf}
            if seat == 0:
                body = {
                    "game": "partnership",
                    "options": {"target": 30},
                    "seats": [{"kind": "me"}] + [{"kind": "open"}] * 3,
                }
                response = await client.post("/api/tables", json=body, headers=headers)
                table_id = response.json()["id"]
            else:
                response = await client.post(f"/api/tables/{table_id}/join", headers=headers)
            if response.status_code not in (200, 201):
                raise RuntimeError(f"table set-up failed: {response.text}")
            cookies.append("; ".join(f"{k}={v}" for k, v in client.cookies.items()))
    return table_id, cookies


async def open_socket(
    port: int, table: TableLoad, cookie: str, address: str, totals: Totals
) -> Any:
    """A client's websocket to its table (``None``, counted as an error, if it fails)."""
    uri = f"ws://127.0.0.1:{port}/ws/{table.id}"
    try:
        headers = {"Cookie": cookie, "X-Forwarded-For": address}
        return await connect(
            uri, additional_headers=headers, max_size=2**22, compression=None, open_timeout=60
        )
    except Exception as exc:
        totals.errors += 1
        totals.error_texts.append(f"connection: {exc!r}"[:200])
        return None


async def play(
    ws: ClientConnection | None, table: TableLoad, totals: Totals, window: Window, think: float
) -> None:
    if ws is None:
        return
    try:
        async with ws:
            await _play(ws, table, totals, window, think)
    except Exception as exc:  # a dropped connection is an error of the run
        totals.errors += 1
        totals.error_texts.append(f"connection: {exc!r}"[:200])


async def _play(
    ws: ClientConnection, table: TableLoad, totals: Totals, window: Window, think: float
) -> None:
    answered, first = -1, True
    while True:
        now = time.monotonic()
        if now >= window.sending_until and (
            not table.in_flight() or now >= window.sending_until + window.settle
        ):
            return
        try:
            frame = await asyncio.wait_for(ws.recv(), timeout=0.25)
        except TimeoutError:
            continue
        moment = time.monotonic()
        message = json.loads(frame)
        if message["type"] == "error":
            totals.errors += 1
            totals.error_texts.append(message["message"])
            continue
        if message["type"] != "state":
            continue
        made = message["moves_made"]
        if first:
            table.joined.append(made)
            first = False
        table.last_seen = max(table.last_seen, made)
        receipts = table.seen.setdefault(made, [])
        receipts.append(moment)
        if len(receipts) == 4:
            if made - 1 in table.sent:
                table.answered.append((table.sent.pop(made - 1), moment))
            del table.seen[made]
        if (message.get("match") or {}).get("over"):
            table.over_at = table.over_at or moment
            return
        legal = message.get("legal")
        # A table says its state again when a player comes or goes: one answer per
        # turn, as the page gives.
        if legal and made > answered and moment < window.sending_until:
            answered = made
            if think:
                await asyncio.sleep(think)
                if time.monotonic() >= window.sending_until:
                    continue
            table.sent[made] = time.monotonic()
            await ws.send(json.dumps({"v": 1, "type": "move", "move": 0, "moves_made": made}))


ANALYSING: list[int | None] = [None]
"""``pips serve --analyse-while-playing`` of the servers started (``None``: the server's
default); set from the command line."""


def start_servers(processes: int, home: Path) -> list[Server]:
    """One server on SQLite, or ``processes`` of them over PostgreSQL and the broker."""
    if processes == 1:
        # The server as it is run: it analyses games as they are played, by default.
        servers = [Server(home, bot_delay=0.0, grace=GRACE, analyse_while_playing=ANALYSING[0])]
    else:
        broker = os.environ.get("PIPS_TEST_REDIS_URL")
        if not broker:
            raise SystemExit(
                "several processes need PIPS_TEST_REDIS_URL (bash scripts/start-redis)"
            )
        database = new_database("postgresql", home)
        servers = []
        for number in range(processes):
            (home / f"node{number}").mkdir()
            extra = ("--broker", broker)
            node = Server(
                home / f"node{number}",
                database,
                bot_delay=0.0,
                grace=GRACE,
                extra=extra,
                analyse_while_playing=ANALYSING[0],
            )
            servers.append(node)
    cores = sorted(os.sched_getaffinity(0))
    for server in servers:
        server.start()
        if len(cores) >= 3 and server.process is not None:
            os.sched_setaffinity(server.process.pid, cores[:-1])
    if len(cores) >= 3:
        os.sched_setaffinity(0, cores[-1:])
    return servers


async def run_load(
    clients: int,
    seconds: float,
    warm_up: float,
    think: float,
    home: Path,
    processes: int = 1,
    placement: str = "spread",
    profile: Path | None = None,
    settle: float = 30.0,
) -> dict[str, Any]:
    servers = start_servers(processes, home)
    try:
        tables_count = clients // 4
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task(f"{clients} clients: setting up tables", total=tables_count)
            set_up: list[tuple[str, list[str]]] = []
            batch = 25
            for start in range(0, tables_count, batch):
                chunk = range(start, min(tables_count, start + batch))
                set_up += await asyncio.gather(
                    *(set_up_table(servers[n % processes].url, n) for n in chunk)
                )
                progress.advance(task, len(chunk))
        totals = Totals()
        loads = [TableLoad(table_id) for table_id, _ in set_up]

        def port(table: int, seat: int) -> int:
            shift = seat if placement == "spread" else 0
            return servers[(table + shift) % processes].port

        # Connected a few hundred at a time, before the clock starts: thousands of
        # handshakes at once time out, at the generator as at the server.
        wanted = [
            (port(t, seat), load, cookie, address_of(t, seat))
            for t, (load, (_, cookies)) in enumerate(zip(loads, set_up, strict=True))
            for seat, cookie in enumerate(cookies)
        ]
        sockets: list[Any] = []
        with console.status(f"{clients} clients connecting"):
            for start in range(0, len(wanted), 200):
                waiting = wanted[start : start + 200]
                sockets += await asyncio.gather(*(open_socket(*w, totals) for w in waiting))
        began = time.monotonic()
        end = began + warm_up + seconds
        window = Window(began + warm_up, end, end, settle)
        players = [
            play(ws, load, totals, window, think)
            for ws, (_, load, _, _) in zip(sockets, wanted, strict=True)
        ]

        async def measure_window() -> None:
            # The load generator is the measuring instrument: with 1000 clients in one
            # process its own full collections paused it for up to 260 ms, counted as
            # latency of the server. No collection while it measures and settles; the
            # last one a second before the window (made at its start, it delayed the
            # window's first moves: 64-84 moves over 100 ms, all in its first second).
            await asyncio.sleep(max(0.0, warm_up - 1.0))
            gc.collect()
            gc.disable()
            await asyncio.sleep(max(0.0, window.start - time.monotonic()))
            if profile is not None:
                spy = start_profile(servers[0], seconds, profile)
            shares.append(cpu_seconds(servers))
            server_side.append(await server_latencies(servers))
            await asyncio.sleep(max(0.0, window.end - time.monotonic()))
            shares.append(cpu_seconds(servers))
            server_side.append(await server_latencies(servers))
            if profile is not None:
                await asyncio.to_thread(spy.wait)

        shares: list[tuple[float, float]] = []
        server_side: list[dict[float, float]] = []
        with console.status(f"{clients} clients playing for {warm_up + seconds:.0f} s"):
            await asyncio.gather(*players, measure_window())
        gc.enable()
        # Lost moves: a move sent that never reached all four seats, however long the
        # clients waited; and every table's stored count must equal what its clients saw.
        lost = 0
        losses: list[str] = []
        async with httpx.AsyncClient(base_url=servers[-1].url, timeout=60) as api:
            for load in loads:
                stored = (await api.get(f"/api/tables/{load.id}")).json()["moves_made"]
                if stored != load.last_seen:
                    lost += abs(stored - load.last_seen)
                everyone = load.everyone()
                unanswered = sorted(n for n in load.sent if everyone is not None and n >= everyone)
                lost += len(unanswered)
                if stored != load.last_seen or unanswered:
                    losses.append(
                        f"{load.id}: stored {stored}, seen {load.last_seen}, "
                        f"unanswered {unanswered}"
                    )
        counted = [
            (sent, back)
            for load in loads
            for sent, back in load.answered
            if window.start <= sent < window.end
        ]
        late = sum(1 for _, back in counted if back > window.end)
        slow = sorted(
            (round(sent - window.start, 2), round((back - sent) * 1000, 1))
            for sent, back in counted
            if back - sent > 0.1
        )
        latencies = sorted(back - sent for sent, back in counted)
    finally:
        for server in servers:
            server.stop()

    def quantile(q: float) -> float:
        return (
            latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
            if latencies
            else float("nan")
        )

    return {
        "processes": processes,
        "placement": placement if processes > 1 else "-",
        "database": "sqlite" if processes == 1 else "postgresql",
        "clients": clients,
        "think_seconds": think,
        "tables": len(loads),
        "seconds": seconds,
        "moves": len(latencies),
        "moves_per_second": round(len(latencies) / seconds, 1),
        "p50_ms": round(quantile(0.50), 1),
        "p99_ms": round(quantile(0.99), 1),
        "mean_ms": round(statistics.fmean(latencies) * 1000, 1) if latencies else None,
        "errors": totals.errors,
        "error_examples": totals.error_texts[:5],
        "server_cpu_share": round((shares[1][0] - shares[0][0]) / seconds, 3),
        "generator_cpu_share": round((shares[1][1] - shares[0][1]) / seconds, 3),
        "server_side_within_ms": {
            str(round(bound * 1000, 1)): round(
                (server_side[1][bound] - server_side[0][bound])
                / max(1.0, server_side[1][float("inf")] - server_side[0][float("inf")]),
                5,
            )
            for bound in server_side[0]
        },
        # A table whose match is over makes no more moves: where most are over early in
        # the window, moves per second measures how long the matches were, not the server.
        "tables_over_in_window": sum(
            1 for load in loads if load.over_at is not None and load.over_at < window.end
        ),
        "table_seconds_playing": round(
            sum(
                max(0.0, min(window.end, load.over_at or window.end) - window.start)
                for load in loads
            ),
            1,
        ),
        "late_moves": late,
        "moves_over_100_ms": len(slow),
        # (seconds into the window it was sent, ms): clustered, a pause of everything.
        "slow_moves": slow[:300],
        "lost_moves": lost,
        "lost_examples": losses[:5],
    }


def run_generator(work: Coroutine[Any, Any, dict[str, Any]]) -> dict[str, Any]:
    """The load generator's event loop: uvloop where it is installed (as it is with the
    server's extra), as the server's own is. The generator is the measuring instrument:
    its pure-Python loop spent a third of a core on a thousand clients, and any time it
    lags is counted as the server's latency."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(work)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(work)


def cpu_seconds(servers: list[Server]) -> tuple[float, float]:
    """CPU seconds used so far by the server processes (together) and by this one."""
    used = 0.0
    for server in servers:
        assert server.process is not None
        fields = Path(f"/proc/{server.process.pid}/stat").read_text().rpartition(")")[2].split()
        used += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    mine = os.times()
    return used, mine.user + mine.system


async def server_latencies(servers: list[Server]) -> dict[float, float]:
    """The servers' own count of moves stored and told within each bound (seconds, from
    the move's arrival to its last send; ``/metrics``), summed over the processes: the
    server's share of the latency, without the network and the load generator."""
    counts: dict[float, float] = {}
    async with httpx.AsyncClient(timeout=60) as client:
        for server in servers:
            text = (await client.get(server.url + "/metrics")).text
            for line in text.splitlines():
                if line.startswith("pips_move_seconds_bucket"):
                    bound = line.split('le="')[1].split('"')[0]
                    value = float("inf") if bound == "+Inf" else float(bound)
                    counts[value] = counts.get(value, 0.0) + float(line.rsplit(" ", 1)[1])
    return counts


def start_profile(server: Server, seconds: float, path: Path) -> subprocess.Popen[bytes]:
    """py-spy sampling the server's process 200 times a second for the measured window,
    each thread only while it holds the GIL (so a sample is Python work, and what is not
    sampled is the process waiting): ``path`` as collapsed stacks, the input of flame
    graphs and of :func:`profile_summary`."""
    assert server.process is not None
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if spy is None:
        raise SystemExit("--profile needs py-spy: pip install py-spy")
    command = [spy, "record", "--pid", str(server.process.pid), "--rate", str(PROFILE_RATE)]
    command += ["--duration", str(max(1, round(seconds))), "--format", "raw", "--gil"]
    command += ["--threads", "--nonblocking", "--output", str(path)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


PROFILE_RATE = 200


def profile_summary(path: Path, seconds: float, top: int = 20) -> dict[str, Any]:
    """Where the server's time went (collapsed stacks from py-spy, per thread): each
    thread's share of the window holding the GIL, and the functions with the most
    samples at the top of the stack (self) and anywhere on it (total), as shares of
    the window."""
    window = PROFILE_RATE * seconds
    threads: dict[str, int] = {}
    own: dict[str, int] = {}
    anywhere: dict[str, int] = {}
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        thread, *frames = stack.split(";")
        name = thread.split('"')[1] if '"' in thread else thread
        threads[name] = threads.get(name, 0) + count
        names = [_frame_name(frame) for frame in frames]
        if names:
            own[names[-1]] = own.get(names[-1], 0) + count
        for frame in set(names):
            anywhere[frame] = anywhere.get(frame, 0) + count
    ranked = sorted(own, key=lambda f: -own[f])[:top]
    return {
        "threads": {
            t: round(n / window, 4) for t, n in sorted(threads.items(), key=lambda x: -x[1])
        },
        "functions": [
            {
                "function": f,
                "self": round(own[f] / window, 4),
                "total": round(anywhere[f] / window, 4),
            }
            for f in ranked
        ],
    }


def _frame_name(frame: str) -> str:
    """``function (module.py)`` of py-spy's ``function (path/to/module.py:line)``."""
    function, _, where = frame.partition(" (")
    return f"{function} ({where.split(':')[0].rsplit('/', 1)[-1]})"


def show_profile(found: dict[str, Any]) -> None:
    threads = ", ".join(f"{name} {share:.1%}" for name, share in found["threads"].items())
    console.print(f"the server's threads holding the GIL, share of the window: {threads}")
    table = Table(title="where the server's Python time went (py-spy --gil)")
    for column in ("function", "self", "total"):
        table.add_column(column, justify="left" if column == "function" else "right")
    for row in found["functions"]:
        table.add_row(row["function"], f"{row['self']:.1%}", f"{row['total']:.1%}")
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[100, 400, 1000])
    parser.add_argument("--seconds", type=float, default=20.0, help="measured time per N")
    parser.add_argument("--warm-up", type=float, default=3.0)
    parser.add_argument(
        "--think",
        type=float,
        nargs="+",
        default=[0.0, 0.6],
        help="seconds a client waits before answering its turn: 0 (as fast as the server "
        "goes) and 0.6 (the pace of the server's bots)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        nargs="+",
        default=[1],
        help="server processes (1: SQLite; more: PostgreSQL and the Redis broker)",
    )
    parser.add_argument(
        "--placement",
        nargs="+",
        choices=["spread", "owner"],
        default=["spread"],
        help="with several processes, where each seat connects (see the module's text)",
    )
    parser.add_argument("--runs", type=int, default=1, help="runs of each cell, one after another")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="sample the server with py-spy in each measured window: "
        "OUT/load_profiles/CELL.txt (collapsed stacks) and where the time went",
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=30.0,
        help="seconds the clients wait after the window for moves still in flight",
    )
    parser.add_argument("--name", help="the results' file name (default: load)")
    parser.add_argument(
        "--analyse-while-playing",
        type=int,
        help="the servers' setting (default: theirs, 4 games analysed as they are played)",
    )
    parser.add_argument(
        "--revisions",
        nargs="+",
        default=["."],
        help="serve each of these revisions of pips in turn (. is this tree), "
        "to compare them in one run",
    )
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    if not 1 <= args.runs <= 100:
        parser.error("--runs is 1 to 100")
    ANALYSING[0] = args.analyse_while_playing
    if any(n < 4 or n % 4 for n in args.clients) or args.seconds <= 0:
        parser.error("--clients are multiples of 4; --seconds is positive")
    if any(not 1 <= p <= 16 for p in args.processes):
        parser.error("--processes are 1 to 16")
    cells = [
        (think, processes, placement, clients)
        for _run in range(args.runs)
        for think in args.think
        for processes in args.processes
        for placement in (args.placement if processes > 1 else ["-"])
        for clients in args.clients
    ]
    several = args.processes != [1]
    name = args.name or ("load_processes" if several else "load")
    with contextlib.ExitStack() as stack:
        trees = {r: stack.enter_context(source_tree(r)) for r in args.revisions}
        results = run_cells(args, cells, trees, name)
    report(args, results, name, several)


def run_cells(
    args: argparse.Namespace,
    cells: list[tuple[float, int, str, int]],
    trees: dict[str, Path],
    name: str,
) -> list[dict[str, Any]]:
    """Every cell, with each revision's server in turn (interleaved, so that a noisy
    neighbour slows them alike); the results as they come."""
    results: list[dict[str, Any]] = []
    runs = [(cell, revision) for cell in cells for revision in trees]
    for number, ((think, processes, placement, clients), revision) in enumerate(runs, 1):
        profile = None
        if args.profile:
            profile = args.out / "load_profiles" / f"{name}-{number}-{clients}-{think}.txt"
            profile.parent.mkdir(parents=True, exist_ok=True)
        # The server processes run the revision's source (the load generator this one's).
        os.environ["PYTHONPATH"] = str(trees[revision] / "src")
        with tempfile.TemporaryDirectory() as home:
            run = run_load(
                clients,
                args.seconds,
                args.warm_up,
                think,
                Path(home),
                processes,
                placement,
                profile,
                args.settle,
            )
            results.append({"revision": revision, **run_generator(run)})
        r = results[-1]
        if profile is not None:
            r["profile"] = str(profile)
            r["profile_summary"] = profile_summary(profile, args.seconds)
            show_profile(r["profile_summary"])
        # Written after every cell: a long run stopped half way keeps what it measured.
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"{name}.json").write_text(json.dumps(results, indent=1) + "\n")
        console.print(
            f"{revision}: think {think} s, {processes} processes {r['placement']}, "
            f"{clients} clients: {r['moves_per_second']} moves/s, p50 {r['p50_ms']} ms, "
            f"p99 {r['p99_ms']} ms, {r['errors']} errors, {r['late_moves']} late, "
            f"{r['lost_moves']} lost"
        )
    return results


def report(
    args: argparse.Namespace, results: list[dict[str, Any]], name: str, several: bool
) -> None:
    title = "pips serve under load" + (
        " (1 process: SQLite; more: PostgreSQL and Redis)" if several else " (one process, SQLite)"
    )
    table = Table(title=title)
    columns = ("revision", "think s", "processes", "placement", "clients", "tables", "moves/s")
    for column in (*columns, "p50 ms", "p99 ms", "errors", "late", "lost"):
        table.add_column(column, justify="right")
    for r in results:
        table.add_row(
            r["revision"],
            str(r["think_seconds"]),
            str(r["processes"]),
            r["placement"],
            str(r["clients"]),
            str(r["tables"]),
            str(r["moves_per_second"]),
            str(r["p50_ms"]),
            str(r["p99_ms"]),
            str(r["errors"]),
            str(r["late_moves"]),
            str(r["lost_moves"]),
        )
    console.print(table)
    repeated = args.runs > 1 or len(args.revisions) > 1
    drawing = plot_runs if repeated else plot_processes if several else plot
    drawing(results, args.out / f"{name}.png")


def plot(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    series_keys = sorted({(r["think_seconds"], r["processes"], r["placement"]) for r in results})
    for think, processes, placement in series_keys:
        series = [
            r
            for r in results
            if (r["think_seconds"], r["processes"], r["placement"]) == (think, processes, placement)
        ]
        names = [str(r["clients"]) for r in series]
        where = "" if processes == 1 else f" {placement}"
        label = f"think {think} s, {processes} proc{where}"
        left.plot(names, [r["moves_per_second"] for r in series], marker="o", label=label)
        right.plot(names, [r["p99_ms"] for r in series], marker="s", label=f"p99, {label}")
    left.set(title="moves per second", xlabel="clients")
    left.legend(fontsize="small")
    right.axhline(100, color="grey", linestyle="--", label="target p99")
    right.set(title="move to every seat, p99 ms", xlabel="clients", yscale="log")
    right.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def plot_runs(results: list[dict[str, Any]], path: Path) -> None:
    """Every run of each cell, revision by revision: p99 (left) and the share of moves
    the server itself stored and told within 50 ms (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    revisions = list(dict.fromkeys(r["revision"] for r in results))
    cells = sorted({(r["think_seconds"], r["clients"]) for r in results})
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    for offset, (think, clients) in enumerate(cells):
        for x, revision in enumerate(revisions):
            runs = [
                r
                for r in results
                if (r["think_seconds"], r["clients"], r["revision"]) == (think, clients, revision)
            ]
            shift = x + 0.1 * offset
            label = f"think {think} s, {clients} clients" if x == 0 else None
            color = f"C{offset}"
            left.scatter([shift] * len(runs), [r["p99_ms"] for r in runs], color=color, label=label)
            slow = [1 - r["server_side_within_ms"]["50.0"] for r in runs]
            right.scatter([shift] * len(runs), [100 * v for v in slow], color=color, label=label)
    for axis in (left, right):
        axis.set_xticks(range(len(revisions)), revisions, rotation=20, fontsize="small")
        axis.legend(fontsize="small")
    left.axhline(100, color="grey", linestyle="--")
    left.set(title="move to every seat, p99 ms (each run a dot)", ylim=(0, None))
    right.set(title="moves the server took over 50 ms for, %", ylim=(0, None))
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def plot_processes(results: list[dict[str, Any]], path: Path) -> None:
    """The matrix against the number of processes: a row per think time, moves per
    second on the left and p99 on the right, a line per client count and placement (the
    single process, P = 1, starts both placements' lines)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    thinks = sorted({r["think_seconds"] for r in results})
    figure, axes = plt.subplots(len(thinks), 2, figsize=(11, 4 * len(thinks)), squeeze=False)
    counts = sorted({r["processes"] for r in results})
    for row, think in zip(axes, thinks, strict=True):
        left, right = row
        for clients in sorted({r["clients"] for r in results}):
            for placement, style in (("spread", "--"), ("owner", "-")):
                series = sorted(
                    (
                        r
                        for r in results
                        if r["think_seconds"] == think
                        and r["clients"] == clients
                        and r["placement"] in (placement, "-")
                    ),
                    key=lambda r: r["processes"],
                )
                if len(series) < 2:
                    continue
                x = [r["processes"] for r in series]
                label = f"{clients} clients, {placement}"
                left.plot(
                    x, [r["moves_per_second"] for r in series], style, marker="o", label=label
                )
                right.plot(x, [r["p99_ms"] for r in series], style, marker="s", label=label)
        left.set(title=f"think {think} s: moves per second", xlabel="processes", xticks=counts)
        left.set_ylim(bottom=0)
        right.axhline(100, color="grey", linestyle=":", label="target p99")
        right.set(
            title=f"think {think} s: move to every seat, p99 ms",
            xlabel="processes",
            xticks=counts,
            yscale="log",
        )
        left.legend(fontsize="small")
        right.legend(fontsize="small")
    figure.suptitle("pips serve on 2 cores: 1 process on SQLite; 2 and 4 on PostgreSQL and Redis")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


if __name__ == "__main__":
    main()
