"""Words for people, kept translatable: an English template and its fields.

The rules core and the games speak English and know nothing of languages (no I/O, no
language state). Where they hand words to a person — a game's title, its rules in words
on a score sheet — they mark them: :func:`N_` for a fixed text, :class:`Phrase` for a
template with named fields. An edge that knows the person's language translates the
template and then fills the fields (:func:`pips.i18n.say`); ``str()`` gives the English.
``pybabel`` extracts both markers (``babel.cfg``, ``scripts/catalogs``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def N_(message: str) -> str:
    """Mark ``message`` for translation where it is defined; it stays English here."""
    return message


@dataclass(frozen=True)
class Phrase:
    """An English template (``str.format`` fields by name) and the values of its fields."""

    template: str
    fields: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.template.format(**self.fields)


def phrase(template: str, **fields: Any) -> Phrase:
    """A :class:`Phrase`; the name ``pybabel`` looks for."""
    return Phrase(template, fields)
