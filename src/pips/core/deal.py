"""Shuffling and dealing (C-06). Randomness always comes from a seeded ``random.Random``."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from pips.core.errors import DealError
from pips.core.phrase import phrase
from pips.core.tiles import Tile, double_set, set_members


class Deal(NamedTuple):
    """A deal as it came from the shuffle or the table, kept for the record.

    ``hands`` in seat order, ``stock`` next-to-draw first, and ``voided``: the deals
    thrown in before it (no double held, five doubles in one hand ...), oldest first.
    """

    hands: tuple[tuple[Tile, ...], ...]
    stock: tuple[Tile, ...]
    voided: tuple[tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...]], ...] = ()

    @staticmethod
    def of(
        hands: Sequence[Sequence[Tile]],
        stock: Sequence[Tile],
        voided: Sequence[tuple[Sequence[Sequence[Tile]], Sequence[Tile]]] = (),
    ) -> Deal:
        return Deal(
            tuple(tuple(h) for h in hands),
            tuple(stock),
            tuple((tuple(tuple(h) for h in d), tuple(s)) for d, s in voided),
        )


def deal_until(
    top: int,
    players: int,
    hand_size: int,
    rng: random.Random,
    playable: Callable[[Sequence[Sequence[Tile]]], bool],
) -> Deal:
    """Deal again until ``playable(hands)`` holds; the thrown-in deals are kept."""
    voided: list[tuple[list[list[Tile]], list[Tile]]] = []
    while True:
        hands, stock = deal_hands_and_stock(top, players, hand_size, rng)
        if playable(hands):
            return Deal.of(hands, stock, voided)
        voided.append((hands, stock))


def shuffled(tiles: Iterable[Tile], rng: random.Random) -> list[Tile]:
    """C-06: the tiles in a uniformly random order drawn from ``rng``."""
    order = list(tiles)
    rng.shuffle(order)
    return order


def deal_hands_and_stock(
    top: int, players: int, hand_size: int, rng: random.Random
) -> tuple[list[list[Tile]], list[Tile]]:
    """Shuffle a double-``top`` set and give ``hand_size`` tiles to each of ``players``.

    Returns the hands in seat order and the stock, the next tile to be drawn first.
    Seat ``i`` takes the ``i``-th run of ``hand_size`` tiles of the shuffled set.
    """
    order = shuffled(double_set(top), rng)
    hands = [order[i * hand_size : (i + 1) * hand_size] for i in range(players)]
    return hands, order[players * hand_size :]


def check_partition(
    top: int, hands: Sequence[Sequence[Tile]], stock: Sequence[Tile], rule: str = "C-06"
) -> None:
    """Raise :class:`DealError` unless hands and stock hold the set exactly once."""
    members = set_members(top)
    if sum(len(h) for h in hands) + len(stock) == len(members):
        dealt = set(stock)
        for hand in hands:
            dealt.update(hand)
        if dealt == members:
            return  # every tile once: nothing to explain
    full = set(members)
    seen: set[Tile] = set()
    places = [(phrase("seat {number}", number=i), h) for i, h in enumerate(hands)]
    for where, tiles in [*places, (phrase("the stock"), stock)]:
        for tile in tiles:
            if tile not in full:
                raise DealError(
                    rule,
                    phrase(
                        "{tile} in {where} is not in the double-{top} set",
                        tile=tile,
                        where=where,
                        top=top,
                    ),
                )
            if tile in seen:
                raise DealError(
                    rule, phrase("{tile} in {where} is dealt twice", tile=tile, where=where)
                )
            seen.add(tile)
    missing = full - seen
    if missing:
        names = " ".join(str(t) for t in sorted(missing))
        raise DealError(
            rule,
            phrase("the deal leaves out {count} tile(s): {names}", count=len(missing), names=names),
        )
