"""Checking files of records: each replayed, and where each deal came from (committed,
seeded, by hand, suspect, unverified).

Only two of these prove a deal fair: a commitment sent before the first move (a
server's public table) and a seed the deal is made from again (a practice table, a
simulation). A deal typed in at a real table (F-24) is what somebody says was dealt:
``pips check --require-proof`` refuses it, since anyone can relabel a record
``deal_mode: manual``. A server never deals by hand (its tables refuse the option), so a
manual deal in a record that bears a server's marks (commitments, salts, stand-ins) is
*suspect*: a server's record relabelled."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pips.core.phrase import phrase
from pips.games.registry import find_game
from pips.i18n import reason
from pips.record.format import RecordError
from pips.record.replay import replay
from pips.record.write import load


@dataclass(frozen=True)
class CheckedFile:
    """What checking a file found: how many records replayed, and where each deal came
    from: checked against the commitment sent before play (a server's public table),
    dealt again from the record's seed (a practice table, a simulation), typed in as
    dealt at a real table (F-24), or none of these: such a deal could not be verified
    (its record carries no commitment and no seed: a hand-made record, or one whose
    commitments were stripped)."""

    records: int
    committed: int
    seeded: int
    dealt_by_hand: int
    unverified: tuple[tuple[int, int], ...]
    """(record, hand) of every deal that could not be verified, both from 1."""
    suspect: tuple[tuple[int, int], ...] = ()
    """(record, hand) of every deal a record says was made by hand although the record
    bears a server's marks: a server never deals by hand."""

    @property
    def proven(self) -> bool:
        """Whether every deal is proven fair: committed to or seeded, none merely said
        to be dealt by hand (what ``--require-proof`` asks)."""
        return not (self.unverified or self.suspect or self.dealt_by_hand)


SERVER_MARKS = ("commitments", "stand_ins")
"""Fields only a server writes into a record (docs/record-format.md); a hand's are
``salt`` and ``commitment``."""


def from_a_server(record: Mapping[str, Any]) -> bool:
    """Whether ``record`` bears a mark only a server's table writes."""
    hands = record.get("hands") or []
    return any(mark in record for mark in SERVER_MARKS) or any(
        isinstance(hand, Mapping) and ("commitment" in hand or "salt" in hand) for hand in hands
    )


def provenance(record: Mapping[str, Any]) -> list[str]:
    """Where each hand's deal of a (valid) record came from: ``committed``, ``seeded``,
    ``by hand``, ``suspect`` or ``unverified`` (see :class:`CheckedFile`)."""
    spec = find_game(str(record["game"]))
    by_hand = spec.dealt_by_hand(spec.options_from_json(record["options"]))
    # A commitment proves nothing of a manual deal: its draws name any tile they like.
    suspect = by_hand and from_a_server(record)
    found = []
    for hand in record.get("hands") or []:
        if suspect:
            found.append("suspect")
        elif by_hand:
            found.append("by hand")
        elif isinstance(hand, Mapping) and "commitment" in hand:
            found.append("committed")
        elif record.get("seed") is not None:
            found.append("seeded")
        else:
            found.append("unverified")
    return found


def check_file(path: Path, progress: Callable[[int, int], None] | None = None) -> CheckedFile:
    """Replay every record of a file and say where its deals came from, or
    :class:`RecordError`; ``progress(done, total)`` hears of each record checked."""
    count = 0
    kinds: dict[str, int] = {"committed": 0, "seeded": 0, "by hand": 0}
    unverified: list[tuple[int, int]] = []
    suspect: list[tuple[int, int]] = []
    records = list(load(path))
    for count, record in enumerate(records, 1):
        if progress is not None:
            progress(count - 1, len(records))
        try:
            replay(record)
        except RecordError as exc:
            error = RecordError(phrase("record {count}: {exc}", count=count, exc=reason(exc)))
            error.hand, error.move, error.rule = exc.hand, exc.move, exc.rule
            raise error from None
        for hand, kind in enumerate(provenance(record), 1):
            if kind == "unverified":
                unverified.append((count, hand))
            elif kind == "suspect":
                suspect.append((count, hand))
            else:
                kinds[kind] += 1
    return CheckedFile(
        count,
        kinds["committed"],
        kinds["seeded"],
        kinds["by hand"],
        tuple(unverified),
        tuple(suspect),
    )
