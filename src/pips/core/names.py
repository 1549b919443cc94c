"""Players' names: which are welcome, and when two are the same name.

A name is written in any language (Jörg Müller, Zoë, Søren, Ólafur, Łukasz, 山田太郎,
Παπαδόπουλος, O'Neill), NFC-normalised so that an ü typed as one character or as u and
a combining mark is one spelling. Control characters (NUL, bell), format characters
(zero-width joiners, the right-to-left override and every other bidi control) and
symbols are refused: they hide what a name says or make two names look alike.

Two names are *the same* when their :func:`name_key` is: case and compatibility forms
folded ("ALICE", "alice" and "ａｌｉｃｅ" are one name; so are "Straße" and
"STRASSE"), and runs of spaces made one. Accounts and guests share one space of keys.

    >>> check_name("  Jörg  Müller ")
    'Jörg Müller'
    >>> name_key("ALICE") == name_key("alice") == name_key("ａｌｉｃｅ")
    True
    >>> name_key("Straße") == name_key("STRASSE")
    True
    >>> check_name("Eve\\u202eevil")
    Traceback (most recent call last):
    ...
    ValueError: a name may not hold control or invisible characters
"""

from __future__ import annotations

import unicodedata

from pips.core.phrase import phrase

MIN_LENGTH = 2
MAX_LENGTH = 40
"""An account's name (shown at the tables, in seats and lists)."""
PERSON_LENGTH = 80
"""A person's name at a real table: double names such as "Anna-Katharina
Müller-Lüdenscheidt" run past 40 characters, and a sheet must not cut them."""
PUNCTUATION = frozenset(" .-'’")
"""Besides letters, marks and digits, a name may hold spaces, dots, hyphens and
apostrophes (typed ' or ’)."""


def check_name(name: str, longest: int = MAX_LENGTH) -> str:
    """``name`` as it is kept (NFC, trimmed, single spaces), or :class:`ValueError` in
    words for the person; at most ``longest`` characters."""
    if not isinstance(name, str):
        raise ValueError(phrase("a name is text"))
    text = " ".join(unicodedata.normalize("NFC", name).split(" "))
    text = " ".join(part for part in text.strip().split(" ") if part)
    for char in text:
        category = unicodedata.category(char)
        if category[0] in "CZ" and char != " ":
            # Cc control, Cf format (bidi, zero-width), Co/Cn, Zl/Zp and odd spaces.
            raise ValueError(phrase("a name may not hold control or invisible characters"))
        if category[0] not in "LMN" and char not in PUNCTUATION:
            raise ValueError(
                phrase(
                    "a name is letters (of any language), digits, spaces, dots, hyphens"
                    " and apostrophes"
                )
            )
    if not MIN_LENGTH <= len(text) <= longest:
        raise ValueError(
            phrase(
                "a name is {MIN_LENGTH} to {MAX_LENGTH} characters",
                MIN_LENGTH=MIN_LENGTH,
                MAX_LENGTH=longest,
            )
        )
    if unicodedata.category(text[0])[0] not in "LN":
        raise ValueError(phrase("a name starts with a letter or a digit"))
    return text


def name_key(name: str) -> str:
    """The key two names share when they are the same name (case, compatibility forms
    and spaces folded)."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())
