"""Warnings about a result that the rules allow but that is far from what games of its
size give: 550 running points where 55 was meant, 0 pips where nobody is marked out.

The hard bounds of :func:`pips.results.entry.check` refuse what no game can produce;
beside them, a typo that stays within the bounds (the bound for running points is the
theoretical most, which no real game comes near) is caught here, from the spread of
games the expert bot played at the same game, set and number of players
(:mod:`pips.sim.typical`, figures in ``data/typical.json``). A warning never refuses:
every entry path shows it before the result is saved, and the person who holds the
sheet decides.

    >>> from datetime import date
    >>> from pips.results.entry import Entry, Line, check
    >>> entry = Entry("fido", date(2026, 10, 3), 12, (
    ...     Line("Anna", points=550, pips=0, out=True), Line("Ben", points=40, pips=12),
    ...     Line("Cleo", points=22, pips=0), Line("Dana", points=35, pips=9)))
    >>> for warning in unusual(check(entry, today=date(2026, 11, 1))):
    ...     print(warning)  # doctest: +ELLIPSIS
    unusual: Anna has 550 running points; most games of double-12 ... check the sheet
    Cleo holds 0 pips but did not go out: check who went out (F-19)
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from pips.core.phrase import Phrase, phrase
from pips.games.registry import find_game
from pips.results.entry import Checked

DATA = Path(__file__).resolve().parent / "data" / "typical.json"
USUAL = 2
"""Which quantile of the figures (:data:`pips.sim.typical.QUANTILES`) most games stay
under, as said to the reader: the 99th percentile."""
BEYOND = 3
"""Past which quantile a value is called unusual: the 99.5th percentile, and at least a
fifth above what most games give, so that an ordinary high score is not questioned."""


@cache
def figures() -> dict[str, Any]:
    """The spread of sheets by ``game/set/players`` (empty if the data is missing)."""
    try:
        data = json.loads(DATA.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return dict(data.get("sizes", {}))


def typical(game: str, top: int, players: int) -> dict[str, list[int]] | None:
    """The quantiles of points and pips of one player's line at this size."""
    found = figures().get(f"{game}/{top}/{players}")
    return None if found is None else {"points": found["points"], "pips": found["pips"]}


def _far(value: int, quantiles: list[int]) -> bool:
    usual, beyond = quantiles[USUAL], quantiles[BEYOND]
    return value > max(beyond, usual * 6 // 5, 1)


def unusual(checked: Checked) -> list[Phrase]:
    """What to check on the sheet before saving ``checked`` (empty: nothing odd)."""
    entry = checked.entry
    spec = find_game(entry.game)
    columns = spec.entry
    warnings: list[Phrase] = []
    spread = typical(entry.game, entry.top, len(entry.lines))
    if spread is not None:
        for line in entry.lines:
            if columns.points and _far(line.points, spread["points"]):
                warnings.append(
                    phrase(
                        "unusual: {name} has {value} {column}; most games of double-{set} "
                        "for {count} end under {usual} — check the sheet",
                        name=line.name,
                        value=line.points,
                        column=Phrase(columns.points),
                        set=entry.top,
                        count=len(entry.lines),
                        usual=spread["points"][USUAL],
                    )
                )
            if columns.pips and _far(line.pips, spread["pips"]):
                warnings.append(
                    phrase(
                        "unusual: {name} holds {value} pips; most players of double-{set} "
                        "for {count} hold under {usual} at the end — check the sheet",
                        name=line.name,
                        value=line.pips,
                        set=entry.top,
                        count=len(entry.lines),
                        usual=spread["pips"][USUAL],
                    )
                )
    if columns.pips and columns.out:
        for line in entry.lines:
            if line.pips == 0 and not line.out:
                # Possible (a hand of only the double blank), but mostly an unmarked out.
                warnings.append(
                    phrase(
                        "{name} holds 0 pips but did not go out: check who went out ({rule})",
                        name=line.name,
                        rule=columns.out_rule,
                    )
                )
    return warnings
