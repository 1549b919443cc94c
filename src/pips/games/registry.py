"""The rule systems pips knows, looked up by name or alias (like python-chess variants)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pips.core.deal import Deal
from pips.core.errors import OptionError
from pips.core.layout import Layout
from pips.core.lots import LotRule
from pips.core.moves import Move
from pips.core.outcome import HandResult
from pips.core.view import Event, View
from pips.games.common import HandContext
from pips.games.options import GameOptions


class GameState(Protocol):
    """What every hand in progress offers; see :class:`pips.games.fido.FidoState` and
    :class:`pips.games.common.LineGameState`."""

    scores: list[int]
    history: list[Event]
    result: HandResult | None

    @property
    def game(self) -> str: ...
    @property
    def options(self) -> Any: ...
    @property
    def dealt(self) -> Deal: ...
    @property
    def context(self) -> HandContext: ...
    @property
    def layout(self) -> Layout: ...

    @property
    def current_seat(self) -> int | None: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def players(self) -> int: ...
    @property
    def stock_size(self) -> int: ...
    def legal_moves(self) -> Sequence[Move]: ...
    def representative_moves(self) -> list[Move]: ...
    def play(self, move: Move) -> Event: ...
    def view(self, seat: int) -> View: ...


def no_points(view: View, move: Move) -> int:
    """Games that score only at the end of a hand score nothing by a play."""
    return 0


def single_hand(options: Any) -> int | None:
    return None


def no_lots(options: Any) -> LotRule | None:
    return None


@dataclass(frozen=True)
class GameSpec:
    """How to build, read and score one rule system."""

    name: str
    title: str
    rules: str
    aliases: tuple[str, ...]
    options: type[GameOptions]
    deal: Callable[[Any, random.Random], Deal]
    """Shuffle and deal one hand, with the game's redeals."""
    from_deal: Callable[..., GameState]
    """``(options, hands, stock, voided=(), context=HandContext())``: a hand from a deal."""
    immediate_points: Callable[[View, Move], int] = no_points
    target: Callable[[Any], int | None] = single_hand
    """The match target, or ``None`` when a game is one hand."""
    lots: Callable[[Any], LotRule | None] = no_lots
    """How the seats are drawn before a match, if they are."""
    summary: str = ""
    """The rules in brief, in the project's words, with their SPEC ids (help screens)."""

    def options_from_json(self, data: Mapping[str, Any]) -> Any:
        return self.options.from_json(data)

    def new_hand(
        self, options: Any, rng: random.Random, context: HandContext = HandContext()
    ) -> GameState:
        dealt = self.deal(options, rng)
        return self.from_deal(options, dealt.hands, dealt.stock, dealt.voided, context)


def _fido() -> GameSpec:
    from pips.games import fido

    return GameSpec(
        name=fido.NAME,
        title="FIDO divisor game",
        rules="SPEC section 1 (F-01 to F-24)",
        aliases=("divisor", "fido-divisor"),
        options=fido.FidoOptions,
        summary=fido.SUMMARY,
        deal=fido.deal,
        from_deal=fido.FidoState,
        immediate_points=fido.immediate_points,
    )


def _family() -> GameSpec:
    from pips.games import family

    return GameSpec(
        name=family.NAME,
        title="Family game (5 tiles, first to 100)",
        rules="SPEC section 2 (FA-01 to FA-11)",
        aliases=("familie", "five-tiles"),
        options=family.FamilyOptions,
        summary=family.SUMMARY,
        deal=family.deal,
        from_deal=family.FamilyState,
        target=lambda options: options.target,
    )


def _draw() -> GameSpec:
    from pips.games import draw

    return GameSpec(
        name=draw.NAME,
        title="Draw game",
        rules="SPEC section 3 (DR-01 to DR-10)",
        aliases=("draw-game", "anleitung"),
        options=draw.DrawOptions,
        summary=draw.SUMMARY,
        deal=draw.deal,
        from_deal=draw.DrawState,
        target=draw.target,
    )


def _doubles() -> GameSpec:
    from pips.games import doubles

    return GameSpec(
        name=doubles.NAME,
        title="Doubles",
        rules="SPEC section 4 (DB-01 to DB-14)",
        aliases=("double",),
        options=doubles.DoublesOptions,
        summary=doubles.SUMMARY,
        deal=doubles.deal,
        from_deal=doubles.DoublesState,
        target=lambda options: options.target,
        lots=lambda options: LotRule.FIRST_PLAYER,
    )


def _partnership() -> GameSpec:
    from pips.games import partnership

    return GameSpec(
        name=partnership.NAME,
        title="Partnership game (Doppel Sechs)",
        rules="SPEC section 5 (PT-01 to PT-13)",
        aliases=("doppel-sechs", "partners", "pairs"),
        options=partnership.PartnershipOptions,
        summary=partnership.SUMMARY,
        deal=partnership.deal,
        from_deal=partnership.PartnershipState,
        target=lambda options: options.target,
        lots=lambda options: LotRule.PAIRS if options.teams is partnership.Teams.LOT else None,
    )


_GAMES: dict[str, GameSpec] = {
    spec.name: spec for spec in (_fido(), _family(), _draw(), _doubles(), _partnership())
}


def game_names() -> list[str]:
    return list(_GAMES)


def all_games() -> list[GameSpec]:
    return list(_GAMES.values())


def find_game(name: str) -> GameSpec:
    """The game called ``name`` (or one of its aliases); :class:`OptionError` if none."""
    key = name.strip().lower()
    for spec in _GAMES.values():
        if key == spec.name or key in spec.aliases:
            return spec
    raise OptionError("game", f"unknown game {name!r}; pips knows {', '.join(_GAMES)}")
