"""Analysis of finished games (`pips analyse`): every decision valued from the deciding
seat's view only, the loss against the best choice, flags by size, a summary per player,
the same figures from the same seed, files and a plot."""

from __future__ import annotations

import functools
import itertools
import json
import os
import random
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from pips import record
from pips.bots.analysis import SIZES, analyse
from pips.bots.base import make_bot
from pips.bots.search import SearchBot
from pips.core.legal import representatives
from pips.core.view import View
from pips.games.match import Match
from pips.games.registry import find_game
from pips.sim.seating import Seating
from pips.tui.replay import ReplayApp
from pips.tui.screens import TextScreen
from tests.server_helpers import Browser, running, wait_for
from tests.test_cli import run
from tests.test_tui import rendered, run_app, text_of


def a_record(game: str, options: dict[str, Any], bots: list[str], seed: int) -> dict[str, Any]:
    """A finished match of ``bots``, as its record."""
    spec = find_game(game)
    match = Match(spec, spec.options_from_json(options), random.Random(seed))
    seating = Seating(match, [make_bot(b) for b in bots], seed)
    while not match.is_over:
        seating.play(seating.decide())
    return record.write_record(match, [f"{b}-{i}" for i, b in enumerate(bots)], seed=seed)


def test_every_decision_is_valued_from_the_deciders_view_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = a_record("fido", {"players": 4, "set": 9}, ["greedy", "random"] * 2, seed=3)
    replayed = record.replay(data)
    seen: list[View] = []
    original = SearchBot.expected

    def spy(self: SearchBot, view: View, candidates: Any, rng: random.Random) -> np.ndarray:
        seen.append(view)
        return original(self, view, candidates, rng)

    monkeypatch.setattr(SearchBot, "expected", spy)
    found = analyse(replayed, "300", seed=5)
    assert len(seen) == len(found.decisions) > 0
    hands = replayed.match.hand_states[0]
    state = find_game("fido").from_deal(replayed.options, hands.dealt.hands, hands.dealt.stock)
    at = {d.move: (d, view) for d, view in zip(found.decisions, seen, strict=True)}
    for number, event in enumerate(hands.history, 1):
        if number in at:
            decision, view = at[number]
            # The view searched is exactly what the seat to move could see then.
            assert decision.seat == state.current_seat
            assert view == state.view(decision.seat)
            assert len(representatives(state.legal_moves())) == len(decision.choices) > 1
        else:  # a position with one choice that matters is no decision
            assert len(representatives(state.legal_moves())) == 1
        state.play(event.move)


def test_losses_flags_and_the_summary_add_up() -> None:
    data = a_record("partnership", {"target": 3}, ["greedy", "random", "greedy", "random"], 2)
    replayed = record.replay(data)
    found = analyse(replayed, "300", seed=1)
    small, medium, large = replayed.spec.mistake_points
    for d in found.decisions:
        values = dict(d.choices)
        assert d.loss == pytest.approx(max(values.values()) - values[d.played])
        assert values[d.best] == max(values.values())
        floors = zip(reversed(SIZES), (large, medium, small), strict=True)
        assert d.size == next((size for size, floor in floors if d.loss >= floor), "")
    for line in found.summary():
        mine = [d for d in found.decisions if d.seat == line.seat]
        assert line.decisions == len(mine)
        assert line.average_loss == pytest.approx(sum(d.loss for d in mine) / len(mine))
        assert sum(line.flagged.values()) == sum(1 for d in mine if d.size)
    # The same seed gives the same figures.
    again = analyse(replayed, "300", seed=1)
    assert [d.choices for d in again.decisions] == [d.choices for d in found.decisions]


@pytest.mark.slow
def test_analyse_writes_its_files_and_refuses_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = tmp_path / "games.jsonl"
    lines = [a_record("family", {"players": 3, "target": 20}, ["greedy"] * 3, s) for s in (1, 2)]
    games.write_text("".join(record.dumps(r) + "\n" for r in lines), encoding="utf-8")
    out_dir = tmp_path / "out"
    code, out, err = run(["analyse", str(games), "--level", "300", "--out", str(out_dir)], capsys)
    assert code == 0, err
    assert "valued from the deciding seat's view only" in " ".join(out.split())
    assert "average loss" in out and out.count("Per player") == 2
    for number in (1, 2):
        data = json.loads((out_dir / f"analysis-{number}.json").read_text(encoding="utf-8"))
        assert data["information"].startswith("each decision is valued from")
        assert set(data["summary"][0]["flagged"]) == set(SIZES)
        assert (out_dir / f"analysis-{number}.png").stat().st_size > 1000
        assert (out_dir / f"analysis-{number}.svg").read_text(encoding="utf-8").startswith("<?xml")
    for argv, said in (
        (["analyse", str(games), "--level", "fast"], "search level 'fast'"),
        (["analyse", str(games), "--game", "3"], "--game must be 1 to 2"),
        (["analyse", str(tmp_path / "none.json")], "none.json does not exist"),
    ):
        code, _, err = run(argv, capsys)
        assert code == 2 and said in err and len(err.strip().splitlines()) == 1


def test_the_terminal_replay_analyses_the_game(tmp_path: Path) -> None:
    data = a_record("fido", {"players": 3, "set": 6}, ["greedy", "random", "greedy"], seed=4)
    app = ReplayApp(record.replay(data), level="300")
    said: list[str] = []

    async def script(pilot: Pilot[object]) -> None:
        await pilot.press("a")
        for _ in range(600):
            if app.analysis is not None:
                break
            await pilot.pause(0.02)
        assert app.analysis is not None
        first = app.analysis.decisions[0]
        app.position = next(
            i for i, f in enumerate(app.frames) if (f.hand, f.move) == (first.hand, first.move)
        )
        app.show()
        said.append(text_of(app, "#status"))
        await pilot.press("a")
        assert isinstance(app.screen, TextScreen)
        said.append(rendered(app.screen.query_one("#dialog-body", Static).content))

    run_app(app, script)
    assert app.analysis is not None
    assert f"from {app.names[app.analysis.decisions[0].seat]}'s view: played" in said[0]
    assert "choices:" in said[0]
    assert "Per player" in said[1] and "average loss" in said[1]


def priorities_of_workers(pid: int) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """The (scheduling policy, niceness) of process ``pid`` and of each of its worker
    processes (spawned by multiprocessing), as Linux's /proc says."""

    def read(stat: str) -> tuple[int, int, int]:
        """Parent, niceness, policy: fields 4, 19 and 41 of a process's stat."""
        fields = stat[stat.rindex(")") + 2 :].split()  # from the third field on
        return int(fields[1]), int(fields[16]), int(fields[38])

    found = []
    for entry in Path("/proc").iterdir():
        try:
            if not entry.name.isdigit() or b"spawn_main" not in (entry / "cmdline").read_bytes():
                continue
            parent, nice, policy = read((entry / "stat").read_text())
        except OSError:
            continue  # ended meanwhile
        if parent == pid:
            found.append((policy, nice))
    _, nice, policy = read(Path(f"/proc/{pid}/stat").read_text())
    return (policy, nice), found


@pytest.mark.process
def test_the_server_analyses_a_finished_game_once_and_limits_new_ones(tmp_path: Path) -> None:
    # Three at once, and none more for an hour: however slowly this machine analyses.
    with running(tmp_path, extra=("--limit", "analyses=3/0.016")) as server:
        ann = Browser(server, "Ann")
        bots = [{"kind": "bot", "bot": b} for b in ("greedy", "random", "greedy")]
        tables: list[str] = []
        for seed in range(4):  # one after another: three may be open at once
            table = ann.create("fido", {"players": 3, "set": 6}, bots, seed=seed)
            wait_for(lambda t=table: ann.http.get(f"/api/records/{t}").status_code == 200)
            tables.append(table)
        # Two at once for the same game: made once, the same answer to both.
        answers: list[Any] = []
        asking = [
            threading.Thread(
                target=lambda: answers.append(ann.http.get(f"/api/records/{tables[0]}/analysis"))
            )
            for _ in range(2)
        ]
        for thread in asking:
            thread.start()
        for thread in asking:
            thread.join()
        assert [a.status_code for a in answers] == [200, 200]
        first = answers[0].json()
        assert first == answers[1].json() and first["decisions"]
        assert first["information"].startswith("each decision is valued from the deciding")
        # Made by a worker below the tables' priority, but not one that runs only on an
        # idle core: a person waits for it, and a server whose tables keep every core
        # busy would never answer (it did not, with two busy loops beside the tests).
        assert server.process is not None
        (policy, nice), workers = priorities_of_workers(server.process.pid)
        # (The process of printed sheets and plots, pips.server.work, runs at that
        # priority too.)
        assert set(workers) == {(os.SCHED_OTHER, nice + 5)}, (policy, nice, workers)
        picture = ann.http.get(f"/api/records/{tables[0]}/analysis.svg")
        assert picture.status_code == 200 and picture.text.startswith("<?xml")
        assert picture.headers["content-type"].startswith("image/svg+xml")
        # A new analysis is limited per address (3 at once); a made one is not.
        assert ann.http.get(f"/api/records/{tables[1]}/analysis").status_code == 200
        assert ann.http.get(f"/api/records/{tables[2]}/analysis").status_code == 200
        refused = ann.http.get(f"/api/records/{tables[3]}/analysis")
        assert refused.status_code == 429 and "Retry-After" in refused.headers
        assert ann.http.get(f"/api/records/{tables[0]}/analysis").json() == first
        # An unknown game is a 404, and costs no allowance.
        assert ann.http.get("/api/records/nope/analysis").status_code == 404


def played_match(
    game: str, options: dict[str, Any], bots: list[str], seed: int
) -> list[tuple[dict[str, Any], bool]]:
    """A match of ``bots``, and after every move: its record so far and whether that
    move ended a hand or the game (what a live table tells its analyses)."""
    spec = find_game(game)
    match = Match(spec, spec.options_from_json(options), random.Random(seed))
    seating = Seating(match, [make_bot(b) for b in bots], seed)
    names = [f"{b}-{i}" for i, b in enumerate(bots)]
    steps = []
    while not match.is_over:
        hands = len(match.hand_states)
        seating.play(seating.decide())
        written = record.write_record(match, names, seed=seed)
        steps.append((written, match.is_over or len(match.hand_states) > hands))
    return steps


@pytest.mark.slow
def test_a_game_followed_as_it_is_played_is_analysed_as_a_whole_would_be() -> None:
    """The server values a followed game every few moves and at each hand's end; the
    analysis it gives when asked is, decision for decision, the one of the finished
    record from scratch, and needs no new allowance (no ``starting``)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from pips.server.analyses import SEED, Analyses
    from pips.server.settings import Settings

    steps = played_match("family", {"players": 2, "target": 40}, ["greedy"] * 2, 4)
    other = played_match("family", {"players": 2, "target": 40}, ["random"] * 2, 5)
    final = steps[-1][0]
    assert len(record.replay(final).match.hand_states) >= 2  # hands end mid-game, and the game
    started: list[str] = []

    async def play_and_ask() -> tuple[Any, Any]:
        with ThreadPoolExecutor(1) as pool:
            analyses = Analyses(following=1, executor=pool)
            for mine, theirs in itertools.zip_longest(steps, other):
                if mine is not None:
                    analyses.follow("t1", functools.partial(dict, mine[0]), mine[1])
                if theirs is not None:  # no room for a second game: not followed
                    analyses.follow("t2", functools.partial(dict, theirs[0]), theirs[1])
                await asyncio.sleep(0)
            while analyses._followed:
                await asyncio.sleep(0.01)
            assert "t2" not in analyses._valued
            valued = len(analyses._valued["t1"])

            async def load() -> dict[str, Any]:
                return dict(final)

            async def starting() -> None:
                started.append("t1")

            found = await analyses.of("t1", load, starting)
            return valued, found

    valued, found = asyncio.run(play_and_ask())
    whole = analyse(record.replay(final), Settings.analysis_level, SEED)
    assert valued == len(whole.decisions) > 0  # all valued before anyone asked
    assert found.decisions == whole.decisions
    assert started == []


@pytest.mark.process
def test_a_served_game_is_analysed_as_it_is_played(tmp_path: Path) -> None:
    """``pips serve --analyse-while-playing``: a game's analysis is valued in a worker
    process while the game is played; asked for after the game, it is the analysis of
    the record from scratch, and a followed game takes nothing of the limit on new
    analyses (one an hour here: two games both answer)."""
    from pips.server.analyses import SEED

    extra = ("--analyse-while-playing", "2", "--limit", "analyses=1/0.016")
    with running(tmp_path, extra=extra) as server:
        ann = Browser(server, "Ann")
        seats = [{"kind": "bot", "bot": "greedy"}] * 3
        tables = [ann.create("fido", {"players": 3, "set": 6}, seats, seed=s) for s in (1, 2)]
        for table in tables:
            wait_for(lambda t=table: ann.http.get(f"/api/records/{t}").status_code == 200)
        for table in tables:
            answer = ann.http.get(f"/api/records/{table}/analysis", timeout=120)
            assert answer.status_code == 200, answer.text
            data = ann.http.get(f"/api/records/{table}").json()
            whole = analyse(record.replay(data), server.analysis_level, SEED)
            assert answer.json()["decisions"] == [d.to_json() for d in whole.decisions]
        # The games followed as they are played are valued only on an idle core.
        assert server.process is not None
        _, workers = priorities_of_workers(server.process.pid)
        assert any(policy == os.SCHED_IDLE for policy, _ in workers), workers
