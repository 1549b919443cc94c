"""The ``pips`` command: play, simulate, replay and check games; serve; results.

One module per command group: :mod:`~pips.cli.play`, :mod:`~pips.cli.enter`,
:mod:`~pips.cli.simulate` (and tournaments), :mod:`~pips.cli.records` (replay, check,
rules), :mod:`~pips.cli.serve`, :mod:`~pips.cli.results` (sheets, the world list);
:mod:`~pips.cli.base` holds what they share.

Every game option is a flag named after it (``--doubles-inline optional``); a flag
that the chosen game does not have, or a value out of range, is a one-line error with
exit code 2, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from pips import __version__, record
from pips.bots.external import BotError
from pips.cli import analyse, enter, play, records, results, serve, simulate
from pips.cli.base import UsageError, app, err, out
from pips.core.errors import RuleError

__all__ = ["analyse", "app", "enter", "main", "play", "records", "results", "serve", "simulate"]


@app.command()
def version() -> None:
    """Print the version."""
    out.print(f"pips {__version__}")


def _version_flag(given: bool) -> None:
    if given:
        out.print(f"pips {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", is_eager=True, callback=_version_flag
        ),
    ] = False,
) -> None:
    """Play, study and rank dominoes."""


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: user errors become one line on stderr and exit code 2."""
    try:
        app(args=list(argv) if argv is not None else None, standalone_mode=True)
    except (UsageError, RuleError, BotError) as exc:
        err.print(f"error: {exc}", markup=False, soft_wrap=True)
        sys.exit(2)
    except record.RecordError as exc:
        err.print(f"error: {exc}", markup=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
