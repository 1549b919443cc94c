"""Results as they arrive and leave: typed form fields (German dates and numbers), JSON,
CSV files from German spreadsheets (Windows-1252 or UTF-8, semicolons, German column
names), and the records of games played at the server; CSV written safe for
spreadsheets."""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import date
from typing import Any

from pips.core.phrase import joined, phrase
from pips.games.registry import find_game
from pips.results.entry import (
    FORMULA,
    GAMES,
    Checked,
    Entry,
    EntryError,
    Line,
    check,
    default_set,
)

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
    Windows-1252, as a German spreadsheet saves "CSV (Trennzeichen-getrennt)"; its lines
    ended with a line feed, whatever ended them in the file (a browser sends a text
    area back with CR LF, an old Mac wrote CR alone)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            raise EntryError(phrase("the CSV is neither UTF-8 nor Windows-1252 text")) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


MOST_CELL = 1000
"""Characters of one cell of a results CSV (a name, a place: a few dozen). A longer
one is refused with its line; the csv module's own limit (128 KiB) is never reached."""


MOST_LINES = 50_000
"""Lines of an uploaded results CSV, blank ones included: a row per player of the
most games an upload holds (2,000 of up to 20 seats) and room to spare. A file of
blank lines is refused at the line past it, not read to its end."""


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


def read_csv(
    data: str | bytes, today: date, most_games: int | None = None, most_lines: int | None = None
) -> list[Checked]:
    """Every game of a results CSV, checked; one :class:`EntryError` lists every
    problem with the file's own game number and line, so that nothing of a bad file is
    kept. Commas or semicolons (or tabs) separate the cells; the columns are pips' own
    or a club's German ones (:data:`COLUMN_NAMES`); lines end as any spreadsheet ends
    them (LF, CR LF, CR).

    The file is read as a stream, a line at a time (bytes decoded as they are read:
    UTF-8, else Windows-1252): a cell longer than :data:`MOST_CELL`, a line that is no
    CSV, a game beyond ``most_games`` or a line beyond ``most_lines`` (blank ones too:
    they are skipped before the csv module parses them, but counted) stops it at that
    line, before the rest is decoded, parsed or checked."""
    if isinstance(data, str):
        return _read_csv(io.StringIO(data, newline=""), today, most_games, most_lines)
    try:
        return _read_csv(_text_stream(data, "utf-8-sig"), today, most_games, most_lines)
    except UnicodeDecodeError:
        pass
    try:
        return _read_csv(_text_stream(data, "cp1252"), today, most_games, most_lines)
    except UnicodeDecodeError:
        raise EntryError(phrase("the CSV is neither UTF-8 nor Windows-1252 text")) from None


def _text_stream(data: bytes, encoding: str) -> io.TextIOWrapper:
    # newline="": the csv module sees every line's own ending (CR alone too).
    return io.TextIOWrapper(io.BytesIO(data), encoding=encoding, newline="")


class _Lines:
    """A stream's lines, blank ones skipped before the csv module sees them (a file of
    blank lines costs a string test a line, not a parsed row), counted as the file has
    them: :attr:`line` is the file's number of the last line given, and more than
    ``most`` lines stop the reading with an error naming the limit."""

    def __init__(self, stream: Iterable[str], most: int | None) -> None:
        self._stream = stream
        self._most = most
        self.line = 0

    def __iter__(self) -> Iterator[str]:
        for text in self._stream:
            self.line += 1
            if self._most is not None and self.line > self._most:
                raise EntryError(
                    phrase(
                        "a CSV upload holds at most {count} lines; line {line} is one more",
                        count=self._most,
                        line=self.line,
                    )
                )
            if text.strip():
                yield text


def _rows(stream: io.TextIOBase, most_lines: int | None) -> Iterator[tuple[int, list[str]]]:
    """The rows of a CSV stream with the line each ends on; the header first."""
    first = stream.readline().lstrip("\ufeff")
    delimiter = max((";", ",", "\t"), key=first.count)
    lines = _Lines(itertools.chain([first], stream), most_lines)
    reader = csv.reader(lines, delimiter=delimiter)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            if "field larger" in str(exc):  # the csv module's own limit, far beyond ours
                raise _long_cell(lines.line) from None
            raise EntryError(
                phrase("line {line} is not CSV: {problem}", line=lines.line, problem=str(exc))
            ) from None
        if any(len(cell) > MOST_CELL for cell in row):
            raise _long_cell(lines.line)
        yield lines.line, row


def _long_cell(line: int) -> EntryError:
    return EntryError(
        phrase("line {line}: a cell holds at most {count} characters", line=line, count=MOST_CELL)
    )


def _read_csv(
    stream: io.TextIOBase, today: date, most_games: int | None, most_lines: int | None
) -> list[Checked]:
    rows = _rows(stream, most_lines)
    header = next(rows, (0, []))[1]
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
    names = [renamed.get(h, h) for h in header]
    groups: dict[str, list[tuple[int, dict[str, str]]]] = {}
    for line, cells in rows:
        row = dict(zip(names, cells, strict=False))
        if not any(v.strip() for v in row.values()):
            continue
        number = (row.get("game_no") or "").strip()
        if number not in groups and most_games is not None and len(groups) >= most_games:
            raise EntryError(
                phrase(
                    "a CSV upload holds at most {count} games; line {line} starts one more",
                    count=most_games,
                    line=line,
                )
            )
        groups.setdefault(number, []).append((line, row))
    if not groups:
        raise EntryError(phrase("the CSV holds no results"))
    problems: list[str] = []
    checked: list[Checked] = []
    for number, game_rows in groups.items():
        line = game_rows[0][0]
        label = phrase("game {number} (line {line})", number=number or "?", line=line)
        try:
            checked.append(replace(_csv_game(number, game_rows, today), label=label))
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
                set=entry.top,
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
            "set": e.top,
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


GERMAN_HEADS = {
    "game_no": "Spiel-Nr.",
    "date": "Datum",
    "place": "Ort",
    "game": "Spielart",
    "set": "Satz",
    "divisor": "Divisor",
    "seat": "Sitz",
    "player": "SpielerIn",
    "running": "Punkte",
    "pips": "Augen",
    "out": "Raus",
    "final": "Endstand",
    "rank": "Platz",
    "target": "Ziel",
}
"""The export's heads in German: each one the upload reads back (:data:`COLUMN_NAMES`)."""


def write_csv(games: Iterable[tuple[object, Checked]], language: str = "en") -> str:
    """The results CSV (:data:`CSV_FIELDS`). In German as a German spreadsheet reads
    it: German heads, dates as 03.10.2026, "ja" for who went out, fields separated by
    semicolons, a byte-order mark first; the upload reads either back."""
    german = language == "de"
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";" if german else ",", lineterminator="\n")
    writer.writerow([GERMAN_HEADS[f] for f in CSV_FIELDS] if german else CSV_FIELDS)
    for number, result in games:
        for row in csv_rows(number, result):
            if german:
                row["date"] = result.entry.played_on.strftime("%d.%m.%Y")
                row["out"] = "ja" if row["out"] else ""
            writer.writerow([row[f] for f in CSV_FIELDS])
    return ("\ufeff" if german else "") + out.getvalue()


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
