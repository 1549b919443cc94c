"""The bot protocol, the simple bots and the registry of bots by name.

A bot is given its seat's :class:`~pips.core.view.View`, the legal moves and a seeded
``random.Random``, and returns one of the moves. It never sees the game state, so it
cannot see another seat's tiles or the order of the stock. Two hooks are optional:
``reset(seat)`` before each hand, and ``observe(event)`` after every move of the hand,
with the event as that seat may see it (another seat's drawn tile stays hidden).

Bots are named by a word and an optional setting after a colon: ``random``, ``greedy``,
``expert``, ``search:hard``, ``external:python3 my_bot.py`` (see docs/bots.md).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from pips.core.errors import OptionError
from pips.core.moves import Move, Play
from pips.core.phrase import N_, phrase
from pips.core.view import MoveEvent, View
from pips.games.registry import find_game


@runtime_checkable
class Bot(Protocol):
    name: str

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move: ...


def reset(bot: Bot, seat: int) -> None:
    """Tell ``bot`` a new hand starts with it in ``seat``, if it listens."""
    hook = getattr(bot, "reset", None)
    if hook is not None:
        hook(seat)


def observe(bot: Bot, event: MoveEvent) -> None:
    """Show ``bot`` a move of the hand (as its seat sees it), if it listens."""
    hook = getattr(bot, "observe", None)
    if hook is not None:
        hook(event)


class RandomBot:
    """Any legal move, uniformly."""

    name = "random"

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move:
        return moves[0] if len(moves) == 1 else rng.choice(moves)


class GreedyBot:
    """The play that scores most now; among equals, the heaviest tile (C-04).

    A tile that fits several places goes to the first in the engine's documented order
    (the oldest end), or with ``newer`` to the last (the newest end, ``greedy:newer``,
    the search's playout policy), so the bot is deterministic. The kernel's playout
    policies make the same choices (``tests/test_fast_playouts.py``).
    """

    def __init__(self, newer: bool = False) -> None:
        self.newer = newer
        self.name = "greedy:newer" if newer else "greedy"

    def choose(self, view: View, moves: Sequence[Move], rng: random.Random) -> Move:
        if len(moves) == 1:
            return moves[0]
        points = find_game(view.game).immediate_points

        def value(move: Move) -> tuple[int, int, int]:
            if not isinstance(move, Play):
                return (-1, 0, 0)
            return (points(view, move), move.tile.pips, move.tile.high)

        # max() keeps the first of equal values: over the reversed list, the last.
        return max(reversed(moves) if self.newer else moves, key=value)


@dataclass(frozen=True)
class BotKind:
    """A registered bot: ``make(setting)`` builds one; ``setting`` is the text after
    the colon, or ``None``."""

    name: str
    help: str
    make: Callable[[str | None], Bot]
    setting: str = ""
    """What the setting means, or empty when the bot takes none."""
    seatable: bool = True
    """Whether a server may seat it at a table. A bot that runs a program of the
    setting's choosing (``external``) never may: a seat's bot is named by a client."""
    seat_settings: tuple[str, ...] = ()
    """The settings a server may seat it with: its levels, never a budget of the
    client's choosing (``search:600s`` or ten million playouts a move would take a core
    from every other table). The command line takes any setting."""


_BOTS: dict[str, BotKind] = {}

BOT_LEVELS: tuple[tuple[str, str], ...] = (
    (N_("beginner"), "random"),
    (N_("casual"), "greedy"),
    (N_("expert"), "expert"),
    (N_("strong"), "search:normal"),
    (N_("master"), "search:hard"),
)
"""The bots a player chooses a seat's opponent from, by level, weakest first."""


def register_bot(kind: BotKind) -> None:
    """Make a bot available by name everywhere a seat can be filled."""
    _BOTS[kind.name] = kind


def bot_names() -> list[str]:
    return list(_BOTS)


@dataclass(frozen=True)
class BotChoice:
    """A bot named by text, parsed once: its kind and its setting (``None`` for none)."""

    kind: BotKind
    setting: str | None

    @property
    def text(self) -> str:
        """The canonical name (``search:hard``): what a record and a table store."""
        return self.kind.name if self.setting is None else f"{self.kind.name}:{self.setting}"

    def make(self) -> Bot:
        return self.kind.make(self.setting)


def parse_bot(text: str, *, seatable: bool = False) -> BotChoice:
    """The bot ``text`` names (``search:hard``, ``Greedy``); :class:`OptionError` for an
    unknown bot, a bad setting, or, with ``seatable``, a bot a server may not seat
    (one that would run a program, or a setting not among its
    :attr:`~BotKind.seat_settings`: the name came from a client)."""
    name, colon, setting = text.strip().partition(":")
    kind = _BOTS.get(name.strip().lower())
    allowed = [k.name for k in _BOTS.values() if k.seatable or not seatable]
    if kind is None or kind.name not in allowed:
        raise OptionError(
            "bots",
            phrase(
                "unknown bot {name!r}; choose from {choices}",
                name=name.strip(),
                choices=", ".join(allowed),
            ),
        )
    if colon and not kind.setting:
        raise OptionError(
            "bots",
            phrase("the {name} bot takes no setting (got {text!r})", name=kind.name, text=text),
        )
    chosen = setting.strip() if colon else None
    if seatable and chosen is not None:
        chosen = chosen.lower()
        if chosen not in kind.seat_settings:
            raise OptionError(
                "bots",
                phrase(
                    "a table's {name} bot plays at a level: {levels} (not {text!r})",
                    name=kind.name,
                    levels=", ".join(kind.seat_settings) or "-",
                    text=text.strip(),
                ),
            )
    choice = BotChoice(kind, chosen)
    choice.make()  # a bad setting is refused here, before anything is kept
    return choice


def make_bot(text: str) -> Bot:
    """A bot from its name and setting (``search:hard``); :class:`OptionError` for an
    unknown bot or a bad setting. Any bot, an ``external`` program too: for the
    command line, where the person naming it runs it. A server uses
    :func:`make_seated_bot`."""
    return parse_bot(text).make()


def seated_name(text: str) -> str:
    """The canonical name of the bot a server seats for ``text``, a bot's name as a
    table stored it: itself when a server may seat it (:func:`parse_bot`), else, for a
    seatable bot stored with a setting no longer seated (a table made before settings
    were limited to levels, ``search:600s``), the bot at its default level
    (``search``). :class:`OptionError` for a bot never seated."""
    try:
        return parse_bot(text, seatable=True).text
    except OptionError:
        kind = _BOTS.get(text.partition(":")[0].strip().lower())
        if kind is None or not kind.seatable:
            raise
        return kind.name


def make_seated_bot(text: str) -> Bot:
    """A bot a server may seat, from its name as a table stored it (see
    :func:`seated_name`)."""
    return parse_bot(seated_name(text), seatable=True).make()


def _plain(factory: Callable[[], Bot]) -> Callable[[str | None], Bot]:
    return lambda _setting: factory()


def _search(setting: str | None) -> Bot:
    from pips.bots.search import SearchBot

    return SearchBot(setting or "normal")


def _expert(_setting: str | None) -> Bot:
    from pips.bots.expert import ExpertBot

    return ExpertBot()


def _external(setting: str | None) -> Bot:
    from pips.bots.external import ExternalBot

    if not setting:
        raise OptionError("bots", phrase("external needs a command: external:python3 my_bot.py"))
    seconds = os.environ.get("PIPS_EXTERNAL_SECONDS", "30")
    try:
        timeout = float(seconds)
    except ValueError:
        timeout = -1.0
    if not 0 < timeout <= 3600:
        raise OptionError(
            "bots",
            phrase(
                "PIPS_EXTERNAL_SECONDS must be 0 to 3600 seconds, not {seconds!r}", seconds=seconds
            ),
        )
    return ExternalBot(setting, timeout=timeout)


register_bot(BotKind("random", "any legal move, uniformly", _plain(RandomBot)))


def _greedy(setting: str | None) -> Bot:
    if setting not in (None, "", "newer"):
        raise OptionError(
            "bots", phrase("greedy takes no setting or 'newer', not {setting!r}", setting=setting)
        )
    return GreedyBot(newer=setting == "newer")


register_bot(
    BotKind(
        "greedy",
        "most points now, else the heaviest tile",
        _greedy,
        setting="newer: a tile that fits two ends goes to the newer (the search's playouts)",
        seat_settings=("newer",),
    )
)
register_bot(BotKind("expert", "hand-written strategy from the FIDO tips and common play", _expert))
register_bot(
    BotKind(
        "search",
        "determinized search: sampled deals weighed by inference, playouts, exact endgames",
        _search,
        setting="easy, normal (default), hard, a playout count, or seconds like 0.5s",
        seat_settings=("easy", "normal", "hard"),
    )
)
register_bot(
    BotKind(
        "external",
        "a program in any language, over JSON lines (docs/bots.md)",
        _external,
        setting="the command to run",
        seatable=False,
    )
)


def _ismcts(setting: str | None) -> Bot:
    from pips.bots.ismcts import IsmctsBot

    return IsmctsBot(setting or "normal")


register_bot(
    BotKind(
        "ismcts",
        "information-set tree search: one tree over sampled deals, exact endgames",
        _ismcts,
        setting="normal (default), hard, or a number of iterations",
        seat_settings=("normal", "hard"),
    )
)
