"""``--help`` that reads well at any width: the conventions of the command line, put on
the command tree that typer builds.

- ``-h`` beside ``--help``;
- a value's placeholder says what it is (``FILE``, ``N``, ``TEXT``), never a Python
  type (``<bool>``, ``<list[Path]>``); a switch has none;
- help texts are sentences: a paragraph's line breaks in the source are spaces, so the
  terminal wraps them at its own width;
- the options are laid out in two columns, names and help, each wrapped, never cut
  (typer's own table of six columns cut ``--allow-hand-sorting`` to
  ``--allow-hand-sorti…`` at 80 columns).
"""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from pips.core.phrase import N_
from pips.i18n import _

PLACEHOLDERS = {
    "file": N_("FILE"),
    "files": N_("FILE"),
    "folder": N_("FOLDER"),
    "number": N_("N"),
    "decimal": N_("NUMBER"),
    "text": N_("TEXT"),
}
"""The words that stand for a value in the help (``--out FILE``), by kind."""


COMPLETION_HELP = (
    N_("Install completion for the current shell."),
    N_("Show completion for the current shell, to copy it or customize the installation."),
)
"""typer's own options for shell completion, said in the command's language like every
other option's help (:func:`pips.i18n.translate_command` looks them up)."""


def placeholder(param: Any) -> str:
    """The word for ``param``'s value in the current language; ``""`` for a switch."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return ""
    if getattr(param, "metavar", None):
        return str(param.metavar)  # said by the option itself (--limit NAME=BURST/PER_MINUTE)
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    choices = getattr(getattr(param, "type", None), "choices", None)
    if choices:
        return "|".join(str(choice) for choice in choices)
    if annotation is int:
        kind = "number"
    elif annotation is float:
        kind = "decimal"
    elif annotation is Path or (isinstance(annotation, type) and issubclass(annotation, Path)):
        kind = "folder" if (param.name or "").endswith("dir") else "file"
    elif getattr(annotation, "__origin__", None) is list:
        # A list of paths is files; a list of words (--limit) is text, not FILE.
        items = getattr(annotation, "__args__", (str,))
        kind = (
            "files"
            if items and isinstance(items[0], type) and issubclass(items[0], Path)
            else "text"
        )
    else:
        kind = "text"
    word = _(PLACEHOLDERS[kind])
    return f"{word}..." if getattr(param, "nargs", 1) != 1 else word


ARGUMENTS = {
    "file": N_("FILE"),
    "files": N_("FILE"),
    "game": N_("GAME"),
    "group": N_("GROUP"),
    "into": N_("INTO"),
    "key": N_("KEY"),
    "lines": N_("LINES"),
    "name": N_("NAME"),
    "names": N_("NAMES"),
    "order": N_("ORDER"),
    "player": N_("PLAYER"),
    "results": N_("RESULTS"),
    "round_number": N_("ROUND"),
    "table": N_("TABLE"),
}
"""The words that stand for an argument in the usage line, by its name."""


def argument_word(param: Any) -> str:
    """The word for an argument (the usage line adds ``...`` where it takes several)."""
    name = param.name or ""
    return _(ARGUMENTS[name]) if name in ARGUMENTS else name.upper()


def sentences(text: str) -> str:
    """``text`` with each paragraph on one line: the terminal wraps it, not the source."""
    return "\n\n".join(" ".join(p.split()) for p in text.split("\n\n") if p.strip())


def conventional(command: Any) -> None:
    """Give a typer command (with its subcommands) the conventions above."""
    import typer.rich_utils

    install(typer.rich_utils)
    _walk(command)


def _walk(command: Any) -> None:
    if command.help:
        command.help = sentences(command.help)
    for param in command.params:
        param.metavar = (
            placeholder(param) if param.param_type_name == "option" else argument_word(param)
        )
        if getattr(param, "help", None):
            param.help = sentences(param.help)
    for child in getattr(command, "commands", {}).values():
        _walk(child)


def install(framework: types.ModuleType) -> None:
    """Lay typer's option panels out in two wrapping columns (once per process)."""
    if getattr(framework, "_pips_panels", False):
        return
    help_of = framework._get_parameter_help

    def print_options_panel(
        *, name: str, params: list[Any], ctx: Any, markup_mode: Any, console: Console
    ) -> None:
        if not params:
            return
        table = Table(box=None, show_header=False, expand=True, padding=(0, 1), pad_edge=False)
        table.add_column(ratio=2, overflow="fold")
        table.add_column(ratio=3, overflow="fold")
        for param in params:
            names = [*param.opts]
            if param.param_type_name == "argument":
                several = "..." if getattr(param, "nargs", 1) != 1 else ""
                names = [(param.metavar or argument_word(param)) + several]
            else:
                names.sort(key=lambda opt: (opt.startswith("--"), opt))  # -p, --players
            said = ", ".join(names)
            if param.secondary_opts:
                said += " / " + ", ".join(param.secondary_opts)
            value = param.metavar or ""
            cell = Text(said, style="bold cyan")
            if value and param.param_type_name == "option":
                cell.append(" " + value, style="yellow")
            if param.required:
                cell.append(" *", style="red")
            table.add_row(cell, help_of(param=param, ctx=ctx, markup_mode=markup_mode))
        console.print(Panel(table, border_style="dim", title=name, title_align="left"))

    setattr(framework, "_print_options_panel", print_options_panel)  # noqa: B010
    setattr(framework, "_pips_panels", True)  # noqa: B010
