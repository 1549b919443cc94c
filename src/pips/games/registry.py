"""The rule systems pips knows, looked up by name or alias (like python-chess variants).

Each game module declares its whole face in one :class:`~pips.games.face.GameSpec`
(``GAME``); this registry lists them. Adding a game is its module plus one line here.
"""

from __future__ import annotations

from typing import Any

from pips.core.errors import OptionError
from pips.core.phrase import phrase
from pips.games import doubles, draw, family, fido, partnership
from pips.games.common import HandState
from pips.games.face import GameSpec

__all__ = ["Game", "GameSpec", "GameState", "all_games", "find_game", "game_names"]

GameState = HandState
"""A hand in progress, of any game."""

Game = GameSpec[Any]
"""Any game pips knows, as the edges hold it: each game's own declaration is typed by
its own options (``GameSpec[FidoOptions]``)."""

_GAMES: dict[str, Game] = {
    module.GAME.name: module.GAME for module in (fido, family, draw, doubles, partnership)
}


def game_names() -> list[str]:
    return list(_GAMES)


def all_games() -> list[Game]:
    return list(_GAMES.values())


def find_game(name: str) -> Game:
    """The game called ``name`` (or one of its aliases); :class:`OptionError` if none."""
    key = name.strip().lower()
    for spec in _GAMES.values():
        if key == spec.name or key in spec.aliases:
            return spec
    raise OptionError(
        "game",
        phrase("unknown game {name!r}; pips knows {choices}", name=name, choices=", ".join(_GAMES)),
    )
