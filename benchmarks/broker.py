"""The broker hop alone: how long a message takes from one server process to another
through Redis pub/sub and through PostgreSQL LISTEN/NOTIFY, the two brokers issue 21
allows (docs/server.md, "Why Redis pub/sub").

    python -m benchmarks.broker                  # 3000 messages per size and broker
    python -m benchmarks.broker --messages 500

A listener process subscribes; this process publishes messages of the sizes a table
sends (a move frame, a typical state message, a long double-18 layout) one after
another, each as soon as the previous one came back, so the figure is the round trip
publisher -> broker -> listener -> broker -> publisher, halved. Both brokers run on
127.0.0.1 (``PIPS_TEST_REDIS_URL``, ``PIPS_TEST_POSTGRES_URL``, as ``scripts/test`` sets
them). NOTIFY refuses payloads of 8000 bytes or more: the table says so for that size.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

console = Console()

SIZES = {"move frame": 60, "state message": 1_500, "double-18 state": 10_000}
"""Bytes of the messages measured: a client's move, a state message of a partnership
table (about 1.5 KB as JSON), and the median state message of a double-18 table for
nine (9.9 KB over a hand of greedy bots; the largest, with the sheet, 35 KB)."""


def echo_redis(url: str, ready: Any) -> None:
    """The listener: send every message on "ping" back on "pong"."""
    import redis

    client: Any = redis.Redis.from_url(url)  # redis-py is partly typed
    pubsub = client.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe("bench:ping")
    ready.set()
    for item in pubsub.listen():
        if item["data"] == b"stop":
            return
        client.publish("bench:pong", item["data"])


def echo_postgres(url: str, ready: Any) -> None:
    import psycopg

    with (
        psycopg.connect(url, autocommit=True) as listen,
        psycopg.connect(url, autocommit=True) as talk,
    ):
        listen.execute("LISTEN bench_ping")
        ready.set()
        for note in listen.notifies():
            if note.payload == "stop":
                return
            talk.execute("SELECT pg_notify('bench_pong', %s)", (note.payload,))


async def redis_trips(url: str, payload: str, count: int, progress: Any) -> list[float]:
    import redis.asyncio as aioredis

    client: Any = aioredis.from_url(url)
    pubsub = client.pubsub(ignore_subscribe_messages=True)
    await pubsub.subscribe("bench:pong")
    trips = []
    replies = pubsub.listen()
    for _ in range(count):
        began = time.perf_counter()
        await client.publish("bench:ping", payload)
        await anext(replies)
        trips.append((time.perf_counter() - began) / 2)
        progress()
    await pubsub.aclose()
    await client.aclose()
    return trips


async def postgres_trips(url: str, payload: str, count: int, progress: Any) -> list[float]:
    import psycopg

    async with (
        await psycopg.AsyncConnection.connect(url, autocommit=True) as listen,
        await psycopg.AsyncConnection.connect(url, autocommit=True) as talk,
    ):
        await listen.execute("LISTEN bench_pong")
        notes = listen.notifies()
        trips = []
        for _ in range(count):
            began = time.perf_counter()
            await talk.execute("SELECT pg_notify('bench_ping', %s)", (payload,))
            await anext(notes)
            trips.append((time.perf_counter() - began) / 2)
            progress()
        await notes.aclose()  # else closing the connection waits for it forever
        return trips


def measure(broker: str, url: str, size: int, count: int, progress: Any) -> dict[str, Any]:
    payload = json.dumps({"op": "text", "conn": "0" * 16, "text": "x" * size})
    row: dict[str, Any] = {"broker": broker, "bytes": len(payload)}
    if broker == "postgresql" and len(payload.encode()) >= 8000:
        row["refused"] = "payload over NOTIFY's 8000-byte limit"
        return row
    ready = multiprocessing.Event()
    target = echo_redis if broker == "redis" else echo_postgres
    listener = multiprocessing.Process(target=target, args=(url, ready), daemon=True)
    listener.start()
    ready.wait(30)
    trips_of = redis_trips if broker == "redis" else postgres_trips
    try:
        asyncio.run(trips_of(url, payload, 100, lambda: None))  # warm up
        trips = sorted(asyncio.run(trips_of(url, payload, count, progress)))
    finally:
        listener.terminate()
        listener.join(5)
    row.update(
        {
            "messages": count,
            "p50_ms": round(trips[len(trips) // 2] * 1000, 3),
            "p99_ms": round(trips[int(len(trips) * 0.99)] * 1000, 3),
            "mean_ms": round(statistics.fmean(trips) * 1000, 3),
            "round_trips_per_second": round(1 / statistics.fmean(trips) / 2, 1),
        }
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    if not 1 <= args.messages <= 1_000_000:
        parser.error("--messages is 1 to 1000000")
    redis_url = os.environ.get("PIPS_TEST_REDIS_URL")
    postgres_url = os.environ.get("PIPS_TEST_POSTGRES_URL")
    if not (redis_url and postgres_url):
        raise SystemExit(
            "set PIPS_TEST_REDIS_URL and PIPS_TEST_POSTGRES_URL "
            "(bash scripts/start-redis, bash scripts/start-postgres)"
        )
    brokers = {"redis": redis_url, "postgresql": postgres_url}
    results = []
    with Progress(console=console, transient=True) as progress:
        for name, size in SIZES.items():
            for broker, url in brokers.items():
                task = progress.add_task(f"{broker}: {name}", total=args.messages)
                row = measure(broker, url, size, args.messages, lambda t=task: progress.advance(t))
                row["message"] = name
                results.append(row)
    table = Table(title="The broker hop (one way, half a round trip; 127.0.0.1)")
    for column in ("message", "bytes", "broker", "p50 ms", "p99 ms", "round trips/s"):
        table.add_column(column, justify="right")
    for r in results:
        table.add_row(
            r["message"],
            str(r["bytes"]),
            r["broker"],
            str(r.get("p50_ms", r.get("refused"))),
            str(r.get("p99_ms", "-")),
            str(r.get("round_trips_per_second", "-")),
        )
    console.print(table)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "broker.json").write_text(json.dumps(results, indent=1) + "\n")
    plot(results, args.out / "broker.png")


def plot(results: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7, 4))
    names = list(SIZES)
    width = 0.38
    for offset, broker in ((-width / 2, "redis"), (width / 2, "postgresql")):
        rows = {r["message"]: r for r in results if r["broker"] == broker}
        p50 = [rows[n].get("p50_ms", 0) for n in names]
        p99 = [rows[n].get("p99_ms", 0) for n in names]
        spots = [i + offset for i in range(len(names))]
        axis.bar(spots, p99, width, alpha=0.35, label=f"{broker} p99")
        axis.bar(spots, p50, width, label=f"{broker} p50")
        for spot, name in zip(spots, names, strict=True):
            if "refused" in rows[name]:
                axis.text(spot, 0.01, "over 8000 B:\nrefused", ha="center", fontsize=7)
    axis.set_xticks(range(len(names)), names)
    axis.set(title="one broker hop, ms", ylabel="ms")
    axis.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


if __name__ == "__main__":
    main()
