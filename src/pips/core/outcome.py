"""The end of a hand as data, and the ranking rule shared by the games."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class Ending(StrEnum):
    OUT = "out"
    """A player laid their last tile."""
    BLOCKED = "blocked"
    """Nobody can play and nobody can draw (C-10)."""


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended and what every seat scored, in seat order.

    ``points`` are the running points scored during the hand, ``pips`` the pips left
    in each hand, ``final`` the hand's score after the game's end-of-hand rule, and
    ``ranks`` the places (1 is best, shared places use competition ranking).
    """

    ended: Ending
    out: int | None
    pips: tuple[int, ...]
    points: tuple[int, ...]
    final: tuple[int, ...]
    ranks: tuple[int, ...]

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(seat for seat, rank in enumerate(self.ranks) if rank == 1)

    def to_json(self) -> dict[str, object]:
        return {
            "ended": self.ended.value,
            "out": self.out,
            "pips": list(self.pips),
            "points": list(self.points),
            "final": list(self.final),
            "ranks": list(self.ranks),
        }


def competition_ranks(scores: Sequence[int], higher_is_better: bool = True) -> tuple[int, ...]:
    """Standard competition ranking ("1224"): equal scores share a place (F-21)."""
    sign = -1 if higher_is_better else 1
    ordered = sorted(sign * s for s in scores)
    return tuple(ordered.index(sign * s) + 1 for s in scores)
