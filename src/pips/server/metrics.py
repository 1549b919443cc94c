"""What a server process reports about itself, in the Prometheus text format
(``/metrics``): its tables and clients, the moves it has stored and how long each took
from its arrival to its published state; the age of the newest scheduled backup."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from pips.store.backup import BACKUP_DIR, age

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Seconds: a move is stored and told in a few milliseconds at rest, 100 ms is slow."""


class Metrics:
    """One process's metrics, in a registry of their own (several apps in one test
    process must not share counters)."""

    def __init__(self, node_id: str) -> None:
        self.registry = CollectorRegistry()
        self.node = node = {"node": node_id}
        self.moves = Counter(
            "pips_moves", "Moves stored and told.", ["node"], registry=self.registry
        ).labels(**node)
        self.latency = Histogram(
            "pips_move_seconds",
            "Seconds from a move's arrival to its stored, published state.",
            ["node"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        ).labels(**node)

        folder = os.environ.get(BACKUP_DIR)
        if folder:
            Gauge(
                "pips_backup_age_seconds",
                "Seconds since the newest scheduled backup (+Inf: none yet).",
                registry=self.registry,
            ).set_function(lambda: age(Path(folder)))

    def moved(self, seconds: float) -> None:
        self.moves.inc()
        self.latency.observe(seconds)

    def count(self, counts: Callable[[], dict[str, int]]) -> None:
        """Report the live counts ``counts()`` gives (the cluster's: tables, clients and
        forwarded clients) whenever the metrics are read."""
        for name, what, key in (
            ("pips_tables", "Live tables this process owns.", "tables"),
            (
                "pips_clients",
                "Clients of the tables this process owns (wherever connected).",
                "clients",
            ),
            (
                "pips_forwarded_clients",
                "Clients connected here to tables another process owns.",
                "forwarded",
            ),
        ):
            gauge = Gauge(name, what, ["node"], registry=self.registry).labels(**self.node)
            gauge.set_function(lambda key=key: counts()[key])  # type: ignore[misc]

    def text(self) -> bytes:
        return generate_latest(self.registry)
