"""Game options: declared once per game, then validated, read, written and described.

Each game declares its options as a frozen dataclass built on :class:`GameOptions`,
one :func:`option` per parameter of its SPEC table. From that single declaration come
the checks of types and allowed values, the JSON form written into records, the reader,
the ``pips rules`` listing and the command line's flags.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping
from enum import StrEnum
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    NamedTuple,
    Self,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from pips.core.errors import OptionError
from pips.core.phrase import phrase
from pips.games.traits import HandTraits


class Direction(StrEnum):
    """C-05: only decides how seats sit around the table, never legality or scoring."""

    CLOCKWISE = "clockwise"
    COUNTER_CLOCKWISE = "counter-clockwise"


def option(
    default: Any = dataclasses.MISSING,
    *,
    rule: str,
    help: str,
    values: str = "",
    minimum: int | None = None,
    maximum: int | None = None,
) -> Any:
    """A game option: its default (none: required), the rule that defines it, a one-line
    help text, where the type does not say it the allowed values in words, and for a
    whole number its smallest and its largest allowed value (both checked, and shown
    where the option is offered: every whole-number option has both, so that no table
    plays to a target of 10^12; ``tests/test_face.py`` holds every game to it)."""
    return dataclasses.field(
        default=default,
        metadata={
            "rule": rule,
            "help": help,
            "values": values,
            "minimum": minimum,
            "maximum": maximum,
        },
    )


class OptionInfo(NamedTuple):
    """One option as ``pips rules`` lists it (and forms offer it)."""

    name: str
    kind: type
    default: Any
    values: str
    rule: str
    help: str
    choices: tuple[Any, ...] = ()
    """The values to choose from, where there are few (a yes/no, a named variant)."""
    minimum: int | None = None
    maximum: int | None = None
    required: bool = False
    """No default: the option must be given (the number of players, mostly)."""


def _base_type(hint: Any) -> tuple[type, bool]:
    """The option's value type and whether ``None`` is allowed."""
    if get_origin(hint) in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        return args[0], True
    return hint, False


def _fault(name: str, rule: str, words: str) -> OptionError:
    """The refusal of the option ``name`` alone (a form or a request names it)."""
    error = OptionError(rule, words)
    error.option = name
    return error


class GameOptions:
    """Base of every game's options dataclass.

    Subclasses are ``@dataclass(frozen=True)`` with :func:`option` fields, may set
    ``FIXED`` (parameters the game does not let change, written into records for the
    reader's sake) and implement :meth:`check` for the rules between options.
    """

    SECTION: ClassVar[str] = "§"
    """The rule id for problems of the parameter table as a whole (unknown options)."""
    FIXED: ClassVar[Mapping[str, Any]] = {}
    """Parameters fixed by the rules, e.g. the family game's hand size; shown, never set."""

    if TYPE_CHECKING:
        # Every game has these, as an option or fixed by its rules (a property).

        @property
        def players(self) -> int: ...

        @property
        def hand_size(self) -> int: ...

    def __post_init__(self) -> None:
        hints = get_type_hints(type(self))
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            kind, nullable = _base_type(hints[f.name])
            value = getattr(self, f.name)
            rule = f.metadata["rule"]
            if value is None and nullable:
                continue
            if kind is bool:
                if not isinstance(value, bool):
                    raise _fault(
                        f.name,
                        rule,
                        phrase("{name} is true or false, not {value!r}", name=f.name, value=value),
                    )
            elif kind is int:
                if not isinstance(value, int) or isinstance(value, bool):
                    raise _fault(
                        f.name,
                        rule,
                        phrase(
                            "{name} must be a whole number, not {value!r}", name=f.name, value=value
                        ),
                    )
            elif issubclass(kind, StrEnum):
                try:
                    object.__setattr__(self, f.name, kind(value))
                except ValueError:
                    allowed = ", ".join(k.value for k in kind)
                    raise _fault(
                        f.name,
                        rule,
                        phrase(
                            "{name} must be one of {allowed}, not {value!r}",
                            name=f.name,
                            allowed=allowed,
                            value=value,
                        ),
                    ) from None
        # The game's own rules speak first (F-02 names why ten cannot play FIDO); the
        # declared bounds are the backstop every whole number has.
        self.check()
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if not isinstance(value, int) or isinstance(value, bool):
                continue
            least, most = f.metadata["minimum"], f.metadata["maximum"]
            if least is not None and value < least:
                raise _fault(
                    f.name,
                    f.metadata["rule"],
                    phrase(
                        "{name} must be at least {least}, not {value}",
                        name=f.name,
                        least=least,
                        value=value,
                    ),
                )
            if most is not None and value > most:
                raise _fault(
                    f.name,
                    f.metadata["rule"],
                    phrase(
                        "{name} must be at most {most}, not {value}",
                        name=f.name,
                        most=most,
                        value=value,
                    ),
                )

    def check(self) -> None:
        """Rules between options (ranges, combinations); raise :class:`OptionError`."""

    def traits(self, first_hand: bool = True) -> HandTraits:
        """The rules of a hand under these options, declared once by each game: the
        rules engine, the playout kernel's rule vector, the bots and the clients all
        read them (:mod:`pips.games.traits`). ``first_hand`` matters only to who opens
        (PT-05)."""
        raise NotImplementedError

    @property
    def top(self) -> int:
        """The set: double-``top`` (an option, or fixed by the game). Code reads the set
        as ``top``; ``set`` is the option's name where options are written and read
        (records, requests, forms, the command line)."""
        top = getattr(self, "set", None)
        if top is None:
            top = self.FIXED["set"]
        return int(top)

    @property
    def clockwise(self) -> bool:
        """Play goes clockwise (C-05): an option, or fixed by the game."""
        direction = getattr(self, "direction", None) or self.FIXED.get("direction")
        return direction != Direction.COUNTER_CLOCKWISE

    def derived(self) -> dict[str, Any]:
        """Values that follow from the options (a hand size, a divisor), for records."""
        return {}

    def to_json(self) -> dict[str, Any]:
        """Every option with its default resolved, then the fixed and derived values."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            out[f.name] = value.value if isinstance(value, StrEnum) else value
        out.update(self.FIXED)
        out.update(self.derived())
        return out

    def changed(
        self, *, players: int | None = None, set: int | None = None, target: int | None = None
    ) -> Self:
        """These options with a table's size, set or target changed (an event's tables of
        three and of four, a sheet to a chosen target): checked again as a whole, as
        when they were read. Fixed by the game, a value must be the game's own;
        :class:`OptionError` otherwise. Options are parsed once, where they enter;
        this is what the inside of pips does instead of parsing them again."""
        names = {f.name for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        given = {"players": players, "set": set, "target": target}
        changes: dict[str, int] = {}
        for name, value in given.items():
            if value is None:
                continue
            if name in names:
                changes[name] = value
            elif self.to_json().get(name) != value:
                raise OptionError(
                    self.SECTION,
                    phrase(
                        "{key} {value!r} does not fit these options (it is {value2!r})",
                        key=name,
                        value=value,
                        value2=self.to_json().get(name),
                    ),
                )
        return dataclasses.replace(self, **changes) if changes else self  # type: ignore[type-var]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Self:
        """Options from JSON where they enter (a record, a request, a form, the command
        line, a row of the database: :meth:`GameSpec.options_from_json
        <pips.games.face.GameSpec.options_from_json>`); fixed and derived values, when
        present, must agree with the options."""
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        section = cls.SECTION
        probe = {k: v for k, v in data.items() if k in names}
        missing = [
            f.name
            for f in dataclasses.fields(cls)  # type: ignore[arg-type]
            if f.default is dataclasses.MISSING and f.name not in probe
        ]
        if missing:
            raise OptionError(
                section, phrase("the option(s) {choices} must be given", choices=", ".join(missing))
            )
        options = cls(**probe)
        resolved = options.to_json()
        unknown = set(data) - set(resolved)
        if unknown:
            raise OptionError(
                section, phrase("unknown option(s): {choices}", choices=", ".join(sorted(unknown)))
            )
        for key, value in data.items():
            if key not in names and value != resolved[key]:
                raise OptionError(
                    section,
                    phrase(
                        "{key} {value!r} does not fit these options (it is {value2!r})",
                        key=key,
                        value=value,
                        value2=resolved[key],
                    ),
                )
        return options

    @classmethod
    def describe(cls) -> list[OptionInfo]:
        hints = get_type_hints(cls)
        infos = []
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            kind, _ = _base_type(hints[f.name])
            values = f.metadata["values"]
            if not values and issubclass(kind, StrEnum):
                values = ", ".join(k.value for k in kind)
            elif not values and kind is bool:
                values = "true, false"
            default = None if f.default is dataclasses.MISSING else f.default
            if isinstance(default, StrEnum):
                default = default.value
            choices: tuple[Any, ...] = ()
            if issubclass(kind, StrEnum):
                choices = tuple(k.value for k in kind)
            elif kind is bool:
                choices = (False, True)
            infos.append(
                OptionInfo(
                    f.name,
                    kind,
                    default,
                    values,
                    f.metadata["rule"],
                    f.metadata["help"],
                    choices,
                    f.metadata["minimum"],
                    f.metadata["maximum"],
                    f.default is dataclasses.MISSING,
                )
            )
        return infos
