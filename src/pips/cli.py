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
from pips.display import hand_rows
from pips.games.match import Match
from pips.games.registry import GameSpec, GameState, all_games, find_game, game_names
from pips.paths import pips_home
from pips.sim import deal_seed, play_game
from pips.tui.session import PlaySession, SessionError, default_path

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


def _game_flags() -> tuple[GameFlag, ...]:
    """One flag per option of any game, typed and described by the games' own
    declarations (:mod:`pips.games.options`)."""
    flags: dict[str, GameFlag] = {}
    games: dict[str, list[str]] = {}
    for spec in all_games():
        for info in spec.options.describe():
            games.setdefault(info.name, []).append(spec.name)
            if info.name in flags:
                continue
            kind: type = info.kind if info.kind in (int, bool) else str
            if info.name == "set":
                kind = str  # "12" or "double-12"
            short = ("-p",) if info.name == "players" else ()
            flags[info.name] = GameFlag(info.name, kind, info.help, short)
    return tuple(
        GameFlag(f.name, f.kind, f"{f.help} ({', '.join(games[f.name])})", f.flags)
        for f in flags.values()
    )


GAME_FLAGS = _game_flags()
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


def bot_specs(text: str, seats: int) -> list[str]:
    """``greedy,random`` fills the seats in order, repeating; each name is checked."""
    names = [n for n in (part.strip() for part in text.split(",")) if n]
    if not names:
        fail(f"--bots needs at least one of {', '.join(bot_names())}")
    try:
        for name in set(names):
            make_bot(name)
    except RuleError as exc:
        fail(str(exc))
    return [names[i % len(names)] for i in range(seats)]


def parse_bots(text: str, seats: int) -> list[Bot]:
    """The bots of ``--bots`` for ``seats`` seats (see :func:`bot_specs`)."""
    return [make_bot(name) for name in bot_specs(text, seats)]


def progress_bar() -> Progress:
    """A bar with a count and the time left, on stderr, gone when done."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )


def spec_for(game: str) -> GameSpec:
    try:
        return find_game(game)
    except RuleError as exc:
        fail(str(exc))


def records_dir() -> Path:
    """Where ``pips play`` keeps its records: ``$PIPS_HOME/records`` (default ~/.pips)."""
    return pips_home() / "records"


# -- printing --------------------------------------------------------------------------


def describe_layout(view: View) -> str:
    layout = view.layout
    if not layout.tiles:
        return "layout: empty"
    ends = " ".join(f"#{p.id}:{p.value}" for p in layout.open_ends) or "-"
    text = f"open ends {ends}"
    sides = layout.naked_sides
    if sides:
        # FIDO's naked sides (F-04); in Doubles the spinner's sides (DB-05).
        word = "naked sides" if view.game == "fido" else "spinner sides"
        text += f" | {word} " + " ".join(f"#{p.id}:{p.value}" for p in sides)
    divisor = view.options.get("divisor")
    if isinstance(divisor, int):
        text += (
            f" | S = {layout.count}, divisor {divisor}, S mod {divisor} = {layout.count % divisor}"
        )
    return text


def describe_event(event: Event, names: Sequence[str]) -> str:
    who = f"{names[event.seat]}:"
    move = event.move
    if isinstance(move, Play):
        if event.layout_count is None:
            return f"{who:<12} {move}"
        scored = f", scores {event.points}" if event.points else ""
        return f"{who:<12} {move}, S = {event.layout_count}{scored}"
    if isinstance(move, Draw):
        return f"{who:<12} draws {move.tile}" if move.tile else f"{who:<12} draws a tile"
    if isinstance(move, Pass) and event.set_aside:
        shown = " ".join(map(str, event.set_aside))
        return f"{who:<12} knocks falsely: {shown} set aside face up (PT-08)"
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
    """A hand's result: what each seat scored, the pips left and the standing after it."""
    result = state.result
    assert result is not None
    fido = state.game == "fido"
    title = f"Hand {state.context.number} over: {result.ended.value}"
    if result.out is not None:
        title += f" ({names[result.out]} went out)"
    table = Table(title=title)
    columns = ("seat", "player", "points", "pips left", "final" if fido else "total", "place")
    for column in columns:
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


def match_line(match: Match, names: Sequence[str]) -> str:
    """The match standings in one line."""
    scores = ", ".join(f"{names[i]} {s}" for i, s in enumerate(match.scores))
    if match.spec.name == "partnership":
        scores = f"{names[0]}/{names[2]} {match.scores[0]}, {names[1]}/{names[3]} {match.scores[1]}"
    return f"match to {match.target}: {scores}"


# -- play --------------------------------------------------------------------------------


def choose_interactively(
    view: View, moves: Sequence[Move], spec: GameSpec, ask: Callable[[str], str]
) -> Move | None:
    """Ask the person at the keyboard for a move; ``None`` when they quit."""
    out.print(describe_layout(view))
    # The order players of the game keep their tiles in (F-03 Ratzek rows, PT-03).
    out.print("your hand: " + " · ".join(" ".join(map(str, row)) for row in hand_rows(view)))
    if view.seat >= 0 and view.set_aside and view.set_aside[view.seat]:
        aside = " ".join(map(str, view.set_aside[view.seat]))
        out.print(f"set aside (playable only as your last tiles, PT-08): {aside}")
    for number, move in enumerate(moves, 1):
        gain = spec.immediate_points(view, move)
        note = f"  (+{gain})" if gain else ""
        out.print(f"  {number:>2}. {move}{note}")
    while True:
        try:
            answer = ask("your move (number, a tile like 12-9, knock, or q): ").strip()
        except (EOFError, KeyboardInterrupt):
            return None  # the caller saves the game so far
        if answer.lower() in {"q", "quit", "exit"}:
            return None
        if answer.lower() in {"knock", "pass"}:
            # Also when a play exists: the rules decide (PT-08 penalizes a false knock
            # under false_knock: penalize; otherwise it is refused).
            return Pass()
        try:
            return move_from_text(answer, moves)
        except ValueError as exc:
            out.print(f"[red]{exc}[/red]")


@app.command()
@with_game_flags
def play(
    flags: GameFlags,
    game: Annotated[str | None, typer.Argument(help="The game: " + ", ".join(game_names()))] = None,
    bots: Annotated[str, typer.Option(help="Bots for the other seats, in order.")] = "greedy",
    name: Annotated[str, typer.Option(help="Your name in the record.")] = "You",
    seat: Annotated[
        int,
        typer.Option(help="Your place at the table (0 opens the order; lots may move you)."),
    ] = 0,
    seed: Annotated[int | None, typer.Option(help="Seed of the deal.")] = None,
    save: Annotated[
        Path | None, typer.Option(help="Record file (default: a new file in $PIPS_HOME/records).")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option(help="Go on with the unfinished game saved in this record.")
    ] = None,
    delay: Annotated[
        float, typer.Option(help="Seconds between the bots' moves on screen (0 to 5).")
    ] = 0.8,
    text: Annotated[
        bool,
        typer.Option(
            "--text/--full-screen",
            help="Line by line instead of full screen (the default without a terminal).",
        ),
    ] = False,
) -> None:
    """Play a game (every hand of a match) against bots in the terminal; the record is
    saved after every move, in $PIPS_HOME/records unless --save names a file."""
    if not 0 <= delay <= 5:
        fail("--delay must be 0 to 5 seconds")
    if resume is not None:
        if game is not None or any(v is not None for v in flags.given.values()):
            fail("--resume takes the game and its options from the record: give neither")
        try:
            session = PlaySession.resume(resume)
        except SessionError as exc:
            fail(str(exc))
    else:
        if game is None:
            fail("name a game to play (" + ", ".join(game_names()) + ") or --resume FILE")
        spec = spec_for(game)
        options = flags.options(spec)
        if not 0 <= seat < options.players:
            fail(f"--seat must be 0 to {options.players - 1}")
        seed = random.SystemRandom().randrange(2**31) if seed is None else seed
        others = bot_specs(bots, options.players - 1)
        entrants: list[str | None] = [*others[:seat], None, *others[seat:]]
        names = [name if b is None else f"{b}-{i}" for i, b in enumerate(entrants)]
        path = save or default_path(records_dir(), spec.name, seed)
        session = PlaySession(spec, options, entrants, names, seed, path)
    full_screen = not text and sys.stdin.isatty() and sys.stdout.isatty()
    if full_screen:
        from pips.tui.app import PlayApp

        PlayApp(session, delay=delay).run()
        session.save()
    else:
        play_in_text(session)
    status = "record" if session.is_over else "unfinished game"
    out.print(f"{status} saved to {session.path}")


def play_in_text(session: PlaySession) -> None:
    """The line-by-line client: for scripts, and terminals without full screen."""
    spec, match, names = session.spec, session.match, session.names
    out.print(
        f"[bold]{spec.title}[/bold], options: "
        + ", ".join(f"{k}={v}" for k, v in session.options.to_json().items())
    )
    if match.lots is not None:
        entrant = {e: names[s] for s, e in enumerate(match.seating)}
        drawn = ", ".join(f"{entrant[d.entrant]} {d.tile}" for d in match.lots.draws)
        out.print(f"lots: {drawn}")
    out.print("seats in playing order: " + ", ".join(f"{i} {n}" for i, n in enumerate(names)))
    hand_number = 0
    while not session.is_over:
        state = session.state
        if state.context.number != hand_number:
            hand_number = state.context.number
            if match.target is not None:
                out.print(f"\n[bold]hand {hand_number}[/bold] · {match_line(match, names)}")
        if session.my_turn:
            view = session.view()
            sizes = " ".join(f"{names[i]} {n}" for i, n in enumerate(view.hand_sizes))
            out.print(f"\n[bold]your turn[/bold] · tiles: {sizes} · stock {view.stock_size}")
            chosen = choose_interactively(view, session.legal_moves(), spec, input)
            if chosen is None:
                return
        else:
            chosen = session.decide()
        try:
            played = session.play(chosen)
        except RuleError as exc:
            out.print(f"[red]{exc}[/red]")  # nothing changed: the same seat moves again
            continue
        out.print(describe_event(played.event.seen_by(session.me), names))
        if played.hand_over:
            out.print(result_table(match.hands[played.hand - 1], names))
    if match.target is not None:
        out.print(f"[bold]match over[/bold] · {match_line(match, names)}")


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
    """Record a FIDO game played at a real table, tiles taken by hand (manual deal, F-24)."""
    spec = spec_for(game)
    if spec.name != "fido":
        fail("pips enter records FIDO games (manual deal mode, F-24)")
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
        fail("--hands must be at least 1")
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
    kind = "games" if spec.target(options) is None else "matches"
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
    table = Table(title=f"{hands} {spec.title} {kind}, seeds {seed}..{seed + hands - 1}")
    for column in ("entrant", "bot", "points/hand", "final/game", "win share"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for i in range(players):
        table.add_row(
            str(i),
            entrants[i].name,
            f"{points[i] / played_hands:.2f}",
            f"{totals[i] / hands:.2f}",
            f"{wins[i] / hands:.1%}",
        )
    out.print(table)
    out.print(
        f"hands: {played_hands} ({played_hands / hands:.1f} per game) · "
        f"blocked: {blocked / played_hands:.1%} · moves per hand: {moves / played_hands:.1f}"
    )
    if record_to is not None:
        out.print(f"records written to {record_to}")


# -- tournaments ---------------------------------------------------------------------------


@app.command()
@with_game_flags
def tournament(
    game: Annotated[str, typer.Option("--game", help="The game: " + ", ".join(game_names()))],
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
        fail("--workers must be at least 1")
    names = [n for n in (part.strip() for part in bots.split(",")) if n]
    setup = tour.Tournament.of(spec.name, options.to_json(), names, hands, seed)
    rotations = len(setup.rotations())
    progress = progress_bar()
    where = scheduler or f"{workers or os.cpu_count()} local processes"
    err.print(
        f"{spec.title}: {hands} deals x {rotations} rotations, seats {', '.join(setup.seats)}, "
        f"on {where}"
    )
    with progress:
        task = progress.add_task("deals", total=hands)
        rows = tour.run(
            setup,
            out_dir,
            scheduler=scheduler,
            workers=workers,
            progress=lambda done, total: progress.update(task, completed=done),
        )
    summary = tour.summarize(setup, rows)
    written = tour.write_outputs(summary, out_dir)
    table = Table(title=f"{spec.title}: {summary.deals} deals x {rotations} rotations (duplicate)")
    for column in ("bot", "hands", "points/hand (95%)", "win share (95%)", "moves/s"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for b in summary.bots:
        table.add_row(
            b.bot,
            str(b.hands),
            str(b.points),
            f"{b.wins.mean:.1%} [{b.wins.low:.1%}, {b.wins.high:.1%}]",
            f"{b.moves_per_second:.0f}",
        )
    out.print(table)
    for pair, estimate in summary.differences.items():
        verdict = "significant" if estimate.excludes_zero else "not significant"
        out.print(f"{pair}: {estimate} points per hand ({verdict})")
    out.print("written: " + ", ".join(str(p) for p in [out_dir / tour.RESULTS, *written]))


# -- replay and check --------------------------------------------------------------------


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
        fail(f"{file} holds {len(records)} record(s); --game must be 1 to {len(records)}")
    replayed = record.replay(records[game_number - 1])
    if not (text or step) and sys.stdin.isatty() and sys.stdout.isatty():
        from pips.tui.app import ReplayApp

        ReplayApp(replayed).run()
        return
    names = replayed.seats
    spec = replayed.spec
    out.print(f"[bold]{spec.title}[/bold], seats: " + ", ".join(names))
    match = replayed.match
    if match.lots is not None:
        entrant = {e: names[seat] for seat, e in enumerate(match.seating)}
        drawn = ", ".join(f"{entrant[d.entrant]} {d.tile}" for d in match.lots.draws)
        out.print(f"lots: {drawn}")
    # Each hand is played again from its deal, so --step can show every position.
    for played in match.hands:
        dealt = played.dealt
        state = spec.from_deal(
            replayed.options, dealt.hands, dealt.stock, dealt.voided, played.context
        )
        if match.target is not None:
            out.print(f"[bold]hand {played.context.number}[/bold]")
        for number, event in enumerate(played.history, 1):
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
    if not match.is_over:
        out.print("the game is unfinished")
    elif match.target is not None:
        out.print(f"[bold]match over[/bold] · {match_line(match, names)}")


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
def rules(
    game: Annotated[str, typer.Argument(help="The game: " + ", ".join(game_names()))],
) -> None:
    """List a game's options with their defaults and allowed values."""
    spec = spec_for(game)
    out.print(f"[bold]{spec.title}[/bold] ({spec.name}) · {spec.rules}")
    if spec.aliases:
        out.print("also called: " + ", ".join(spec.aliases))
    table = Table(caption="a true/false option is switched off with --no-FLAG")
    for column in ("flag", "default", "values", "rule", "meaning"):
        table.add_column(column, no_wrap=column in ("flag", "rule"), overflow="fold")
    for info in spec.options.describe():
        if info.default is None:
            default = "required" if info.name == "players" else "see meaning"
        elif isinstance(info.default, bool):
            default = str(info.default).lower()
        else:
            default = str(info.default)
        flag = "--" + info.name.replace("_", "-")
        table.add_row(flag, default, info.values, info.rule, info.help)
    out.print(table)
    fixed = spec.options.FIXED
    if fixed:
        out.print("fixed by the rules: " + ", ".join(f"{k} {v}" for k, v in fixed.items()))


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    database: Annotated[
        str | None,
        typer.Option(help="Database URL (default $PIPS_DATABASE_URL, else SQLite in $PIPS_HOME)."),
    ] = None,
    bot_delay: Annotated[
        float, typer.Option(help="Seconds a bot waits before its move (0 to 5).")
    ] = 0.6,
    grace: Annotated[
        float,
        typer.Option(help="Seconds a player may be away during a game before a bot takes over."),
    ] = 60.0,
    https_cookies: Annotated[
        bool, typer.Option(help="Send the session cookie over HTTPS only (behind TLS).")
    ] = False,
    warm_up: Annotated[
        bool, typer.Option(help="Compile the search bots' kernel at start, in the background.")
    ] = True,
) -> None:
    """Run the pips server: play in the browser with friends and bots."""
    if not 0 <= bot_delay <= 5:
        fail("--bot-delay must be 0 to 5 seconds")
    if not 1 <= grace <= 3600:
        fail("--grace must be 1 to 3600 seconds")
    if not 1 <= port <= 65535:
        fail("--port must be 1 to 65535")
    import uvicorn

    from pips.server.app import create_app
    from pips.store.db import Database

    try:
        db = Database(database)
    except Exception as exc:  # a malformed URL or a missing driver
        fail(f"cannot use database {database!r}: {exc}")
    server_app = create_app(
        db, bot_delay=bot_delay, grace=grace, warm=warm_up, https_cookies=https_cookies
    )
    shown = f"[{host}]" if ":" in host else host
    out.print(f"pips {__version__} serving on http://{shown}:{port}/ (database {db.engine.url!r})")
    # No per-message deflate: state messages are small, and compressing each one for
    # every seat cost the server more than it saved (measured with benchmarks.load).
    uvicorn.run(
        server_app,
        host=host,
        port=port,
        log_level="warning",
        ws_max_size=4096,
        ws_per_message_deflate=False,
    )


@app.command()
def sheet(
    game: Annotated[str, typer.Argument(help="The game: " + ", ".join(game_names()))],
    players: Annotated[int, typer.Option(help="Number of players.")],
    out_file: Annotated[Path, typer.Option("--out", help="Where to write the PDF.")],
    top: Annotated[
        str | None,
        typer.Option("--set", help="The set: 12 or double-12 (the game's default if left out)."),
    ] = None,
    place: Annotated[str, typer.Option(help="Print the place (blank to write in).")] = "",
    day: Annotated[
        str | None, typer.Option("--date", help="Print the date, YYYY-MM-DD (blank to write in).")
    ] = None,
    names: Annotated[str, typer.Option(help="Players' names in seat order, comma separated.")] = "",
    rows: Annotated[
        int | None, typer.Option(help="Rows for scoring plays or hands (4 to 60).")
    ] = None,
) -> None:
    """Make a printable score sheet (PDF) for a game at a real table."""
    from datetime import date

    from pips.results.sheet import SheetError, score_sheet

    if rows is not None and not 4 <= rows <= 60:
        fail("--rows must be 4 to 60")
    try:
        when = date.fromisoformat(day) if day else None
    except ValueError:
        fail(f"--date {day!r} is not a date (YYYY-MM-DD)")
    try:
        pdf = score_sheet(
            game,
            players,
            None if top is None else parse_set(top),
            names=[n for n in names.split(",")] if names else (),
            place=place,
            day=when,
            rows=rows,
        )
    except SheetError as exc:
        fail(str(exc))
    try:
        out_file.write_bytes(pdf)
    except OSError as exc:
        fail(f"cannot write {out_file}: {exc.strerror}")
    out.print(f"wrote {out_file} ({len(pdf)} bytes)")


ranking = typer.Typer(
    help="The world list (the pips rating): compute a month, export a month's results.",
    no_args_is_help=True,
)
app.add_typer(ranking, name="ranking")

DatabaseOption = Annotated[
    str | None,
    typer.Option(
        "--database", help="Database URL (default $PIPS_DATABASE_URL, else SQLite in $PIPS_HOME)."
    ),
]


def results_service(database: str | None, half_life: float | None = None) -> Any:
    from pips.results.rating import RatingSettings
    from pips.results.service import Results, settings_from_env
    from pips.store.db import Database

    try:
        settings = settings_from_env() if half_life is None else RatingSettings(half_life)
    except ValueError as exc:
        fail(str(exc))
    try:
        db = Database(database)
        db.upgrade()
    except Exception as exc:  # a malformed URL, a missing driver, no server
        fail(f"cannot use database {database!r}: {exc}")
    return Results(db, settings=settings)


def last_month() -> str:
    today = datetime.now(UTC).date()
    return f"{today.year - (today.month == 1):04d}-{(today.month - 2) % 12 + 1:02d}"


@ranking.command("compute")
def ranking_compute(
    month: Annotated[
        str | None, typer.Option(help="The month, YYYY-MM (default: last month).")
    ] = None,
    database: DatabaseOption = None,
    half_life: Annotated[
        float | None,
        typer.Option(
            help="Days after which a game weighs half (default $PIPS_RATING_HALF_LIFE or 365)."
        ),
    ] = None,
    preview: Annotated[bool, typer.Option(help="Compute and show, but do not publish.")] = False,
    top: Annotated[int, typer.Option(help="Places to show per game.")] = 10,
) -> None:
    """Compute and publish a month's world lists from every result known at its end
    (a month is published once; published lists never change)."""
    from pips.results.service import ResultsError

    service = results_service(database, half_life)
    chosen = month or last_month()
    with err.status(f"computing the lists of {chosen}"):
        try:
            lists = service.compute_month(chosen, publish=not preview)
        except ResultsError as exc:
            fail(str(exc))
    if not lists:
        out.print(f"{chosen}: no results to rate up to the month's end; nothing published")
        return
    for summary in lists:
        table = Table(
            title=f"{summary['game']} {chosen}: {summary['players']} players, "
            f"{summary['games']} games" + (" (preview)" if preview else " (published)")
        )
        for column in ("place", "player", "pips rating", "games"):
            table.add_column(column, justify="left" if column == "player" else "right")
        for row in summary["top"][:top]:
            table.add_row(str(row["place"]), row["name"], f"{row['rating']:.2f}", str(row["games"]))
        out.print(table)


@ranking.command("export")
def ranking_export(
    month: Annotated[
        str | None, typer.Option(help="The month, YYYY-MM (default: last month).")
    ] = None,
    group: Annotated[
        str | None, typer.Option(help="Only this group's results (its short name).")
    ] = None,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Write here instead of standard output.")
    ] = None,
    database: DatabaseOption = None,
) -> None:
    """Write every counted result of a month as CSV: date, set, divisor, players in seat
    order, running score, pips deducted, final score and rank (SPEC F-25)."""
    from pips.results.service import ResultsError

    service = results_service(database)
    try:
        text = service.export(month or last_month(), group)
    except ResultsError as exc:
        fail(str(exc))
    if out_file is None:
        sys.stdout.write(text)
        return
    try:
        out_file.write_text(text)
    except OSError as exc:
        fail(f"cannot write {out_file}: {exc.strerror}")
    err.print(f"wrote {out_file} ({text.count(chr(10)) - 1} rows)")


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
