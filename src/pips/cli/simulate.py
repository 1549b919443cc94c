"""``pips simulate`` and ``pips tournament``: bots against bots, many games."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from pips import files, record
from pips.bots.base import Bot
from pips.cli.base import (
    GameFlags,
    app,
    complete_game,
    err,
    fail,
    game_help,
    out,
    parse_bots,
    progress_bar,
    spec_for,
    stopped,
    with_game_flags,
)
from pips.core.phrase import N_
from pips.games.match import Match
from pips.games.registry import Game
from pips.i18n import _, decimal, percent
from pips.sim import deal_seed, play_game, uninterrupted


@app.command()
@with_game_flags
def simulate(
    game: Annotated[str, typer.Argument(help=game_help(), autocompletion=complete_game)],
    flags: GameFlags,
    hands: Annotated[
        int, typer.Option(help="How many games to play (matches, for the match games).")
    ] = 1000,
    seed: Annotated[
        int, typer.Option(help="Seed of the first game; game N is played from seed + N.")
    ] = 1,
    bots: Annotated[str, typer.Option(help="Bots, one per seat in order, repeating.")] = "random",
    record_to: Annotated[
        Path | None, typer.Option("--record", help="Write every game to this JSON Lines file.")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite the --record file if it exists.")
    ] = False,
    append: Annotated[
        bool,
        typer.Option("--append", help="Add the games to the end of an existing --record file."),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON (see docs/cli.md).")
    ] = False,
) -> None:
    """Let bots play many games and summarise them, per bot entered.

    Ctrl-C stops at once: the summary covers the games finished (their records are
    kept), and the command that plays the others is shown.
    """
    spec = spec_for(game)
    options = flags.options(spec)
    if hands < 1:
        fail(_("--hands must be at least 1"))
    if force and append:
        fail(_("--force and --append exclude each other: overwrite, or add to the end"))
    entrants = parse_bots(bots, options.players)
    entrant_names = [f"{b.name}-{i}" for i, b in enumerate(entrants)]
    if record_to is not None and not append:
        files.may_write(record_to, force, appendable=True)
    tally = _Tally(options.players)
    sink = None
    if record_to is not None:
        try:
            record_to.parent.mkdir(parents=True, exist_ok=True)
            sink = record_to.open("a" if append else "w", encoding="utf-8")
        except OSError as exc:
            raise files.problem(record_to, exc, writing=True) from None
    kind = N_("games") if spec.target(options) is None else N_("matches")
    progress = progress_bar()
    interrupted = False
    try:
        with progress:
            task = progress.add_task(f"{spec.name} {_(kind)}", total=hands)
            for number in range(hands):
                game_seed = deal_seed(seed, number)
                match = play_game(spec, options, entrants, game_seed)
                line = ""
                if sink is not None:
                    names = [entrant_names[e] for e in match.seating]
                    line = record.dumps(record.write_record(match, names, seed=game_seed))
                # Written whole and counted as one step: Ctrl-C comes before or after.
                with uninterrupted():
                    if sink is not None:
                        sink.write(line + "\n")
                        sink.flush()
                    tally.add(match)
                progress.advance(task)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if sink is not None:
            sink.close()
    if tally.games:
        _summary(spec, options, entrants, tally, seed, hands, kind, record_to, as_json)
    if interrupted:
        left = hands - tally.games
        again = [
            "pips simulate",
            spec.name,
            *_given_flags(flags),
            f"--bots {bots}",
            f"--seed {seed + tally.games}",
            f"--hands {left}",
        ]
        if record_to is not None:
            again += [f"--record {record_to}", "--append"]
        stopped(
            _(
                "interrupted after {done} of {count} games; to play the other {left}: {command}"
            ).format(done=tally.games, count=hands, left=left, command=" ".join(again))
        )


def _given_flags(flags: GameFlags) -> list[str]:
    """The game option flags as given, to repeat them in a command line."""
    said = []
    for name, value in flags.given.items():
        if value is None:
            continue
        dashed = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            said.append(dashed if value else "--no-" + dashed[2:])
        else:
            said.append(f"{dashed} {value}")
    return said


class _Tally:
    """What the games played so far add up to, per entrant."""

    def __init__(self, players: int) -> None:
        self.totals = [0] * players
        self.points = [0] * players
        self.wins = [0.0] * players
        self.games = self.hands = self.blocked = self.moves = 0

    def add(self, match: Match) -> None:
        result = match.result
        assert result is not None
        for seat, entrant in enumerate(match.seating):
            self.totals[entrant] += result.final[seat]
            self.points[entrant] += sum(
                h.result.points[seat] for h in match.hand_states if h.result is not None
            )
        for winner in result.winners:
            self.wins[match.seating[winner]] += 1 / len(result.winners)
        for state in match.hand_states:
            assert state.result is not None
            self.blocked += state.result.ended.value == "blocked"
            self.moves += len(state.history)
        self.hands += len(match.hand_states)
        self.games += 1


def _summary(
    spec: Game,
    options: Any,
    entrants: Sequence[Bot],
    tally: _Tally,
    seed: int,
    asked: int,
    kind: str,
    record_to: Path | None,
    as_json: bool,
) -> None:
    games, hands = tally.games, tally.hands
    if as_json:
        out.print_json(
            data={
                "game": spec.name,
                "options": options.to_json(),
                "games": games,
                "asked": asked,
                "seeds": [seed, seed + games - 1],
                "entrants": [
                    {
                        "entrant": i,
                        "bot": entrants[i].name,
                        "points_per_hand": tally.points[i] / hands,
                        "final_per_game": tally.totals[i] / games,
                        "win_share": tally.wins[i] / games,
                    }
                    for i in range(len(entrants))
                ],
                "hands": hands,
                "blocked_share": tally.blocked / hands,
                "moves_per_hand": tally.moves / hands,
                "records": None if record_to is None else str(record_to),
            }
        )
        return
    table = Table(
        title=_("{game}: {count} {kind}, seeds {first}..{last}").format(
            game=_(spec.title), count=games, kind=_(kind), first=seed, last=seed + games - 1
        )
    )
    for column, heading in (
        ("entrant", _("entrant")),
        ("bot", _("bot")),
        ("points/hand", _("points/hand")),
        ("final/game", _("final/game")),
        ("win share", _("win share")),
    ):
        table.add_column(heading, justify="left" if column == "bot" else "right")
    for i, entrant in enumerate(entrants):
        table.add_row(
            str(i),
            entrant.name,
            decimal(tally.points[i] / hands),
            decimal(tally.totals[i] / games),
            percent(tally.wins[i] / games),
        )
    out.print(table)
    out.print(
        _(
            "hands: {hands} ({per_game} per game) · blocked: {blocked} · moves per hand: {moves}"
        ).format(
            hands=hands,
            per_game=decimal(hands / games, 1),
            blocked=percent(tally.blocked / hands),
            moves=decimal(tally.moves / hands, 1),
        )
    )
    if record_to is not None:
        out.print(_("records written to {path}").format(path=record_to))


@app.command()
@with_game_flags
def tournament(
    game: Annotated[str, typer.Option("--game", help=game_help(), autocompletion=complete_game)],
    flags: GameFlags,
    bots: Annotated[
        str, typer.Option(help="Bots around the table in seat order, repeating: search,expert.")
    ],
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Folder for results.jsonl (added to: the same command goes on where it "
            "stopped) and summary.json, .csv and .png (written anew each time).",
        ),
    ],
    hands: Annotated[
        int, typer.Option(help="Deals; each is played once per rotation of the bots.")
    ] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the first deal.")] = 1,
    workers: Annotated[
        int | None, typer.Option(help="Local processes (default: every core).")
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option(help="A Dask scheduler, tcp://HOST:PORT, instead of local.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON (see docs/cli.md).")
    ] = False,
) -> None:
    """Play a duplicate tournament between bots: the same deals with the seats rotated.

    Resumable: run the same command again and finished deals are not replayed.
    """
    from pips.sim import tournament as tour

    spec = spec_for(game)
    options = flags.options(spec)
    if workers is not None and workers < 1:
        fail(_("--workers must be at least 1"))
    names = [n for n in (part.strip() for part in bots.split(",")) if n]
    setup = tour.Tournament.of(spec, options, names, hands, seed)
    rotations = len(setup.rotations())
    progress = progress_bar()
    where = scheduler or _("{count} local processes").format(count=workers or os.cpu_count())
    err.print(
        _("{game}: {count} deals x {rotations} rotations, seats {seats}, on {where}").format(
            game=_(spec.title),
            count=hands,
            rotations=rotations,
            seats=", ".join(setup.seats),
            where=where,
        )
    )
    finished = [0]

    def advanced(done: int, total: int) -> None:
        finished[0] = done
        progress.update(task, completed=done)

    try:
        with progress:
            task = progress.add_task(_("deals"), total=hands)
            rows = tour.run(setup, out_dir, scheduler=scheduler, workers=workers, progress=advanced)
    except KeyboardInterrupt:
        stopped(
            _(
                "interrupted after {done} of {count} deals; the finished deals are kept "
                "in {path}: run the same command again to go on"
            ).format(done=finished[0], count=hands, path=out_dir / tour.RESULTS),
            at_once=True,
        )
    summary = tour.summarize(setup, rows)
    written = tour.write_outputs(summary, out_dir)
    if as_json:
        out.print_json(data=summary.to_json())
        return
    table = Table(
        title=_("{game}: {count} deals x {rotations} rotations (duplicate)").format(
            game=_(spec.title), count=summary.deals, rotations=rotations
        )
    )
    for column, heading in (
        ("bot", _("bot")),
        ("hands", _("hands")),
        ("points/hand (95%)", _("points/hand (95%)")),
        ("win share (95%)", _("win share (95%)")),
        ("moves/s", _("moves/s")),
    ):
        table.add_column(heading, justify="left" if column == "bot" else "right")
    for b in summary.bots:
        table.add_row(
            b.bot,
            str(b.hands),
            str(b.points),
            f"{percent(b.wins.mean)} [{percent(b.wins.low)}, {percent(b.wins.high)}]",
            decimal(b.moves_per_second, 0),
        )
    out.print(table)
    for pair, estimate in summary.differences.items():
        verdict = _("significant") if estimate.excludes_zero else _("not significant")
        out.print(
            _("{pair}: {estimate} points per hand ({verdict})").format(
                pair=pair, estimate=estimate, verdict=verdict
            )
        )
    out.print(
        _("written: {files}").format(
            files=", ".join(str(p) for p in [out_dir / tour.RESULTS, *written])
        )
    )
