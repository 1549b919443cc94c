"""A game played at a real table, as it is entered: checked, totalled and ranked.

An :class:`Entry` is what a player writes down at the end of a game (the sheet's last
lines); :func:`check` refuses what no game could have produced and computes the final
scores and places the way the rules do, so a typed result and a result played on the
server are ranked by the same code:

- FIDO (F-21): running points minus the pips left in hand; highest final score first,
  equal scores share a place.
- The draw game (DR-07, DR-08): whoever went out, then the fewest pips left.
- The family game, Doubles (FA-11, DB-13): the match totals, highest first.
- The partnership game (PT-13): the pairs' match points; seats 0 and 2 play 1 and 3.

What a game's result gives and how it is totalled is the game's to say
(:attr:`~pips.games.face.GameSpec.entry`, :attr:`~pips.games.face.GameSpec.entry_result`);
this module only reads what was written and holds it to that.

Nothing here touches a database: :mod:`pips.results.entries` keeps checked entries.

    >>> from datetime import date
    >>> entry = Entry("fido", date(2026, 10, 3), 12, (
    ...     Line("Anna", points=31, pips=0), Line("Ben", points=40, pips=12),
    ...     Line("Cleo", points=22, pips=4)))
    >>> checked = check(entry, today=date(2026, 11, 1))
    >>> checked.final, checked.ranks, checked.divisor
    ((31, 28, 18), (1, 2, 3), 7)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from pips.core.errors import RuleError
from pips.core.names import PERSON_LENGTH, name_key
from pips.core.outcome import competition_ranks
from pips.core.phrase import Phrase, phrase
from pips.core.tiles import double_set
from pips.games.registry import find_game, game_names
from pips.i18n import reason

GAMES = tuple(game_names())
"""The game families results are kept and rated for: every game pips knows."""

NAME_LENGTH = PERSON_LENGTH

EARLIEST = date(2000, 1, 1)
"""The earliest date a result may carry (docs/results.md), as for an event. An older
date is almost always an empty cell of a spreadsheet (1899-12-30, 1899-12-31,
1900-01-00) or of a clock (1970-01-01); and a game older than that would weigh nothing
on a world list halving a game's weight every year."""

FORMULA = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a cell as a formula: a name may not start with it, and
a place that does is exported with a leading apostrophe
(:func:`~pips.results.entry_formats.safe_cell`)."""


class EntryError(ValueError):
    """A result that cannot be right, in words for the person who entered it."""


@dataclass(frozen=True, slots=True)
class Line:
    """One player's line at the end of the game.

    ``points``: FIDO running points; the match total in the family game and Doubles;
    the pair's match points in the partnership game (both partners carry them); 0 in
    the draw game. ``pips``: pips left in hand (FIDO, the draw game; 0 elsewhere).
    ``out``: this player went out (the draw game's winner, DR-07).
    """

    name: str
    points: int = 0
    pips: int = 0
    out: bool = False


@dataclass(frozen=True, slots=True)
class Entry:
    """A finished game as entered: the game, when and where, the set, every line in
    seat order."""

    game: str
    played_on: date
    top: int
    """The set played: double-``top`` (``set`` in JSON, CSV and the database)."""
    lines: tuple[Line, ...]
    place: str = ""
    target: int | None = None
    """The match target played to; ``None``: the game's own (FA-11, DB-13, PT-13)."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(line.name for line in self.lines)


@dataclass(frozen=True, slots=True)
class Checked:
    """An entry that could have happened, with what the rules make of it."""

    entry: Entry
    divisor: int | None
    final: tuple[int, ...]
    ranks: tuple[int, ...]
    teams: tuple[tuple[int, ...], ...] = field(default=())
    """Seats rated together: each seat alone, or the partnership game's pairs."""
    target: int | None = None
    """The match target the result was checked against (``None``: one hand)."""
    label: str = field(default="", compare=False)
    """How the person who entered it names this game (a CSV's "game 7 (line 12)"), for
    messages about it; empty: by its place in the batch."""

    def called(self, number: int) -> str:
        """This game in a message: its own label, else its number in the batch."""
        return self.label or phrase("game {number}", number=number)

    @property
    def team_ranks(self) -> tuple[int, ...]:
        """The teams' places among the teams (the partnership game's pairs: 1 and 2)."""
        if len(self.teams) == len(self.final):
            return self.ranks
        return competition_ranks([self.final[team[0]] for team in self.teams])

    def fingerprint(self, source: str = "") -> str:
        """The same game entered twice has the same fingerprint (a duplicate upload),
        whatever order its seats were written in and however its names are capitalised;
        ``source`` tells apart games that only look alike (a server table's id)."""
        e = self.entry
        players = sorted([name_key(ln.name), ln.points, ln.pips, ln.out] for ln in e.lines)
        key = [e.game, e.played_on.isoformat(), e.top, players, source]
        return hashlib.sha256(json.dumps(key).encode()).hexdigest()


def clean_name(name: str) -> str:
    """A player's name with its spaces tidied; names are compared as written."""
    return " ".join(str(name).split())


def check(entry: Entry, today: date, options: Mapping[str, Any] | None = None) -> Checked:
    """The entry checked against the rules, with final scores and places; raises
    :class:`EntryError` saying what is wrong. ``options`` are the game's other options
    when known (a server game's record: a Doubles hand size, say)."""
    if entry.game not in GAMES:
        try:
            # A game named as its players call it ("Familie", "divisor", "FIDO").
            entry = replace(entry, game=find_game(entry.game).name)
        except RuleError:
            raise EntryError(
                phrase(
                    "unknown game {game!r}: one of {choices}",
                    game=entry.game,
                    choices=", ".join(GAMES),
                )
            ) from None
    if entry.played_on > today:
        raise EntryError(
            phrase("the date {value} is in the future", value=entry.played_on.isoformat())
        )
    if entry.played_on < EARLIEST:
        raise EntryError(
            phrase(
                "the date {value} is before {earliest}, the earliest a result may carry",
                value=entry.played_on.isoformat(),
                earliest=EARLIEST.isoformat(),
            )
        )
    if len(entry.place) > 80:
        raise EntryError(phrase("a place is at most 80 characters"))
    lines = entry.lines
    others = dict(options or {})
    if entry.target is not None:
        others["target"] = entry.target
    chosen = _options(entry.game, len(lines), entry.top, others)
    if entry.target is not None and find_game(entry.game).target(chosen) is None:
        raise EntryError(
            phrase(
                "a game of the {value} is one hand, with no target",
                value=find_game(entry.game).title.lower(),
            )
        )
    names = [clean_name(line.name) for line in lines]
    for seat, name in enumerate(names):
        if not name:
            raise EntryError(phrase("seat {value} has no player's name", value=seat + 1))
        if len(name) > NAME_LENGTH:
            raise EntryError(
                phrase(
                    "the name in seat {value} is longer than {NAME_LENGTH}",
                    value=seat + 1,
                    NAME_LENGTH=NAME_LENGTH,
                )
            )
        if name.startswith(FORMULA):
            # Exports are opened in spreadsheets, which run a cell starting so as a formula.
            raise EntryError(
                phrase(
                    "a name may not start with {value!r} (seat {value2})",
                    value=name[0],
                    value2=seat + 1,
                )
            )
    folded = [name_key(n) for n in names]
    for seat, name in enumerate(folded):
        if folded.index(name) != seat:
            raise EntryError(phrase("{value} sits at two seats", value=names[seat]))
    for seat, line in enumerate(lines):
        for what, value in (("points", line.points), ("pips", line.pips)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise EntryError(
                    phrase("seat {value}: {what} must be a whole number", value=seat + 1, what=what)
                )
            if value < 0:
                raise EntryError(
                    phrase(
                        "seat {value}: {what} cannot be negative ({value2})",
                        value=seat + 1,
                        what=what,
                        value2=value,
                    )
                )
    if names != [line.name for line in lines]:
        entry = Entry(
            entry.game,
            entry.played_on,
            entry.top,
            tuple(Line(n, ln.points, ln.pips, ln.out) for n, ln in zip(names, lines, strict=True)),
            entry.place,
            entry.target,
        )
        lines = entry.lines
    _check_pips(entry, chosen)
    _check_points(entry, chosen)
    return _ranked(entry, chosen)


def default_set(game: str, players: int) -> int:
    """The set a result of ``game`` is played with when none is written."""
    spec = find_game(game)
    try:
        return int(spec.example.changed(players=players).top)
    except (RuleError, TypeError, ValueError):
        return spec.sets[0]


def _options(game: str, players: int, top: int, others: Mapping[str, Any]) -> Any:
    spec = find_game(game)
    try:
        plain = {k: v for k, v in others.items() if k != "target"}
        chosen = spec.options_from_json({**plain, "players": players, "set": top})
        target = others.get("target")
        if target is not None and spec.target(chosen) is not None:
            chosen = chosen.changed(target=int(target))
        return chosen
    except RuleError as exc:
        raise EntryError(
            phrase("{title}: {exc}", title=Phrase(spec.title), exc=reason(exc))
        ) from None
    except (TypeError, ValueError):
        raise EntryError(
            phrase(
                "{title} is not played by {players} with double-{top}",
                title=Phrase(spec.title),
                players=players,
                top=top,
            )
        ) from None


def holdable_pips(top: int, players: int, hand_size: int) -> tuple[int, int]:
    """The most pips one player, and all players together, could have left in hand:
    a player holds at most their hand plus every tile of the stock, and at least one
    tile always lies in the layout."""
    weights = sorted((t.pips for t in double_set(top)), reverse=True)
    stock = len(weights) - players * hand_size
    return sum(weights[: hand_size + stock]), sum(weights[: len(weights) - 1])


def _check_pips(entry: Entry, options: Any) -> None:
    lines = entry.lines
    spec = find_game(entry.game)
    columns = spec.entry
    if columns.pips:
        most, together = holdable_pips(entry.top, len(lines), options.hand_size)
        for line in lines:
            if line.pips > most:
                raise EntryError(
                    phrase(
                        "{name}: {pips} pips, but no hand of double-{set} with "
                        "{count} players can hold more than {most}",
                        name=line.name,
                        pips=line.pips,
                        set=entry.top,
                        count=len(lines),
                        most=most,
                    )
                )
        total = sum(line.pips for line in lines)
        if total > together:
            raise EntryError(
                phrase(
                    "{total} pips left in all hands, but double-{set} has only "
                    "{together} outside the first tile laid",
                    total=total,
                    set=entry.top,
                    together=together,
                )
            )
    elif any(line.pips for line in lines):
        raise EntryError(
            phrase("{title} results give points, not pips left", title=Phrase(spec.title))
        )
    if columns.points is None and any(line.points for line in lines):
        raise EntryError(
            phrase(
                "the {value} has no points: give the pips left and who went out",
                value=spec.title.lower(),
            )
        )
    outs = [seat for seat, line in enumerate(lines) if line.out]
    if outs and not columns.out:
        raise EntryError(
            phrase("'went out' is not entered for the {value}", value=spec.title.lower())
        )
    if len(outs) > 1:
        raise EntryError(phrase("only one player goes out ({out_rule})", out_rule=columns.out_rule))
    if outs and lines[outs[0]].pips:
        raise EntryError(
            phrase(
                "{name} went out, so holds no pips ({out_rule})",
                name=lines[outs[0]].name,
                out_rule=columns.out_rule,
            )
        )
    for team in spec.teams(len(lines)):
        if len({lines[seat].points for seat in team}) > 1:
            names = " and ".join(lines[seat].name for seat in team)
            raise EntryError(phrase("partners {names} share their pair's points", names=names))


def _check_points(entry: Entry, options: Any) -> None:
    """Points no game could give (the bound named, from the rules) and matches nobody
    won are refused."""
    spec = find_game(entry.game)
    if spec.entry.points is None:
        return
    lines = entry.lines
    bound = spec.most_points_in_hand(options)
    target = spec.target(options)
    teams = spec.teams(len(lines))
    who = phrase("pair") if spec.pairs else phrase("player")
    totals = [(lines[team[0]].points, " and ".join(lines[s].name for s in team)) for team in teams]
    if target is None:
        for points, name in totals:
            if points > bound.most:
                raise EntryError(
                    phrase(
                        "{name}: {points} {points2}, but no {who} can score more than"
                        " {most} in a game of double-{set} with {count} players: "
                        "{why}",
                        name=name,
                        points=points,
                        points2=spec.entry.points,
                        who=who,
                        most=bound.most,
                        set=entry.top,
                        count=len(lines),
                        why=bound.why,
                    )
                )
        return
    reached = [(points, name) for points, name in totals if points >= target]
    if not reached:
        raise EntryError(
            phrase(
                "the match is not finished: nobody reached {target} ({choices})",
                target=target,
                choices=", ".join((str(p) for p, _ in totals)),
            )
        )
    if len(reached) > 1:
        raise EntryError(
            phrase(
                "{choices} both reached {target}, but only one {who} scores "
                "in a hand and the match ends when one reaches the target",
                choices=" and ".join((n for _, n in reached)),
                target=target,
                who=who,
            )
        )
    points, name = reached[0]
    if points > target - 1 + bound.most:
        raise EntryError(
            phrase(
                "{name}: {points} points, but a match to {target} ends with "
                "the hand that reaches it, so at most {value} + {most} = "
                "{value2}: {why}",
                name=name,
                points=points,
                target=target,
                value=target - 1,
                most=bound.most,
                value2=target - 1 + bound.most,
                why=bound.why,
            )
        )


def _ranked(entry: Entry, options: Any) -> Checked:
    lines = entry.lines
    spec = find_game(entry.game)
    out = next((seat for seat, line in enumerate(lines) if line.out), None)
    final, ranks = spec.entry_result(
        [line.points for line in lines], [line.pips for line in lines], out
    )
    divisor = spec.traits(options).divisor or None
    target = spec.target(options)
    return Checked(entry, divisor, final, ranks, spec.teams(len(lines)), target)


# -- reading entries ------------------------------------------------------------------
