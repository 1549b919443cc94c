"""What a client sends, typed where it enters: parse, don't validate.

Every body, query and form a route takes is a pydantic model or a bounded type, and what
the rest of pips needs is made of it there, once: a seat is one of three kinds (``me``,
``open``, ``bot``), a bot seat names a bot a server may seat (never one that runs a
program: :func:`pips.bots.base.parse_bot` with ``seatable``) and keeps its canonical
name, a game's options become the game's typed options (``GameSpec.options_from_json``,
like OpenSpiel's ``load_game``) and a result's lines become :class:`Line` s. Past a
route there is no dict with string keys that a client filled, and no ``Any``
(``tests/test_typed_edges.py`` walks every route and message).

A refusal found while parsing keeps the error model (:mod:`pips.server.errors`): the
rule that refused, its words in the reader's language and the field at fault
(``body.options.set``, ``body.seats.1.bot``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    PrivateAttr,
    StringConstraints,
    model_validator,
)
from pydantic_core import PydanticCustomError

from pips.bots.base import parse_bot
from pips.core.errors import OptionError, RuleError
from pips.games.options import GameOptions
from pips.games.registry import Game, find_game
from pips.results.entry import GAMES, NAME_LENGTH, Entry, EntryError, Line, default_set
from pips.results.entry_formats import parse_date
from pips.server.round import ForAnyone, ForBot, ForCreator

OPTION_WORD = 40
"""Characters of an option's name or of a word it takes (``counter-clockwise``)."""
MAX_OPTIONS = 30
"""Options in one request: every game has fewer."""


class Strict(BaseModel):
    """A request's object: what it declares and nothing else (an unknown field is a
    422 naming it, never silently dropped). Every body a route takes is one, and every
    text in it has a bound (``tests/test_typed_edges.py`` checks both).

    Strict in type too (pydantic's strict mode): JSON says what it means, so ``true``
    is no round count, ``1`` no ``true``, ``2.0`` and ``"2"`` no whole number. A
    page's form sends only text and is read laxly (:class:`pips.server.forms.PageForm`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


Name = Annotated[str, StringConstraints(max_length=NAME_LENGTH + 20)]
"""A person's, an account's or a group's name as a client sends it: bounded here, its
rule (:func:`pips.core.names.check_name`) said in words where it is used."""

COMMENT_LENGTH = 500
"""Characters of a comment on a result (a dispute's reasons)."""

Comment = Annotated[str, StringConstraints(max_length=COMMENT_LENGTH)]

ResultStatus = Literal["provisional", "confirmed", "disputed", "withdrawn", "held"]
"""A result's status, as a listing filters by it (:data:`pips.results.common.STATUSES`)."""


def rule_broken(exc: RuleError, field: str | None = None) -> PydanticCustomError:
    """``exc`` as a validation error that keeps its rule and its words (said in the
    reader's language by :func:`pips.server.errors.validation_problem`); ``field``:
    the part below the one validated, where the rule names one (``set`` of options)."""
    return PydanticCustomError(
        "rule_broken", "{said}", {"said": exc.detail, "rule": exc.rule, "field": field}
    )


# -- a game's options ------------------------------------------------------------------


def _option_value(value: object) -> bool | int | str | None:
    # One declared type, not a union: a wrong value is named by its option alone
    # (body.options.players), not by each kind it could have been.
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, str) and len(value) <= OPTION_WORD:
        return value
    raise PydanticCustomError("option_value", "is not true, false, a whole number or a word")


OptionName = Annotated[
    str, StringConstraints(min_length=1, max_length=OPTION_WORD, pattern=r"^[a-z][a-z_]*$")
]
OptionValue = Annotated[
    bool | int | str | None,
    PlainValidator(_option_value, json_schema_input_type=bool | int | str | None),
]
"""An option's value as JSON has it: true or false, a whole number, a word (a named
variant), or null (the game's default)."""
OptionsJson = Annotated[dict[OptionName, OptionValue], Field(max_length=MAX_OPTIONS)]
"""A game's options as a client sends them; parsed at once into the game's own."""


class OptionsRefused(RuleError):
    """Options that make no game of this kind; ``field`` names the option to change
    (the one whose default would make the rest valid), where one does."""

    def __init__(self, exc: RuleError, field: str | None) -> None:
        super().__init__(exc.rule, exc.detail)
        self.field = field


def game_options(spec: Game, data: Mapping[str, bool | int | str | None]) -> GameOptions:
    """``data`` as ``spec``'s typed options, the one parse where options enter;
    :class:`OptionsRefused` naming the culprit when they make no game."""
    try:
        return spec.options_from_json(data)  # type: ignore[no-any-return]
    except RuleError as exc:
        if isinstance(exc, OptionError) and exc.option in data:
            raise OptionsRefused(exc, exc.option) from None
        for name in data:
            rest = {k: v for k, v in data.items() if k != name}
            try:
                spec.options_from_json(rest)
            except RuleError:
                continue
            raise OptionsRefused(exc, name) from None
        raise OptionsRefused(exc, None) from None


class GameChoice(Strict):
    """A game and its options; once validated, :attr:`spec` and :attr:`chosen` hold
    them parsed."""

    game: Annotated[str, StringConstraints(min_length=1, max_length=OPTION_WORD)]
    options: OptionsJson = {}
    _spec: Game = PrivateAttr()
    _chosen: GameOptions = PrivateAttr()

    @model_validator(mode="after")
    def _parsed(self) -> Self:
        try:
            self._spec = find_game(self.game)
        except RuleError as exc:
            raise rule_broken(exc, "game") from None
        try:
            self._chosen = game_options(self._spec, self.options)
        except OptionsRefused as exc:
            raise rule_broken(exc, "options" + (f".{exc.field}" if exc.field else "")) from None
        return self

    @property
    def spec(self) -> Game:
        return self._spec

    @property
    def chosen(self) -> GameOptions:
        """The options, the game's own type."""
        return self._chosen


# -- seats -----------------------------------------------------------------------------


def _seatable(text: str) -> str:
    try:
        return parse_bot(text, seatable=True).text
    except RuleError as exc:
        raise rule_broken(exc) from None


SeatableBot = Annotated[
    str,
    BeforeValidator(lambda value: "greedy" if value in (None, "") else value),
    StringConstraints(max_length=80),
    AfterValidator(_seatable),
]
"""A bot a server may seat (``search:hard``), by its canonical name: never ``external``,
which runs a program, however it is spelt."""


class MeSeat(Strict):
    """The seat the table's creator takes."""

    kind: Literal["me"]

    def choice(self) -> ForCreator:
        """The seat as the round takes it (:data:`~pips.server.round.SeatChoice`)."""
        return ForCreator()


class OpenSeat(Strict):
    """A seat for whoever joins."""

    kind: Literal["open"]

    def choice(self) -> ForAnyone:
        return ForAnyone()


class BotSeat(Strict):
    """A seat a bot plays (``greedy`` when none is named)."""

    kind: Literal["bot"]
    bot: SeatableBot = "greedy"

    def choice(self) -> ForBot:
        return ForBot(self.bot)


Seat = Annotated[MeSeat | OpenSeat | BotSeat, Field(discriminator="kind")]
"""A seat of a new table, as its creator chose it."""

MAX_SEATS = 20


# -- results ---------------------------------------------------------------------------

Points = Annotated[int, Field(ge=-1_000_000, le=1_000_000)]


class ResultLine(Strict):
    """One player's line of a finished game (docs/results.md)."""

    name: Annotated[str, StringConstraints(max_length=NAME_LENGTH + 20)]
    points: Points = 0
    pips: Points = 0
    out: bool = False

    def line(self) -> Line:
        return Line(self.name, self.points, self.pips, self.out)


class ResultItem(Strict):
    """One finished game as the results API takes it (docs/results.md)."""

    game: Annotated[str, StringConstraints(max_length=OPTION_WORD)] | None = None
    """The game (FIDO when not given)."""
    date: Annotated[str, StringConstraints(max_length=20)] = ""
    set: Annotated[int, Field(ge=0, le=30)] | None = None
    """The set played with (the game's usual one for so many players when not given)."""
    players: list[ResultLine] = Field(min_length=1, max_length=MAX_SEATS)
    """A line per player, in seat order."""
    place: Annotated[str, StringConstraints(max_length=200)] = ""
    target: Annotated[int, Field(ge=1, le=1_000_000)] | None = None
    """The match target played to (the game's own when not given)."""

    def entry(self) -> Entry:
        """The game as results entry reads it; :class:`EntryError` for a date it cannot
        read."""
        game = self.game or GAMES[0]
        lines = tuple(p.line() for p in self.players)
        try:
            top = self.set if self.set is not None else default_set(game, len(lines))
        except RuleError as exc:  # a game pips does not know has no usual set
            raise EntryError(exc.detail) from None
        return Entry(game, parse_date(self.date), top, lines, self.place, self.target)
