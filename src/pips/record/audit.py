"""Checking files of records: each replayed, and where each deal came from (committed,
seeded, by hand, unverified)."""

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


def provenance(record: Mapping[str, Any]) -> list[str]:
    """Where each hand's deal of a (valid) record came from: ``committed``, ``seeded``,
    ``by hand`` or ``unverified`` (see :class:`CheckedFile`)."""
    spec = find_game(str(record["game"]))
    by_hand = spec.dealt_by_hand(spec.options_from_json(record["options"]))
    found = []
    for hand in record.get("hands") or []:
        if isinstance(hand, Mapping) and "commitment" in hand:
            found.append("committed")
        elif by_hand:
            found.append("by hand")
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
            else:
                kinds[kind] += 1
    return CheckedFile(
        count, kinds["committed"], kinds["seeded"], kinds["by hand"], tuple(unverified)
    )
