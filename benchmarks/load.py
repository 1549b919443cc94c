"""Load on the pips server: N websocket clients on N/4 partnership tables, playing as
fast as the server lets them, from a process of their own.

    python -m benchmarks.load                 # N = 100, 400, 1000; 20 s each
    python -m benchmarks.load --clients 100 --seconds 5

The server (``pips serve``, SQLite in a fresh folder, bots not used: four people per
table) runs in one process, this load generator in another, both on 127.0.0.1. Every
client answers its turn with its first legal move, at once (``--think 0``, as fast as
the server goes) or after the pace of the server's bots (``--think 0.6``). Reported per
N: moves per second, the latency from sending a move until every seat of the table has
received the update (p50, p99), errors (error messages, failed connections) and lost
moves (a move sent that did not reach all four seats, or a table whose stored move count
differs from what its clients saw; no move is sent in the last second, so every one can
arrive). Target on a 2-core machine: N = 1000 with p99 under 100 ms and no error or lost
move.

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
import gc
import json
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from tests.server_helpers import Server, new_database
from websockets.asyncio.client import ClientConnection, connect

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
    latencies: list[float] = field(default_factory=list)
    last_seen: int = 0
    joined: list[int] = field(default_factory=list)  # each seat's first moves_made seen


@dataclass
class Totals:
    errors: int = 0
    error_texts: list[str] = field(default_factory=list)
    moves: int = 0


async def guest(client: httpx.AsyncClient, name: str) -> str:
    """Sign ``client`` in as a guest; the CSRF token of its new session."""
    csrf = (await client.get("/api/session")).json()["csrf"]
    response = await client.post("/guest", data={"name": name, "csrf": csrf})
    if response.status_code != 303:
        raise RuntimeError(f"guest sign-in failed: {response.status_code}")
    return str((await client.get("/api/session")).json()["csrf"])


async def set_up_table(url: str, number: int) -> tuple[str, list[str]]:
    """Four guests at a new partnership table; their session cookies."""
    cookies: list[str] = []
    table_id = ""
    for seat in range(4):
        # Each player from an address of their own (the proxy header the server trusts
        # from 127.0.0.1), as at a public server: the limits per address hold each alone.
        address = f"10.{number // 256 % 256}.{number % 256}.{seat + 1}"
        async with httpx.AsyncClient(
            base_url=url, timeout=60, headers={"X-Forwarded-For": address}
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


async def open_socket(port: int, table: TableLoad, cookie: str, totals: Totals) -> Any:
    """A client's websocket to its table (``None``, counted as an error, if it fails)."""
    uri = f"ws://127.0.0.1:{port}/ws/{table.id}"
    try:
        headers = {"Cookie": cookie}
        return await connect(
            uri, additional_headers=headers, max_size=2**22, compression=None, open_timeout=60
        )
    except Exception as exc:
        totals.errors += 1
        totals.error_texts.append(f"connection: {exc!r}"[:200])
        return None


async def play(
    ws: ClientConnection | None,
    table: TableLoad,
    totals: Totals,
    until: float,
    measuring: list[bool],
    think: float,
) -> None:
    if ws is None:
        return
    try:
        async with ws:
            await _play(ws, table, totals, until, measuring, think)
    except Exception as exc:  # a dropped connection is an error of the run
        totals.errors += 1
        totals.error_texts.append(f"connection: {exc!r}"[:200])


async def _play(
    ws: ClientConnection,
    table: TableLoad,
    totals: Totals,
    until: float,
    measuring: list[bool],
    think: float,
) -> None:
    answered, first = -1, True
    while time.monotonic() < until:
        try:
            frame = await asyncio.wait_for(ws.recv(), timeout=max(0.1, until - time.monotonic()))
        except TimeoutError:
            return
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
        if len(receipts) == 4 and made - 1 in table.sent:
            if measuring[0]:
                table.latencies.append(moment - table.sent.pop(made - 1))
                totals.moves += 1
            else:
                table.sent.pop(made - 1)
            del table.seen[made]
        if (message.get("match") or {}).get("over"):
            return
        legal = message.get("legal")
        # The last second only drains: every move sent must come back to all four seats.
        # A table says its state again when a player comes or goes: one answer per
        # turn, as the page gives.
        if legal and made > answered and moment < until - 1.0:
            answered = made
            if think:
                await asyncio.sleep(think)
            table.sent[made] = time.monotonic()
            await ws.send(json.dumps({"v": 1, "type": "move", "move": 0, "moves_made": made}))


def start_servers(processes: int, home: Path) -> list[Server]:
    """One server on SQLite, or ``processes`` of them over PostgreSQL and the broker."""
    if processes == 1:
        servers = [Server(home, bot_delay=0.0, grace=GRACE)]
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
            node = Server(home / f"node{number}", database, bot_delay=0.0, grace=GRACE, extra=extra)
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
        measuring = [False]

        def port(table: int, seat: int) -> int:
            shift = seat if placement == "spread" else 0
            return servers[(table + shift) % processes].port

        # Connected a few hundred at a time, before the clock starts: thousands of
        # handshakes at once time out, at the generator as at the server.
        wanted = [
            (port(t, seat), load, cookie)
            for t, (load, (_, cookies)) in enumerate(zip(loads, set_up, strict=True))
            for seat, cookie in enumerate(cookies)
        ]
        sockets: list[Any] = []
        with console.status(f"{clients} clients connecting"):
            for start in range(0, len(wanted), 200):
                waiting = wanted[start : start + 200]
                sockets += await asyncio.gather(*(open_socket(*w, totals) for w in waiting))
        began = time.monotonic()
        until = began + warm_up + seconds
        players = [
            play(ws, load, totals, until, measuring, think)
            for ws, (_, load, _) in zip(sockets, wanted, strict=True)
        ]

        async def measure_window() -> float:
            await asyncio.sleep(warm_up)
            # The load generator is the measuring instrument: with 1000 clients in one
            # process its own full collections paused it for up to 260 ms, counted as
            # latency of the server. No collection while it measures (the window is short).
            gc.collect()
            gc.disable()
            measuring[0] = True
            start = time.monotonic()
            await asyncio.sleep(seconds)
            measuring[0] = False
            gc.enable()
            return time.monotonic() - start

        with console.status(f"{clients} clients playing for {warm_up + seconds:.0f} s"):
            window_task = asyncio.ensure_future(measure_window())
            await asyncio.gather(*players, window_task)
            window = window_task.result()
        # Lost moves: every table's stored count must equal what its clients saw, and
        # every move sent must have come back (the run ends mid-move for at most one).
        lost = 0
        losses: list[str] = []
        async with httpx.AsyncClient(base_url=servers[-1].url, timeout=60) as api:
            for load in loads:
                stored = (await api.get(f"/api/tables/{load.id}")).json()["moves_made"]
                if stored != load.last_seen:
                    lost += abs(stored - load.last_seen)
                # A move made before every seat had connected never reaches all four:
                # only a move sent once all were there must come back to each.
                everyone = max(load.joined) if len(load.joined) == 4 else stored + 1
                unanswered = sorted(n for n in load.sent if n >= everyone)
                lost += len(unanswered)
                if stored != load.last_seen or unanswered:
                    losses.append(
                        f"{load.id}: stored {stored}, seen {load.last_seen}, "
                        f"unanswered {unanswered}"
                    )
        latencies = sorted(x for load in loads for x in load.latencies)
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
        "seconds": round(window, 2),
        "moves": totals.moves,
        "moves_per_second": round(totals.moves / window, 1),
        "p50_ms": round(quantile(0.50), 1),
        "p99_ms": round(quantile(0.99), 1),
        "mean_ms": round(statistics.fmean(latencies) * 1000, 1) if latencies else None,
        "errors": totals.errors,
        "error_examples": totals.error_texts[:5],
        "lost_moves": lost,
        "lost_examples": losses[:5],
    }


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
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    if any(n < 4 or n % 4 for n in args.clients) or args.seconds <= 0:
        parser.error("--clients are multiples of 4; --seconds is positive")
    if any(not 1 <= p <= 16 for p in args.processes):
        parser.error("--processes are 1 to 16")
    cells = [
        (think, processes, placement, clients)
        for think in args.think
        for processes in args.processes
        for placement in (args.placement if processes > 1 else ["-"])
        for clients in args.clients
    ]
    several = args.processes != [1]
    name = "load_processes" if several else "load"
    results = []
    for think, processes, placement, clients in cells:
        with tempfile.TemporaryDirectory() as home:
            run = run_load(
                clients, args.seconds, args.warm_up, think, Path(home), processes, placement
            )
            results.append(asyncio.run(run))
        r = results[-1]
        # Written after every cell: a long run stopped half way keeps what it measured.
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"{name}.json").write_text(json.dumps(results, indent=1) + "\n")
        console.print(
            f"think {think} s, {processes} processes {r['placement']}, {clients} clients: "
            f"{r['moves_per_second']} moves/s, p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, "
            f"{r['errors']} errors, {r['lost_moves']} lost"
        )
    title = "pips serve under load" + (
        " (1 process: SQLite; more: PostgreSQL and Redis)" if several else " (one process, SQLite)"
    )
    table = Table(title=title)
    columns = ("think s", "processes", "placement", "clients", "tables", "moves/s")
    for column in (*columns, "p50 ms", "p99 ms", "errors", "lost"):
        table.add_column(column, justify="right")
    for r in results:
        table.add_row(
            str(r["think_seconds"]),
            str(r["processes"]),
            r["placement"],
            str(r["clients"]),
            str(r["tables"]),
            str(r["moves_per_second"]),
            str(r["p50_ms"]),
            str(r["p99_ms"]),
            str(r["errors"]),
            str(r["lost_moves"]),
        )
    console.print(table)
    (plot_processes if several else plot)(results, args.out / f"{name}.png")


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
