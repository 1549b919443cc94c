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
(:attr:`~pips.games.face.GameSpec.entry`, :meth:`~pips.games.face.GameSpec.entry_result`);
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

import csv
import hashlib
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from pips.core.errors import RuleError
from pips.core.names import PERSON_LENGTH, name_key
from pips.core.outcome import competition_ranks
from pips.core.phrase import Phrase, joined, phrase
from pips.core.tiles import double_set
from pips.games.registry import find_game, game_names
from pips.i18n import reason

GAMES = tuple(game_names())
"""The game families results are kept and rated for: every game pips knows."""

NAME_LENGTH = PERSON_LENGTH
FORMULA = ("=", "+", "-", "@", "\t", "\r")
"""What makes a spreadsheet read a cell as a formula: a name may not start with it, and
a place that does is exported with a leading apostrophe (:func:`safe_cell`)."""

CSV_FIELDS = (
    "game_no",
    "date",
    "place",
    "game",
    "set",
    "divisor",
    "seat",
    "player",
    "running",
    "pips",
    "out",
    "final",
    "rank",
    "target",
)
"""The columns of a results CSV, one row per player per game, in seat order. These are
the fields a group sends to its federation (F-25: date, set, divisor, players in seat
order, each player's running score, pips deducted, final score and rank); ``game_no``
ties the rows of one game together, ``out`` marks who went out in the draw game,
``target`` is the match target when it is not the game's own. An upload may leave
``divisor``, ``final``, ``rank`` and ``target`` empty; given, they must agree."""

REQUIRED_CSV_FIELDS = ("game_no", "date", "game", "set", "seat", "player", "running", "pips")

COLUMN_NAMES: dict[str, tuple[str, ...]] = {
    "game_no": ("spiel", "spielnr", "spielnummer", "nr", "gameno"),
    "date": ("datum", "spieldatum"),
    "place": ("ort", "spielort"),
    "game": ("spielart", "variante"),
    "set": ("satz", "spielsatz", "doppel"),
    "divisor": ("teiler",),
    "seat": ("sitz", "sitzplatz", "reihenfolge"),
    "player": ("spieler", "spielerin", "name"),
    "running": ("punkte", "laufend", "punktestand"),
    "pips": ("augen", "augenzahl", "abzug"),
    "out": ("raus", "ausgespielt"),
    "final": ("endstand", "ergebnis", "gesamt"),
    "rank": ("rang", "platz", "platzierung"),
    "target": ("ziel", "zielpunkte", "spielziel"),
}
"""Column names a club's spreadsheet may use besides pips' own (German ones from the
federation's own words: Augenzahl, Divisor, Punkte), compared with case, spaces, dots,
hyphens and underscores ignored."""


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
    set: int
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
        key = [e.game, e.played_on.isoformat(), e.set, players, source]
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
    if len(entry.place) > 80:
        raise EntryError(phrase("a place is at most 80 characters"))
    lines = entry.lines
    others = dict(options or {})
    if entry.target is not None:
        others["target"] = entry.target
    chosen = _options(entry.game, len(lines), entry.set, others)
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
            entry.set,
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
        return int(spec.options_from_json({**spec.defaults, "players": players}).set)
    except (RuleError, TypeError, ValueError):
        return spec.sets[0]


def _options(game: str, players: int, top: int, others: Mapping[str, Any]) -> Any:
    spec = find_game(game)
    try:
        plain = {k: v for k, v in others.items() if k != "target"}
        chosen = spec.options_from_json({**plain, "players": players, "set": top})
        if "target" in others and spec.target(chosen) is not None:
            chosen = spec.options_from_json({**others, "players": players, "set": top})
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
        most, together = holdable_pips(entry.set, len(lines), options.hand_size)
        for line in lines:
            if line.pips > most:
                raise EntryError(
                    phrase(
                        "{name}: {pips} pips, but no hand of double-{set} with "
                        "{count} players can hold more than {most}",
                        name=line.name,
                        pips=line.pips,
                        set=entry.set,
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
                    set=entry.set,
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
    bound = spec.hand_points(options)
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
                        set=entry.set,
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


GERMAN_DATE = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4})")


def parse_date(text: str) -> date:
    """A date as 2026-10-03 or, as German clubs write it, 03.10.2026 (or 3.10.2026)."""
    value = str(text).strip()
    try:
        german = GERMAN_DATE.fullmatch(value)
        if german:
            return date(int(german[3]), int(german[2]), int(german[1]))
        return date.fromisoformat(value)
    except ValueError:
        raise EntryError(
            phrase("{text!r} is not a date (2026-10-03 or 03.10.2026)", text=text)
        ) from None


def parse_int(text: Any, what: str) -> int:
    if isinstance(text, bool):
        raise EntryError(
            phrase("{what} must be a whole number, not {text!r}", what=what, text=text)
        )
    if isinstance(text, int):
        return text
    value = str(text).strip()
    if value == "":
        return 0
    try:
        return int(value)
    except ValueError:
        raise EntryError(
            phrase("{what} must be a whole number, not {value!r}", what=what, value=value)
        ) from None


def parse_flag(text: Any) -> bool:
    if isinstance(text, bool):
        return text
    value = str(text).strip().lower()
    if value in ("", "0", "no", "false", "nein", "n", "-"):
        return False
    if value in ("1", "yes", "true", "x", "ja", "j"):
        return True
    raise EntryError(phrase("'out' is yes or no (ja or nein), not {text!r}", text=text))


def entry_from_json(data: Mapping[str, Any]) -> Entry:
    """An entry from the API's JSON (see ``docs/results.md``)."""
    if not isinstance(data, Mapping):
        raise EntryError(phrase("a result is a JSON object"))
    players = data.get("players")
    if not isinstance(players, list) or not players:
        raise EntryError(phrase("'players' lists the players in seat order"))
    lines = []
    for seat, player in enumerate(players):
        if not isinstance(player, Mapping) or not isinstance(player.get("name"), str):
            raise EntryError(phrase("player {value} needs a 'name'", value=seat + 1))
        lines.append(
            Line(
                player["name"],
                parse_int(player.get("points", 0), f"player {seat + 1} points"),
                parse_int(player.get("pips", 0), f"player {seat + 1} pips"),
                parse_flag(player.get("out", False)),
            )
        )
    game = str(data.get("game") or GAMES[0])
    top = parse_int(data["set"], "set") if "set" in data else default_set(game, len(lines))
    target = data.get("target")
    return Entry(
        game,
        parse_date(str(data.get("date", ""))),
        top,
        tuple(lines),
        str(data.get("place") or ""),
        None if target in (None, "") else parse_target(target),
    )


def parse_target(text: Any) -> int:
    target = parse_int(text, "target")
    if target < 1:
        raise EntryError(
            phrase("a match target is a positive whole number, not {target}", target=target)
        )
    return target


def decode_csv(data: bytes) -> str:
    """A CSV file's text: UTF-8 (with or without the BOM spreadsheets write), else
    Windows-1252, as a German spreadsheet saves "CSV (Trennzeichen-getrennt)"."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        raise EntryError(phrase("the CSV is neither UTF-8 nor Windows-1252 text")) from None


def _column_key(name: str) -> str:
    return re.sub(r"[\s._-]", "", name.casefold())


def _columns(header: Sequence[str]) -> dict[str, str]:
    """The file's column for each of pips' fields that it has."""
    keys = {_column_key(h): h for h in header}
    found: dict[str, str] = {}
    for field_name, others in COLUMN_NAMES.items():
        for candidate in (field_name, *others):
            column = keys.get(_column_key(candidate))
            if column is not None and column not in found.values():
                found[field_name] = column
                break
    return found


def read_csv(text: str, today: date) -> list[Checked]:
    """Every game of a results CSV, checked; one :class:`EntryError` lists every
    problem with the file's own game number and line, so that nothing of a bad file is
    kept. Commas or semicolons (or tabs) separate the cells; the columns are pips' own
    or a club's German ones (:data:`COLUMN_NAMES`)."""
    text = text.lstrip("\ufeff")
    first = text.split("\n", 1)[0]
    delimiter = max((";", ",", "\t"), key=first.count)
    plain = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    header = plain.fieldnames or []
    columns = _columns(header)
    missing = [f for f in REQUIRED_CSV_FIELDS if f not in columns]
    if missing:
        raise EntryError(
            phrase(
                "the CSV has no column {choices}; its header is {choices2} "
                "(divisor, final, rank, place and out may be empty; German "
                "names such as Datum, Spieler, Punkte, Augen are read too)",
                choices=", ".join(missing),
                choices2=",".join(CSV_FIELDS),
            )
        )
    renamed = {column: field_name for field_name, column in columns.items()}
    reader = ({renamed.get(k, k): v for k, v in row.items() if isinstance(k, str)} for row in plain)
    groups: dict[str, list[tuple[int, dict[str, str]]]] = {}
    for row in reader:
        if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
            continue
        groups.setdefault((row.get("game_no") or "").strip(), []).append((plain.line_num, row))
    if not groups:
        raise EntryError(phrase("the CSV holds no results"))
    problems: list[str] = []
    checked: list[Checked] = []
    for number, rows in groups.items():
        line = rows[0][0]
        label = phrase("game {number} (line {line})", number=number or "?", line=line)
        try:
            checked.append(replace(_csv_game(number, rows, today), label=label))
        except EntryError as exc:
            problems.append(
                phrase(
                    "game {number} (line {line}): {problem}",
                    number=number or "?",
                    line=line,
                    problem=exc.args[0],
                )
            )
    if problems:
        shown = problems[:20] + (
            [phrase("... and {count} more", count=len(problems) - 20)] if len(problems) > 20 else []
        )
        raise EntryError(joined(shown, "; "))
    return checked


def _csv_game(number: str, rows: list[tuple[int, dict[str, str]]], today: date) -> Checked:
    if not number:
        raise EntryError(phrase("game_no is empty"))
    head = rows[0][1]
    for what in ("date", "game", "set", "place", "target"):
        if any((row.get(what) or "").strip() != (head.get(what) or "").strip() for _, row in rows):
            raise EntryError(phrase("the rows of one game differ in {what}", what=what))
    seats = [parse_int(row.get("seat"), "seat") for _, row in rows]
    if sorted(seats) != list(range(1, len(rows) + 1)):
        raise EntryError(phrase("seats must be 1 to {count}, once each", count=len(rows)))
    ordered = [row for _, (_, row) in sorted(zip(seats, rows, strict=True))]
    entry = Entry(
        (head.get("game") or "").strip(),
        parse_date(head.get("date") or ""),
        parse_int(head.get("set"), "set"),
        tuple(
            Line(
                text_cell(row.get("player") or ""),
                parse_int(row.get("running"), "running"),
                parse_int(row.get("pips"), "pips"),
                parse_flag(row.get("out") or ""),
            )
            for row in ordered
        ),
        text_cell((head.get("place") or "").strip()),
        parse_target(target) if (target := (head.get("target") or "").strip()) else None,
    )
    result = check(entry, today)
    for seat, row in enumerate(ordered):
        for what, value in (("final", result.final[seat]), ("rank", result.ranks[seat])):
            given = (row.get(what) or "").strip()
            if given and parse_int(given, what) != value:
                raise EntryError(
                    phrase(
                        "seat {value}: {what} {given} should be {value2}",
                        value=seat + 1,
                        what=what,
                        given=given,
                        value2=value,
                    )
                )
    divisor = (head.get("divisor") or "").strip()
    if divisor and result.divisor is not None and parse_int(divisor, "divisor") != result.divisor:
        raise EntryError(
            phrase(
                "double-{set} has divisor {divisor}, not {divisor2} (F-01)",
                set=entry.set,
                divisor=result.divisor,
                divisor2=divisor,
            )
        )
    return result


def safe_cell(text: str) -> str:
    """A text cell a spreadsheet shows as text: one that would start a formula gets a
    leading apostrophe (a place like ``=HYPERLINK(...)`` stays words)."""
    return "'" + text if text.startswith(FORMULA) else text


def text_cell(text: str) -> str:
    """A text cell as written before :func:`safe_cell` (so exports read back)."""
    return text[1:] if text.startswith("'") and text[1:].startswith(FORMULA) else text


def csv_rows(number: object, result: Checked) -> Iterable[dict[str, object]]:
    """The CSV rows of one game (export and the round trip of an upload)."""
    e = result.entry
    for seat, line in enumerate(e.lines):
        yield {
            "game_no": number,
            "date": e.played_on.isoformat(),
            "place": safe_cell(e.place),
            "game": e.game,
            "set": e.set,
            "divisor": "" if result.divisor is None else result.divisor,
            "seat": seat + 1,
            "player": safe_cell(line.name),
            "running": line.points,
            "pips": line.pips,
            "out": "yes" if line.out else "",
            "final": result.final[seat],
            "rank": result.ranks[seat],
            "target": "" if result.target is None else result.target,
        }


def write_csv(games: Iterable[tuple[object, Checked]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for number, result in games:
        writer.writerows(csv_rows(number, result))
    return out.getvalue()


def entry_from_record(data: Mapping[str, Any], played_on: date) -> Entry:
    """The result of a game played on the server, from its record."""
    hands: Sequence[Mapping[str, Any]] = data["hands"]
    seats: Sequence[str] = data["seats"]
    game = str(data["game"])
    options = data["options"]
    result = data["result"]
    last = hands[-1]["result"]
    columns = find_game(game).entry
    if columns.pips and len(hands) == 1:
        # A one-hand game: its sheet is the hand's, points as scored during it.
        points = last["points"] if columns.points else [0] * len(seats)
        lines = tuple(
            Line(name, points[seat], last["pips"][seat], last.get("out") == seat)
            for seat, name in enumerate(seats)
        )
    else:
        lines = tuple(Line(name, result["final"][seat]) for seat, name in enumerate(seats))
    spec = find_game(game)
    chosen = spec.options_from_json(options)
    return Entry(game, played_on, chosen.top, lines, "pips server", spec.target(chosen))
