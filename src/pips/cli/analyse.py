"""``pips analyse``: where each seat of a recorded game gained or lost, decision by
decision, valued from what that seat could see (:mod:`pips.bots.analysis`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress, TaskID
from rich.table import Table

from pips import record
from pips.bots.analysis import Analysis, analyse, plot
from pips.bots.search import Budget
from pips.cli.base import app, err, fail, out, progress_bar
from pips.i18n import _, decimal
from pips.tui.widgets import analysis_table


@app.command(name="analyse")
def analyse_command(
    file: Annotated[Path, typer.Argument(help="A record (.json) or records (.jsonl).")],
    game_number: Annotated[
        int | None,
        typer.Option("--game", help="Which record of the file, from 1 (default: every one)."),
    ] = None,
    level: Annotated[
        str,
        typer.Option(help="The search that values the choices: easy, normal, hard, 5000, 0.5s."),
    ] = "normal",
    seed: Annotated[int, typer.Option(help="Seed of the search's sampling.")] = 1,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Folder for analysis-N.json and a plot (PNG and SVG)."),
    ] = None,
) -> None:
    """Analyse every decision of every seat: the expected result of each choice as the
    search sees it from that seat's information at that moment, the move played, the loss
    against the best, mistakes flagged by size, and a summary per player."""
    Budget.parse(level)  # a bad level is one line before any work
    records = list(record.load(file))
    if game_number is not None and not 1 <= game_number <= len(records):
        fail(
            _("{file} holds {count} record(s); --game must be 1 to {count}").format(
                file=file, count=len(records)
            )
        )
    chosen = range(len(records)) if game_number is None else [game_number - 1]
    for index in chosen:
        replayed = record.replay(records[index])
        progress = progress_bar()
        with progress:
            task = progress.add_task(
                _("record {number}: decisions").format(number=index + 1), total=None
            )

            def advanced(
                done: int, total: int, bar: Progress = progress, row: TaskID = task
            ) -> None:
                bar.update(row, completed=done, total=total)

            found = analyse(replayed, level, seed, advanced)
        show(found, index + 1)
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            stem = out_dir / f"analysis-{index + 1}"
            stem.with_suffix(".json").write_text(
                json.dumps(found.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
            )
            for suffix in (".png", ".svg"):
                plot(found, str(stem.with_suffix(suffix)))
            err.print(_("written: {files}").format(files=f"{stem}.json, {stem}.png, {stem}.svg"))


def show(found: Analysis, number: int) -> None:
    """The flagged decisions and each player's summary."""
    names = found.seats
    out.print(
        f"[bold]{_('record {number}').format(number=number)}[/bold]: "
        + _(
            "{count} decisions, each valued from the deciding seat's view only"
            " (search {level}, seed {seed})"
        ).format(count=len(found.decisions), level=found.level, seed=found.seed)
    )
    flagged = [d for d in found.decisions if d.size]
    if flagged:
        table = Table(title=_("Flagged decisions"))
        for column, heading in (
            ("hand", _("hand")),
            ("move", _("move")),
            ("player", _("player")),
            ("played", _("played")),
            ("best", _("best")),
            ("loss", _("loss")),
            ("", ""),
        ):
            table.add_column(
                heading, justify="right" if column in ("hand", "move", "loss") else "left"
            )
        for d in flagged:
            table.add_row(
                str(d.hand),
                str(d.move),
                names[d.seat],
                d.played,
                d.best,
                decimal(d.loss),
                _(d.size) if d.size else "",
            )
        out.print(table)
    out.print(analysis_table(found))
