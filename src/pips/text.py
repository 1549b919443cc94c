"""Text as people read it, through ICU (the ``pyicu-wheels`` build of PyICU): which
names look alike, and how names sort.

* :func:`skeleton` is the confusable skeleton of Unicode's UTS #39 ("Unicode Security
  Mechanisms", section 4): two names look alike when their skeletons are equal, as
  ``Honest`` and ``Honеst`` (with a Cyrillic е) or ``rn`` and ``m`` are. It is taken of
  the name as written (compatibility forms folded: ``Ηonest`` with a Greek capital Eta
  looks like ``Honest``, not like ``ηonest``), then case-folded and taken again, so
  ``HONEST`` and ``honest`` share it, and so do ``Anna Müller`` and ``anna rnüller``.
  Umlauts stay what they are: ``Jörg`` and ``Jorg`` are two names.
* :func:`sort_key` sorts names as German readers expect (ICU's German collation:
  ``Äpfel`` beside ``Apfel``, not after ``Zorn``), for pages and exports in any
  language.

    >>> skeleton("Honest") == skeleton("Hon\\u0435st")
    True
    >>> skeleton("Jörg") == skeleton("Jorg")
    False
    >>> skeleton("\u0397onest") == skeleton("honest")
    True
    >>> sorted(["Zorn", "Äpfel", "Apfel", "Öl", "Ozean"], key=sort_key)
    ['Apfel', 'Äpfel', 'Öl', 'Ozean', 'Zorn']
"""

from __future__ import annotations

import threading
import unicodedata
from functools import lru_cache
from typing import Any

import icu

from pips.core.names import name_key

_local = threading.local()
"""ICU's checkers and collators are not shared between threads."""


def _spoof_checker() -> Any:
    checker = getattr(_local, "checker", None)
    if checker is None:
        checker = _local.checker = icu.SpoofChecker()
    return checker


def _collator() -> Any:
    collator = getattr(_local, "collator", None)
    if collator is None:
        collator = _local.collator = icu.Collator.createInstance(icu.Locale("de_DE"))
    return collator


@lru_cache(maxsize=20_000)
def skeleton(name: str) -> str:
    """The UTS #39 skeleton of ``name`` (compatibility forms and spaces folded first),
    case-folded and taken again, NFC-composed for storage."""
    written = " ".join(unicodedata.normalize("NFKC", name).split())
    checker = _spoof_checker()
    # Once as written (a Greek capital Eta is an H), once case-folded (a folded m is
    # an rn as much as a typed one is).
    folded = name_key(str(checker.getSkeleton(0, written)))
    return unicodedata.normalize("NFC", str(checker.getSkeleton(0, folded)))


def sort_key(text: str) -> bytes:
    """A key that sorts ``text`` as German readers expect."""
    return bytes(_collator().getSortKey(text))
