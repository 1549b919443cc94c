"""``pips simulate`` and ``pips tournament``: bots against bots, many games."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from pips import record
from pips.cli.base import (
    GameFlags,
    app,
    err,
    fail,
    game_help,
    out,
    parse_bots,
    progress_bar,
    spec_for,
    with_game_flags,
)
from pips.core.phrase import N_
from pips.i18n import _, decimal, percent
from pips.sim import deal_seed, play_game


@app.command()
@with_game_flags
def simulate(
    game: Annotated[str, typer.Argument(help=game_help())],
    flags: GameFlags,
    hands: Annotated[
        int, typer.Option(help="How many games to play (matches, for the match games).")
    ] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the first deal.")] = 1,
    bots: Annotated[str, typer.Option(help="Bots, one per seat in order, repeating.")] = "random",
    record_to: Annotated[
        Path | None, typer.Option("--record", help="Write every game to this JSON Lines file.")
    ] = None,
) -> None:
    """Let bots play many games and summarise them, per bot entered."""
    spec = spec_for(game)
    options = flags.options(spec)
    if hands < 1:
        fail(_("--hands must be at least 1"))
    entrants = parse_bots(bots, options.players)
    entrant_names = [f"{b.name}-{i}" for i, b in enumerate(entrants)]
    players = options.players
    totals = [0] * players
    points = [0] * players
    wins = [0.0] * players
    blocked = moves = played_hands = 0
    sink = None
    if record_to is not None:
        record_to.parent.mkdir(parents=True, exist_ok=True)
        sink = record_to.open("w", encoding="utf-8")
    kind = N_("games") if spec.target(options) is None else N_("matches")
    progress = progress_bar()
    try:
        with progress:
            task = progress.add_task(f"{spec.name} {kind}", total=hands)
            for number in range(hands):
                game_seed = deal_seed(seed, number)
                match = play_game(spec, options, entrants, game_seed)
                result = match.result
                assert result is not None
                for seat_, entrant in enumerate(match.seating):
                    totals[entrant] += result.final[seat_]
                    points[entrant] += sum(
                        h.result.points[seat_] for h in match.hands if h.result is not None
                    )
                for winner in result.winners:
                    wins[match.seating[winner]] += 1 / len(result.winners)
                for state in match.hands:
                    assert state.result is not None
                    blocked += state.result.ended.value == "blocked"
                    moves += len(state.history)
                played_hands += len(match.hands)
                if sink is not None:
                    names = [entrant_names[e] for e in match.seating]
                    sink.write(
                        record.dumps(record.write_record(match, names, seed=game_seed)) + "\n"
                    )
                progress.advance(task)
    finally:
        if sink is not None:
            sink.close()
    table = Table(
        title=_("{game}: {count} {kind}, seeds {first}..{last}").format(
            game=_(spec.title), count=hands, kind=_(kind), first=seed, last=seed + hands - 1
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
    for i in range(players):
        table.add_row(
            str(i),
            entrants[i].name,
            decimal(points[i] / played_hands),
            decimal(totals[i] / hands),
            percent(wins[i] / hands),
        )
    out.print(table)
    out.print(
        _(
            "hands: {hands} ({per_game} per game) · blocked: {blocked} · moves per hand: {moves}"
        ).format(
            hands=played_hands,
            per_game=decimal(played_hands / hands, 1),
            blocked=percent(blocked / played_hands),
            moves=decimal(moves / played_hands, 1),
        )
    )
    if record_to is not None:
        out.print(_("records written to {path}").format(path=record_to))


@app.command()
@with_game_flags
def tournament(
    game: Annotated[str, typer.Option("--game", help=game_help())],
    flags: GameFlags,
    bots: Annotated[
        str, typer.Option(help="Bots around the table in seat order, repeating: search,expert.")
    ],
    out_dir: Annotated[
        Path, typer.Option("--out", help="Folder for results.jsonl, summary.{json,csv,png}.")
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
    setup = tour.Tournament.of(spec.name, options.to_json(), names, hands, seed)
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
        err.print(
            _(
                "interrupted after {done} of {count} deals; the finished deals are kept "
                "in {path}: run the same command again to go on"
            ).format(done=finished[0], count=hands, path=out_dir / tour.RESULTS)
        )
        raise typer.Exit(130) from None
    summary = tour.summarize(setup, rows)
    written = tour.write_outputs(summary, out_dir)
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
