"""The rule systems pips knows, looked up by name or alias (like python-chess variants)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pips.core.errors import OptionError
from pips.core.moves import Move
from pips.core.outcome import HandResult
from pips.core.view import Event, View


class GameState(Protocol):
    """What every game state offers; see :class:`pips.games.fido.FidoState`."""

    game: str
    scores: list[int]
    history: list[Event]
    result: HandResult | None

    @property
    def current_seat(self) -> int | None: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def players(self) -> int: ...
    def legal_moves(self) -> Sequence[Move]: ...
    def representative_moves(self) -> list[Move]: ...
    def play(self, move: Move) -> Event: ...
    def view(self, seat: int) -> View: ...


@dataclass(frozen=True)
class GameSpec:
    """How to build, read and score one rule system."""

    name: str
    title: str
    rules: str
    aliases: tuple[str, ...]
    options_from_json: Callable[[Mapping[str, Any]], Any]
    new_hand: Callable[[Any, random.Random], Any]
    from_deal: Callable[..., Any]
    """``(options, hands, stock, voided=())``: a state from a given deal."""
    immediate_points: Callable[[View, Move], int]


def _fido() -> GameSpec:
    from pips.games import fido

    return GameSpec(
        name=fido.NAME,
        title="FIDO divisor game",
        rules="SPEC section 1 (F-01 to F-24)",
        aliases=("divisor", "fido-divisor"),
        options_from_json=fido.FidoOptions.from_json,
        new_hand=fido.new_hand,
        from_deal=fido.FidoState,
        immediate_points=fido.immediate_points,
    )


_GAMES: dict[str, GameSpec] = {spec.name: spec for spec in (_fido(),)}


def game_names() -> list[str]:
    return list(_GAMES)


def find_game(name: str) -> GameSpec:
    """The game called ``name`` (or one of its aliases); :class:`OptionError` if none."""
    key = name.strip().lower()
    for spec in _GAMES.values():
        if key == spec.name or key in spec.aliases:
            return spec
    raise OptionError("game", f"unknown game {name!r}; pips knows {', '.join(_GAMES)}")
