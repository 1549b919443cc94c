"""The analysis plot of a long match says that it shows only its first hands (issue 51,
item 9: it showed 12 of 20 without saying so)."""

from __future__ import annotations

import io
import re

import matplotlib

from pips.bots.analysis import Analysis, Decision, plot


def decisions(hands: int) -> list[Decision]:
    return [
        Decision(hand, 1, seat, (("5-5", 0.5), ("5-1", 0.1)), "5-5", "5-5", 0.0, "")
        for hand in range(1, hands + 1)
        for seat in range(2)
    ]


def drawn(hands: int) -> str:
    svg = io.BytesIO()
    # Text kept as text in the SVG, to be read back (not drawn as paths).
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        plot(Analysis("family", ["Ann", "Bo"], "easy", 1, decisions(hands)), svg, format="svg")
    # The title wraps over several <text> elements: their words, joined.
    return " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg.getvalue().decode()))


def test_a_plot_cut_to_twelve_hands_says_so() -> None:
    assert "hands 1 to 12 of 20" in drawn(20)
    assert "hands 1 to" not in drawn(3)
