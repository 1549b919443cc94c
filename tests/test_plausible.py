"""The plausibility figures (src/pips/results/data/typical.json, written by
``python -m pips.sim.typical``) describe games played afresh, and the warnings they give
catch a typo without questioning an ordinary sheet (issue 34)."""

from __future__ import annotations

from datetime import date

import pytest

from pips.results.entry import Entry, Line, check
from pips.results.plausible import figures, typical, unusual
from pips.sim.typical import Size, sheet_lines, sizes


def test_every_size_a_result_can_be_entered_for_has_figures() -> None:
    known = figures()
    assert {size.key for size in sizes()} == set(known)
    for found in known.values():
        assert found["games"] >= 100
        for column in ("points", "pips"):
            assert found[column] == sorted(found[column])  # quantiles rise


@pytest.mark.parametrize("size", [Size("fido", 6, 3), Size("fido", 9, 5), Size("draw", 6, 4)])
def test_fresh_games_stay_under_the_99th_percentile_as_often_as_it_says(size: Size) -> None:
    """30 games the figures never saw (other seeds): at most a few of their lines above
    the 99th percentile."""
    spread = typical(size.game, size.top, size.players)
    assert spread is not None
    lines = [line for seed in range(50_000, 50_030) for line in sheet_lines(size, seed)]
    above = sum(points > spread["points"][2] or pips > spread["pips"][2] for points, pips in lines)
    assert above <= 0.05 * len(lines), (above, len(lines))


def test_a_typo_is_flagged_and_an_ordinary_sheet_is_not() -> None:
    day, today = date(2026, 10, 3), date(2026, 11, 1)
    ordinary = Entry(
        "fido",
        day,
        12,
        (
            Line("Anna", 120, 0, True),
            Line("Ben", 95, 12),
            Line("Cleo", 60, 4),
            Line("Dora", 88, 9),
            Line("Emil", 70, 21),
        ),
    )
    assert unusual(check(ordinary, today)) == []
    typo = Entry("fido", day, 12, (Line("Anna", 550, 0, True), *ordinary.lines[1:]))
    (warning,) = unusual(check(typo, today))
    assert "550" in warning and "Anna" in warning and "147" in warning
