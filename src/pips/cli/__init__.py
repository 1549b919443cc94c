"""The ``pips`` command: play, simulate, replay and check games; serve; results.

One module per command group: :mod:`~pips.cli.play`, :mod:`~pips.cli.enter`,
:mod:`~pips.cli.simulate` (and tournaments), :mod:`~pips.cli.records` (replay, check,
rules), :mod:`~pips.cli.serve`, :mod:`~pips.cli.results` (sheets, the world list),
:mod:`~pips.cli.result` (a paper sheet's result);
:mod:`~pips.cli.base` holds what they share.

Every game option is a flag named after it (``--doubles-inline optional``); a flag
that the chosen game does not have, or a value out of range, is a one-line error with
exit code 2, never a traceback.

The command answers in the language of ``--lang``, else of the environment (``LANG``
and the other gettext variables, :func:`pips.i18n.from_environment`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from pips import __version__, i18n, record
from pips.bots.external import BotError
from pips.cli import (
    analyse,
    backups,
    bot,
    enter,
    events,
    helptext,
    play,
    records,
    result,
    results,
    serve,
    simulate,
)
from pips.cli.base import (
    INTERRUPTED,
    UsageError,
    app,
    err,
    interruption_reported,
    interrupts_handled,
    out,
)
from pips.core.errors import RuleError
from pips.extras import missing_part
from pips.files import FileProblem
from pips.i18n import _, explain, say

__all__ = [
    "analyse",
    "app",
    "backups",
    "bot",
    "enter",
    "events",
    "main",
    "play",
    "records",
    "result",
    "results",
    "serve",
    "simulate",
]


@app.command()
def version() -> None:
    """Print the version."""
    out.print(f"pips {__version__}")


def _version_flag(given: bool) -> None:
    if given:
        out.print(f"pips {__version__}")
        raise typer.Exit()


def _language_flag(given: str | None) -> str | None:
    if given is not None:
        try:
            i18n.use_by_default(i18n.supported(given))
        except ValueError as exc:
            raise UsageError(explain(exc)) from None
    return given


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", is_eager=True, callback=_version_flag
        ),
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            help="The language to answer in: en or de (default: from LANG).",
            is_eager=True,
            callback=_language_flag,
        ),
    ] = None,
) -> None:
    """Play, study and rank dominoes."""


def _command_language(args: Sequence[str]) -> str:
    """The language of ``pips --lang X ...`` (before the command's name: ``pips sheet
    --lang de`` sets the sheet's), else of the environment."""
    for i, arg in enumerate(args):
        value = None
        if arg == "--lang" and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--lang="):
            value = arg.partition("=")[2]
        elif not arg.startswith("-") and (i == 0 or args[i - 1] != "--lang"):
            break
        if value is not None:
            try:
                return i18n.supported(value)
            except ValueError:
                break  # the option itself reports it, in the environment's language
    return i18n.from_environment()


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: user errors become one line on stderr and exit code 2. The help
    texts are put into the command's language before the command line is read."""
    args = list(argv) if argv is not None else sys.argv[1:]
    i18n.use_by_default(_command_language(args))
    command = typer.main.get_command(app)
    i18n.translate_command(command)
    helptext.conventional(command)
    try:
        with interrupts_handled():
            command(args=args, prog_name="pips", standalone_mode=True)
    except (UsageError, RuleError, BotError, record.RecordError, FileProblem) as exc:
        err.print(_("error: {message}").format(message=explain(exc)), markup=False, soft_wrap=True)
        sys.exit(2)
    except ModuleNotFoundError as exc:
        needed = missing_part(exc)
        if needed is None:
            raise
        err.print(_("error: {message}").format(message=say(needed)), markup=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print(_("interrupted"))
        sys.exit(INTERRUPTED)
    except SystemExit as exit:
        # typer ends a command that Ctrl-C stopped with 130 and no word.
        if exit.code == INTERRUPTED and not interruption_reported():
            err.print(_("interrupted"))
        raise
