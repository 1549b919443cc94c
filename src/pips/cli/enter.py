"""``pips enter``: a game played at a real table, entered as it happens."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from pips import record
from pips.cli.base import (
    GameFlags,
    app,
    fail,
    game_help,
    out,
    records_dir,
    result_table,
    spec_for,
    with_game_flags,
)
from pips.core.errors import RuleError
from pips.core.moves import Draw, Move
from pips.core.notation import move_text, read_move
from pips.core.tiles import Tile
from pips.core.view import Event
from pips.display import describe_event, describe_layout
from pips.games.registry import all_games

ENTER_HELP = """Enter what happened at the table, one action per line:
  a number          the listed move with that number
  12-9              lay that tile (you are asked where if it fits several places)
  draw 5-1          the player to move drew 5-1 from the stock
  pass              the player to move passed (empty stock)
  misdeal S draw 5-1 4-0 / misdeal S return 6-6
                    seat S (number or name) was misdealt (F-24)
  undo              take back the last entry
  q                 save and stop"""


def parse_entry(text: str, state: Any, names: Sequence[str]) -> Move | str:
    """One line of ``pips enter`` as a move (:mod:`pips.core.notation`), or a word
    (``undo``, ``quit``, ``help``); ValueError with a message for anything else."""
    word = text.strip().lower()
    if word in {"q", "quit", "undo", "help", "?"}:
        return {"q": "quit", "?": "help"}.get(word, word)
    move = read_move(text, state.legal_moves(), names)
    if isinstance(move, Draw) and move.tile is None and state.options.deal_mode.value == "manual":
        raise ValueError("name the tile drawn: draw 5-1")
    return move


@app.command()
@with_game_flags
def enter(
    game: Annotated[str, typer.Argument(help=game_help())],
    flags: GameFlags,
    names: Annotated[
        str | None, typer.Option(help="Players in playing order, comma separated.")
    ] = None,
    save: Annotated[
        Path | None, typer.Option(help="Record file (default: a new file in $PIPS_HOME/records).")
    ] = None,
) -> None:
    """Record a game played at a real table, tiles taken by hand (manual deal, F-24)."""
    spec = spec_for(game)
    if not spec.manual_deal:
        manual = ", ".join(g.title for g in all_games() if g.manual_deal)
        fail(f"pips enter records games dealt by hand (F-24): {manual}")
    options = flags.options(spec, deal_mode="manual")
    seats = (
        [n.strip() for n in names.split(",")]
        if names
        else [f"player {i + 1}" for i in range(options.players)]
    )
    if len(seats) != options.players or not all(seats):
        fail(f"--names must give {options.players} names")
    ask = input
    try:
        hands = []
        for name in seats:
            while True:
                text = ask(f"tiles of {name}: ")
                try:
                    hands.append([Tile.parse(word) for word in text.split()])
                    break
                except ValueError as exc:
                    out.print(f"[red]{exc}[/red]")
        state = spec.from_deal(options, hands, None)
    except RuleError as exc:
        fail(f"the deal: {exc}")
    except EOFError:
        fail("no deal entered")
    out.print(ENTER_HELP)
    path = save or records_dir() / f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{spec.name}-table.json"

    def rebuild(events: Sequence[Event]) -> Any:
        fresh = spec.from_deal(options, hands, None)
        for event in events:
            fresh.play(event.move)
        return fresh

    while True:
        if state.is_over:
            out.print(result_table(state, seats))
            prompt = "hand over: a late misdeal, undo, or q to save: "
        else:
            turn = state.current_seat
            assert turn is not None
            view = state.view(turn)
            out.print(describe_layout(view))
            out.print(f"{seats[turn]} to move; stock {view.stock_size}")
            legal = state.legal_moves()
            for number, move in enumerate(legal, 1):
                out.print(f"  {number:>2}. {move_text(move, legal)}")
            prompt = "what happened? "
        try:
            text = ask(prompt)
        except (EOFError, KeyboardInterrupt):
            break  # save what was entered
        try:
            entry = parse_entry(text, state, seats)
        except ValueError as exc:
            out.print(f"[red]{exc}[/red]")
            continue
        if entry == "quit":
            break
        if entry == "help":
            out.print(ENTER_HELP)
        elif entry == "undo":
            if state.history:
                state = rebuild(state.history[:-1])
                out.print("last entry taken back")
        elif not isinstance(entry, str):
            try:
                event = state.play(entry)
            except RuleError as exc:
                out.print(f"[red]{exc}[/red]")
                continue
            out.print(describe_event(event, seats, spec.name))
    path.parent.mkdir(parents=True, exist_ok=True)
    record.save([record.write_record(state, seats)], path)
    out.print(f"{'record' if state.is_over else 'unfinished game'} saved to {path}")
