"""What a seat can know about the hidden tiles, from its view alone (C-06).

Bots that reason about the other hands (``expert`` counts numbers, ``search`` samples
whole deals) read the same public facts: which tiles are unseen, how many each seat
holds, and which tiles a seat cannot hold because it knocked or drew when they would
have fitted. The history is replayed on a layout of the game's kind to know what fitted
at each knock.

The inference is sound, not complete: a tile a seat drew face down is unknown, so each
draw grants that seat one tile exempt from what it was shown to lack (``free``).

Beyond what is certain, a seat's choices make some deals likelier than others: a seat
that laid a light tile where a heavy one fitted probably held no heavy one that fitted.
:meth:`Knowledge.likelihood` weighs a sampled deal by how likely it makes the other
seats' past plays under a simple model of play (heavier tiles likelier, see
:data:`HEAVINESS`), for every play made since that seat's last draw (before it, which of
its unseen tiles it already held is unknown).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from pips.core.layout import Layout
from pips.core.moves import At, Draw, Pass, Play
from pips.core.tiles import Tile, double_set
from pips.core.view import View
from pips.games.registry import Game, find_game
from pips.games.traits import HandTraits, fits, new_layout


class PlayModel(NamedTuple):
    """A model of how a seat chooses among the tiles that fit, behind
    :meth:`Knowledge.likelihood`: it lays each with odds ``exp(heaviness * pips +
    pointedness * points)``, ``points`` being the most that tile would have scored then
    (F-15)."""

    heaviness: float = 0.0
    pointedness: float = 0.0

    @property
    def weighs(self) -> bool:
        """Whether deals differ in likelihood at all under this model."""
        return self.heaviness != 0 or self.pointedness != 0


UNIFORM = PlayModel()
"""Every tile that fits alike: deals are not weighed."""

HEAVINESS = 0.3
"""Line games: a tile 5 pips heavier is ``exp(5 * 0.3)``, 4.5 times as likely. Measured
against no weighting in docs/bots.md."""

POINTEDNESS = 0.15
"""A model for games whose plays score (FIDO, F-15): a play worth 4 points more is
``exp(4 * 0.15)``, 1.8 times as likely. Measured worse than no weighing at all and not
used by default (docs/bots.md); kept so that the measurement can be run again."""

LINE_MODEL = PlayModel(heaviness=HEAVINESS)
"""The line games' model, the search bot's default there."""


class SeatModels(NamedTuple):
    """A model of play per seat and moment, for a table whose players are known to
    play differently (a benchmark's opponents, say): ``models[seat]`` while fewer than
    ``switch[seat]`` tiles are laid, then ``later[seat]``."""

    models: tuple[PlayModel, ...]
    later: tuple[PlayModel, ...]
    switch: tuple[int, ...]

    def of(self, seat: int, laid: int) -> PlayModel:
        return self.models[seat] if laid < self.switch[seat] else self.later[seat]

    @property
    def weighs(self) -> bool:
        return any(m.weighs for m in (*self.models, *self.later))


def fitting_tiles(traits: HandTraits, layout: Layout) -> set[Tile]:
    """Every tile that would fit some open point of ``layout`` under the hand's rules
    (F-07, F-13, DB-06); used to learn what a knocking seat lacks."""
    if not layout.tiles:
        return set()
    found: set[Tile] = set()
    values = {point.value for point in layout.iter_points()}
    for point in layout.iter_points():
        if point.value not in values:
            continue  # every tile of this number was tried at an earlier point of it
        candidates = [Tile.of(point.value, x) for x in range(traits.top + 1)]
        fitting = {t for t in candidates if fits(traits, layout, point, t)}
        found |= fitting
        if len(fitting) == len(candidates):
            values.discard(point.value)
    return found


@dataclass
class Choices:
    """Other seats' plays the likelihood weighs, one row each, over tile ordinals."""

    seats: np.ndarray
    """The seat that played."""
    played: np.ndarray
    """The tile it laid."""
    fitting: np.ndarray
    """Per row, the tiles that would have fitted then (0/1)."""
    later: np.ndarray
    """Per row, the tiles that seat laid from then on (0/1): with its hand now, its hand
    then."""
    points: np.ndarray
    """Per row, the most each fitting tile would have scored then (F-15; 0 in games
    whose plays do not score)."""
    laid: np.ndarray
    """Per row, how many tiles were in the layout before the play."""
    _odds: dict[object, np.ndarray] = field(default_factory=dict)

    def odds(self, model: PlayModel | SeatModels) -> np.ndarray:
        """Per row, each tile's odds of being laid under ``model`` (one for every seat,
        or one per seat and moment) where it fitted, else 0 (computed once per model: a
        decision weighs hundreds of deals)."""
        odds = self._odds.get(model)
        if odds is None:
            size = self.fitting.shape[1]
            top = round((8 * size + 1) ** 0.5 - 3) // 2
            pips = np.array([t.pips for t in double_set(top)], np.float64)
            if isinstance(model, PlayModel):
                rows = [model] * len(self.seats)
            else:
                moments = zip(self.seats, self.laid, strict=True)
                rows = [model.of(int(seat), int(laid)) for seat, laid in moments]
            heaviness = np.array([m.heaviness for m in rows], np.float64)[:, None]
            pointedness = np.array([m.pointedness for m in rows], np.float64)[:, None]
            exponent = heaviness * pips[None, :] + pointedness * self.points
            odds = self._odds[model] = np.exp(exponent) * self.fitting
        return odds


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
    choices: Choices | None = None
    """The plays :meth:`likelihood` weighs (none when nobody has chosen yet)."""

    @classmethod
    def of(cls, view: View, weigh: bool = False) -> Knowledge:
        """The facts of ``view``; with ``weigh``, also the plays :meth:`likelihood`
        weighs (a fitting set per play, so not free)."""
        top = view.options.top
        players = len(view.hand_sizes)
        face_up = [set(tiles) for tiles in view.set_aside] or [set() for _ in range(players)]
        laid = {laid.tile for laid in view.layout.tiles}
        known = set(view.hand) | laid | set().union(*face_up)
        unseen = {t for t in double_set(top) if t not in known}
        lacks: list[set[Tile]] = [set() for _ in range(players)]
        free = [0] * players
        traits = find_game(view.game).traits(view.options, view.hand_number == 1)
        layout = new_layout(traits)
        size = len(double_set(top))
        spec = find_game(view.game)
        rows: list[tuple[int, int, set[Tile], dict[Tile, int], int]] = []
        for event in view.history:
            move, who = event.move, event.seat
            if isinstance(move, Draw | Pass) and who != view.seat and layout.tiles:
                lacks[who] |= fitting_tiles(traits, layout)
                if isinstance(move, Draw):
                    # Every unseen draw is exempt from what the seat lacked before. (A
                    # draw-until-playable seat's earlier draws did not fit *now*, but may
                    # well be tiles it lacked at an older knock or draw.)
                    free[who] += 1
                    rows = [row for row in rows if row[0] != who]
            elif isinstance(move, Play):
                if weigh and who != view.seat and layout.tiles:
                    fitting = fitting_tiles(traits, layout)
                    points = (
                        {t: best_points(spec, traits, t, layout) for t in fitting}
                        if traits.divisor
                        else {}
                    )
                    rows.append((who, move.tile.ordinal, fitting, points, len(layout.tiles)))
                if move.at is At.OPEN:
                    layout.open_with(move.tile, who)
                else:
                    layout.attach(move.tile, move.touching, move.end, who, move.inline)
                if move.tile in lacks[who]:
                    free[who] = max(0, free[who] - 1)
        numbers = [layout.laid_with(n) for n in range(top + 1)]
        choices = None
        if rows:
            choices = Choices(
                np.array([row[0] for row in rows], np.int64),
                np.array([row[1] for row in rows], np.int64),
                np.zeros((len(rows), size), np.int8),
                np.zeros((len(rows), size), np.int8),
                np.zeros((len(rows), size), np.float64),
                np.array([row[4] for row in rows], np.int64),
            )
            for i, (who, _played, fitting, points, _laid) in enumerate(rows):
                choices.fitting[i, [t.ordinal for t in fitting]] = 1
                for tile, scored in points.items():
                    choices.points[i, tile.ordinal] = scored
                # The seat's plays from this one on, in order, are the rows after it.
                for j in range(i, len(rows)):
                    if rows[j][0] == who:
                        choices.later[i, rows[j][1]] = 1
        return cls(
            view.seat,
            list(view.hand),
            unseen,
            list(view.hand_sizes),
            face_up,
            [lack & unseen for lack in lacks],
            free,
            numbers,
            choices,
        )

    def likelihood(self, hands: np.ndarray, model: PlayModel | SeatModels = LINE_MODEL) -> float:
        """How likely a deal (``hands``: per seat, 0/1 over tile ordinals) makes the
        other seats' plays under ``model``, up to a constant factor: the product, over
        the plays, of the chance of the tile laid among the tiles that seat then held
        and that fitted."""
        choices = self.choices
        if choices is None or not model.weighs:
            return 1.0
        odds = choices.odds(model)
        held = hands[choices.seats] | choices.later
        rows = np.arange(len(choices.played))
        return float(np.prod(odds[rows, choices.played] / (held * odds).sum(axis=1)))

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


def best_points(spec: Game, traits: HandTraits, tile: Tile, layout: Layout) -> int:
    """The most ``tile`` would score laid now: where it fits (F-07, F-13) and the count
    it would make there (F-05 to F-07), as the game says (F-15)."""
    best = 0
    divisor = traits.divisor
    for point in layout.iter_points():
        if not fits(traits, layout, point, tile):
            continue
        count = spec.count_after(layout.count, Play(tile, point.value, point.kind, point.id))
        if count and count % divisor == 0:
            best = max(best, count // divisor)
    return best


def tiles_by_number(tiles: Iterable[Tile], top: int) -> list[int]:
    """How many of ``tiles`` show each number."""
    counts = [0] * (top + 1)
    for t in tiles:
        counts[t.high] += 1
        if t.low != t.high:
            counts[t.low] += 1
    return counts
