"""The ``pips`` command: play, simulate, replay and check games.

Every game option is a flag named after it (``--doubles-inline optional``); a flag
that the chosen game does not have, or a value out of range, is a one-line error with
exit code 2, never a traceback.
"""

from __future__ import annotations

import functools
import inspect
import os
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from pips import __version__, record
from pips.bots.base import Bot, bot_names, make_bot
from pips.core.errors import RuleError
from pips.core.moves import Draw, Misdeal, Move, Pass, Play
from pips.core.tiles import Tile
from pips.core.view import SPECTATOR, Event, View
from pips.games.registry import GameSpec, GameState, find_game, game_names
from pips.sim import BOT_STREAM, deal_seed, play_game

app = typer.Typer(
    name="pips",
    help="Play, study and rank dominoes.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit code 2."""


def fail(message: str) -> NoReturn:
    raise UsageError(message)


# -- game options as flags ---------------------------------------------------------------


@dataclass(frozen=True)
class GameFlag:
    """A game option offered as a flag on every command that sets up a game."""

    name: str
    kind: type
    help: str
    flags: tuple[str, ...] = ()

    def parameter(self) -> inspect.Parameter:
        dashed = "--" + self.name.replace("_", "-")
        if self.kind is bool:
            names: tuple[str, ...] = (f"{dashed}/--no-{dashed[2:]}",)
        else:
            names = (dashed, *self.flags)
        annotation = Annotated[self.kind | None, typer.Option(*names, help=self.help)]  # type: ignore[name-defined]
        return inspect.Parameter(
            self.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
        )


GAME_FLAGS = (
    GameFlag("players", int, "Number of players.", ("-p",)),
    GameFlag("set", str, "The set: 12 or double-12."),
    GameFlag("direction", str, "clockwise or counter-clockwise."),
    GameFlag("mother_theresa", bool, "FIDO F-22, the rule of mercy."),
    GameFlag("doubles_inline", str, "FIDO F-23: never, optional or always."),
)
"""Every game option as a flag; a game refuses the ones it does not have."""


@dataclass
class GameFlags:
    """The option flags a user gave; only those given reach the game's options."""

    given: dict[str, Any] = field(default_factory=dict)

    def options(self, spec: GameSpec, **fixed: Any) -> Any:
        given = {name: value for name, value in self.given.items() if value is not None}
        if "set" in given:
            given["set"] = parse_set(given["set"])
        given.update(fixed)
        try:
            return spec.options_from_json(given)
        except RuleError as exc:
            fail(str(exc))
        except TypeError as exc:
            fail(f"{spec.name}: {exc}")


def with_game_flags(command: Callable[..., None]) -> Callable[..., None]:
    """Give ``command`` every game option flag after its first argument; the values
    reach it as ``flags: GameFlags``."""
    signature = inspect.signature(command, eval_str=True)
    params = [p for p in signature.parameters.values() if p.name != "flags"]
    extra = [flag.parameter() for flag in GAME_FLAGS]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        given = {flag.name: kwargs.pop(flag.name, None) for flag in GAME_FLAGS}
        command(*args, flags=GameFlags(given), **kwargs)

    # Click calls commands with keyword arguments only, so everything after the game
    # argument can be keyword-only, the flags first.
    first, rest = params[:1], [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in params[1:]]
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*first, *extra, *rest]
    )
    return wrapper


def parse_set(text: str) -> int:
    raw = text.strip().lower().removeprefix("double-").removeprefix("d")
    if not raw.isdigit():
        fail(f"--set takes a set like 12 or double-12, not {text!r}")
    return int(raw)


def parse_bots(text: str, seats: int) -> list[Bot]:
    """``greedy,random`` fills the seats in order, repeating."""
    names = [n for n in (part.strip() for part in text.split(",")) if n]
    if not names:
        fail(f"--bots needs at least one of {', '.join(bot_names())}")
    try:
        return [make_bot(names[i % len(names)]) for i in range(seats)]
    except RuleError as exc:
        fail(str(exc))


def spec_for(game: str) -> GameSpec:
    try:
        return find_game(game)
    except RuleError as exc:
        fail(str(exc))


def records_dir() -> Path:
    """Where ``pips play`` keeps its records: ``$PIPS_HOME/records`` (default ~/.pips)."""
    home = Path(os.environ.get("PIPS_HOME", Path.home() / ".pips"))
    return home / "records"


# -- printing --------------------------------------------------------------------------


def describe_layout(view: View) -> str:
    layout = view.layout
    if not layout.tiles:
        return "layout: empty"
    ends = " ".join(f"#{p.id}:{p.value}" for p in layout.open_ends) or "-"
    sides = " ".join(f"#{p.id}:{p.value}" for p in layout.naked_sides) or "-"
    text = f"open ends {ends} | naked sides {sides} | S = {layout.count}"
    divisor = view.options.get("divisor")
    if isinstance(divisor, int):
        text += f", divisor {divisor}, S mod {divisor} = {layout.count % divisor}"
    return text


def describe_event(event: Event, names: Sequence[str]) -> str:
    who = f"{names[event.seat]}:"
    move = event.move
    if isinstance(move, Play):
        scored = f", scores {event.points}" if event.points else ""
        return f"{who:<12} {move}, S = {event.layout_count}{scored}"
    if isinstance(move, Draw):
        return f"{who:<12} draws {move.tile}" if move.tile else f"{who:<12} draws a tile"
    return f"{who:<12} {move}"


def move_from_text(text: str, legal: Sequence[Move]) -> Move:
    """A listed move by its number (from 1) or by its tile (``12-9``); ValueError if none."""
    text = text.strip()
    if text.isdigit():
        if not 1 <= int(text) <= len(legal):
            raise ValueError(f"there is no move {text}: choose 1 to {len(legal)}")
        return legal[int(text) - 1]
    return move_for_tile(Tile.parse(text), legal)


def move_for_tile(tile: Tile, legal: Sequence[Move]) -> Move:
    """The legal play of ``tile``; ValueError when there is none or the places differ.

    Places of equal value and kind are the same for the rules (F-04), so a tile that
    fits several of them needs no choice: the oldest is taken.
    """
    fits = [m for m in legal if isinstance(m, Play) and m.tile == tile]
    if not fits:
        raise ValueError(f"{tile} cannot be played now")
    if len({(m.touching, m.at, m.inline) for m in fits}) > 1:
        numbers = ", ".join(str(legal.index(m) + 1) for m in fits)
        raise ValueError(f"{tile} fits several places: type one of {numbers}")
    return fits[0]


def result_table(state: GameState, names: Sequence[str]) -> Table:
    result = state.result
    assert result is not None
    table = Table(title=f"Hand over: {result.ended.value}")
    for column in ("seat", "player", "points", "pips left", "final", "rank"):
        table.add_column(column, justify="right" if column != "player" else "left")
    for seat in range(len(names)):
        table.add_row(
            str(seat),
            names[seat],
            str(result.points[seat]),
            str(result.pips[seat]),
            str(result.final[seat]),
            str(result.ranks[seat]),
        )
    return table


# -- play --------------------------------------------------------------------------------


def choose_interactively(
    view: View, moves: Sequence[Move], spec: GameSpec, ask: Callable[[str], str]
) -> Move | None:
    """Ask the person at the keyboard for a move; ``None`` when they quit."""
    out.print(describe_layout(view))
    out.print("your hand: " + " ".join(str(t) for t in sorted(view.hand, reverse=True)))
    for number, move in enumerate(moves, 1):
        gain = spec.immediate_points(view, move)
        note = f"  (+{gain})" if gain else ""
        out.print(f"  {number:>2}. {move}{note}")
    while True:
        try:
            answer = ask("your move (number, a tile like 12-9, or q): ").strip()
        except (EOFError, KeyboardInterrupt):
            return None  # the caller saves the game so far
        if answer.lower() in {"q", "quit", "exit"}:
            return None
        try:
            return move_from_text(answer, moves)
        except ValueError as exc:
            out.print(f"[red]{exc}[/red]")


@app.command()
@with_game_flags
def play(
    game: Annotated[str, typer.Argument(help="The game: " + ", ".join(game_names()))],
    flags: GameFlags,
    bots: Annotated[str, typer.Option(help="Bots for the other seats, in order.")] = "greedy",
    name: Annotated[str, typer.Option(help="Your name in the record.")] = "You",
    seat: Annotated[int, typer.Option(help="Your seat (0 opens the order of play).")] = 0,
    seed: Annotated[int | None, typer.Option(help="Seed of the deal.")] = None,
    save: Annotated[
        Path | None, typer.Option(help="Record file (default: a new file in $PIPS_HOME/records).")
    ] = None,
) -> None:
    """Play a game against bots in the terminal; the record is saved at the end."""
    spec = spec_for(game)
    options = flags.options(spec)
    if not 0 <= seat < options.players:
        fail(f"--seat must be 0 to {options.players - 1}")
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    others = parse_bots(bots, options.players - 1)
    seats: list[Bot | None] = [*others[:seat], None, *others[seat:]]
    names = [name if b is None else f"{b.name}-{i}" for i, b in enumerate(seats)]
    state = spec.new_hand(options, random.Random(seed))
    bot_rng = random.Random(seed ^ BOT_STREAM)
    out.print(
        f"[bold]{spec.title}[/bold], options: "
        + ", ".join(f"{k}={v}" for k, v in options.to_json().items())
    )
    out.print("seats in playing order: " + ", ".join(f"{i} {n}" for i, n in enumerate(names)))
    quit_early = False
    while not state.is_over:
        turn = state.current_seat
        assert turn is not None
        moves = state.legal_moves()
        bot = seats[turn]
        if bot is None:
            view = state.view(turn)
            scores = " ".join(f"{names[i]} {s}" for i, s in enumerate(view.scores))
            sizes = " ".join(f"{names[i]} {n}" for i, n in enumerate(view.hand_sizes))
            out.print(
                f"\n[bold]your turn[/bold] · scores: {scores} · tiles: {sizes} · "
                f"stock {view.stock_size}"
            )
            chosen = choose_interactively(view, moves, spec, input)
            if chosen is None:
                quit_early = True
                break
        else:
            chosen = moves[0] if len(moves) == 1 else bot.choose(state.view(turn), moves, bot_rng)
        event = state.play(chosen)
        shown = event.seen_by(seat)
        out.print(describe_event(shown, names))
    if state.is_over:
        out.print(result_table(state, names))
    path = save or records_dir() / f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{spec.name}-{seed}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    record.save([record.write_record(state, names, seed=seed)], path)
    status = "unfinished game" if quit_early else "record"
    out.print(f"{status} saved to {path}")


# -- enter a game played at a real table ----------------------------------------------

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
    """One line of ``pips enter`` as a move, or a word (``undo``, ``quit``); ValueError
    with a message for anything else."""
    words = text.split()
    if not words:
        raise ValueError("type a move, or help")
    head = words[0].lower()
    if head in {"q", "quit", "undo", "help", "?"}:
        return {"q": "quit", "?": "help"}.get(head, head)
    legal = state.legal_moves()
    if head.isdigit() and len(words) == 1:
        chosen = move_from_text(head, legal)
        if isinstance(chosen, Draw) and state.options.deal_mode.value == "manual":
            raise ValueError("name the tile drawn: draw 5-1")
        return chosen
    if head == "pass" and len(words) == 1:
        return Pass()
    if head == "draw":
        if len(words) != 2:
            raise ValueError("write the tile drawn: draw 5-1")
        return Draw(Tile.parse(words[1]))
    if head == "misdeal":
        if len(words) < 2:
            raise ValueError("misdeal needs a seat: misdeal 2 draw 5-1")
        who = words[1]
        seat = (
            int(who)
            if who.isdigit()
            else next((i for i, n in enumerate(names) if n.lower() == who.lower()), -1)
        )
        returned: list[Tile] = []
        drawn: list[Tile] = []
        target: list[Tile] | None = None
        for word in words[2:]:
            if word.lower() in {"return", "returns"}:
                target = returned
            elif word.lower() in {"draw", "draws"}:
                target = drawn
            elif target is None:
                raise ValueError("say return or draw before the tiles")
            else:
                target.append(Tile.parse(word))
        return Misdeal(seat, tuple(returned), tuple(drawn))
    return move_from_text(text, legal)


@app.command()
@with_game_flags
def enter(
    game: Annotated[str, typer.Argument(help="The game: " + ", ".join(game_names()))],
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
            view = state.view(state.current_seat)
            out.print(describe_layout(view))
            out.print(f"{seats[state.current_seat]} to move; stock {view.stock_size}")
            for number, move in enumerate(state.legal_moves(), 1):
                out.print(f"  {number:>2}. {move}")
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
            out.print(describe_event(event, seats))
    path.parent.mkdir(parents=True, exist_ok=True)
    record.save([record.write_record(state, seats)], path)
    out.print(f"{'record' if state.is_over else 'unfinished game'} saved to {path}")


# -- simulate ----------------------------------------------------------------------------


@app.command()
@with_game_flags
def simulate(
    game: Annotated[str, typer.Argument(help="The game: " + ", ".join(game_names()))],
    flags: GameFlags,
    hands: Annotated[int, typer.Option(help="How many games to play.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the first deal.")] = 1,
    bots: Annotated[str, typer.Option(help="Bots, one per seat in order, repeating.")] = "random",
    record_to: Annotated[
        Path | None, typer.Option("--record", help="Write every game to this JSON Lines file.")
    ] = None,
) -> None:
    """Let bots play many games and summarise them."""
    spec = spec_for(game)
    options = flags.options(spec)
    if hands < 1:
        fail("--hands must be at least 1")
    seat_bots = parse_bots(bots, options.players)
    names = [f"{b.name}-{i}" for i, b in enumerate(seat_bots)]
    totals = [0] * options.players
    points = [0] * options.players
    wins = [0.0] * options.players
    blocked = moves = 0
    sink = None
    if record_to is not None:
        record_to.parent.mkdir(parents=True, exist_ok=True)
        sink = record_to.open("w", encoding="utf-8")
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    try:
        with progress:
            task = progress.add_task(f"{spec.name} games", total=hands)
            for number in range(hands):
                game_seed = deal_seed(seed, number)
                state = play_game(spec, options, seat_bots, game_seed)
                result = state.result
                assert result is not None
                for i in range(options.players):
                    totals[i] += result.final[i]
                    points[i] += result.points[i]
                for winner in result.winners:
                    wins[winner] += 1 / len(result.winners)
                blocked += result.ended.value == "blocked"
                moves += len(state.history)
                if sink is not None:
                    sink.write(
                        record.dumps(record.write_record(state, names, seed=game_seed)) + "\n"
                    )
                progress.advance(task)
    finally:
        if sink is not None:
            sink.close()
    table = Table(title=f"{hands} {spec.title} games, seeds {seed}..{seed + hands - 1}")
    for column in ("seat", "bot", "points/game", "final/game", "win share"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for i in range(options.players):
        table.add_row(
            str(i),
            seat_bots[i].name,
            f"{points[i] / hands:.2f}",
            f"{totals[i] / hands:.2f}",
            f"{wins[i] / hands:.1%}",
        )
    out.print(table)
    out.print(f"blocked: {blocked / hands:.1%} of games · moves per game: {moves / hands:.1f}")
    if record_to is not None:
        out.print(f"records written to {record_to}")


# -- replay and check --------------------------------------------------------------------


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="A record (.json) or records (.jsonl).")],
    game_number: Annotated[
        int, typer.Option("--game", help="Which record of the file, from 1.")
    ] = 1,
    step: Annotated[
        bool, typer.Option(help="Show the layout after each move and wait for Enter.")
    ] = False,
) -> None:
    """Show a recorded game move by move, with the count, points and scores."""
    records = list(record.load(file))
    if not 1 <= game_number <= len(records):
        fail(f"{file} holds {len(records)} record(s); --game must be 1 to {len(records)}")
    replayed = record.replay(records[game_number - 1])
    names = replayed.seats
    final: Any = replayed.final
    out.print(f"[bold]{replayed.spec.title}[/bold], seats: " + ", ".join(names))
    # Played again from the deal, so that --step can show each position on the way.
    state = replayed.spec.from_deal(
        replayed.options, final.dealt.hands, final.dealt.stock, final.dealt.voided
    )
    for number, event in enumerate(final.history, 1):
        state.play(event.move)
        running = " ".join(str(s) for s in state.scores)
        out.print(f"{number:>3}. {describe_event(event, names):<48} scores {running}")
        if step:
            out.print("     " + describe_layout(state.view(SPECTATOR)))
            try:
                if input("     Enter for the next move, q to stop: ").strip().lower() == "q":
                    return
            except (EOFError, KeyboardInterrupt):
                return
    if state.is_over:
        out.print(result_table(state, names))
    else:
        out.print("the game is unfinished")


@app.command()
def check(
    files: Annotated[list[Path], typer.Argument(help="Record files to validate.")],
) -> None:
    """Replay every record through the rules; exit 1 at the first bad one."""
    for file in files:
        try:
            count = record.check_file(file)
        except record.RecordError as exc:
            err.print(f"{file}: {exc}", markup=False)
            raise typer.Exit(1) from None
        out.print(f"{file}: {count} record(s) OK")


@app.command()
def version() -> None:
    """Print the version."""
    out.print(f"pips {__version__}")


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: user errors become one line on stderr and exit code 2."""
    try:
        app(args=list(argv) if argv is not None else None, standalone_mode=True)
    except (UsageError, RuleError) as exc:
        err.print(f"error: {exc}", markup=False, soft_wrap=True)
        sys.exit(2)
    except record.RecordError as exc:
        err.print(f"error: {exc}", markup=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
