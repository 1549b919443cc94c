"""``pips enter``: a game played at a real table, entered as it happens."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from pips import record
from pips.cli.base import (
    GameFlags,
    app,
    fail,
    game_flags,
    manual_games,
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
from pips.core.moves import Draw, Move
from pips.core.notation import read_move
from pips.core.phrase import N_, phrase
from pips.core.tiles import Tile
from pips.core.view import MoveEvent
from pips.display import describe_event, describe_layout, move_words, refusal
from pips.games.registry import find_game
from pips.i18n import _, explain, help_phrase, ngettext, say

ENTER_HELP = N_("""Enter what happened at the table, one action per line:
  a number          the listed move with that number
  12-9              lay that tile (you are asked where if it fits several places)
  draw 5-1          the player to move drew 5-1 from the stock
  pass              the player to move passed (empty stock)
  misdeal S draw 5-1 4-0 / misdeal S return 6-6
                    seat S (number or name) was misdealt (F-24)
  undo              take back the last entry
  q                 stop (every entry is saved as it is made)""")


def parse_entry(
    text: str, state: Any, names: Sequence[str], offered: Sequence[Move] | None = None
) -> Move | str:
    """One line of ``pips enter`` as a move (:mod:`pips.core.notation`) among those
    ``offered`` (the state's legal moves by default), or a word (``undo``, ``quit``,
    ``help``); ValueError with a message for anything else."""
    word = text.strip().lower()
    if word in {"q", "quit", "undo", "help", "?"}:
        return {"q": "quit", "?": "help"}.get(word, word)
    pass_word = find_game(state.game).pass_word
    typed = typed_words(text, pass_word)
    move = read_move(typed, state.legal_moves() if offered is None else offered, names)
    if isinstance(move, Draw) and move.tile is None and state.options.deal_mode.value == "manual":
        raise ValueError(_("name the tile drawn: draw 5-1"))
    return move


ENTER_FLAGS = game_flags(manual_games(), leave_out=("deal_mode",))
"""The options of the games dealt by hand; the deal mode is manual by definition."""


def check_hand(
    tiles: Sequence[Tile], top: int, taken: dict[Tile, str], name: str, size: int
) -> str | None:
    """What is wrong with a hand just typed (a tile outside the set, one typed twice or
    already in another hand), or ``None``. A wrong number of tiles is not wrong here:
    it is a misdeal, corrected by an entry (F-24)."""
    seen: set[Tile] = set()
    for tile in tiles:
        if tile.high > top:
            return _("{tile} is not a tile of the double-{top} set").format(tile=tile, top=top)
        if tile in seen:
            return _("{tile} is typed twice").format(tile=tile)
        if tile in taken:
            return _("{tile} is already in the hand of {name}").format(tile=tile, name=taken[tile])
        seen.add(tile)
    return None


def size_warning(state: Any, seats: Sequence[str]) -> str | None:
    """Before the opening: the hands of the wrong size and how to correct them."""
    if state.layout.tiles:
        return None
    size = state.options.hand_size
    wrong = [
        _("{name} holds {count}").format(name=seats[seat], count=len(hand))
        for seat, hand in enumerate(state.hands)
        if len(hand) != size
    ]
    if not wrong:
        return None
    return _(
        "a hand is {size} tiles (F-02): {wrong}. Correct it before the opening "
        "(F-24.1): misdeal NAME return 6-6, or misdeal NAME draw 5-1"
    ).format(size=size, wrong=", ".join(wrong))


@app.command()
@functools.partial(with_game_flags, flags=ENTER_FLAGS)
def enter(
    game: Annotated[
        str | None,
        typer.Argument(
            help=help_phrase(
                phrase(
                    "The game: {games} (the games dealt by hand at a real table, F-24).",
                    games=", ".join(spec.name for spec in manual_games()),
                )
            )
        ),
    ] = None,
    *,
    flags: GameFlags,
    names: Annotated[
        str | None, typer.Option(help="Players in playing order, comma separated.")
    ] = None,
    save: Annotated[
        Path | None, typer.Option(help="Record file (default: a new file in $PIPS_HOME/records).")
    ] = None,
    resume: Annotated[
        Path | None, typer.Option(help="Go on with an unfinished entry saved in this record.")
    ] = None,
) -> None:
    """Record a game played at a real table, tiles taken by hand (manual deal, F-24).

    Each hand is checked as it is typed; every entry is saved at once, so an entry
    stopped half way goes on with --resume FILE.
    """
    ask = input
    if resume is not None:
        if game is not None or names is not None or save is not None:
            fail(_("--resume takes the game, the names and the file from the record"))
        state, seats, path = _resumed(resume)
        spec, options = find_game(state.game), state.options
        hands = [list(h) for h in state.dealt.hands]
    else:
        if game is None:
            fail(
                _("name the game: {games}").format(
                    games=", ".join(spec.name for spec in manual_games())
                )
            )
        spec = spec_for(game)
        if not spec.manual_deal:
            manual = ", ".join(_(g.title) for g in manual_games())
            fail(_("pips enter records games dealt by hand (F-24): {games}").format(games=manual))
        options = flags.options(spec, deal_mode="manual")
        seats = (
            [n.strip() for n in names.split(",")]
            if names
            else [_("player {number}").format(number=i + 1) for i in range(options.players)]
        )
        if len(seats) != options.players or not all(seats):
            fail(_("--names must give {count} names").format(count=options.players))
        if save is not None and save.exists():
            fail(
                _("{file} exists: choose another file, or go on with it by --resume {file}").format(
                    file=save
                )
            )
        path = save or records_dir() / f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{spec.name}-table.json"
        typed = _ask_hands(ask, seats, options)
        if typed is None:
            fail(_("no deal entered"))
        hands = typed
        try:
            state = spec.from_deal(options, hands, None)
        except RuleError as exc:
            fail(_("the deal: {problem}").format(problem=explain(exc)))
        _save(state, seats, path)
        out.print(_("the deal is saved to {path}").format(path=path))
    out.print(_(ENTER_HELP))

    def rebuild(events: Sequence[MoveEvent]) -> Any:
        fresh = spec.from_deal(options, hands, None)
        for event in events:
            fresh.play(event.move)
        return fresh

    while True:
        warning = size_warning(state, seats)
        if warning:
            out.print(f"[yellow]{warning}[/yellow]")
        if state.is_over:
            out.print(result_table(state, seats))
            prompt = _("hand over: a late misdeal, undo, or q to stop: ")
            offered: list[Move] = []
        else:
            turn = state.current_seat
            assert turn is not None
            view = state.view(turn)
            out.print(say(describe_layout(view)))
            out.print(
                _("{name} to move; stock {count}").format(name=seats[turn], count=view.stock_size)
            )
            # Places that make no difference are offered once (F-04).
            offered = representatives(state.legal_moves())
            for number, move in enumerate(offered, 1):
                out.print(f"  {number:>2}. {say(move_words(move, offered, spec.pass_word))}")
            prompt = _("what happened? ")
        try:
            text = ask(prompt)
        except EOFError:
            break  # every entry is saved already
        except KeyboardInterrupt:
            stopped(
                _(
                    "unfinished entry saved to {path}; go on with: pips enter --resume {path}"
                ).format(path=path)
            )
        try:
            entry = parse_entry(text, state, seats, offered)
        except ValueError as exc:
            out.print(explain(exc), style="red", markup=False)
            continue
        if entry == "quit":
            break
        if entry == "help":
            out.print(_(ENTER_HELP))
        elif entry == "undo":
            if state.history:
                state = rebuild(state.history[:-1])
                _save(state, seats, path)
                out.print(_("last entry taken back"))
            else:
                # Before the first move the last entry is the deal's last hand.
                out.print(_("the hand of {name} taken back: type it again").format(name=seats[-1]))
                typed = _ask_hands(ask, seats, options, hands[:-1])
                if typed is None:
                    break
                hands = typed
                state = rebuild([])
                _save(state, seats, path)
        elif not isinstance(entry, str):
            try:
                event = state.play(entry)
            except RuleError as exc:
                out.print(say(refusal(exc, seats, None)), style="red", markup=False)
                continue
            _save(state, seats, path)
            out.print(say(describe_event(event, seats, spec.name)))
    _save(state, seats, path)
    if state.is_over:
        out.print(_("record saved to {path}").format(path=path))
    else:
        out.print(
            _("unfinished entry saved to {path}; go on with: pips enter --resume {path}").format(
                path=path
            )
        )


def _ask_hands(
    ask: Callable[[str], str],
    seats: Sequence[str],
    options: Any,
    hands: list[list[Tile]] | None = None,
) -> list[list[Tile]] | None:
    """Every hand (after those in ``hands``), checked as it is typed: a wrong line is
    asked again, the hands before it kept; ``undo`` takes back the hand before. A hand
    of the wrong size is a misdeal only when the person says so: more often it is a slip
    of the keyboard. ``None`` when the input ends first."""
    top, size = options.top, options.hand_size
    hands = list(hands or [])
    while len(hands) < len(seats):
        name = seats[len(hands)]
        taken = {tile: seats[seat] for seat, hand in enumerate(hands) for tile in hand}
        try:
            text = ask(_("tiles of {name} ({count}): ").format(name=name, count=size))
        except EOFError:
            return None
        if text.strip().lower() in {"q", "quit"}:
            return None
        if text.strip().lower() == "undo":
            if hands:
                hands.pop()
                out.print(_("the hand of {name} taken back").format(name=seats[len(hands)]))
            else:
                out.print(_("nothing to take back yet"), style="yellow")
            continue
        try:
            tiles = [Tile.parse(word) for word in text.replace(",", " ").split()]
        except ValueError as exc:
            out.print(
                _("{problem}; type the hand again").format(problem=explain(exc)),
                style="red",
                markup=False,
            )
            continue
        wrong = check_hand(tiles, top, taken, name, size)
        if wrong:
            out.print(
                _("{problem}; type the hand again").format(problem=wrong),
                style="red",
                markup=False,
            )
            continue
        if len(tiles) != size and not _misdeal_confirmed(ask, name, len(tiles), size):
            continue
        hands.append(tiles)
    return hands


def _misdeal_confirmed(ask: Callable[[str], str], name: str, count: int, size: int) -> bool:
    """Whether a hand of ``count`` tiles, not ``size``, was really dealt so (F-24.1)."""
    try:
        answer = ask(
            ngettext(
                "{name} holds {count} tile, not {size}: was it dealt so (a misdeal, corrected "
                "before the opening, F-24.1)? y for yes, Enter to type the hand again: ",
                "{name} holds {count} tiles, not {size}: was it dealt so (a misdeal, corrected "
                "before the opening, F-24.1)? y for yes, Enter to type the hand again: ",
                count,
            ).format(name=name, count=count, size=size)
        )
    except EOFError:
        return False
    return answer.strip().lower() in {"y", "yes", _("y"), _("yes")}


def _resumed(path: Path) -> tuple[Any, list[str], Path]:
    """The unfinished entry saved in ``path``: its hand, names and file."""
    try:
        records = list(record.load(path))
        if len(records) != 1:
            fail(
                _("{file} holds {count} records; --resume needs one game").format(
                    file=path, count=len(records)
                )
            )
        replayed = record.replay(records[0])
    except record.RecordError as exc:
        fail(f"{path}: {explain(exc)}")
    state = replayed.states[-1]
    if not replayed.spec.manual_deal or not replayed.spec.dealt_by_hand(replayed.options):
        fail(_("{file} is not a game entered by hand (F-24)").format(file=path))
    if state.is_over:
        out.print(
            _("{path}: that game is over; a late misdeal or undo may still be entered").format(
                path=path
            )
        )
    return state, list(replayed.seats), path


def _save(state: Any, seats: Sequence[str], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    record.save([record.write_record(state, seats)], path)
