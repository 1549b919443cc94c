"""Text as people read it, through ICU (the ``pyicu-wheels`` build of PyICU): which
names look alike, and which a server takes.

* :func:`skeleton` is the confusable skeleton of Unicode's UTS #39 ("Unicode Security
  Mechanisms", section 4): two names look alike when their skeletons are equal, as
  ``Honest`` and ``Honеst`` (with a Cyrillic е) or ``rn`` and ``m`` are. It is taken of
  the name as written (compatibility forms folded: ``Ηonest`` with a Greek capital Eta
  looks like ``Honest``, not like ``ηonest``), then case-folded and taken again, so
  ``HONEST`` and ``honest`` share it, and so do ``Anna Müller`` and ``anna rnüller``.
  Spaces, hyphens, dots and apostrophes are left out of it: ``Dominoclub Kiel`` looks
  like ``Domino Club Kiel``, ``AnnaLena`` like ``Anna-Lena``. Umlauts stay what they
  are: ``Jörg`` and ``Jorg`` are two names.
* :func:`check_held` is the rule every name someone takes on the server is held to
  (an account's, a guest's, a group's): welcome (:func:`pips.core.names.check_name`:
  letters of any language, digits and a little punctuation; no markup, no invisible
  characters), and neither taken nor looking like a name that is (:func:`alike`).

    >>> skeleton("Honest") == skeleton("Hon\\u0435st")
    True
    >>> skeleton("Jörg") == skeleton("Jorg")
    False
    >>> skeleton("\u0397onest") == skeleton("honest")
    True
    >>> skeleton("Dominoclub Kiel") == skeleton("Domino-Club  Kiel")
    True
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import icu

from pips.core.names import MAX_LENGTH, check_name, name_key
from pips.core.phrase import phrase

_local = threading.local()
"""ICU's checkers are not shared between threads."""


def _spoof_checker() -> Any:
    checker = getattr(_local, "checker", None)
    if checker is None:
        checker = _local.checker = icu.SpoofChecker()
    return checker


SEPARATORS = str.maketrans("", "", " -.'")
"""What a skeleton leaves out: the separators a name may hold (spaces, hyphens, dots,
apostrophes, as the skeleton writes each of their look-alikes), so that names which
differ only by them look alike: ``Dominoclub Kiel`` beside ``Domino Club Kiel``,
``Domino-Club Kiel`` or ``Domino.Club Kiel``."""


@lru_cache(maxsize=20_000)
def skeleton(name: str) -> str:
    """The UTS #39 skeleton of ``name`` (compatibility forms and spaces folded first),
    case-folded and taken again, without separators (:data:`SEPARATORS`),
    NFC-composed for storage."""
    written = " ".join(unicodedata.normalize("NFKC", name).split())
    checker = _spoof_checker()
    # Once as written (a Greek capital Eta is an H), once case-folded (a folded m is
    # an rn as much as a typed one is); the separators dropped last, after the
    # skeleton made every dash a hyphen and every apostrophe one kind.
    folded = name_key(str(checker.getSkeleton(0, written)))
    shape = str(checker.getSkeleton(0, folded)).translate(SEPARATORS)
    return unicodedata.normalize("NFC", shape)


def alike(name: str, others: Iterable[str]) -> str | None:
    """The first of ``others`` that is ``name`` (the same :func:`name_key`) or looks
    like it (the same :func:`skeleton`), else ``None``."""
    key, shape = name_key(name), skeleton(name)
    for other in others:
        if name_key(other) == key or skeleton(other) == shape:
            return other
    return None


class NameTaken(ValueError):
    """A name refused because it is taken, or looks like one that is (in words: a
    phrase)."""


def refuse_taken(name: str, taken: str | None) -> None:
    """:class:`NameTaken` when ``taken`` (a held name found like ``name``) is not
    ``None``: the same name, or one that looks like it."""
    if taken is None:
        return
    if name_key(taken) == name_key(name):
        raise NameTaken(phrase("the name {name!r} is taken: choose another", name=name))
    raise NameTaken(
        phrase(
            "the name {name!r} looks like {other!r}, which is taken: choose another",
            name=name,
            other=taken,
        )
    )


def check_held(name: str, held: Iterable[str], longest: int = MAX_LENGTH) -> str:
    """``name`` as it is kept when it is welcome and neither taken nor like a name of
    ``held``; else :class:`ValueError` (:class:`NameTaken` for a taken one) in words.

        >>> check_held("Dominoclub  Kiel", ["Skatclub"], longest=60)
        'Dominoclub Kiel'
        >>> check_held("Dominoclub K\\u0456el", ["Dominoclub Kiel"], longest=60)
        Traceback (most recent call last):
        ...
        pips.text.NameTaken: the name 'Dominoclub Kіel' looks like 'Dominoclub Kiel', ...
        >>> check_held("<b>Club</b>", [])
        Traceback (most recent call last):
        ...
        ValueError: a name is letters (of any language), digits, spaces, dots, hyphens and ...
    """
    kept = check_name(name, longest)
    refuse_taken(kept, alike(kept, held))
    return kept


QUOTED_LENGTH = 60
"""Characters of a client's text quoted back in a message (the rest is cut: "…")."""


def visible(text: str) -> str:
    """``text`` with every character that is not seen as itself escaped as ``\\uXXXX``:
    controls, format characters (the right-to-left override and every other bidi
    control, zero-width joiners), private and unassigned code points, line breaks and
    spaces other than the plain one. Words of a message pass unchanged; what a client
    sent can no longer reorder or hide the text around it.

        >>> visible("no list of \\u202efido")
        'no list of \\\\u202efido'
    """
    return "".join(
        f"\\u{ord(c):04x}" if unicodedata.category(c)[0] in "CZ" and c != " " else c for c in text
    )


def quoted(text: str, longest: int = QUOTED_LENGTH) -> str:
    """A client's ``text`` made safe to quote in a message: :func:`visible`, at most
    ``longest`` characters of it, in quotes.

        >>> quoted("\\u202efido")
        "'\\\\u202efido'"
        >>> quoted("x" * 100, longest=5)
        "'xxxxx…'"
    """
    cut = text[:longest] + ("…" if len(text) > longest else "")
    return f"'{visible(cut)}'"
