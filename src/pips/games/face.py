"""What a game is, declared once: the face every edge of pips asks.

A rule system is a module of :mod:`pips.games` that builds one :class:`GameSpec`. The
spec names the game's state class (the rules engine), its options, and the traits and
pure functions that the edges read instead of asking the game's name:

- :class:`HandTraits`: the layout kind, draw rule, opening rule, what fits, how a hand
  scores and when a deal is thrown in, for given options. The playout kernel's rule
  vector, the bots' knowledge and the layouts a client draws are built from it.
- The words: passing or knocking, what a side of the layout is called, how the scoring
  of a finished hand reads (:attr:`GameSpec.explain_hand`).
- The score sheet and results entry: which columns a result has (:class:`EntryColumns`),
  how a typed result is totalled and ranked (:attr:`GameSpec.entry_result`), the kind of
  printed sheet (:class:`SheetKind`) and its rule text.

Nothing here performs I/O; this module depends only on :mod:`pips.core` and the shared
hand of :mod:`pips.games.common`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Generic, TypeVar

from pips.core.deal import Deal
from pips.core.layout import Layout
from pips.core.lots import LotRule
from pips.core.moves import At, Move, Play
from pips.core.outcome import HandResult, competition_ranks
from pips.core.phrase import Phrase, joined, phrase
from pips.core.tiles import Tile, set_size
from pips.core.view import Options, View
from pips.games.common import HandContext, HandState
from pips.games.options import GameOptions
from pips.games.traits import EntryColumns, HandTraits, SheetKind, new_layout


def no_points(view: View, move: Move) -> int:
    """Games that score only at the end of a hand score nothing by a play."""
    return 0


def no_count(count: int, move: Move) -> int | None:
    """Games without a layout count (only FIDO keeps ``S``)."""
    return None


@dataclass(frozen=True, slots=True)
class PointsBound:
    """The most points one seat (or pair) can score in one hand, and why, in words a
    player follows: results entry refuses more (docs/results.md, plausibility)."""

    most: int
    why: str


def set_pips(top: int) -> int:
    """Every pip of double-``top``: no count, no hand, no stock can hold more."""
    return top * set_size(top)


Opts = TypeVar("Opts", bound=GameOptions)
"""A game's own options type: every function of its declaration takes that type."""


def no_points_bound(options: GameOptions) -> PointsBound:
    return PointsBound(0, "the game scores no points")


def single_hand(options: GameOptions) -> int | None:
    return None


def no_lots(options: GameOptions) -> LotRule | None:
    return None


def totals_ranked(
    points: Sequence[int], pips: Sequence[int], out: int | None
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Final scores and places from a sheet: the points as totalled (a match's scores),
    highest first, equal totals sharing a place."""
    final = tuple(points)
    return final, competition_ranks(final)


def by_number(view: View) -> list[list[Tile]]:
    """A hand by number, heaviest first, in one row (the line games' default)."""
    ordered = sorted(view.hand, key=lambda t: (t.high, t.low), reverse=True)
    return [ordered] if ordered else []


@dataclass(frozen=True)
class FormField:
    """One option as a form offers it (:meth:`GameSpec.form`)."""

    name: str
    label: str
    control: str
    """``checkbox``, ``choice`` or ``number``."""
    choices: tuple[Any, ...]
    minimum: int | None
    maximum: int | None
    default: Any
    fixed: bool
    """Only one value is possible (shown, not asked)."""
    help: str
    values: str
    rule: str


@dataclass(frozen=True)
class GameSpec(Generic[Opts]):
    """How to build, read, score and show one rule system."""

    name: str
    title: str
    rules: str
    """Where its rules are in SPEC, e.g. ``SPEC section 1 (F-01 to F-24)``."""
    aliases: tuple[str, ...]
    options: type[Opts]
    state: type[HandState]
    """The rules engine: a hand of this game in progress."""
    deal: Callable[[Opts, random.Random], Deal]
    """Shuffle and deal one hand, with the game's redeals."""
    explain_hand: Callable[[Opts, HandResult, Sequence[str]], str]
    """``(options, result, names)``: how a finished hand's points came about, in words
    with the arithmetic of the game's rule."""
    entry: EntryColumns
    """What a result of this game gives per player, typed or from a record."""
    sheet: SheetKind
    """The kind of printed score sheet."""
    sheet_rule: Callable[[Opts], Phrase]
    """``(options)``: the scoring rule as the printed sheet states it."""
    player_counts: tuple[int, ...]
    """Player counts offered by forms (the options decide what is legal)."""
    summary: str = ""
    """The rules in brief, in the project's words, with their SPEC ids (help screens)."""
    immediate_points: Callable[[View, Move], int] = no_points
    """What a move would score at once, from what a seat can see (bots, hints)."""
    count_after: Callable[[int, Move], int | None] = no_count
    """``(count, move)``: the layout count ``S`` a move would make on a layout whose
    count is ``count``, in a game that keeps one."""
    target: Callable[[Opts], int | None] = single_hand
    """The match target, or ``None`` when a game is one hand."""
    most_points_in_hand: Callable[[Opts], PointsBound] = no_points_bound
    """``(options)``: the most points one seat (or pair) can score in one hand."""
    lots: Callable[[Opts], LotRule | None] = no_lots
    """How the seats are drawn before a match, if they are."""
    hand_rows: Callable[[View], list[list[Tile]]] = by_number
    """A seat's hand in the order players of the game hold it, row by row."""
    pass_word: str = "pass"
    """What a player who can do nothing does: ``pass``, or ``knock`` (PT-07)."""
    false_knocks: Callable[[Opts], bool] = lambda options: False
    """Whether these options accept a knock from a player who could lay a tile (PT-08
    ``penalize``): a client then offers the knock at every turn, beside the plays."""
    side_word: str = "side"
    """What the layout's sides are called: FIDO's naked sides, the spinner's sides."""
    mistake_points: tuple[float, float, float] = (1.0, 3.0, 8.0)
    """Expected points lost at which an analysed decision is an inaccuracy, a mistake,
    a blunder (in the game's own points: pips in most games, steps of 10 in PT-10)."""
    manual_deal: bool = False
    """Games at a real table can be entered tile by tile (F-24)."""
    dealt_by_hand: Callable[[Opts], bool] = lambda options: False
    """Whether these options have the tiles dealt at a real table, tile by tile, and
    entered (F-24): such a game cannot be dealt by a program."""
    sets: tuple[int, ...] = (6,)
    """The sets the game is played with (forms, the sheet's hand-size table)."""
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """Options a form fills in before the player chooses (e.g. FIDO's players)."""
    entry_result: Callable[
        [Sequence[int], Sequence[int], int | None], tuple[tuple[int, ...], tuple[int, ...]]
    ] = totals_ranked
    """``(points, pips, out)``: the final scores and places of a finished game from what
    is written on its sheet (points, pips left, who went out), by the game's own rule."""

    # -- building ---------------------------------------------------------------------

    def options_from_json(self, data: Mapping[str, Any]) -> Opts:
        """The game's typed options from a record, a form or the command line (the one
        parse, where options enter)."""
        return self.options.from_json(data)

    def from_deal(
        self,
        options: Opts,
        hands: Sequence[Sequence[Tile]],
        stock: Sequence[Tile] | None = None,
        voided: Sequence[tuple[Sequence[Sequence[Tile]], Sequence[Tile]]] = (),
        context: HandContext = HandContext(),
    ) -> HandState:
        """A hand from a given deal (``stock`` next to draw first)."""
        return self.state(options, hands, stock, voided, context)

    def new_hand(
        self, options: Opts, rng: random.Random, context: HandContext = HandContext()
    ) -> HandState:
        dealt = self.deal(options, rng)
        return self.from_deal(options, dealt.hands, dealt.stock, dealt.voided, context)

    # -- the traits ---------------------------------------------------------------------

    def traits(self, options: Options, first_hand: bool = True) -> HandTraits:
        """The rules of a hand with ``options`` (the game's typed options, as a state
        and every view carry them); ``first_hand`` matters only to who opens (PT-05)."""
        assert isinstance(options, self.options), options
        return options.traits(first_hand)

    @cached_property
    def example(self) -> Opts:
        """The options a form starts from: what the game is whatever is chosen."""
        return self.options_from_json(dict(self.defaults) or {"players": self.player_counts[0]})

    @cached_property
    def pairs(self) -> bool:
        """Seats play in two pairs, partners opposite (0 and 2 against 1 and 3): the
        game's nature, which no option changes (``tests/test_face.py``)."""
        return self.traits(self.example).pairs

    @cached_property
    def scores_during_hand(self) -> bool:
        """Plays score as they are made (FIDO, F-15), not only at the end of a hand:
        the game's nature, which no option changes (``tests/test_face.py``)."""
        return self.traits(self.example).scores_during_hand

    def new_layout(self, options: Options) -> Layout:
        """An empty layout of the kind this game plays on."""
        return new_layout(self.traits(options))

    def layout_of(self, view: View) -> Layout:
        """The layout ``view`` shows, rebuilt on a layout of this game's kind."""
        return self.new_layout(view.options).replay(view.layout.tiles)

    def layout_after(self, view: View, move: Play, layout: Layout | None = None) -> Layout:
        """The position after ``move``: the layout once it is laid by this game's
        layout rules (F-05 to F-10, FA-04, DB-05), on a copy of ``layout`` (the view's,
        rebuilt with :meth:`layout_of`, when not given)."""
        after = (self.layout_of(view) if layout is None else layout).copy()
        if move.at is At.OPEN:
            after.open_with(move.tile, view.seat)
        else:
            after.attach(move.tile, move.touching, move.end, view.seat, move.inline)
        return after

    def form(self) -> list[FormField]:
        """The game's options as a form offers them: per option the control its kind
        calls for (a checkbox, a choice, a number with its range), from the option
        declarations and the player counts and sets the game is played with."""
        fields: list[FormField] = []
        for info in self.options.describe():
            choices: tuple[Any, ...] = info.choices
            if info.name == "players":
                choices = self.player_counts
            elif info.name == "set":
                choices = self.sets
            if info.kind is bool:
                control = "checkbox"
            elif choices:
                control = "choice"
            else:
                control = "number"
            default = self.defaults.get(info.name, info.default)
            fields.append(
                FormField(
                    name=info.name,
                    label=info.name.replace("_", " "),
                    control=control,
                    choices=tuple(choices),
                    minimum=info.minimum,
                    maximum=info.maximum,
                    default=default,
                    fixed=len(choices) == 1,
                    help=info.help,
                    values=info.values,
                    rule=info.rule,
                )
            )
        return fields

    def in_brief(self, options: Opts) -> str:
        """The chosen options in one line: players, set, tiles, what is played to and,
        in FIDO, what scores (F-01)."""
        parts = [part for _, part in self.brief_parts(options)]
        return phrase("{game}: {options}", game=phrase(self.title), options=joined(parts))

    def brief_parts(self, options: Opts) -> list[tuple[int, str]]:
        """The parts of :meth:`in_brief` in reading order, each with its weight (1 the
        most needed): a narrow screen leaves out the lightest first."""
        data = options.to_json()
        parts: list[tuple[int, str]] = [(1, phrase("{count} players", count=data["players"]))]
        if "set" in data:
            parts.append((2, phrase("double-{top}", top=data["set"])))
        if "hand_size" in data:
            parts.append((5, phrase("{count} tiles each", count=data["hand_size"])))
        if "divisor" in data:
            parts.append(
                (
                    4,
                    phrase(
                        "points when the open ends add up to a multiple of {divisor}",
                        divisor=data["divisor"],
                    ),
                )
            )
        target = self.target(options)
        parts.append(
            (
                3,
                phrase("one hand")
                if target is None
                else phrase("first to {target}", target=target),
            )
        )
        return parts

    def teams(self, players: int) -> tuple[tuple[int, ...], ...]:
        """Seats that score and are rated together: pairs, or every seat alone."""
        if self.pairs:
            return tuple((s, s + 2) for s in range(players // 2))
        return tuple((seat,) for seat in range(players))
