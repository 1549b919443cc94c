"""A row's id as a client names it: the one parse of an id out of text.

``str.isdigit`` is true for ``²`` and ``①``, which ``int`` refuses, and ``int`` takes
twenty digits the database cannot hold; an id read with them ended in a 500. Here an id
is ASCII digits, at most ten, between 1 and :data:`MAX_ID`; anything else is no id.
"""

from __future__ import annotations

import re

MAX_ID = 2**31 - 1
"""The largest row id (a 32-bit ``INTEGER`` in PostgreSQL): a larger one is refused
before the database is asked."""

_DIGITS = re.compile(r"[0-9]{1,10}")


def row_id(text: str) -> int | None:
    """``text`` as a row id, or ``None`` where it is none (not ASCII digits, zero, or
    beyond :data:`MAX_ID`)."""
    if _DIGITS.fullmatch(text) is None:
        return None
    number = int(text)
    return number if 0 < number <= MAX_ID else None


def ascii_number(text: str) -> bool:
    """Whether ``text`` is written as a number (ASCII digits only), whatever its size."""
    return text.isascii() and text.isdigit()
