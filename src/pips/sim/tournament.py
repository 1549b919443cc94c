"""Duplicate tournaments between bots, on local processes or a Dask cluster.

Every deal is played once per rotation of the bots around the table, so each bot holds
each hand of the deal from each seat and the luck of the deal cancels ("duplicate").
Deals are independent tasks: a pool of local processes plays them by default, a Dask
cluster when given a scheduler address, through the same ``concurrent.futures``
interface. Each finished deal is appended to ``results.jsonl`` in the output folder at
once, so an interrupted tournament resumes from that file without replaying a deal.

Statistics treat the deal as the unit: a bot's points in a deal are its mean over the
hands and seats it played, so the samples are independent and a 95% interval is
``mean ± 1.96 s / sqrt(n)`` over deals. Differences between two bots are paired by deal.
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import os
import random
import signal
import socket
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from pips.bots.base import make_bot
from pips.core.errors import OptionError
from pips.core.phrase import phrase
from pips.games.match import Match
from pips.games.options import GameOptions
from pips.games.registry import Game, find_game
from pips.sim import uninterrupted
from pips.sim.seating import Seating

FORMAT = "pips.tournament/1"
RESULTS = "results.jsonl"
Z95 = 1.959964


@dataclass(frozen=True)
class Tournament:
    """What is played: the game, its options, a bot name per seat, how many deals, and
    the seed of the first deal."""

    game: str
    options: GameOptions
    seats: tuple[str, ...]
    deals: int
    seed: int = 1

    @classmethod
    def of(
        cls, spec: Game, options: GameOptions, bots: Sequence[str], deals: int, seed: int = 1
    ) -> Tournament:
        """Validate and fill the seats: ``bots`` are repeated around the table in order."""
        names = [b.strip() for b in bots if b.strip()]
        if not names:
            raise OptionError("bots", phrase("a tournament needs at least one bot"))
        for name in dict.fromkeys(names):
            make_bot(name)  # an unknown bot or a bad setting is refused before any play
        if len(set(names)) < 2:
            raise OptionError("bots", phrase("a tournament needs at least two different bots"))
        if deals < 1:
            raise OptionError(
                "hands", phrase("a tournament plays at least 1 deal, not {deals}", deals=deals)
            )
        seats = tuple(names[i % len(names)] for i in range(options.players))
        return cls(spec.name, options, seats, deals, seed)

    @property
    def bots(self) -> list[str]:
        """The distinct bots, in seat order."""
        return list(dict.fromkeys(self.seats))

    def rotations(self) -> list[tuple[str, ...]]:
        """The distinct turns of the seating around the table (duplicate play)."""
        turns: list[tuple[str, ...]] = []
        n = len(self.seats)
        for shift in range(n):
            turn = tuple(self.seats[(i - shift) % n] for i in range(n))
            if turn not in turns:
                turns.append(turn)
        return turns

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "game": self.game,
            "options": self.options.to_json(),
            "seats": list(self.seats),
            "deals": self.deals,
            "seed": self.seed,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tournament:
        """A tournament as its file's header (or a worker's task) writes it: its
        options read once, here."""
        if data.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} file header")
        spec = find_game(data["game"])
        options = spec.options_from_json(data["options"])
        return cls(spec.name, options, tuple(data["seats"]), data["deals"], data["seed"])


def deal_seed(tournament: Tournament, deal: int) -> int:
    return tournament.seed * 1_000_003 + deal


def play_deal(tournament_json: dict[str, Any], deal: int) -> dict[str, Any]:
    """Play one deal in every rotation (a task: runs in a worker process)."""
    tournament = Tournament.from_json(tournament_json)
    spec = find_game(tournament.game)
    options = tournament.options
    seed = deal_seed(tournament, deal)
    dealt = spec.deal(options, random.Random(seed))
    hands = []
    for turn_number, turn in enumerate(tournament.rotations()):
        state = spec.from_deal(options, dealt.hands, dealt.stock, dealt.voided)
        seating = Seating(
            Match.of_hand(spec, state), [make_bot(name) for name in turn], f"{seed}:{turn_number}"
        )
        try:
            seating.play_bots(hand_only=True)
        finally:
            seating.close()
        result = state.result
        assert result is not None
        hands.append(
            {
                "seats": list(turn),
                "points": list(result.final),
                "ranks": list(result.ranks),
                "ended": result.ended.value,
                "decisions": seating.decisions,
                "seconds": [round(s, 6) for s in seating.seconds],
            }
        )
    return {"deal": deal, "seed": seed, "hands": hands}


# -- running -------------------------------------------------------------------------------


@contextmanager
def executor_for(scheduler: str | None, workers: int | None) -> Iterator[Executor]:
    """A local process pool, or a Dask cluster's executor for ``tcp://HOST:PORT``."""
    if scheduler is None:
        with ProcessPoolExecutor(
            max_workers=workers or os.cpu_count() or 1, initializer=_leave_interrupts_to_parent
        ) as pool:
            yield pool
        return
    client_of: Any
    try:
        from distributed import Client as client_of
    except ImportError:  # pragma: no cover - dask is a dependency
        raise OptionError(
            "scheduler", phrase("Dask is not installed: pip install 'pips[cluster]'")
        ) from None
    try:
        address = _host_port(scheduler)
    except ValueError:
        raise OptionError(
            "scheduler",
            phrase("{scheduler!r} is not an address like tcp://HOST:PORT", scheduler=scheduler),
        ) from None
    try:
        if address is not None:
            # Dask's client retries a refused connection for its whole timeout (ten
            # seconds) before saying so; a plain connection says it at once.
            socket.create_connection(address, timeout=10).close()
        client = client_of(scheduler, timeout=10)
    except (OSError, TimeoutError) as error:
        raise OptionError(
            "scheduler",
            phrase(
                "cannot reach the Dask scheduler {scheduler}: {error}",
                scheduler=scheduler,
                error=error,
            ),
        ) from None
    with client:
        yield client.get_executor(pure=False)


def _host_port(scheduler: str) -> tuple[str, int] | None:
    """The host and port of a TCP or TLS scheduler address (``None`` for Dask's other
    transports); ``ValueError`` for an address Dask cannot read."""
    from distributed.comm.addressing import parse_address, parse_host_port

    protocol, where = parse_address(scheduler)
    if protocol not in ("tcp", "tls"):
        return None
    host, port = parse_host_port(where)
    return str(host), int(port)


def finished(out_dir: Path, tournament: Tournament) -> dict[int, dict[str, Any]]:
    """The deals already played in ``out_dir`` (for resuming); refuses a folder that
    holds another tournament. The same tournament with another number of deals is the
    same tournament: a deal's seed depends on its number alone (:func:`deal_seed`), so
    more deals extend it and fewer read its first ones."""
    path = out_dir / RESULTS
    done: dict[int, dict[str, Any]] = {}
    if not path.exists():
        return done
    with path.open(encoding="utf-8") as lines:
        header = next(lines, "")
        try:
            earlier = Tournament.from_json(json.loads(header))
        except (ValueError, KeyError, TypeError):
            raise OptionError(
                "out", phrase("{path} is not a pips tournament file", path=path)
            ) from None
        if replace(earlier, deals=tournament.deals) != tournament:
            raise OptionError(
                "out",
                phrase(
                    "{path} holds a different tournament ({game}, {seats})",
                    path=path,
                    game=earlier.game,
                    seats=earlier.seats,
                ),
            )
        for line in lines:
            try:
                row = json.loads(line)
                done[int(row["deal"])] = row
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by an interruption: that deal is played again
    return done


def run(
    tournament: Tournament,
    out_dir: Path,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Play every deal not yet in ``out_dir`` and return all deals' rows, in order.
    ``progress(done, total)`` is called as deals finish."""
    out_dir.mkdir(parents=True, exist_ok=True)
    done = finished(out_dir, tournament)
    path = out_dir / RESULTS
    todo = [d for d in range(tournament.deals) if d not in done]
    if done and todo:
        _rewrite_header(path, tournament)
    with path.open("a", encoding="utf-8") as sink:
        if path.stat().st_size == 0:
            sink.write(json.dumps(tournament.to_json()) + "\n")
            sink.flush()
        elif not path.read_bytes().endswith(b"\n"):
            sink.write("\n")  # after a row cut short, so that the next row stands alone
        if progress is not None:
            progress(len(done), tournament.deals)
        if todo:
            if any(name.startswith("search") for name in tournament.seats):
                # Compile the playout kernel once here, so that the workers only read
                # numba's cache instead of racing to write it.
                from pips.bots.search import warm_up

                warm_up(tournament.game, tournament.options)
            with executor_for(scheduler, workers) as executor:
                flight = _InFlight(executor, tournament, todo)
                try:
                    for row in flight.rows():
                        with uninterrupted():  # a row is written once, whole
                            done[row["deal"]] = row
                            sink.write(json.dumps(row, separators=(",", ":")) + "\n")
                            sink.flush()
                            flight.written()
                        if progress is not None:
                            progress(len(done), tournament.deals)
                except KeyboardInterrupt:
                    # Deals that finished while the interrupt came are kept; the ones
                    # being played are dropped at once rather than waited for.
                    for row in flight.stop():
                        done[row["deal"]] = row
                        sink.write(json.dumps(row, separators=(",", ":")) + "\n")
                    sink.flush()
                    if progress is not None:
                        progress(len(done), tournament.deals)
                    raise
    return [done[d] for d in range(tournament.deals)]


def _leave_interrupts_to_parent() -> None:
    """In a worker: ignore Ctrl-C, which the terminal sends to every process of the
    command; the parent decides (it keeps the finished deals and stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _rewrite_header(path: Path, tournament: Tournament) -> None:
    """Give an extended tournament's file its new number of deals, keeping every row: a
    new file beside it replaces it at once, so an interruption leaves one or the other."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[0] = json.dumps(tournament.to_json()) + "\n"
    if lines[-1] and not lines[-1].endswith("\n"):
        lines.pop()  # a row cut short by an interruption: that deal is played again
    fresh = path.with_suffix(".tmp")
    fresh.write_text("".join(lines), encoding="utf-8")
    os.replace(fresh, path)


class _InFlight:
    """Deals played by ``executor``, with a bounded number queued (so an interrupt loses
    little and memory stays flat)."""

    def __init__(self, executor: Executor, tournament: Tournament, deals: Iterable[int]) -> None:
        self.executor = executor
        self.data = tournament.to_json()
        self.queue = iter(deals)
        self.pending: set[Future[dict[str, Any]]] = set()
        self.current: Future[dict[str, Any]] | None = None

    def written(self) -> None:
        """The row just yielded is written down: an interrupt need not keep it again."""
        if self.current is not None:
            self.pending.discard(self.current)
            self.current = None

    def rows(self) -> Iterator[dict[str, Any]]:
        """Each deal's row as it finishes."""
        limit = 4 * (os.cpu_count() or 1) + 4
        for deal in self.queue:
            self.pending.add(self.executor.submit(play_deal, self.data, deal))
            if len(self.pending) >= limit:
                break
        while self.pending:
            ready, _ = wait(self.pending, return_when=FIRST_COMPLETED)
            for future in ready:
                self.current = future
                yield future.result()
                following = next(self.queue, None)
                if following is not None:
                    self.pending.add(self.executor.submit(play_deal, self.data, following))

    def stop(self) -> list[dict[str, Any]]:
        """Cancel what is queued, end the local workers now, and return the rows of the
        deals that had finished."""
        finished = [
            f.result()
            for f in self.pending
            if f.done() and not f.cancelled() and f.exception() is None
        ]
        self.executor.shutdown(wait=False, cancel_futures=True)
        if isinstance(self.executor, ProcessPoolExecutor):
            for worker in multiprocessing.active_children():
                worker.terminate()
        self.pending.clear()
        return finished


# -- statistics ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    mean: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Estimate:
        n = len(samples)
        if n == 0:
            return cls(math.nan, math.nan, math.nan, 0)
        mean = sum(samples) / n
        if n == 1:
            return cls(mean, math.nan, math.nan, 1)
        var = sum((x - mean) ** 2 for x in samples) / (n - 1)
        half = Z95 * math.sqrt(var / n)
        return cls(mean, mean - half, mean + half, n)

    @classmethod
    def share(cls, samples: Sequence[float]) -> Estimate:
        """The mean of shares in [0, 1] with Wilson's score interval, which stays
        inside [0, 1] (a normal interval around 1% of 200 deals goes below 0)."""
        n = len(samples)
        if n == 0:
            return cls(math.nan, math.nan, math.nan, 0)
        p = sum(samples) / n
        z2 = Z95 * Z95
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
        # At 0 and 1 the bound is exact (rounding would leave it a hair inside).
        low = 0.0 if p <= 0 else max(0.0, centre - half)
        high = 1.0 if p >= 1 else min(1.0, centre + half)
        return cls(p, low, high, n)

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    def __str__(self) -> str:
        return f"{self.mean:.2f} [{self.low:.2f}, {self.high:.2f}]"


@dataclass
class BotSummary:
    bot: str
    hands: int
    points: Estimate
    """Points per hand (the hand's score: FIDO's final, the others' points gained)."""
    wins: Estimate
    """How often one of its seats wins a hand (a shared first place is split); with
    ``n`` seats an even table gives each bot ``1/n``."""
    decided_wins: float
    """Of the hands won by one bot alone, the share this bot won."""
    moves_per_second: float
    decisions: int


@dataclass
class Summary:
    tournament: Tournament
    deals: int
    bots: list[BotSummary]
    differences: dict[str, Estimate] = field(default_factory=dict)
    """``"A - B"``: points per hand of A minus B, paired by deal."""

    def to_json(self) -> dict[str, Any]:
        return {
            "tournament": self.tournament.to_json(),
            "deals": self.deals,
            "bots": [
                {
                    **{k: v for k, v in asdict(b).items() if k not in ("points", "wins")},
                    "points": asdict(b.points),
                    "wins": asdict(b.wins),
                }
                for b in self.bots
            ],
            "differences": {k: asdict(v) for k, v in self.differences.items()},
        }


def summarize(tournament: Tournament, rows: Sequence[dict[str, Any]]) -> Summary:
    names = tournament.bots
    points: dict[str, list[float]] = {b: [] for b in names}
    wins: dict[str, list[float]] = {b: [] for b in names}
    sole = dict.fromkeys(names, 0)
    decided = 0
    hands = dict.fromkeys(names, 0)
    decisions = dict.fromkeys(names, 0)
    seconds = dict.fromkeys(names, 0.0)
    for row in rows:
        deal_points: dict[str, list[float]] = {b: [] for b in names}
        deal_wins: dict[str, list[float]] = {b: [] for b in names}
        for hand in row["hands"]:
            seats, ranks = hand["seats"], hand["ranks"]
            winners = [s for s, r in enumerate(ranks) if r == 1]
            owners = {seats[s] for s in winners}
            if len(owners) == 1:
                decided += 1
                sole[next(iter(owners))] += 1
            for bot in names:
                mine = [s for s, name in enumerate(seats) if name == bot]
                deal_points[bot].append(sum(hand["points"][s] for s in mine) / len(mine))
                # Per seat, so that a bot holding two seats is not counted twice.
                won = sum(1 for s in winners if seats[s] == bot) / len(winners)
                deal_wins[bot].append(won / len(mine))
                hands[bot] += 1
            for s, name in enumerate(seats):
                decisions[name] += hand["decisions"][s]
                seconds[name] += hand["seconds"][s]
        for bot in names:
            points[bot].append(sum(deal_points[bot]) / len(deal_points[bot]))
            wins[bot].append(sum(deal_wins[bot]) / len(deal_wins[bot]))
    bots = [
        BotSummary(
            bot,
            hands[bot],
            Estimate.of(points[bot]),
            Estimate.share(wins[bot]),
            sole[bot] / decided if decided else math.nan,
            decisions[bot] / seconds[bot] if seconds[bot] > 0 else math.inf,
            decisions[bot],
        )
        for bot in names
    ]
    differences = {
        f"{a} - {b}": Estimate.of([x - y for x, y in zip(points[a], points[b], strict=True)])
        for i, a in enumerate(names)
        for b in names[i + 1 :]
    }
    return Summary(tournament, len(rows), bots, differences)


def write_outputs(summary: Summary, out_dir: Path) -> list[Path]:
    """``summary.json``, ``summary.csv`` and the table drawn as ``summary.png``."""
    json_path = out_dir / "summary.json"
    json_path.write_text(json.dumps(summary.to_json(), indent=1) + "\n", encoding="utf-8")
    csv_path = out_dir / "summary.csv"
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "bot",
                "hands",
                "points_per_hand",
                "points_low95",
                "points_high95",
                "win_share",
                "win_low95",
                "win_high95",
                "moves_per_second",
            ]
        )
        for b in summary.bots:
            writer.writerow(
                [
                    b.bot,
                    b.hands,
                    f"{b.points.mean:.4f}",
                    f"{b.points.low:.4f}",
                    f"{b.points.high:.4f}",
                    f"{b.wins.mean:.4f}",
                    f"{b.wins.low:.4f}",
                    f"{b.wins.high:.4f}",
                    f"{b.moves_per_second:.1f}",
                ]
            )
    png_path = out_dir / "summary.png"
    draw(summary, png_path)
    return [json_path, csv_path, png_path]


def draw(summary: Summary, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bots = summary.bots
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 0.6 * len(bots) + 2.6))
    labels = [b.bot for b in bots]
    panels = (
        (left, [b.points for b in bots], "points per hand"),
        (right, [b.wins for b in bots], "win share"),
    )
    for axes, values, title in panels:
        means = [v.mean for v in values]
        errors = [
            [v.mean - v.low if v.n > 1 else 0 for v in values],
            [v.high - v.mean if v.n > 1 else 0 for v in values],
        ]
        axes.barh(labels, means, xerr=errors, color="tab:blue", capsize=4)
        axes.axvline(0, color="black", linewidth=0.8)
        axes.invert_yaxis()
        axes.set(title=f"{title} (95% interval)")
    t = summary.tournament
    spec = find_game(t.game)
    figure.suptitle(
        f"{spec.in_brief(t.options)}\n"
        f"{summary.deals} deals x {len(t.rotations())} rotations, duplicate",
        wrap=True,
    )
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
