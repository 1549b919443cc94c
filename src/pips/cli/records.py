"""``pips replay``, ``pips check`` and ``pips rules``: records and the rules in brief."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markdown import Markdown
from rich.table import Table

from pips import record
from pips.cli.base import (
    advancing,
    app,
    complete_game,
    err,
    fail,
    game_help,
    match_line,
    out,
    progress_bar,
    result_table,
    spec_for,
)
from pips.core.view import SPECTATOR
from pips.display import describe_event, describe_layout
from pips.i18n import _, explain, say


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="A record (.json) or records (.jsonl).")],
    game_number: Annotated[
        int, typer.Option("--game", help="Which record of the file, from 1.")
    ] = 1,
    step: Annotated[
        bool, typer.Option(help="Line by line: show the layout after each move, wait for Enter.")
    ] = False,
    text: Annotated[
        bool,
        typer.Option(
            "--text/--full-screen",
            help="Print the game instead of stepping through it full screen "
            "(the default without a terminal).",
        ),
    ] = False,
) -> None:
    """Step through a recorded game (forward and back, every hand face up), or print it
    hand by hand and move by move with points and scores."""
    records = list(record.load(file))
    if not 1 <= game_number <= len(records):
        fail(
            _("{file} holds {count} record(s); --game must be 1 to {count}").format(
                file=file, count=len(records)
            )
        )
    replayed = record.replay(records[game_number - 1])
    if not (text or step) and sys.stdin.isatty() and sys.stdout.isatty():
        from pips.tui.replay import ReplayApp

        ReplayApp(replayed).run()
        return
    names = replayed.seats
    spec = replayed.spec
    out.print(
        f"[bold]{_(spec.title)}[/bold], " + _("seats: {names}").format(names=", ".join(names))
    )
    match = replayed.match
    if match.lots is not None:
        entrant = {e: names[seat] for seat, e in enumerate(match.seating)}
        drawn = ", ".join(f"{entrant[d.entrant]} {d.tile}" for d in match.lots.draws)
        out.print(_("lots: {draws}").format(draws=drawn))
    # Each hand is played again from its deal, so --step can show every position.
    for played in match.hand_states:
        dealt = played.dealt
        state = spec.from_deal(
            replayed.options, dealt.hands, dealt.stock, dealt.voided, played.context
        )
        if match.target is not None:
            heading = _("hand {number}").format(number=played.context.number)
            out.print(f"[bold]{heading}[/bold]")
        for number, event in enumerate(played.history, 1):
            state.play(event.move)
            running = " ".join(str(s) for s in state.scores)
            said = say(describe_event(event, names, spec.name))
            out.print(f"{number:>3}. {said:<48} " + _("scores {scores}").format(scores=running))
            if step:
                out.print("     " + say(describe_layout(state.view(SPECTATOR))))
                try:
                    asked = "     " + _("Enter for the next move, q to stop: ")
                    if input(asked).strip().lower() == "q":
                        return
                except (EOFError, KeyboardInterrupt):
                    return
        if state.is_over:
            out.print(result_table(state, names))
    if not match.is_over:
        out.print(_("the game is unfinished"))
    elif match.target is not None:
        over = _("match over")
        out.print(f"[bold]{over}[/bold] · {match_line(match, names)}")


@app.command()
def check(
    files: Annotated[list[Path], typer.Argument(help="Record files to validate.")],
    require_proof: Annotated[
        bool,
        typer.Option(
            "--require-proof",
            help="Fail (exit 1) unless every deal is proven: committed to before play "
            "or dealt again from its seed. A deal typed in at a real table proves "
            "nothing: anyone can say a deal was manual.",
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as JSON (see docs/cli.md).")
    ] = False,
) -> None:
    """Replay every record through the rules, check every committed deal against its
    commitment (a server's public table) and deal every seeded one again; say which
    deals could not be verified. Exit 1 at the first bad record."""
    unproven: list[str] = []
    report: list[dict[str, Any]] = []
    for file in files:
        progress = progress_bar()
        try:
            with progress:
                task = progress.add_task(str(file.name), total=None)
                found = record.check_file(file, advancing(progress, task))
        except record.RecordError as exc:
            if as_json:
                report.append(
                    {
                        "file": str(file),
                        "ok": False,
                        "error": explain(exc),
                        "hand": exc.hand,
                        "move": exc.move,
                        "rule": exc.rule,
                    }
                )
                out.print_json(data={"files": report})
            else:
                err.print(f"{file}: {explain(exc)}", markup=False)
            raise typer.Exit(1) from None
        unproven += _unproven(file, found)
        if as_json:
            report.append(
                {
                    "file": str(file),
                    "ok": True,
                    "records": found.records,
                    "committed": found.committed,
                    "seeded": found.seeded,
                    "dealt_by_hand": found.dealt_by_hand,
                    "unverified": [{"record": r, "hand": h} for r, h in found.unverified],
                    "suspect": [{"record": r, "hand": h} for r, h in found.suspect],
                    "proven": found.proven,
                }
            )
            continue
        parts = []
        if found.committed:
            parts.append(
                _("{count} deal(s) match the commitments sent before play").format(
                    count=found.committed
                )
            )
        if found.seeded:
            parts.append(
                _("{count} deal(s) dealt again from their seed").format(count=found.seeded)
            )
        if found.dealt_by_hand:
            parts.append(
                _("{count} deal(s) typed in at a real table").format(count=found.dealt_by_hand)
            )
        proof = "".join("; " + p for p in parts)
        out.print(
            _("{file}: {count} record(s) OK{proof}").format(
                file=file, count=found.records, proof=proof
            )
        )
        if found.unverified:
            out.print(
                _(
                    "{file}: {count} deal(s) could not be verified (no commitment, no seed): "
                    "{where}"
                ).format(file=file, count=len(found.unverified), where=_where(found.unverified)),
                markup=False,
            )
        if found.suspect:
            out.print(
                _(
                    "{file}: {count} deal(s) said to be dealt by hand in a record of a "
                    "server's table, which never deals by hand: {where}"
                ).format(file=file, count=len(found.suspect), where=_where(found.suspect)),
                markup=False,
            )
    if as_json:
        out.print_json(data={"files": report})
    if unproven and require_proof:
        for why in unproven:
            err.print(why, markup=False)
        raise typer.Exit(1)


def _where(places: tuple[tuple[int, int], ...]) -> str:
    """The first twenty (record, hand) places in words, and how many more."""
    where = ", ".join(
        _("record {record} hand {hand}").format(record=r, hand=h) for r, h in places[:20]
    )
    more = len(places) - 20
    return where + (f" (+{more})" if more > 0 else "")


def _unproven(file: Path, found: record.CheckedFile) -> list[str]:
    """Why ``--require-proof`` refuses the file's deals, one line per reason (none when
    every deal was committed to or seeded)."""
    why = []
    if found.unverified:
        why.append(
            _("{file}: --require-proof: {count} deal(s) have no commitment and no seed").format(
                file=file, count=len(found.unverified)
            )
        )
    if found.dealt_by_hand:
        why.append(
            _(
                "{file}: --require-proof: {count} deal(s) are said to be typed in at a real "
                "table, which proves nothing about how they were dealt"
            ).format(file=file, count=found.dealt_by_hand)
        )
    if found.suspect:
        why.append(
            _(
                "{file}: --require-proof: {count} deal(s) are said to be dealt by hand in a "
                "record of a server's table, which never deals by hand"
            ).format(file=file, count=len(found.suspect))
        )
    return why


@app.command()
def rules(
    game: Annotated[str, typer.Argument(help=game_help(), autocompletion=complete_game)],
) -> None:
    """The rules of a game in words (each rule with its id), then its options with
    their defaults and allowed values."""
    spec = spec_for(game)
    out.print(f"[bold]{_(spec.title)}[/bold] ({spec.name}) · {say(spec.rules)}")
    if spec.aliases:
        out.print(_("also called: {names}").format(names=", ".join(spec.aliases)))
    out.print(
        Markdown(_(spec.summary) if spec.summary else _("(no summary of the rules yet)")),
        soft_wrap=False,
    )
    table = Table(
        title=_("Options"), caption=_("a true/false option is switched off with --no-FLAG")
    )
    for column, heading in (
        ("flag", _("flag")),
        ("default", _("default")),
        ("values", _("values")),
        ("rule", _("rule")),
        ("meaning", _("meaning")),
    ):
        table.add_column(heading, no_wrap=column in ("flag", "rule"), overflow="fold")
    for info in spec.options.describe():
        if info.default is None:
            default = _("required") if info.required else _("see meaning")
        elif isinstance(info.default, bool):
            default = str(info.default).lower()
        else:
            default = str(info.default)
        flag = "--" + info.name.replace("_", "-")
        table.add_row(flag, default, _(info.values), info.rule, _(info.help))
    out.print(table)
    fixed = spec.options.FIXED
    if fixed:
        out.print(
            _("fixed by the rules: {options}").format(
                options=", ".join(f"{k} {v}" for k, v in fixed.items())
            )
        )
