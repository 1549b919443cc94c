"""Deals nobody can predict, and commitments that show they were fixed in advance.

A public table's randomness is a 256-bit key from the operating system's CSPRNG (made
by the server, kept in its database, never sent to anyone). :class:`KeyedRandom` turns
the key into the stream the match draws its lots and deals from: HMAC-SHA-256 of the key
over a counter, a pseudorandom function, so seeing any number of deals tells nothing of
the next one or of the key. (Python's Mersenne Twister is not such a function: its state
can be solved from enough of its output, and a 31-bit seed can be searched.)

At each deal every seat is sent a *commitment*: the SHA-256 of a fresh salt and the deal
as the record will write it (:func:`deal_commitment`). The finished record reveals the
salt beside each deal, so anyone can check that the deal they played is the one the
server had fixed before the first move (``pips check``).

    >>> stream = KeyedRandom(bytes(32))
    >>> tiles = list(range(10))
    >>> stream.shuffle(tiles)
    >>> again = list(range(10))
    >>> KeyedRandom(bytes(32)).shuffle(again)
    >>> tiles == again, sorted(tiles) == list(range(10))
    (True, True)
    >>> dealt = {"deal": [[[0, 1]], [[2, 2]]], "stock": []}
    >>> deal_commitment("00" * 16, dealt) == deal_commitment("00" * 16, dict(dealt))
    True
    >>> deal_commitment("00" * 16, dealt) == deal_commitment("01" * 16, dealt)
    False
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from collections.abc import Mapping
from typing import Any

KEY_BYTES = 32
SCHEME = "sha256(salt:deal)/1"
"""The commitment scheme, named in every record that uses it."""


class KeyedRandom(random.Random):
    """A ``random.Random`` whose bits are HMAC-SHA-256(key, counter): the same key gives
    the same stream (so a table replays from its stored key), and without the key the
    stream cannot be told from chance."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("a deal key has at least 128 bits")
        self._key = key
        self._counter = 0
        self._buffer = b""
        super().__init__()

    def seed(self, a: Any = None, version: int = 2) -> None:
        """The key is the seed: reseeding is not possible (``random.Random`` calls this
        once while it is made)."""

    def _bytes(self, count: int) -> bytes:
        while len(self._buffer) < count:
            block = hmac.digest(self._key, self._counter.to_bytes(8, "big"), "sha256")
            self._buffer += block
            self._counter += 1
        out, self._buffer = self._buffer[:count], self._buffer[count:]
        return out

    def getrandbits(self, k: int, /) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k == 0:
            return 0
        whole = (k + 7) // 8
        return int.from_bytes(self._bytes(whole), "big") >> (whole * 8 - k)

    def random(self) -> float:
        return self.getrandbits(53) * 2.0**-53

    def getstate(self) -> Any:
        raise NotImplementedError("a keyed stream has no state to save")

    def setstate(self, state: Any) -> None:
        raise NotImplementedError("a keyed stream has no state to restore")


def salt_for(key: bytes, hand: int) -> str:
    """The salt of hand ``hand`` (from 1) of the match dealt from ``key``: 128 bits,
    revealed with the deal in the finished record."""
    return hmac.digest(key, f"salt/{hand}".encode(), "sha256")[:16].hex()


def canonical(data: Any) -> bytes:
    """JSON with sorted keys and no spaces: one text for one value."""
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


def deal_commitment(salt: str, dealt: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of ``salt``, a colon, and the canonical JSON of the deal as the
    record writes it (its ``deal``, ``stock`` and, when deals were thrown in,
    ``redeals``)."""
    fields = {k: dealt[k] for k in ("deal", "stock", "redeals") if k in dealt}
    return hashlib.sha256(salt.encode() + b":" + canonical(fields)).hexdigest()
