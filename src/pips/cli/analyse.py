"""``pips analyse``: where each seat of a recorded game gained or lost, decision by
decision, valued from what that seat could see (:mod:`pips.bots.analysis`)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from pips import files, record
from pips.cli.base import advancing, app, err, fail, out, progress_bar, stopped
from pips.i18n import _, decimal
from pips.paths import pips_home
from pips.tui.widgets import analysis_table

if TYPE_CHECKING:
    from pips.bots.analysis import Analysis, Decision


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
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite the files of an earlier analysis in --out.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the analyses as JSON (see docs/cli.md).")
    ] = False,
) -> None:
    """Analyse every decision of every seat: the expected result of each choice as the
    search sees it from that seat's information at that moment, the move played, the loss
    against the best, mistakes flagged by size, and a summary per player.

    Ctrl-C keeps the decisions valued so far: the same command goes on from there.
    """
    # The search (numba) loads here, not with every other command of pips.
    from pips.bots.analysis import analyse, plot
    from pips.bots.search import Budget, warm_up

    Budget.parse(level)  # a bad level is one line before any work
    records = list(record.load(file))
    if game_number is not None and not 1 <= game_number <= len(records):
        fail(
            _("{file} holds {count} record(s); --game must be 1 to {count}").format(
                file=file, count=len(records)
            )
        )
    chosen = range(len(records)) if game_number is None else [game_number - 1]
    if out_dir is not None:
        for index in chosen:
            for suffix in (".json", ".png", ".svg"):
                files.may_write(out_dir / f"analysis-{index + 1}{suffix}", force)
    replays = [record.replay(records[index]) for index in chosen]
    with err.status(_("preparing the search (the first time takes about half a minute)")):
        warm_up(replays[0].spec.name, replays[0].options)
    analyses = []
    for index, replayed in zip(chosen, replays, strict=True):
        kept = _Kept(records[index], level, seed)
        progress = progress_bar()
        try:
            with progress:
                task = progress.add_task(
                    _("record {number}: decisions").format(number=index + 1), total=None
                )
                found = analyse(
                    replayed, level, seed, advancing(progress, task), kept.decisions(), kept.add
                )
        except KeyboardInterrupt:
            stopped(
                _(
                    "interrupted: {count} decisions of record {number} are valued and kept; "
                    "run the same command again to go on"
                ).format(count=kept.count, number=index + 1)
            )
        kept.forget()
        analyses.append((index + 1, found))
        if not as_json:
            show(found, index + 1)
        if out_dir is not None:
            stem = out_dir / f"analysis-{index + 1}"
            files.write_text(
                stem.with_suffix(".json"),
                json.dumps(found.to_json(), indent=1, ensure_ascii=False) + "\n",
                force,
            )
            for suffix in (".png", ".svg"):
                plot(found, str(stem.with_suffix(suffix)))
            err.print(_("written: {files}").format(files=f"{stem}.json, {stem}.png, {stem}.svg"))
    if as_json:
        out.print_json(
            data={
                "file": str(file),
                "analyses": [{"record": n, **found.to_json()} for n, found in analyses],
            }
        )


class _Kept:
    """The decisions an analysis has valued so far, kept as it goes in
    ``$PIPS_HOME/analyses`` (one JSON line each), so that an interrupted analysis goes
    on where it stopped; forgotten once the analysis is whole."""

    def __init__(self, data: dict[str, Any], level: str, seed: int) -> None:
        name = json.dumps([data, level, seed], sort_keys=True, separators=(",", ":"))
        key = hashlib.sha256(name.encode("utf-8")).hexdigest()[:32]
        self.path = pips_home() / "analyses" / f"{key}.jsonl"
        self.count = 0

    def decisions(self) -> list[Decision]:
        from pips.bots.analysis import Decision

        if not self.path.exists():
            return []
        found = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                found.append(Decision.from_json(json.loads(line)))
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by the interruption: valued again
        self.count = len(found)
        return found

    def add(self, decision: Decision) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as sink:
            sink.write(json.dumps(decision.to_json(), separators=(",", ":")) + "\n")
        self.count += 1

    def forget(self) -> None:
        self.path.unlink(missing_ok=True)


def show(found: Analysis, number: int) -> None:
    """The flagged decisions and each player's summary."""
    names = found.seats
    out.print(
        "[bold]"
        + _("record {number}").format(number=number)
        + "[/bold]: "
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
