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
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
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
from tests.server_helpers import Server
from websockets.asyncio.client import ClientConnection, connect

console = Console()


@dataclass
class TableLoad:
    """What the clients of one table saw."""

    id: str
    sent: dict[int, float] = field(default_factory=dict)  # moves_made before -> when sent
    seen: dict[int, list[float]] = field(default_factory=dict)  # moves_made -> receipts
    latencies: list[float] = field(default_factory=list)
    last_seen: int = 0


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


async def play(
    port: int,
    table: TableLoad,
    cookie: str,
    totals: Totals,
    until: float,
    measuring: list[bool],
    think: float,
) -> None:
    uri = f"ws://127.0.0.1:{port}/ws/{table.id}"
    try:
        headers = {"Cookie": cookie}
        async with connect(uri, additional_headers=headers, max_size=2**22, compression=None) as ws:
            await _play(ws, table, totals, until, measuring, think)
    except Exception as exc:  # a failed or dropped connection is an error of the run
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
        if legal and moment < until - 1.0:
            if think:
                await asyncio.sleep(think)
            table.sent[made] = time.monotonic()
            await ws.send(json.dumps({"v": 1, "type": "move", "move": 0, "moves_made": made}))


async def run_load(
    clients: int, seconds: float, warm_up: float, think: float, home: Path
) -> dict[str, Any]:
    server = Server(home, bot_delay=0.0).start()
    try:
        tables_count = clients // 4
        with Progress(console=console, transient=True) as progress:
            task = progress.add_task(f"{clients} clients: setting up tables", total=tables_count)
            set_up: list[tuple[str, list[str]]] = []
            batch = 25
            for start in range(0, tables_count, batch):
                chunk = range(start, min(tables_count, start + batch))
                set_up += await asyncio.gather(*(set_up_table(server.url, n) for n in chunk))
                progress.advance(task, len(chunk))
        totals = Totals()
        loads = [TableLoad(table_id) for table_id, _ in set_up]
        measuring = [False]
        began = time.monotonic()
        until = began + warm_up + seconds
        players = [
            play(server.port, load, cookie, totals, until, measuring, think)
            for load, (_, cookies) in zip(loads, set_up, strict=True)
            for cookie in cookies
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
        async with httpx.AsyncClient(base_url=server.url, timeout=60) as api:
            for load in loads:
                stored = (await api.get(f"/api/tables/{load.id}")).json()["moves_made"]
                if stored != load.last_seen:
                    lost += abs(stored - load.last_seen)
                lost += len(load.sent)
        latencies = sorted(x for load in loads for x in load.latencies)
    finally:
        server.stop()

    def quantile(q: float) -> float:
        return (
            latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
            if latencies
            else float("nan")
        )

    return {
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
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    if any(n < 4 or n % 4 for n in args.clients) or args.seconds <= 0:
        parser.error("--clients are multiples of 4; --seconds is positive")
    results = []
    for think in args.think:
        for clients in args.clients:
            with tempfile.TemporaryDirectory() as home:
                run = run_load(clients, args.seconds, args.warm_up, think, Path(home))
                results.append(asyncio.run(run))
    table = Table(title="pips serve under load (one server process, SQLite)")
    for column in ("think s", "clients", "tables", "moves/s", "p50 ms", "p99 ms", "errors", "lost"):
        table.add_column(column, justify="right")
    for r in results:
        table.add_row(
            str(r["think_seconds"]),
            str(r["clients"]),
            str(r["tables"]),
            str(r["moves_per_second"]),
            str(r["p50_ms"]),
            str(r["p99_ms"]),
            str(r["errors"]),
            str(r["lost_moves"]),
        )
    console.print(table)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "load.json").write_text(json.dumps(results, indent=1) + "\n")
    plot(results, args.out / "load.png")


def plot(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for think in sorted({r["think_seconds"] for r in results}):
        series = [r for r in results if r["think_seconds"] == think]
        names = [str(r["clients"]) for r in series]
        label = f"think {think} s"
        left.plot(names, [r["moves_per_second"] for r in series], marker="o", label=label)
        right.plot(names, [r["p50_ms"] for r in series], marker="o", label=f"p50, {label}")
        right.plot(names, [r["p99_ms"] for r in series], marker="s", label=f"p99, {label}")
    left.set(title="moves per second", xlabel="clients")
    left.legend()
    right.axhline(100, color="grey", linestyle="--", label="target p99")
    right.set(title="move to every seat, ms", xlabel="clients", yscale="log")
    right.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


if __name__ == "__main__":
    main()
