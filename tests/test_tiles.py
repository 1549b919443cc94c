"""Tiles, sets, hands and deals (C-01 to C-06)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pips.core.deal import check_partition, deal_hands_and_stock
from pips.core.errors import DealError
from pips.core.hand import Hand
from pips.core.tiles import (
    MAX_NUMBER,
    Tile,
    double_set,
    heaviest,
    highest_double,
    pip_total,
    set_size,
)
from tests.helpers import t, tiles


@pytest.mark.parametrize("top", range(MAX_NUMBER + 1))
def test_c02_every_double_n_set_has_n1_n2_over_2_distinct_tiles(top: int) -> None:
    full = double_set(top)
    assert len(full) == (top + 1) * (top + 2) // 2 == set_size(top)
    assert len(set(full)) == len(full)
    # C-02: each number is on n+1 tiles and n+2 halves.
    for number in range(top + 1):
        assert sum(tile.contains(number) for tile in full) == top + 1
        assert sum((tile.high == number) + (tile.low == number) for tile in full) == top + 2


def test_c02_named_set_sizes() -> None:
    assert [set_size(n) for n in (6, 9, 12, 15, 18)] == [28, 55, 91, 136, 190]


def test_c01_tiles_are_written_high_first_and_interned() -> None:
    assert str(Tile.of(3, 6)) == "6-3"
    assert Tile.of(3, 6) is Tile.of(6, 3) is Tile.parse("3-6") is Tile.parse(" 6/3 ")
    assert t("18-12").pips == 30
    assert t("6-6").is_double and not t("6-5").is_double
    assert t("12-9").difference == 3
    assert t("12-9").other(12) == 9 and t("12-9").other(9) == 12
    with pytest.raises(ValueError):
        t("12-9").other(4)


@pytest.mark.parametrize("text", ["", "6", "6-", "a-b", "6-6-6", "22-1", "-1-3"])
def test_c01_bad_tile_text_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        Tile.parse(text)


def test_c02_sets_beyond_double_21_are_refused() -> None:
    with pytest.raises(ValueError):
        double_set(22)


def test_c04_heaviest_tile_breaks_equal_pips_by_the_higher_half() -> None:
    assert heaviest(tiles("5-4 6-3 2-1")) == t("6-3")
    assert highest_double(tiles("5-4 3-3 5-5 6-1")) == t("5-5")
    assert highest_double(tiles("5-4 6-1")) is None
    assert pip_total(tiles("6-5 2-0")) == 13


def test_c04_heaviness_never_ties_between_different_tiles() -> None:
    keys = [tile.heaviness for tile in double_set(MAX_NUMBER)]
    assert len(set(keys)) == len(keys)


def test_tile_ordinals_are_dense_and_the_same_in_every_set() -> None:
    assert [tile.ordinal for tile in double_set(9)] == list(range(55))
    assert double_set(6) == double_set(9)[:28]


@given(st.integers(0, MAX_NUMBER), st.integers(0, 2**32), st.data())
def test_c06_a_deal_partitions_the_set_and_repeats_with_its_seed(
    top: int, seed: int, data: st.DataObject
) -> None:
    size = set_size(top)
    players = data.draw(st.integers(1, min(9, size)))
    hand_size = data.draw(st.integers(0, size // players))
    hands, stock = deal_hands_and_stock(top, players, hand_size, random.Random(seed))
    check_partition(top, hands, stock)
    assert all(len(hand) == hand_size for hand in hands)
    assert len(stock) == size - players * hand_size
    assert (hands, stock) == deal_hands_and_stock(top, players, hand_size, random.Random(seed))


def test_c06_partition_errors_name_the_problem() -> None:
    with pytest.raises(DealError, match="dealt twice"):
        check_partition(1, [[t("1-1"), t("1-0")], [t("1-0")]], [t("0-0")])
    with pytest.raises(DealError, match="leaves out 1"):
        check_partition(1, [[t("1-1")]], [t("0-0")])
    with pytest.raises(DealError, match="not in the double-1 set"):
        check_partition(1, [[t("1-1"), t("2-0")]], [t("1-0"), t("0-0")])


@given(st.lists(st.sampled_from(double_set(9)), unique=True), st.data())
def test_hand_index_by_number_stays_exact(held: list[Tile], data: st.DataObject) -> None:
    hand = Hand(held)
    removed = data.draw(st.lists(st.sampled_from(held), unique=True)) if held else []
    for tile in removed:
        hand.remove(tile)
    left = [tile for tile in held if tile not in removed]
    assert list(hand) == left
    assert hand.pips == pip_total(left)
    for number in range(10):
        assert list(hand.with_number(number)) == [x for x in left if x.contains(number)]
        assert hand.has_number(number) == any(x.contains(number) for x in left)
    with pytest.raises(ValueError):
        Hand([t("3-2"), t("2-3")])
