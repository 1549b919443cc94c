"""The world list at scale: computing a month from 100,000 results of 5,000 players, and
serving the list page over that data from SQLite.

    python -m benchmarks.world_list                     # 100,000 results, 5,000 players
    python -m benchmarks.world_list --results 20000 --players 1000 --requests 200

1. 100,000 FIDO results (3 to 9 players each, double-6 to double-18, played over the two
   years up to October 2026, entered during October) go into a fresh SQLite database.
2. Baseline, in this process: openskill's PlackettLuce ``rate`` over the same games in
   the same order, nothing else (no database, no decay).
3. ``Results.compute_month("2026-10")``: read every counted result, rate them with the
   decay, publish the list (5,000 rows). Target: under 30 s on this machine.
4. ``pips serve`` over that database in its own process; the list page (100 rows, with
   the movements) requested ``--requests`` times at random pages, one at a time from
   here, and for comparison ``/api/session`` (a page that reads nothing). Target: p99
   under 100 ms.

Results go to ``benchmarks/results/world_list.json`` and ``world_list.png``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from openskill.models import PlackettLuce
from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from sqlalchemy import insert
from tests.server_helpers import Server

from pips.games.fido_count import DIVISORS, HAND_SIZES
from pips.results.entry import Entry, Line, check
from pips.results.service import Results
from pips.server import accounts
from pips.store.db import Database
from pips.store.models import Player, Result, ResultPlayer

console = Console()
OUT = Path(__file__).parent / "results"
MONTH_END = date(2026, 10, 31)


def generate(count: int, players: int, seed: int) -> list[Any]:
    """Checked FIDO results: random tables of the player pool, random plausible scores."""
    rng = random.Random(seed)
    pool = [f"Player {i:05d}" for i in range(players)]
    games = []
    for _ in range(count):
        seated = rng.randint(3, 9)
        top = rng.choice([t for t in DIVISORS if HAND_SIZES[seated][t] >= 2])
        names = rng.sample(pool, seated)
        out = rng.randrange(seated)
        lines = tuple(
            Line(n, rng.randint(0, 60), 0 if i == out else rng.randint(0, 4 * top), i == out)
            for i, n in enumerate(names)
        )
        day = MONTH_END - timedelta(days=rng.randint(0, 729))
        games.append(check(Entry("fido", day, top, lines, "Benchmark"), MONTH_END))
    return games


def load(db: Database, games: list[Any], seed: int) -> None:
    """Bulk insert (the entry path checks one batch at a time; this is set-up)."""
    rng = random.Random(seed)
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("storing results", total=len(games))
        chunk = 5000
        pool = sorted({line.name for g in games for line in g.entry.lines})
        player_ids = {name: i for i, name in enumerate(pool, 1)}
        with db.engine.begin() as connection:
            connection.execute(
                insert(Player),
                [
                    {"id": i, "name": name, "name_key": name.casefold(), "group_id": 1}
                    for name, i in player_ids.items()
                ],
            )
        for start in range(0, len(games), chunk):
            part = games[start : start + chunk]
            with db.engine.begin() as connection:
                first = start + 1
                connection.execute(
                    insert(Result),
                    [
                        {
                            "id": first + i,
                            "game": "fido",
                            "played_on": g.entry.played_on,
                            "place": g.entry.place,
                            "set": g.entry.top,
                            "divisor": g.divisor,
                            "source": "csv",
                            "entered_at": datetime(2026, 10, 1)
                            + timedelta(minutes=rng.randint(0, 40000)),
                            "status": "confirmed",
                            "confirmed_by": "group",
                            "group_id": 1,
                            "rated": True,
                            "fingerprint": g.fingerprint(),
                        }
                        for i, g in enumerate(part)
                    ],
                )
                connection.execute(
                    insert(ResultPlayer),
                    [
                        {
                            "result_id": first + i,
                            "seat": seat,
                            "name": line.name,
                            "player_id": player_ids[line.name],
                            "team": seat,
                            "points": line.points,
                            "pips": line.pips,
                            "out": line.out,
                            "final": g.final[seat],
                            "rank": g.ranks[seat],
                        }
                        for i, g in enumerate(part)
                        for seat, line in enumerate(g.entry.lines)
                    ],
                )
            progress.advance(task, len(part))


def trust_checks(service: Results, actor: int, seed: int) -> tuple[float, float, int]:
    """Entering 2,000 new results of the approved group in batches of 500 through the
    service (players found among 5,000, duplicates, anomalies, confirmation), against
    the rules' check of the same results alone (the baseline, same process)."""
    rng = random.Random(seed + 1)
    pool = [f"Player {i:05d}" for i in range(1, 5000)]
    entries = []
    for _ in range(2000):
        names = ["Player 00000", *rng.sample(pool, 3)]
        lines = tuple(Line(n, rng.randint(0, 40), rng.randint(0, 20)) for n in names)
        day = date(2026, 10, rng.randint(1, 31))
        entries.append(Entry("fido", day, 12, lines, "Benchmark"))
    started = time.perf_counter()
    checked = [check(e, MONTH_END) for e in entries]
    check_s = time.perf_counter() - started
    started = time.perf_counter()
    for first in range(0, len(checked), 500):
        service.entries.enter(
            actor, checked[first : first + 500], source="api", group="benchmark-club"
        )
    return check_s, check_s + time.perf_counter() - started, len(checked)


def bare_openskill(games: list[Any]) -> float:
    """Seconds openskill alone takes to rate the games in order."""
    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    ordered = sorted(enumerate(games), key=lambda pair: (pair[1].entry.played_on, pair[0]))
    started = time.perf_counter()
    for _, game in ordered:
        names = game.entry.names
        teams = [[ratings.get(n) or model.rating(name=n)] for n in names]
        for name, team in zip(
            names, model.rate(teams, ranks=[float(r) for r in game.ranks]), strict=True
        ):
            ratings[name] = team[0]
    return time.perf_counter() - started


def latencies(client: httpx.Client, paths: list[str]) -> list[float]:
    measured = []
    for path in paths:
        started = time.perf_counter()
        response = client.get(path)
        measured.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
    return measured


def spread(values: list[float]) -> dict[str, float]:
    """The median and the 99th percentile, in ms to a tenth."""
    return {"p50": round(statistics.median(values), 1), "p99": round(percentile(values, 0.99), 1)}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=5_000)
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="pips-bench-") as folder:
        home = Path(folder)
        url = f"sqlite:///{home / 'pips.db'}"
        db = Database(url)
        db.upgrade()
        representative = accounts.create_account(db, "Player 00000", "password1")
        admin = accounts.create_account(db, "Root", "password1")
        service = Results(db, clock=lambda: datetime(2026, 11, 1, 6))
        service.admin.set_admin("Root")
        service.groups.create(representative.id, "Benchmark Club")
        service.admin.approve_group(admin.id, "benchmark-club")
        with console.status(f"generating {args.results:,} results"):
            games = generate(args.results, args.players, args.seed)
        load(db, games, args.seed)
        with console.status("baseline: openskill alone"):
            baseline = bare_openskill(games)
        with console.status("the trust checks of entering results"):
            check_s, enter_s, entered = trust_checks(service, representative.id, args.seed)
        with console.status("computing and publishing October 2026"):
            started = time.perf_counter()
            published = service.lists.compute_month("2026-10")
            computed = time.perf_counter() - started
        listed = published[0]["players"]
        db.dispose()

        server = Server(home, url).start()
        try:
            client = httpx.Client(base_url=server.url, timeout=30)
            rng = random.Random(args.seed)
            pages = max(1, listed // 100)
            list_paths = [
                f"/list?game=fido&page_number={rng.randint(1, pages)}" for _ in range(args.requests)
            ]
            latencies(client, list_paths[:20])  # warm the server's caches and connections
            with console.status("requesting list pages"):
                base = latencies(client, ["/api/session"] * args.requests)
                page = latencies(client, list_paths)
                numbers = [rng.randint(1, pages) for _ in range(args.requests // 5)]
                api = latencies(
                    client, [f"/api/lists/fido?offset={100 * (k - 1)}" for k in numbers]
                )
                # Not a target: the results page (50 of 100,000, newest first, counted).
                shown = latencies(
                    client, [f"/results?page_number={rng.randint(1, 200)}" for _ in numbers]
                )
        finally:
            server.stop()

    report = {
        "results": args.results,
        "players": args.players,
        "listed": listed,
        "baseline_openskill_s": round(baseline, 2),
        "compute_month_s": round(computed, 2),
        "compute_vs_openskill": round(computed / baseline, 2),
        "compute_target_s": 30,
        "list_page_ms": spread(page),
        "session_ms": spread(base),
        "list_api_ms": spread(api),
        "results_page_ms": spread(shown),
        "list_page_vs_session_p50": round(statistics.median(page) / statistics.median(base), 1),
        "list_target_p99_ms": 100,
        "requests": args.requests,
        "entered_with_trust_checks": entered,
        "check_only_ms_per_result": round(1000 * check_s / entered, 3),
        "enter_ms_per_result": round(1000 * enter_s / entered, 3),
        "enter_vs_check": round(enter_s / check_s, 2),
    }
    table = Table(title=f"world list: {args.results:,} results, {args.players:,} players")
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("openskill alone (baseline)", f"{baseline:.1f} s")
    table.add_row(
        "compute + publish October",
        f"{computed:.1f} s ({computed / baseline:.2f}x baseline; target 30 s)",
    )
    table.add_row(
        "list page p50 / p99",
        f"{report['list_page_ms']['p50']} / {report['list_page_ms']['p99']} ms (target p99 100 ms)",
    )
    table.add_row(
        "/api/session p50 / p99",
        f"{report['session_ms']['p50']} / {report['session_ms']['p99']} ms",
    )
    table.add_row(
        "list API p50 / p99", f"{report['list_api_ms']['p50']} / {report['list_api_ms']['p99']} ms"
    )
    table.add_row(
        f"enter {entered:,} results (names, duplicates, anomalies, trust)",
        f"{report['enter_ms_per_result']} ms each ({report['enter_vs_check']}x the rules' "
        f"check alone, {report['check_only_ms_per_result']} ms)",
    )
    table.add_row(
        "results page p50 / p99",
        f"{report['results_page_ms']['p50']} / {report['results_page_ms']['p99']} ms (no target)",
    )
    console.print(table)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "world_list.json").write_text(json.dumps(report, indent=2) + "\n")
    plot(page, base, computed, baseline, args.out / "world_list.png")


def plot(
    page: list[float], base: list[float], computed: float, baseline: float, path: Path
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.bar(
        ["openskill alone", "compute + publish"], [baseline, computed], color=["#999", "#2b7a4b"]
    )
    left.axhline(30, color="#c33", linestyle="--", label="target 30 s")
    left.set(title="a month from all results", ylabel="seconds")
    left.legend()
    right.hist(
        [base, page], bins=40, label=["/api/session", "list page"], color=["#999", "#2b7a4b"]
    )
    right.axvline(100, color="#c33", linestyle="--", label="target p99 100 ms")
    right.set(title="list page latency", xlabel="ms", ylabel="requests")
    right.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


if __name__ == "__main__":
    main()
