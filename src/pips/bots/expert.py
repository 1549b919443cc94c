"""The ``expert`` bot: hand-written strategy from the FIDO tips and common play.

Every candidate move is given a value made of named terms, and the bot plays the best;
:meth:`ExpertBot.advise` also returns the terms that decided, in words, so a client can
show a hint and why.

FIDO (SPEC section 1, divisor ``d``, count ``S``):

* score now (F-15);
* do not set up the next seat: the points an unseen tile would score after this move,
  weighted by the chance the next seat holds it (counting the tiles already laid);
* keep "holy" tiles (difference equal to ``d``) and scrounge tiles (difference a multiple
  of ``d``: played on an end they keep ``S`` divisible, so they answer a scoring play);
* keep both differences of each pair that act alike modulo ``d`` (``k`` and ``d - k``
  move ``S`` by the same amount up or down): do not spend the last of a class;
* shed doubles and heavy tiles in time: the pips left are deducted (F-21);
* block a naked side when holding no scrounge tile (ter Heide), which the legal moves
  already forbid when the Mother Theresa rule (F-22) is on and the side does not score.

Line games: shed heavy tiles and doubles early (the pips left decide a blocked hand and
are the winner's points), keep tiles that fit the ends left open, leave ends of numbers
the next seat is known to lack; in the partnership game play on the end the opponent
before you left open and never leave an end your partner lacks and the next opponent
holds; in Doubles lay a double when you hold more of its suit (DB-06).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from pips.bots.knowledge import Knowledge, best_points, tiles_by_number
from pips.core.layout import Layout
from pips.core.legal import representatives
from pips.core.moves import At, Move, Play
from pips.core.phrase import phrase
from pips.core.tiles import Tile
from pips.core.view import MoveEvent, View
from pips.games.registry import find_game
from pips.games.traits import Fit


@dataclass(frozen=True)
class Advice:
    """The chosen move and the terms that made it best, strongest first."""

    move: Move
    value: float
    reasons: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.move}: {'; '.join(self.reasons)}"


class ExpertBot:
    """Hand-written strategy for every game (see the module's text)."""

    name = "expert"

    def reset(self, seat: int) -> None:
        """A new hand: nothing is carried over."""

    def observe(self, event: MoveEvent) -> None:
        """Everything the bot needs is in the view it is given at its turn."""

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move:
        return self.advise(view, moves).move

    def advise(self, view: View, moves: Sequence[Move]) -> Advice:
        candidates = representatives(moves)
        if len(candidates) == 1 or not isinstance(candidates[0], Play):
            return Advice(candidates[0], 0.0, (phrase("the only legal move"),))
        knowledge = Knowledge.of(view)
        spec = find_game(view.game)
        # FIDO's terms are about points scored as one plays (F-15); the line games'
        # about the pips and ends left at the end of a hand.
        rate = _fido_terms if spec.scores_during_hand else _line_terms
        layout = spec.layout_of(view)
        best: Advice | None = None
        for move in candidates:
            assert isinstance(move, Play)
            terms = rate(view, knowledge, move, spec.layout_after(view, move, layout))
            value = sum(v for v, _ in terms)
            if best is None or value > best.value + 1e-9:
                ranked = sorted(terms, key=lambda t: -abs(t[0]))
                strongest = [t for t in ranked[:3] if abs(t[0]) >= 0.5] or ranked[:1]
                best = Advice(move, value, tuple(text for _, text in strongest))
        assert best is not None
        return best


@dataclass
class FidoWeights:
    """How much each FIDO term weighs, in tenths of a point scored now."""

    # Tuned against greedy over duplicate double-12 deals for five players: shedding
    # doubles early mattered most, fearing the next seat's reply least.
    score: float = 10.0
    danger: float = 0.2
    """Of the points the next seat is expected to score, as a share of the table."""
    scrounge: float = 4.0
    last_of_class: float = 1.5
    pips: float = 0.3
    double: float = 8.0
    ter_heide: float = 1.0


W = FidoWeights()


def _fido_terms(
    view: View, knowledge: Knowledge, move: Play, after: Layout
) -> list[tuple[float, str]]:
    spec = find_game(view.game)
    traits = spec.traits(view.options)
    divisor = traits.divisor
    terms: list[tuple[float, str]] = []
    scored = spec.immediate_points(view, move)
    if scored:
        terms.append((W.score * scored, phrase("scores {points} now", points=scored)))
    laid = len(after.tiles)
    players = len(view.hand_sizes)
    next_seat = (view.seat + 1) % players
    unseen = knowledge.unseen
    if unseen:
        holds = min(1.0, knowledge.sizes[next_seat] / len(unseen))
        replies = sorted(
            (
                best_points(spec, traits, t, after)
                for t in unseen
                if t not in knowledge.lacks[next_seat]
            ),
            reverse=True,
        )
        # The expected best reply: the i-th best counts if the next seat holds it and
        # none of the better ones.
        threat, missing = 0.0, 1.0
        for value in replies:
            if value == 0:
                break
            threat += value * holds * missing
            missing *= 1 - holds
        if threat >= 0.05:
            weight = W.danger * W.score / (players - 1)
            terms.append(
                (
                    -weight * threat,
                    phrase("gives the next seat about {points} points", points=round(threat, 1)),
                )
            )
    tile = move.tile
    rest = [t for t in view.hand if t != tile]
    scrounge = [t for t in rest if t.difference % divisor == 0 and not t.is_double]
    if tile.difference % divisor == 0 and not tile.is_double and not scored:
        spent = (
            phrase("spends a holy tile without scoring")
            if tile.difference == divisor
            else phrase("spends a scrounge tile without scoring")
        )
        terms.append((-W.scrounge, spent))
    kind = _difference_class(tile, divisor)
    if (
        not tile.is_double
        and not scored
        and all(_difference_class(t, divisor) != kind for t in rest)
    ):
        terms.append(
            (
                -W.last_of_class,
                phrase("gives up the last tile moving the count by ±{kind}", kind=kind),
            )
        )
    progress = laid / max(1, laid + sum(knowledge.sizes))
    terms.append(
        (W.pips * tile.pips * (1 + 2 * progress), phrase("sheds {pips} pips", pips=tile.pips))
    )
    if tile.is_double:
        terms.append((W.double, phrase("sheds a double while there is room")))
    if move.at is At.SIDE and not scrounge:
        terms.append(
            (W.ter_heide, phrase("covers a naked side, holding no scrounge tile (ter Heide)"))
        )
    return terms


def _difference_class(tile: Tile, divisor: int) -> int:
    """Differences ``k`` and ``d - k`` move the count alike modulo ``d``."""
    k = tile.difference % divisor
    return min(k, divisor - k)


@dataclass
class LineWeights:
    """How much each line-game term weighs, in pips shed."""

    # Tuned against greedy over duplicate deals: in Doubles a double opens its suit for
    # everyone (DB-06), so it is held back unless the mover holds that suit.
    pips: float = 0.3
    double: float = 2.0
    doubles_double: float = -6.0
    suit_opened: float = 2.0
    """Doubles: per tile of the suit the mover keeps when it lays the suit's double."""
    playable: float = 1.2
    shut: float = 1.5
    opponent_end: float = 1.5
    partner_stuck: float = 1.0


L = LineWeights()


def _line_terms(
    view: View, knowledge: Knowledge, move: Play, after: Layout
) -> list[tuple[float, str]]:
    tile = move.tile
    spec = find_game(view.game)
    # DB-06: a suit takes only its double until the double is laid.
    double_opens = spec.traits(view.options).fit is Fit.DOUBLE_OPENS
    players = len(view.hand_sizes)
    me = view.seat
    next_seat = (me + 1) % players
    top = view.options.top
    terms: list[tuple[float, str]] = [
        (L.pips * tile.pips, phrase("sheds {pips} pips", pips=tile.pips))
    ]
    rest = [t for t in view.hand if t != tile]
    mine = tiles_by_number(rest, top)
    if tile.is_double:
        if double_opens:
            suit = mine[tile.high]
            terms.append(
                (
                    L.doubles_double + L.suit_opened * suit,
                    phrase("opens its suit holding {count} more of it (DB-06)", count=suit),
                )
            )
        else:
            terms.append((L.double, phrase("sheds a double while it can")))
    values = set(p.value for p in after.iter_points())
    if double_opens:
        opened = {laid.tile.high for laid in view.layout.tiles if laid.tile.is_double}
        if tile.is_double:
            opened.add(tile.high)
        playable = sum(
            1 for t in rest if any(t.contains(v) and (v in opened or t.is_double) for v in values)
        )
    else:
        playable = sum(1 for t in rest if any(t.contains(v) for v in values))
    terms.append(
        (L.playable * playable, phrase("keeps {count} tiles that fit the new ends", count=playable))
    )
    lacking = knowledge.lacks[next_seat]
    shut = [v for v in values if all(t in lacking for t in knowledge.unseen if t.contains(v))]
    if shut and knowledge.unseen:
        terms.append((L.shut * len(shut), phrase("leaves ends the next seat is known to lack")))
    if spec.pairs and move.at is not At.OPEN:
        partner = (me + 2) % 4
        point = next((p for p in view.layout.points if p.id == move.end), None)
        if point is not None and view.layout.tiles[point.node].seat == (me - 1) % 4:
            terms.append((L.opponent_end, phrase("plays on the end the opponent before left open")))
        partner_lacks = knowledge.lacks[partner]
        stuck = [
            v
            for v in values
            if any(t.contains(v) for t in knowledge.unseen)
            and all(t in partner_lacks for t in knowledge.unseen if t.contains(v))
        ]
        if stuck:
            terms.append(
                (-L.partner_stuck * len(stuck), phrase("leaves ends the partner is known to lack"))
            )
    return terms
