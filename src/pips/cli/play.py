"""``pips play``: a game against bots in the terminal, full screen or line by line."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated

import typer

from pips.bots.external import BotError
from pips.cli.base import (
    GameFlags,
    app,
    bot_specs,
    complete_game,
    fail,
    game_help,
    match_line,
    out,
    records_dir,
    result_table,
    spec_for,
    stopped,
    typed_words,
    with_game_flags,
)
from pips.core.errors import RuleError
from pips.core.legal import representatives
from pips.core.moves import Move
from pips.core.notation import read_move
from pips.core.view import View
from pips.display import describe_event, describe_layout, hand_rows, move_words, refusal
from pips.games.registry import Game, game_names
from pips.i18n import _, explain, say
from pips.tui.session import PlaySession, SessionError, default_path


def choose_interactively(
    view: View, moves: Sequence[Move], spec: Game, ask: Callable[[str], str]
) -> Move | None:
    """Ask the person at the keyboard for a move; ``None`` when they quit. Places that
    make no difference are offered once (:func:`~pips.core.legal.distinct`)."""
    moves = representatives(moves)
    out.print(say(describe_layout(view)))
    # The order players of the game keep their tiles in (F-03 Ratzek rows, PT-03).
    out.print(
        _("your hand: {tiles}").format(
            tiles=" · ".join(" ".join(map(str, row)) for row in hand_rows(view))
        )
    )
    if view.seat >= 0 and view.set_aside and view.set_aside[view.seat]:
        aside = " ".join(map(str, view.set_aside[view.seat]))
        out.print(
            _("set aside (playable only as your last tiles, PT-08): {tiles}").format(tiles=aside)
        )
    for number, move in enumerate(moves, 1):
        gain = spec.immediate_points(view, move)
        note = f"  (+{gain})" if gain else ""
        said = say(move_words(move, moves, spec.pass_word))
        out.print(f"  {number:>2}. {said}{note}")
    while True:
        try:
            answer = ask(
                _("your move (number, a tile like 12-9, {pass_word}, or q): ").format(
                    pass_word=_(spec.pass_word).lower()
                )
            ).strip()
        except EOFError:
            return None  # the caller saves the game so far
        if answer.lower() in {"q", "quit", "exit"}:
            return None
        try:
            # A knock is taken also when a play exists: the rules decide (PT-08
            # penalizes a false knock under false_knock: penalize; else it is refused).
            return read_move(typed_words(answer, spec.pass_word), moves)
        except ValueError as exc:
            out.print(explain(exc), style="red", markup=False)


@app.command()
@with_game_flags
def play(
    flags: GameFlags,
    game: Annotated[
        str | None, typer.Argument(help=game_help(), autocompletion=complete_game)
    ] = None,
    bots: Annotated[str, typer.Option(help="Bots for the other seats, in order.")] = "greedy",
    name: Annotated[
        str | None,
        typer.Option(help="Your name in the record (default: You, in your language)."),
    ] = None,
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
        fail(_("--delay must be 0 to 5 seconds"))
    if resume is not None:
        if game is not None or any(v is not None for v in flags.given.values()):
            fail(_("--resume takes the game and its options from the record: give neither"))
        try:
            session = PlaySession.resume(resume)
        except SessionError as exc:
            fail(explain(exc))
    else:
        if game is None:
            fail(
                _("name a game to play ({games}) or --resume FILE").format(
                    games=", ".join(game_names())
                )
            )
        spec = spec_for(game)
        options = flags.options(spec)
        if not 0 <= seat < options.players:
            fail(_("--seat must be 0 to {last}").format(last=options.players - 1))
        seed = random.SystemRandom().randrange(2**31) if seed is None else seed
        others = bot_specs(bots, options.players - 1)
        entrants: list[str | None] = [*others[:seat], None, *others[seat:]]
        me = name or _("You")
        names = [me if b is None else f"{b}-{i}" for i, b in enumerate(entrants)]
        if save is not None and save.exists():
            fail(
                _("{file} exists: choose another file, or go on with it by --resume {file}").format(
                    file=save
                )
            )
        path = save or default_path(records_dir(), spec.name, seed)
        session = PlaySession(spec, options, entrants, names, seed, path)
    full_screen = not text and sys.stdin.isatty() and sys.stdout.isatty()
    failure: str | None = None
    interrupted = False
    if full_screen:
        from pips.tui.app import PlayApp
        from pips.tui.screens import INTERRUPTED

        client = PlayApp(session, delay=delay)
        client.run()
        failure = client.failure
        interrupted = client.return_code == INTERRUPTED
    else:
        try:
            play_in_text(session)
        except BotError as error:
            failure = str(error)
        except KeyboardInterrupt:
            interrupted = True
    session.save()
    if failure is not None:
        fail(
            _("{problem}; the game so far is saved to {file}").format(
                problem=failure, file=session.path
            )
        )
    if interrupted and not session.is_over:
        stopped(
            _("unfinished game saved to {path}; go on with: pips play --resume {path}").format(
                path=session.path
            )
        )
    if session.is_over:
        out.print(_("record saved to {path}").format(path=session.path))
    else:
        out.print(_("unfinished game saved to {path}").format(path=session.path))


def play_in_text(session: PlaySession) -> None:
    """The line-by-line client: for scripts, and terminals without full screen."""
    spec, match, names = session.spec, session.match, session.names
    out.print(f"[bold]{say(spec.in_brief(session.options))}[/bold]")
    if match.lots is not None:
        entrant = {e: names[s] for s, e in enumerate(match.seating)}
        drawn = ", ".join(f"{entrant[d.entrant]} {d.tile}" for d in match.lots.draws)
        out.print(_("lots: {draws}").format(draws=drawn))
    out.print(
        _("seats in playing order: {seats}").format(
            seats=", ".join(f"{i} {n}" for i, n in enumerate(names))
        )
    )
    hand_number = 0
    while not session.is_over:
        state = session.state
        if state.context.number != hand_number:
            hand_number = state.context.number
            if match.target is not None:
                heading = _("hand {number}").format(number=hand_number)
                out.print(f"\n[bold]{heading}[/bold] · {match_line(match, names)}")
        if session.my_turn:
            view = session.view()
            sizes = " ".join(f"{names[i]} {n}" for i, n in enumerate(view.hand_sizes))
            out.print(
                "\n[bold]"
                + _("your turn")
                + "[/bold] · "
                + _("tiles: {sizes} · stock {count}").format(sizes=sizes, count=view.stock_size)
            )
            chosen = choose_interactively(view, session.legal_moves(), spec, input)
            if chosen is None:
                return
        else:
            chosen = session.decide()
        try:
            played = session.play(chosen)
        except RuleError as exc:
            # Nothing changed: the same seat moves again.
            out.print(say(refusal(exc, names, session.me)), style="red", markup=False)
            continue
        seen = played.event.seen_by(session.me)
        out.print(say(describe_event(seen, names, spec.name, you=session.me)))
        if played.hand_over:
            out.print(result_table(match.hand_states[played.hand - 1], names, session.me))
    if match.target is not None:
        over = _("match over")
        out.print(f"[bold]{over}[/bold] · {match_line(match, names)}")
