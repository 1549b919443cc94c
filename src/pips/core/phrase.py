"""Words for people, kept translatable: an English template and its fields.

The rules core and the games speak English and know nothing of languages (no I/O, no
language state). Where they hand words to a person — a game's title, its rules in words
on a score sheet — they mark them: :func:`N_` for a fixed text, :class:`Phrase` for a
template with named fields. An edge that knows the person's language translates the
template and then fills the fields (:func:`pips.i18n.say`); ``str()`` gives the English.
``pybabel`` extracts both markers (``babel.cfg``, ``scripts/catalogs``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any


def N_(message: str) -> str:
    """Mark ``message`` for translation where it is defined; it stays English here."""
    return message


class Phrase(str):
    """Words in English that remember how they were made: an English template
    (``str.format`` fields by name) and the values of its fields.

    A phrase *is* its English text, so code that only passes words on (a log line, an
    error's detail, a message field) needs nothing new, and anyone who forgets to
    translate shows English rather than breaking. An edge that knows the reader's
    language hands it to :func:`pips.i18n.say`; fields that are phrases themselves are
    translated too.
    """

    template: str
    fields: dict[str, Any]

    def __new__(cls, template: str, fields: dict[str, Any] | None = None) -> Phrase:
        fields = dict(fields or {})
        made = super().__new__(cls, template.format(**fields))
        made.template = template
        made.fields = fields
        return made

    def __getnewargs__(self) -> tuple[str, dict[str, Any]]:  # type: ignore[override]
        return (self.template, self.fields)

    def __repr__(self) -> str:
        return f"phrase({self.template!r}, **{self.fields!r})"


class Figure(float):
    """A number in a phrase with a fixed number of decimals, and a sign if asked: it
    reads +0.53 in English and +0,53 in German (:func:`pips.i18n.say` gives it the
    reader's decimal sign). An f-string in a phrase's call fixed the English form,
    and ``pybabel`` warns of every one."""

    digits: int
    sign: bool

    def __new__(cls, value: float, digits: int = 2, *, sign: bool = False) -> Figure:
        made = super().__new__(cls, value)
        made.digits = digits
        made.sign = sign
        return made

    def __format__(self, spec: str) -> str:
        if spec:
            return super().__format__(spec)
        return format(float(self), ("+" if self.sign else "") + f".{self.digits}f")

    def __str__(self) -> str:
        return self.__format__("")

    __repr__ = __str__


def phrase(template: str, **fields: Any) -> Phrase:
    """A :class:`Phrase`; the name ``pybabel`` looks for."""
    return Phrase(template, fields)


def joined(parts: Sequence[str], separator: str = ", ") -> Phrase:
    """Phrases (or plain words) joined as one, each translated on its own."""
    names = {f"p{i}": part for i, part in enumerate(parts)}
    return Phrase(separator.join("{" + name + "}" for name in names), names)


PERSONAL: dict[str, tuple[str, str, str]] = {}
"""Templates that name a player by seat number or by name, with what a client that knows
who reads them says instead: ``template: (field, named, yours)``. ``field`` holds the
seat (``seat``, a number) or the name (``who``); ``named`` says the seat by its name
(``{name}``), ``yours`` speaks to the reader, who is that player ("you can lay a tile
and must play"). See :func:`pips.display.addressed`."""


def personal(template: str, field: str, named: str, yours: str) -> str:
    """Declare ``template``'s other forms (:data:`PERSONAL`) where it is used; returns
    it. ``named`` and ``yours`` are marked for translation by the caller (``N_``)."""
    PERSONAL[template] = (field, named, yours)
    return template


def kept(words: str | None) -> dict[str, Any] | None:
    """``words`` as JSON a database keeps beside their English text, so that a reader
    later gets them in their own language (:func:`restored`); ``None`` for plain words,
    which have nothing more to keep."""
    if not isinstance(words, Phrase):
        return None
    return {"phrase": words.template, "fields": {k: _kept(v) for k, v in words.fields.items()}}


def _kept(value: Any) -> Any:
    # What a field needs to be said again: a phrase's template, a figure's digits, a
    # day as a day (each language writes it its own way); anything else as its words.
    if isinstance(value, Phrase):
        return kept(value)
    if isinstance(value, Figure):
        return {"figure": float(value), "digits": value.digits, "sign": value.sign}
    if isinstance(value, date) and not isinstance(value, datetime):
        return {"date": value.isoformat()}
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value if not isinstance(value, str) else str.__str__(value)
    return str(value)


def restored(data: Any, english: str) -> str:
    """The phrase :func:`kept` made of stored words, or ``english`` (the text stored
    beside it) where nothing was kept (rows from before) or it cannot be read."""
    if not isinstance(data, dict):
        return english
    try:
        return _restored(data)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return english


def _restored(data: dict[str, Any]) -> Phrase:
    return Phrase(str(data["phrase"]), {k: _field(v) for k, v in dict(data["fields"]).items()})


def _field(value: Any) -> Any:
    if isinstance(value, dict):
        if "phrase" in value:
            return _restored(value)
        if "figure" in value:
            return Figure(float(value["figure"]), int(value["digits"]), sign=bool(value["sign"]))
        if "date" in value:
            return date.fromisoformat(str(value["date"]))
        raise ValueError(value)
    return value
