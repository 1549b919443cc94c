"""Languages: which one a person reads, and pips's words in it (issue 20).

Every text a person reads is written in English in the code, marked with :func:`_` (or
:func:`ngettext`), and looked up in a gettext catalog of the person's language:
``src/pips/locale/LANG/LC_MESSAGES/pips.po``. The catalogs are the source; they are
compiled in memory on first use (Babel), so there is no build step and no binary file in
the repository. A third language is one more catalog (docs/i18n.md).

The language is chosen per person, never globally: the ``pips`` command takes ``--lang``
or the environment (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``); the server
takes a visitor's choice or their browser's ``Accept-Language``. The current language
lives in a context variable, so concurrent requests of the server do not share it.

The rules core and the games mark their words without knowing languages
(:mod:`pips.core.phrase`); :func:`say` translates them at the edge.

Messages are templates with named fields (``_("--seat must be 0 to {last}").format(
last=...)``): a translation may move the fields, never drop or add one
(``tests/test_i18n.py``).
"""

from __future__ import annotations

import functools
import gettext
import io
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime
from pathlib import Path
from typing import Any

from pips.core.errors import RuleError
from pips.core.phrase import N_, Figure, Phrase

LANGUAGES: dict[str, str] = {"en": "English", "de": "Deutsch"}
"""The languages pips speaks, by code, each named in itself."""

SOURCE = "en"
"""The language the code is written in (it needs no catalog)."""

CATALOGS = Path(__file__).parent / "locale"
DOMAIN = "pips"

_current: ContextVar[str] = ContextVar("pips_language")
_default = SOURCE
"""The language where none was chosen in the context: a thread that a library starts
(the terminal client's bots) begins with an empty context."""


@functools.cache
def translations(language: str) -> gettext.NullTranslations:
    """The compiled catalog of ``language`` (the source language translates to itself),
    as scripts/compile_catalogs.py compiled it: nothing is compiled at start."""
    if language == SOURCE or language not in LANGUAGES:
        return gettext.NullTranslations()
    with (CATALOGS / language / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as mo:
        return gettext.GNUTranslations(mo)


def current() -> str:
    """The language of the person being answered now."""
    return _current.get(_default)


def use_by_default(language: str) -> None:
    """Answer in ``language`` everywhere in this process unless a context chose
    another: for the command line, whose one person reads every thread's words (the
    server chooses per request with :func:`use`, and never calls this)."""
    global _default
    _default = language if language in LANGUAGES else SOURCE
    use(language)


def use(language: str) -> None:
    """Answer in ``language`` from now on (in this context: a command, a request)."""
    _current.set(language if language in LANGUAGES else SOURCE)


@contextmanager
def speaking(language: str) -> Iterator[None]:
    """Answer in ``language`` inside the block."""
    token = _current.set(language if language in LANGUAGES else SOURCE)
    try:
        yield
    finally:
        _current.reset(token)


def _(message: str) -> str:
    """``message`` in the current language."""
    return translations(current()).gettext(message)


def say(words: Phrase | str) -> str:
    """Words the core or a game marked (:mod:`pips.core.phrase`), in the current
    language: the template translated, then its fields filled in (fields that are
    phrases are said too). A plain string is looked up as it is (``N_`` words)."""
    if isinstance(words, Phrase):
        if current() == SOURCE:
            return str.__str__(words)
        fields = {name: _said_field(value) for name, value in words.fields.items()}
        return _(words.template).format(**fields)
    return _(words)


def _said_field(value: Any) -> Any:
    # A phrase in a phrase is said too; a figure gets the language's decimal sign, a
    # day the language's digits (03.10.2026).
    if isinstance(value, Phrase):
        return say(value)
    if isinstance(value, Figure):
        return decimal(value, value.digits, signed=value.sign)
    if isinstance(value, date) and not isinstance(value, datetime):
        return numeric_date(value)
    if isinstance(value, float):
        from babel.numbers import format_decimal

        return format_decimal(value, locale=current())
    return value


def translated(message: Any) -> Any:
    """``message`` (JSON-like: dicts, lists, strings) with every :class:`Phrase` in it
    said in the current language; other strings, such as names, are left alone."""
    if isinstance(message, Phrase):
        return say(message)
    if isinstance(message, dict):
        return {key: translated(value) for key, value in message.items()}
    if isinstance(message, (list, tuple)):
        return [translated(value) for value in message]
    return message


def reason(error: BaseException) -> str:
    """What ``error`` tells a person, still to be said in their language (a
    :class:`Phrase` where the error was raised with one): a broken rule as ``rule:
    words``, like ``str(error)``."""
    if isinstance(error, RuleError):
        return Phrase("{rule}: {words}", {"rule": error.rule, "words": error.detail})
    if error.args and isinstance(error.args[0], Phrase):
        return error.args[0]
    return str(error)


def explain(error: BaseException) -> str:
    """:func:`reason` said in the current language."""
    return say(reason(error))


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n``, in the current language."""
    return translations(current()).ngettext(singular, plural, n)


def supported(text: str) -> str:
    """The language code ``text`` names (``de``, ``de_DE.UTF-8``, ``de-AT``), or
    :class:`ValueError` naming the languages pips speaks."""
    code = text.strip().replace("-", "_").split(".")[0].split("@")[0].split("_")[0].lower()
    if code in LANGUAGES:
        return code
    choices = ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items())
    raise ValueError(
        _("unknown language {text!r}; choose from {choices}").format(text=text, choices=choices)
    )


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for, as gettext reads it: the first of
    ``LANGUAGE`` (a colon-separated list), ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that
    is set; within it, the first language pips speaks; else English."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if not value:
            continue
        for item in value.split(":"):
            if item in ("C", "POSIX") or not item:
                continue
            try:
                return supported(item)
            except ValueError:
                continue
        return SOURCE
    return SOURCE


def negotiate(accept_language: str | None) -> str:
    """The language to answer a browser's ``Accept-Language`` header in (RFC 9110:
    the highest ``q`` that pips speaks; ties keep the header's order)."""
    best, best_q = SOURCE, 0.0
    for position, part in enumerate((accept_language or "").split(",")):
        fields = part.strip().split(";")
        tag = fields[0].strip()
        q = 1.0
        for extra in fields[1:]:
            key, _eq, value = extra.strip().partition("=")
            if key.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if not tag or tag == "*" or q <= 0:
            continue
        try:
            code = supported(tag)
        except ValueError:
            continue
        if q > best_q or (q == best_q and position == 0):
            best, best_q = code, q
    return best


def ordinal(n: int, language: str | None = None) -> str:
    """``n`` as an ordinal: 1st, 2nd, 3rd, 11th, 21st in English; 1., 2. in German."""
    if (language or current()) == "de":
        return f"{n}."
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def format_date(day: date, language: str | None = None) -> str:
    """``day`` as people of the language write it (3 Oct 2026; 03.10.2026)."""
    from babel.dates import format_date as babel_date

    return babel_date(day, format="medium", locale=language or current())


def month_name(month: str, language: str | None = None, *, short: bool = False) -> str:
    """A month given as ``2026-11`` in words: "November 2026" (in German too; ``short``:
    "Nov. 2026"); any other text as it is."""
    from babel.dates import format_date as babel_date

    try:
        first = date.fromisoformat(f"{month[:7]}-01")
    except ValueError:
        return month
    return babel_date(first, format="LLL y" if short else "LLLL y", locale=language or current())


def numeric_date(day: date, language: str | None = None) -> str:
    """``day`` in digits: 2026-10-03 in English (ISO 8601), 03.10.2026 in German."""
    if (language or current()) == "de":
        return day.strftime("%d.%m.%Y")
    return day.isoformat()


def format_number(value: float, language: str | None = None, digits: int = 0) -> str:
    """``value`` with the language's separators (1,234.5; 1.234,5)."""
    from babel.numbers import format_decimal

    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(value, format=pattern, locale=language or current())


def decimal(
    value: float, digits: int = 2, language: str | None = None, *, signed: bool = False
) -> str:
    """``value`` with ``digits`` decimals and the language's decimal sign, without
    grouping (tables of figures: 12.34 / 12,34); ``signed``: with its sign (+0.53)."""
    from babel.numbers import format_decimal

    pattern = "0" + ("." + "0" * digits if digits else "")
    if signed:
        pattern = f"+{pattern};-{pattern}"
    return format_decimal(value, format=pattern, locale=language or current())


def percent(share: float, digits: int = 1, language: str | None = None) -> str:
    """A share (0.456) as a percentage in the language's form: 45.6% / 45,6 %."""
    from babel.numbers import format_percent

    pattern = "0" + ("." + "0" * digits if digits else "") + "%"
    return format_percent(share, format=pattern, locale=language or current())


# -- the command's help -------------------------------------------------------------------

FRAMEWORK_WORDS = {
    "ARGUMENTS_PANEL_TITLE": N_("Arguments"),
    "OPTIONS_PANEL_TITLE": N_("Options"),
    "COMMANDS_PANEL_TITLE": N_("Commands"),
    "ERRORS_PANEL_TITLE": N_("Error"),
    "ABORTED_TEXT": N_("Aborted."),
    "DEFAULT_STRING": N_("[default: {}]"),
    "REQUIRED_LONG_STRING": N_("[required]"),
    "RICH_HELP": N_("Try [blue]'{command_path} {help_option}'[/] for help."),
}
"""Words typer prints around a command's help (module constants of
``typer.rich_utils``), by constant."""


# The command-line framework's own errors (typer's copy of click writes them as
# f-strings, not gettext messages): each English form and the message it is said as.
_FRAMEWORK_ERRORS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"No such option: (?P<name>\S+) \(Possible options: (?P<options>.*)\)"),
        N_("No such option: {name} (Possible options: {options})"),
    ),
    (re.compile(r"No such option: (?P<name>\S+)"), N_("No such option: {name}")),
    (re.compile(r"No such command '(?P<name>.*)'\."), N_("No such command '{name}'.")),
    (re.compile(r"Missing option (?P<hint>.+?)\.(?P<rest>.*)"), N_("Missing option {hint}.{rest}")),
    (
        re.compile(r"Missing argument (?P<hint>.+?)\.(?P<rest>.*)"),
        N_("Missing argument {hint}.{rest}"),
    ),
    (
        re.compile(r"Invalid value for (?P<hint>.+?): (?P<message>.*)", re.S),
        N_("Invalid value for {hint}: {message}"),
    ),
    (
        re.compile(r"Option '(?P<name>.+)' requires an argument\."),
        N_("Option '{name}' requires an argument."),
    ),
    (
        re.compile(r"Got unexpected extra arguments? \((?P<args>.*)\)"),
        N_("Got unexpected extra arguments ({args})"),
    ),
]


HELP_OPTION = N_("Show this message and exit.")
"""The help of every command's --help option."""


def framework_message(message: str) -> str:
    """An error of the command-line framework in the current language (the English
    message when it is not one pips knows)."""
    for pattern, template in _FRAMEWORK_ERRORS:
        found = pattern.fullmatch(message)
        if found:
            return _(template).format(**found.groupdict())
    return message


_HELP_PHRASES: dict[str, Phrase] = {}


def help_phrase(words: Phrase) -> Phrase:
    """Keep ``words`` as the help of a command's option or argument: typer turns help
    into a plain string, so :func:`translate_command` finds the phrase again by its
    English text to say it with its fields."""
    _HELP_PHRASES[str.__str__(words)] = words
    return words


def _say_help(text: str) -> str:
    return say(_HELP_PHRASES.get(text, text))


def translate_command(command: Any) -> None:
    """Put a click command (typer's, with its subcommands) into the current language:
    every help text is looked up as a message, the words around them too ("Usage:",
    the panels' titles, the framework's errors)."""
    import typer.rich_utils as framework

    for constant, message in FRAMEWORK_WORDS.items():
        setattr(framework, constant, _(message))
    _translate_framework(framework)

    def walk(node: Any) -> None:
        if node.help:
            node.help = _say_help(node.help)
        if getattr(node, "short_help", None):
            node.short_help = _say_help(node.short_help)
        for param in node.params:
            if getattr(param, "help", None):
                param.help = _say_help(param.help)
        for child in getattr(node, "commands", {}).values():
            walk(child)

    walk(command)


def _translate_framework(framework: Any) -> None:
    """Wrap typer's usage line and error panel so that they speak the current language.
    They live in typer's private copy of click: when that changes, they stay English
    rather than break (the words are looked up when printed, so this is done once)."""
    if getattr(framework, "_pips_translated", False):
        return
    try:
        from typer._click.core import Command
        from typer._click.formatting import HelpFormatter

        english_usage = HelpFormatter.write_usage
        english_error = framework.rich_format_error
        english_help_option = Command.get_help_option
    except (ImportError, AttributeError):  # pragma: no cover - another typer
        return

    def get_help_option(self: Any, ctx: Any) -> Any:
        option = english_help_option(self, ctx)
        if option is not None:
            option.help = _(HELP_OPTION)
        return option

    def write_usage(self: Any, prog: str, args: str = "", prefix: str | None = None) -> None:
        english_usage(self, prog, args, prefix if prefix is not None else _("Usage:") + " ")

    def rich_format_error(error: Any) -> None:
        english = error.format_message
        error.format_message = lambda: framework_message(english())
        english_error(error)

    HelpFormatter.write_usage = write_usage  # type: ignore[method-assign]
    Command.get_help_option = get_help_option  # type: ignore[method-assign]
    framework.rich_format_error = rich_format_error
    framework._pips_translated = True


def extract_help(
    fileobj: Any, keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, Any, Any, Any]]:
    """A ``pybabel`` extractor for the command modules and the games: the marked
    messages, as the Python extractor finds them, and the words that are looked up at
    run time (:func:`translate_command`, the pages' option forms) without a mark: help
    texts (``help=`` strings and the docstrings of commands), the values a game option
    takes in words (``values="3 to 9"``), a game option's name as a
    form labels it (``mother_theresa = option(...)``: "mother theresa") and the values
    of the games' choices (the members of a ``StrEnum``)."""
    import ast
    import inspect

    from babel.messages.extract import extract_python

    source = fileobj.read()
    yield from extract_python(io.BytesIO(source), keywords, comment_tags, options)
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                value = keyword.value
                if (
                    keyword.arg in ("help", "values")
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ):
                    yield value.lineno, "", value.value, []
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "option"
        ):
            yield node.lineno, "", node.target.id.replace("_", " "), []
        elif isinstance(node, ast.ClassDef) and any(
            isinstance(base, ast.Name) and base.id == "StrEnum" for base in node.bases
        ):
            for item in node.body:
                if (
                    isinstance(item, ast.Assign)
                    and isinstance(item.value, ast.Constant)
                    and isinstance(item.value.value, str)
                ):
                    yield item.lineno, "", item.value.value, []
        elif isinstance(node, ast.FunctionDef) and node.decorator_list:
            commands = [
                d
                for d in node.decorator_list
                if isinstance(d, ast.Call)
                and isinstance(d.func, ast.Attribute)
                and d.func.attr in ("command", "callback")
            ]
            docstring = ast.get_docstring(node, clean=False)
            if commands and docstring:
                yield node.lineno, "", inspect.cleandoc(docstring), []
