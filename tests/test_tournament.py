"""Duplicate tournaments: rotations, statistics, resuming, local processes and Dask."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from pips.core.errors import OptionError
from pips.games.fido import FidoState
from pips.games.registry import find_game
from pips.sim import tournament as tour
from tests.test_cli import run


def tournament_of(
    game: str, options: dict[str, Any], bots: list[str], deals: int, seed: int = 1
) -> tour.Tournament:
    """A tournament of ``game`` with ``options`` as the command line reads them."""
    spec = find_game(game)
    return tour.Tournament.of(spec, spec.options_from_json(options), bots, deals, seed)


def small(bots: list[str], deals: int = 6, game: str = "fido", **options: Any) -> tour.Tournament:
    options = options or {"players": 3, "set": 6}
    return tournament_of(game, options, bots, deals, seed=5)


def test_rotations_give_every_bot_every_seat() -> None:
    t = small(["expert", "greedy", "random"])
    turns = t.rotations()
    assert len(turns) == 3
    for seat in range(3):
        assert sorted(turn[seat] for turn in turns) == ["expert", "greedy", "random"]
    pairs = tournament_of("partnership", {}, ["search:easy", "greedy"], 2)
    assert pairs.seats == ("search:easy", "greedy", "search:easy", "greedy")
    assert pairs.rotations() == [
        ("search:easy", "greedy", "search:easy", "greedy"),
        ("greedy", "search:easy", "greedy", "search:easy"),
    ]


def test_bad_setups_are_refused() -> None:
    with pytest.raises(OptionError, match="two different"):
        small(["greedy"])
    with pytest.raises(OptionError, match="unknown bot"):
        small(["greedy", "wizard"])
    with pytest.raises(OptionError, match="at least 1 deal"):
        small(["greedy", "random"], deals=0)
    with pytest.raises(OptionError):
        tournament_of("fido", {"players": 2}, ["greedy", "random"], 3)


def test_a_deal_is_the_same_deal_in_every_rotation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Duplicate: every rotation starts from the same tiles, and a deal replays."""
    dealt: list[Any] = []
    real = FidoState.__init__

    def spying(self: FidoState, options: Any, hands: Any, *rest: Any) -> None:
        dealt.append([list(h) for h in hands])
        real(self, options, hands, *rest)

    monkeypatch.setattr(FidoState, "__init__", spying)
    t = tournament_of("fido", {"players": 3, "set": 9}, ["greedy", "random", "expert"], 1)
    row = tour.play_deal(t.to_json(), 0)
    assert len(dealt) == 3 and dealt[0] == dealt[1] == dealt[2]
    assert [h["seats"] for h in row["hands"]] == [list(x) for x in t.rotations()]
    assert without_timings([tour.play_deal(t.to_json(), 0)]) == without_timings([row])


def without_timings(rows: list[dict[str, Any]]) -> list[Any]:
    return [[{k: v for k, v in h.items() if k != "seconds"} for h in r["hands"]] for r in rows]


def test_estimates() -> None:
    e = tour.Estimate.of([1.0, 2.0, 3.0, 4.0])
    assert e.mean == 2.5 and e.low < 2.5 < e.high and e.n == 4
    half = 1.959964 * math.sqrt((1.5**2 + 0.5**2) * 2 / 3 / 4)
    assert e.high - e.mean == pytest.approx(half)
    assert tour.Estimate.of([5.0, 5.0]).excludes_zero
    assert not tour.Estimate.of([-1.0, 1.0]).excludes_zero


def test_summary_points_wins_and_paired_differences() -> None:
    t = small(["greedy", "random"], deals=2)
    rows = [
        {
            "deal": d,
            "hands": [
                {
                    "seats": ["greedy", "random", "greedy"],
                    "points": [10, 2, 6],
                    "ranks": [1, 3, 2],
                    "decisions": [3, 3, 3],
                    "seconds": [0.1, 0.1, 0.1],
                },
                {
                    "seats": ["random", "greedy", "greedy"],
                    "points": [4 + d, 8, 8],
                    "ranks": [3, 1, 1],
                    "decisions": [3, 3, 3],
                    "seconds": [0.1, 0.1, 0.1],
                },
            ],
        }
        for d in range(2)
    ]
    t = tour.Tournament("fido", t.options, ("greedy", "random", "greedy"), 2, 5)
    summary = tour.summarize(t, rows)
    greedy, random_ = summary.bots
    assert greedy.points.mean == pytest.approx((8 + 8) / 2)
    assert random_.points.mean == pytest.approx(((2 + 4) / 2 + (2 + 5) / 2) / 2)
    assert greedy.wins.mean == pytest.approx(0.5)  # one of its two seats wins each hand
    assert random_.wins.mean == 0
    assert greedy.decided_wins == 1.0
    assert summary.differences["greedy - random"].mean == pytest.approx(8 - 3.25)
    assert greedy.moves_per_second == pytest.approx(24 / 0.8)


def test_run_writes_and_resumes_without_replaying(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = small(["expert", "greedy", "random"], deals=5)
    rows = tour.run(t, tmp_path, workers=2)
    assert [r["deal"] for r in rows] == list(range(5))
    lines = (tmp_path / tour.RESULTS).read_text().splitlines()
    assert json.loads(lines[0])["format"] == tour.FORMAT and len(lines) == 6
    # Interrupted: the last deal's line is cut short and two deals never ran.
    (tmp_path / tour.RESULTS).write_text("\n".join(lines[:3]) + "\n" + lines[3][:20])
    played = count_deals_played(monkeypatch)
    again = tour.run(t, tmp_path)
    # Workers finish in any order, so the two whole lines kept may be any two deals.
    kept = {json.loads(line)["deal"] for line in lines[1:3]}
    assert sorted(played) == sorted(set(range(5)) - kept)
    assert without_timings(again) == without_timings(rows)
    with pytest.raises(OptionError, match="different tournament"):
        tour.run(small(["expert", "random"], deals=5), tmp_path)
    # The row after the one cut short stands on a line of its own.
    assert len(tour.finished(tmp_path, t)) == 5


def test_more_deals_extend_a_tournament_and_fewer_read_its_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deal's seed is its number's alone: a tournament run again with more deals plays
    only the new ones and gives what one run of them all gives."""
    whole = tour.run(small(["expert", "greedy", "random"], deals=5), tmp_path / "whole")
    first = tour.run(small(["expert", "greedy", "random"], deals=3), tmp_path / "grown")
    played = count_deals_played(monkeypatch)
    grown = tour.run(small(["expert", "greedy", "random"], deals=5), tmp_path / "grown")
    assert sorted(played) == [3, 4]
    assert without_timings(grown[:3]) == without_timings(first)
    assert without_timings(grown) == without_timings(whole)
    header = (tmp_path / "grown" / tour.RESULTS).read_text().splitlines()[0]
    assert json.loads(header)["deals"] == 5
    fewer = tour.run(small(["expert", "greedy", "random"], deals=2), tmp_path / "grown")
    assert sorted(played) == [3, 4]
    assert without_timings(fewer) == without_timings(whole[:2])


def count_deals_played(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From now on deals run in this process, one at a time; the list fills with the
    number of each deal played."""
    played: list[int] = []
    real = tour.play_deal

    def counting(data: dict[str, Any], deal: int) -> dict[str, Any]:
        played.append(deal)
        return real(data, deal)

    monkeypatch.setattr(tour, "play_deal", counting)
    monkeypatch.setattr(tour, "executor_for", _inline_executor)
    return played


class _Inline:
    """An executor that runs each task at once in this process (to count them)."""

    def submit(self, fn: Any, *args: Any) -> Any:
        from concurrent.futures import Future

        future: Future[Any] = Future()
        future.set_result(fn(*args))
        return future


def _inline_executor(scheduler: str | None, workers: int | None) -> Any:
    from contextlib import nullcontext

    return nullcontext(_Inline())


@pytest.mark.slow
def test_dask_cluster_gives_the_same_results(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    t = small(["greedy", "random", "expert"], deals=4)
    local = tour.run(t, tmp_path / "local", workers=1)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        remote = tour.run(t, tmp_path / "dask", scheduler=cluster.scheduler_address)
    assert without_timings(remote) == without_timings(local)


def test_cli_tournament_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t"
    args = [
        "tournament",
        "--game",
        "partnership",
        "--teams",
        "fixed",
        "--bots",
        "expert,random",
        "--hands",
        "6",
        "--out",
        str(out),
        "--workers",
        "1",
    ]
    code, printed, _ = run(args, capsys)
    assert code == 0
    assert "expert - random" in printed and "points per hand" in printed
    for name in ("results.jsonl", "summary.json", "summary.csv", "summary.png"):
        assert (out / name).stat().st_size > 0
    summary = json.loads((out / "summary.json").read_text())
    assert [b["bot"] for b in summary["bots"]] == ["expert", "random"]
    assert (out / "summary.png").read_bytes()[:4] == b"\x89PNG"
    assert run(args, capsys)[0] == 0  # resumed: nothing left to play, same summary
    assert json.loads((out / "summary.json").read_text())["bots"] == summary["bots"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "greedy"], "two different"),
        (["--bots", "greedy,nobody"], "unknown bot"),
        (["--bots", "greedy,random", "--hands", "0"], "at least 1 deal"),
        (["--bots", "greedy,random", "--workers", "0"], "--workers"),
        (["--bots", "greedy,random", "--scheduler", "tcp://127.0.0.1:9"], "Dask scheduler"),
        (["--bots", "greedy,random", "--scheduler", "127.0.0.1"], "tcp://HOST:PORT"),
    ],
)
def test_cli_tournament_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, err = run(
        ["tournament", "--game", "fido", "--players", "3", "--out", str(tmp_path), *args], capsys
    )
    assert code == 2
    assert message in err
