"""What every command of ``pips`` shares: the app, the consoles, errors in one line, the
game options as flags, bots from ``--bots``, progress bars and result tables."""

from __future__ import annotations

import functools
import inspect
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console, Group
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from pips.bots.base import Bot, bot_names, make_bot
from pips.core.errors import RuleError
from pips.core.phrase import Phrase, joined, phrase
from pips.display import PLACE_WORDS, addressed, hand_sheet, sheet_table, standings
from pips.games.match import Match
from pips.games.registry import Game, GameState, all_games, find_game, game_names
from pips.i18n import _, explain, help_phrase, say
from pips.paths import pips_home
from pips.tui.widgets import sheet_lines

app = typer.Typer(
    name="pips",
    help="Play, study and rank dominoes.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit code 2."""


def fail(message: str) -> NoReturn:
    raise UsageError(message)


# -- Ctrl-C ----------------------------------------------------------------------------------

INTERRUPTED = 130
"""The exit status of a command stopped by Ctrl-C (128 + SIGINT), as shells expect."""


class _Interrupts:
    count = 0
    reported = False


@contextmanager
def interrupts_handled() -> Iterator[None]:
    """Ctrl-C as users expect, while the block runs: the first raises
    :class:`KeyboardInterrupt`, which the command turns into keeping what it finished and
    saying how to go on; a second one, while it does that, ends the command at once, its
    worker processes with it, without a traceback."""
    _Interrupts.count = 0
    _Interrupts.reported = False
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only
        return
    previous = signal.signal(signal.SIGINT, _on_interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _on_interrupt(signum: int, frame: object) -> None:
    _Interrupts.count += 1
    if _Interrupts.count == 1:
        raise KeyboardInterrupt
    for child in multiprocessing.active_children():
        child.kill()
    sys.stderr.write("\n" + _("interrupted") + "\n")
    sys.stderr.flush()
    os._exit(INTERRUPTED)


def stopped(message: str, *, at_once: bool = False) -> NoReturn:
    """End a command that Ctrl-C interrupted, after saying what was kept and how to go
    on (``message``): exit status 130.

    ``at_once`` ends the process here, without the interpreter's exit handlers: after a
    process pool was stopped mid-work, Python 3.11's own handler can trip over the pool's
    closed pipe and print a traceback (its files are closed already, whole)."""
    err.print(message, markup=False)
    _Interrupts.reported = True
    if at_once:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(INTERRUPTED)
    raise typer.Exit(INTERRUPTED)


def interruption_reported() -> bool:
    """Whether the command already said what its interruption kept."""
    return _Interrupts.reported


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


def game_flags(specs: Sequence[Game], leave_out: Sequence[str] = ()) -> tuple[GameFlag, ...]:
    """One flag per option of the games ``specs``, typed and described by the games'
    own declarations (:mod:`pips.games.options`), but those in ``leave_out``."""
    flags: dict[str, GameFlag] = {}
    games: dict[str, list[str]] = {}
    for spec in specs:
        for info in spec.options.describe():
            if info.name in leave_out:
                continue
            # Per game: the values it takes and its default ("fido: 3 to 9, required"),
            # as phrases: the help is said in the command's language when it is shown.
            default: str
            if info.kind is bool:
                default = phrase("on") if info.default else phrase("off")
            elif info.default is None:
                default = phrase("required") if info.required else phrase("as the rules say")
            else:
                default = phrase("default {value}", value=info.default)
            part = (
                phrase("{game}: {default}", game=spec.name, default=default)
                if info.kind is bool
                else phrase(
                    "{game}: {values}, {default}",
                    game=spec.name,
                    values=Phrase(info.values),
                    default=default,
                )
            )
            games.setdefault(info.name, []).append(part)
            if info.name in flags:
                continue
            kind: type = info.kind if info.kind in (int, bool) else str
            if info.name == "set":
                kind = str  # "12" or "double-12"
            short = ("-p",) if info.name == "players" else ()
            flags[info.name] = GameFlag(info.name, kind, info.help, short)
    return tuple(
        GameFlag(
            f.name,
            f.kind,
            help_phrase(
                phrase(
                    "{help} {games}.",
                    help=Phrase(f.help),
                    games=joined(games[f.name], separator="; "),
                )
            ),
            f.flags,
        )
        for f in flags.values()
    )


GAME_FLAGS = game_flags(all_games())
"""Every game option as a flag; a game refuses the ones it does not have."""


@dataclass
class GameFlags:
    """The option flags a user gave; only those given reach the game's options."""

    given: dict[str, Any] = field(default_factory=dict)

    def options(self, spec: Game, **fixed: Any) -> Any:
        given = {name: value for name, value in self.given.items() if value is not None}
        if "set" in given:
            given["set"] = parse_set(given["set"])
        given.update(fixed)
        for info in spec.options.describe():
            if info.required and info.name not in given:
                flag = "--" + info.name.replace("_", "-")
                fail(
                    _("{game} needs {flag} ({values}): {meaning}").format(
                        game=spec.name, flag=flag, values=info.values, meaning=info.help.rstrip(".")
                    )
                )
        try:
            return spec.options_from_json(given)
        except RuleError as exc:
            fail(explain(exc))
        except TypeError as exc:
            fail(f"{spec.name}: {exc}")


def with_game_flags(
    command: Callable[..., None], flags: Sequence[GameFlag] = GAME_FLAGS
) -> Callable[..., None]:
    """Give ``command`` the game option ``flags`` (every game's by default) after its
    first argument; the values reach it as ``flags: GameFlags``."""
    signature = inspect.signature(command, eval_str=True)
    params = [p for p in signature.parameters.values() if p.name != "flags"]
    extra = [flag.parameter() for flag in flags]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        given = {flag.name: kwargs.pop(flag.name, None) for flag in flags}
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
    if not (raw.isascii() and raw.isdigit()):
        fail(_("--set takes a set like 12 or double-12, not {text!r}").format(text=text))
    return int(raw)


def bot_specs(text: str, seats: int) -> list[str]:
    """``greedy,random`` fills the seats in order, repeating; each name is checked."""
    names = [n for n in (part.strip() for part in text.split(",")) if n]
    if not names:
        fail(_("--bots needs at least one of {names}").format(names=", ".join(bot_names())))
    try:
        for name in set(names):
            make_bot(name)
    except RuleError as exc:
        fail(explain(exc))
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


ForceOption = Annotated[bool, typer.Option("--force", help="Overwrite the file if it exists.")]


def advancing(bar: Progress, task: TaskID) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` callback that moves ``task`` of ``bar``."""

    def advanced(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    return advanced


def spec_for(game: str) -> Game:
    try:
        return find_game(game)
    except RuleError as exc:
        fail(explain(exc))


def records_dir() -> Path:
    """Where ``pips play`` keeps its records: ``$PIPS_HOME/records`` (default ~/.pips)."""
    return pips_home() / "records"


def complete_game(incomplete: str) -> list[str]:
    """The games whose names start with what was typed (shell completion)."""
    return [name for name in game_names() if name.startswith(incomplete.lower())]


def game_help() -> str:
    return help_phrase(phrase("The game: {games}", games=", ".join(game_names())))


def manual_games() -> list[Game]:
    """The games whose tiles may be taken by hand at a real table (F-24)."""
    return [spec for spec in all_games() if spec.manual_deal]


def result_table(state: GameState, names: Sequence[str], you: int | None = None) -> Group:
    """A finished hand's sheet (the words every client shows) and how it came about,
    said to the player at seat ``you``."""
    shown = sheet_table(hand_sheet(state, names), names)
    return Group(
        sheet_lines(shown, names, you), Text(say(addressed(shown.explanation, names, you)))
    )


def match_line(match: Match, names: Sequence[str]) -> str:
    """The match standings in one line."""
    return _("match to {target}: {standings}").format(
        target=match.target, standings=standings(match.spec.name, match.scores, names)
    )


def typed_words(text: str, pass_word: str) -> str:
    """What a person typed, with the words moves are shown in (their language's, see
    :func:`pips.display.move_words`) put back into the notation's: ``ziehen 5-1`` is
    ``draw 5-1``, ``6-4 Seite`` is ``6-4 side``."""
    back = {_("draw").lower(): "draw", _(pass_word).lower(): pass_word.lower()}
    back.update({_(message).lower(): english for english, message in PLACE_WORDS.items()})
    return " ".join(back.get(word.lower(), word) for word in text.split())


def save_or_stop() -> None:
    """Ask before saving a result that was just shown; without a terminal to ask in,
    nothing is saved (scripts say ``--yes``)."""
    if not sys.stdin.isatty():
        fail(_("nothing saved: add --yes to save without being asked"))
    if not yes_or_no(_("Save this result?")):
        err.print(_("Nothing saved."))
        raise typer.Exit(1)


def yes_or_no(question: str, *, default: bool = False) -> bool:
    """A yes-or-no question in the reader's language: ``[j/N]`` in German, which takes
    "j" and "ja" (click's own ``[y/N]`` refused them), and "y" and "yes" as well; Enter
    gives ``default``, anything else is asked again."""
    yes, no = _("y"), _("n")
    hint = f"[{yes.upper()}/{no}]" if default else f"[{yes}/{no.upper()}]"
    while True:
        answer = typer.prompt(f"{question} {hint}", default="", show_default=False)
        word = answer.strip().casefold()
        if not word:
            return default
        if word in {yes, _("yes").casefold(), "y", "yes"}:
            return True
        if word in {no, _("no").casefold(), "n", "no"}:
            return False
        err.print(_("Answer {yes} or {no}.").format(yes=yes, no=no), markup=False)
