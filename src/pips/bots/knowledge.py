"""What a seat can know about the hidden tiles, from its view alone (C-06).

Bots that reason about the other hands (``expert`` counts numbers, ``search`` samples
whole deals) read the same public facts: which tiles are unseen, how many each seat
holds, and which tiles a seat cannot hold because it knocked or drew when they would
have fitted. The history is replayed on a layout of the game's kind to know what fitted
at each knock.

The inference is sound, not complete: a tile a seat drew face down is unknown, so each
draw grants that seat one tile exempt from what it was shown to lack (``free``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from pips.core.layout import Layout
from pips.core.moves import At, Draw, Pass, Play
from pips.core.tiles import Tile, double_set
from pips.core.view import View
from pips.games.registry import find_game
from pips.games.traits import HandTraits, fits, new_layout


def fitting_tiles(traits: HandTraits, layout: Layout) -> set[Tile]:
    """Every tile that would fit some open point of ``layout`` under the hand's rules
    (F-07, F-13, DB-06); used to learn what a knocking seat lacks."""
    if not layout.tiles:
        return set()
    tiles = double_set(traits.top)
    return {t for point in layout.iter_points() for t in tiles if fits(traits, layout, point, t)}


@dataclass
class Knowledge:
    """The public facts about the hidden tiles, as ``seat`` sees them."""

    seat: int
    own: list[Tile]
    """The seat's own hand."""
    unseen: set[Tile]
    """Tiles in no known place: in another hand or in the stock."""
    sizes: list[int]
    """How many tiles each seat holds."""
    face_up: list[set[Tile]]
    """Tiles each seat holds face up (PT-08 set aside)."""
    lacks: list[set[Tile]] = field(default_factory=list)
    """Per seat, tiles it cannot hold, apart from ``free`` of them."""
    free: list[int] = field(default_factory=list)
    """Per seat, how many of its tiles were drawn unseen after it showed a lack."""
    laid_numbers: list[int] = field(default_factory=list)
    """How many laid tiles show each number (a double counts once)."""

    @classmethod
    def of(cls, view: View) -> Knowledge:
        top = int(view.options["set"])
        players = len(view.hand_sizes)
        face_up = [set(tiles) for tiles in view.set_aside] or [set() for _ in range(players)]
        laid = {laid.tile for laid in view.layout.tiles}
        known = set(view.hand) | laid | set().union(*face_up)
        unseen = {t for t in double_set(top) if t not in known}
        lacks: list[set[Tile]] = [set() for _ in range(players)]
        free = [0] * players
        traits = find_game(view.game).traits(view.options, view.hand_number == 1)
        layout = new_layout(traits)
        for event in view.history:
            move, who = event.move, event.seat
            if isinstance(move, Draw | Pass) and who != view.seat and layout.tiles:
                lacks[who] |= fitting_tiles(traits, layout)
                if isinstance(move, Draw):
                    # Every unseen draw is exempt from what the seat lacked before. (A
                    # draw-until-playable seat's earlier draws did not fit *now*, but may
                    # well be tiles it lacked at an older knock or draw.)
                    free[who] += 1
            elif isinstance(move, Play):
                if move.at is At.OPEN:
                    layout.open_with(move.tile, who)
                else:
                    layout.attach(move.tile, move.touching, move.end, who, move.inline)
                if move.tile in lacks[who]:
                    free[who] = max(0, free[who] - 1)
        numbers = [layout.laid_with(n) for n in range(top + 1)]
        return cls(
            view.seat,
            list(view.hand),
            unseen,
            list(view.hand_sizes),
            face_up,
            [lack & unseen for lack in lacks],
            free,
            numbers,
        )

    def unseen_with(self, number: int) -> int:
        """How many unseen tiles show ``number``."""
        return sum(1 for t in self.unseen if t.contains(number))

    def sample(self, rng: random.Random, stock_size: int) -> tuple[list[list[Tile]], list[Tile]]:
        """One deal of the unseen tiles consistent with the facts: every other seat's
        hand and the stock (next to draw first). Own hand and face-up tiles are kept
        where they are. Tries to honour every lack; after many failures (facts that
        conflict through a rare ordering of draws) it drops the lacks for that sample."""
        for attempt in range(40):
            dealt = self._try_sample(rng, stock_size, honour=attempt < 39)
            if dealt is not None:
                return dealt
        raise AssertionError("a sample without constraints always succeeds")

    def _try_sample(
        self, rng: random.Random, stock_size: int, honour: bool
    ) -> tuple[list[list[Tile]], list[Tile]] | None:
        pool = sorted(self.unseen)
        rng.shuffle(pool)
        hands: list[list[Tile]] = [sorted(up) for up in self.face_up]
        hands[self.seat] = list(self.own)
        others = [s for s in range(len(self.sizes)) if s != self.seat]
        # The most constrained seats choose first, while their tiles are still free.
        others.sort(key=lambda s: -len(self.lacks[s]) if honour else 0)
        taken: set[Tile] = set()
        for seat in others:
            want = self.sizes[seat] - len(hands[seat])
            lacks = self.lacks[seat] if honour else set()
            exempt = min(self.free[seat], want) if honour else want
            allowed = [t for t in pool if t not in taken and t not in lacks]
            strict = want - exempt
            if len(allowed) < strict:
                return None
            chosen = allowed[:strict]
            taken.update(chosen)
            rest = [t for t in pool if t not in taken]
            if len(rest) < exempt:
                return None
            chosen += rest[:exempt]
            taken.update(rest[:exempt])
            hands[seat].extend(chosen)
        stock = [t for t in pool if t not in taken]
        if len(stock) != stock_size:
            return None
        return hands, stock


def tiles_by_number(tiles: Iterable[Tile], top: int) -> list[int]:
    """How many of ``tiles`` show each number."""
    counts = [0] * (top + 1)
    for t in tiles:
        counts[t.high] += 1
        if t.low != t.high:
            counts[t.low] += 1
    return counts
