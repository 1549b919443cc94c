"""The lazy legal-move sequence (pips.core.legal)."""

from __future__ import annotations

import random

import pytest

from pips.core.legal import Doubles, LegalMoves, PointPlays
from pips.core.moves import At, Draw, Play
from tests.helpers import t, tiles


def test_groups_expand_doubles_as_their_rule_says() -> None:
    held = tuple(tiles("6-0 6-6 6-5"))
    across = PointPlays.of(4, 6, At.END, held, Doubles.ACROSS, True)
    both = PointPlays.of(4, 6, At.END, held, Doubles.ACROSS_OR_INLINE, True)
    inline = PointPlays.of(4, 6, At.END, held, Doubles.INLINE, True)
    side = PointPlays.of(5, 6, At.SIDE, held, Doubles.NONE, True)
    assert [str(m) for m in across.moves()] == ["6-0 on end #4", "6-6 on end #4", "6-5 on end #4"]
    assert [m.inline for m in both.moves()] == [False, False, True, False]
    assert [m.inline for m in inline.moves()] == [False, True, False]
    assert [m.tile for m in side.moves()] == tiles("6-0 6-5")
    for group in (across, both, inline, side):
        assert group.size == len(list(group.moves()))
        assert [group.nth(i) for i in range(group.size)] == list(group.moves())
        with pytest.raises(IndexError):
            group.nth(group.size)


def test_lazy_sequence_indexes_without_building_and_compares_like_a_list() -> None:
    groups = [
        PointPlays.of(1, 3, At.END, tuple(tiles("3-1 3-2")), Doubles.ACROSS, False),
        PointPlays.of(2, 5, At.SIDE, tuple(tiles("5-0 5-5")), Doubles.NONE, True),
    ]
    moves = LegalMoves(groups=groups)
    assert len(moves) == 3 and moves.count() == 3 and moves.any()
    assert moves[2] == Play(t("5-0"), 5, At.SIDE, 2)
    assert moves[-3] == Play(t("3-1"), 3, At.END, 1)
    assert moves._moves is None  # nothing built yet
    with pytest.raises(IndexError):
        moves[3]
    assert random.Random(1).choice(moves) in moves
    assert moves == [
        Play(t("3-1"), 3, At.END, 1),
        Play(t("3-2"), 3, At.END, 1),
        Play(t("5-0"), 5, At.SIDE, 2),
    ]
    assert moves[1:] == list(moves)[1:]
    assert moves.index(Play(t("3-2"), 3, At.END, 1)) == 1
    assert LegalMoves([Draw()]) == [Draw()] and not LegalMoves()
    assert "3-1 on end #1" in repr(moves)
