"""What the terminal client draws: seats, the table, the count, the hand, score sheets.

Each function turns a view (and what the client knows about names and scores) into a
rich renderable; the apps put them on the screen. Nothing here reads a game state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from pips.core.tiles import Tile
from pips.core.view import View
from pips.display import (
    PlayOutcome,
    ScoreSheet,
    SheetTable,
    addressed,
    count_divisor,
    hand_rows,
    match_outcome,
    score_sheet,
)
from pips.display import sheet_table as display_sheet
from pips.games.registry import find_game
from pips.games.traits import DrawRule
from pips.i18n import _, decimal, ngettext, say

if TYPE_CHECKING:  # the search (numba) loads with the first analysis shown
    from pips.bots.analysis import Analysis
    from pips.tui.session import PlaySession


def called_you(name: str) -> bool:
    """Whether the person's name is already the default "You" (in English, as older
    records have it, or in the language shown): then no "(you)" is added to it."""
    return name in ("You", _("You"))


PLAYABLE = "bold green"
CURSOR = "bold black on bright_white"
DIM = "dim"
ASIDE = "magenta"


def tile_text(tile: Tile) -> str:
    return f"[{tile.high}│{tile.low}]"


def seats_panel(
    view: View,
    names: Sequence[str],
    target: int | None,
    *,
    hands: Sequence[Sequence[Tile]] | None = None,
) -> RenderableType:
    """Every seat with its tile count and score, whose turn it is, the stock and the
    order of play; ``hands`` (a replay) shows every hand face up.

    The score is the running points in a FIDO hand (F-15) and the final score once it
    is over (F-21); in the line games, the match total.
    """
    spec = find_game(view.game)
    scores = view.result.final if view.result is not None else view.scores
    table = Table(box=None, show_header=True, pad_edge=False, expand=hands is not None)
    columns = ["", "seat", "tiles", "points" if spec.scores_during_hand else "score"]
    if hands is not None:
        columns.append("hand")  # beside the seat, so nine seats still fit
    heading = {
        "": "",
        "seat": _("seat"),
        "tiles": _("tiles"),
        "points": _("points"),
        "score": _("score"),
        "hand": _("hand"),
    }
    # The seats keep their width; a hand stays on its seat's line (cut short with …
    # when long), so nine seats fit.
    widest = max(len(n) for n in names) + (6 if spec.pairs else 0) + 6
    for column in columns:
        table.add_column(
            heading[column],
            justify="left" if column in ("", "seat", "hand") else "right",
            no_wrap=True,
            overflow="ellipsis",
            min_width={"": 1, "seat": widest, "hand": 8}.get(column, len(heading[column])),
            ratio=1 if column == "hand" else None,
        )
    for seat, name in enumerate(names):
        marker = "▶" if view.turn == seat else ""
        label = name + (" " + _("(you)") if seat == view.seat and not called_you(name) else "")
        if spec.pairs:
            label += "  " + _("pair {letter}").format(letter="AB"[seat % 2])
        row: list[RenderableType] = [
            Text(marker, style="bold yellow"),
            Text(label, style="bold" if seat == view.turn else ""),
            str(view.hand_sizes[seat]),
            str(scores[seat]),
        ]
        if hands is not None:
            row.append(Text(" ".join(map(str, hands[seat])), style=DIM))
        table.add_row(*row)
        if view.set_aside and view.set_aside[seat]:
            aside = " ".join(map(tile_text, view.set_aside[seat]))
            table.add_row(
                "",
                Text(_("set aside: {tiles}").format(tiles=aside), style="magenta"),
                *[""] * (len(columns) - 2),
            )
    lines: list[RenderableType] = [table]
    facts = []
    if spec.traits(view.options).draw is not DrawRule.NONE or view.stock_size:
        facts.append(_("stock {count}").format(count=view.stock_size))
    facts.append(
        _("play goes clockwise ↻") if view.options.clockwise else _("play goes counter clockwise ↺")
    )
    facts.append(_("hand {number}").format(number=view.hand_number))
    if target is not None:
        facts.append(_("match to {target}").format(target=target))
    lines.append(Text(" · ".join(facts), style=DIM))
    return Group(*lines)


def count_panel(
    view: View,
    outcomes: Mapping[Tile, Sequence[PlayOutcome]],
    width: int | None = None,
    rows: int = 2,
) -> Text:
    """FIDO: the count S, the divisor, and what each playable tile would make of S
    (F-04, F-15). Empty for the other games, which do not score during a hand.

    Within ``width`` columns the plays take at most ``rows`` lines, broken between
    plays, never inside one (``4-3→20 +4`` stays whole); the plays that score come
    first, and what does not fit is counted (``+3 more``)."""
    divisor = count_divisor(view)
    if not divisor:
        return Text()
    s = view.layout.count
    text = Text()
    text.append(f"S = {s}", style="bold")
    text.append(
        _("   divisor {divisor}   S mod {divisor} = {rest}").format(
            divisor=divisor, rest=s % divisor
        )
    )
    if s and s % divisor == 0:
        text.append(_("   (scores {points})").format(points=s // divisor), style="green")
    if not outcomes:
        return text
    parts = []
    for tile, found in outcomes.items():
        # Places that make the same count are one entry.
        for outcome in {(o.count, o.points): o for o in found}.values():
            part = Text(f"{tile}→{outcome.count}")
            if outcome.points:
                part.append(f" +{outcome.points}", style="bold green")
            parts.append((outcome.points, part))
    parts.sort(key=lambda item: -item[0])  # stable: the hand's order within each
    lines: list[list[Text]] = [[]]
    used = len(_("your plays: "))
    room = None if width is None else max(20, width)
    for number, (_points, part) in enumerate(parts):
        left = len(parts) - number
        more = Text(_("+{count} more").format(count=left), style=DIM)
        size = part.cell_len + 2
        if room is not None:
            # The last line keeps room to say how many plays are left out.
            spare = more.cell_len + 2 if len(lines) == rows and left > 1 else 0
            if used + size + spare > room and lines[-1]:
                if len(lines) == rows:
                    lines[-1].append(more)
                    break
                lines.append([])
                used = 0
        lines[-1].append(part)
        used += size
    text.append("\n" + _("your plays: "))
    text.append(Text("\n").join(Text("  ").join(line) for line in lines))
    return text


def hand_line(
    view: View,
    playable: set[Tile],
    cursor: int | None,
    *,
    width: int | None = None,
    rows: int | None = None,
) -> tuple[Text, list[Tile]]:
    """The hand in its game's order (groups apart), playable tiles marked, and the tiles
    in the order the cursor walks them.

    Within ``width`` columns the hand is broken into lines; when it takes more than
    ``rows`` lines (a double-18 hand of 47 tiles), the lines around the cursor are shown
    with how many tiles are before and after them, so the table keeps its room.
    """
    order: list[Tile] = []
    pieces: list[tuple[Text, int | None]] = []  # (text, tile index or None for a gap)
    # Tiles set aside after a false knock lie face up and go last (PT-08): marked apart.
    aside = set(view.set_aside[view.seat]) if view.set_aside and view.seat >= 0 else set()
    for row_number, row in enumerate(hand_rows(view)):
        if row_number and row:
            pieces.append((Text("┆ ", style=DIM), None))
        for tile in row:
            style = PLAYABLE if tile in playable else DIM
            if tile in aside:
                style = ASIDE
            if cursor is not None and len(order) == cursor:
                style = CURSOR
            face = f"({tile.high}│{tile.low})" if tile in aside else tile_text(tile)
            pieces.append((Text(face, style=style) + " ", len(order)))
            order.append(tile)
    if not order:
        return Text(_("(no tiles)"), style=DIM), order
    lines: list[list[tuple[Text, int | None]]] = [[]]
    used = 0
    room = None if width is None else max(12, width - 8)  # room for the "+N" marks
    for piece in pieces:
        size = piece[0].cell_len
        if room is not None and used + size > room and lines[-1]:
            lines.append([])
            used = 0
        lines[-1].append(piece)
        used += size
    shown = range(len(lines))
    if rows is not None and len(lines) > rows:
        at = next((n for n, line in enumerate(lines) if any(i == cursor for _, i in line)), 0)
        first = min(max(0, at - rows // 2), len(lines) - rows)
        shown = range(first, first + rows)
    text = Text()
    for n in shown:
        if n != shown.start:
            text.append("\n")
        if n == shown.start and n > 0:
            before = sum(i is not None for line in lines[:n] for _piece, i in line)
            text.append(f"+{before} ◂ ", style=DIM)
        for shown_piece, _spot in lines[n]:
            text.append_text(shown_piece)
        if n == shown.stop - 1 and n < len(lines) - 1:
            after = sum(i is not None for line in lines[n + 1 :] for _, i in line)
            text.append(f"▸ +{after}", style=DIM)
    return text, order


def seats_line(view: View, names: Sequence[str], target: int | None, width: int) -> Text:
    """Every seat in a few lines, for a short screen: name, tiles and score, the seat
    to play marked; then the stock and the hand."""
    spec = find_game(view.game)
    scores = view.result.final if view.result is not None else view.scores
    partner = (view.seat + 2) % 4 if spec.pairs and view.seat >= 0 else None
    you = [
        " " + _("(you)")
        if s == view.seat and not called_you(n)
        else " " + _("(partner)")
        if s == partner
        else ""
        for s, n in enumerate(names)
    ]

    def seat_words(seat: int, name: str) -> str:
        tiles = ngettext("{count} tile", "{count} tiles", view.hand_sizes[seat]).format(
            count=view.hand_sizes[seat]
        )
        score = (
            ngettext("{count} point", "{count} points", scores[seat])
            if spec.scores_during_hand
            else _("score {count}")
        ).format(count=scores[seat])
        return _("{name}: {tiles}, {score}").format(name=name + you[seat], tiles=tiles, score=score)

    long = [seat_words(seat, name) for seat, name in enumerate(names)]
    short = [
        f"{name}{'*' if seat == view.seat else '+' if seat == partner else ''} "
        f"{view.hand_sizes[seat]}/{scores[seat]}"
        for seat, name in enumerate(names)
    ]
    brief = sum(len(w) + 5 for w in long) > 2 * width
    words = short if brief else long
    # A seat's words stay on one line: lines break only between seats.
    text = Text()
    used = 0
    for seat, said in enumerate(words):
        turn = view.turn == seat
        item = ("▶ " if turn else "") + said
        if seat and used + 5 + len(item) > width:
            text.append("\n")
            used = 0
        elif seat:
            text.append("  │  ", style=DIM)
            used += 5
        text.append(item, style="bold" if turn else "")
        used += len(item)
    facts = [_("hand {number}").format(number=view.hand_number)]
    if spec.traits(view.options).draw is not DrawRule.NONE or view.stock_size:
        facts.insert(0, _("stock {count}").format(count=view.stock_size))
    if target is not None:
        facts.append(_("match to {target}").format(target=target))
    if brief:
        facts.append(
            _("* you · + partner · tiles/score")
            if partner is not None
            else _("* you · tiles/score")
        )
    text.append("\n" + " · ".join(facts), style=DIM)
    return text


def sheet_lines(shown: SheetTable, names: Sequence[str] = (), you: int | None = None) -> Table:
    """Every seat's line of a finished hand, as :func:`pips.display.sheet_table` words it
    (the title said to the player at seat ``you``, :func:`pips.display.addressed`)."""
    lines = Table(title=say(addressed(shown.title, names, you)))
    for column in shown.columns:
        lines.add_column(say(column), justify="left" if column == "player" else "right")
    for row in shown.rows:
        lines.add_row(*row)
    return lines


def sheet_table(
    sheet: ScoreSheet, names: Sequence[str], target: int | None, you: int | None = None
) -> RenderableType:
    """A finished hand's score sheet, its words said to the player at seat ``you``:
    first every seat's line and how the hand scored, which fit a small screen without
    scrolling, then the scoring plays (FIDO), which may be many."""
    parts: list[RenderableType] = [
        sheet_lines(display_sheet(sheet, names), names, you),
        Text(say(addressed(sheet.explanation, names, you))),
    ]
    if target is not None:
        parts.append(Text(_("match to {target}").format(target=target), style=DIM))
    if sheet.plays:
        plays = Table(title=_("Scoring plays"), box=None)
        for column, heading in (
            ("move", _("move")),
            ("player", _("player")),
            ("tile", _("tile")),
            ("S", "S"),
            ("points", _("points")),
        ):
            plays.add_column(heading, justify="left" if column in ("player", "tile") else "right")
        for play in sheet.plays:
            plays.add_row(
                str(play.number),
                names[play.seat],
                f"{play.move.touching}-{play.move.free}",
                str(play.count),
                f"+{play.points}",
            )
        parts.append(plays)
    return Group(*parts)


def analysis_table(analysis: Analysis) -> Table:
    """Each player's decisions, average loss and flags (:mod:`pips.bots.analysis`)."""
    from pips.bots.analysis import SIZES

    table = Table(title=_("Per player (each decision valued from that seat's view only)"))
    headings = {
        "player": _("player"),
        "decisions": _("decisions"),
        "average loss": _("average loss"),
    }
    for column in ("player", "decisions", "average loss", *SIZES):
        table.add_column(
            headings.get(column) or _(column), justify="left" if column == "player" else "right"
        )
    for line in analysis.summary():
        table.add_row(
            line.name,
            str(line.decisions),
            decimal(line.average_loss),
            *(str(line.flagged[size]) for size in SIZES),
        )
    return table


def fit_parts(parts: Sequence[tuple[int, str]], room: int, separator: str = ", ") -> str:
    """``parts`` (weight, words) joined in their order within ``room`` columns: the
    lightest (highest weight) are left out first; only what still does not fit is
    shortened, with an ellipsis."""
    kept = list(parts)
    while len(kept) > 1 and len(separator.join(words for _, words in kept)) > room:
        lightest = max(weight for weight, _ in kept)
        kept = [part for part in kept if part[0] != lightest] or kept[:1]
    said = separator.join(words for _, words in kept)
    if len(said) > room:
        said = said[: max(0, room - 1)].rstrip() + "…"
    return said


def finished_hand(
    session: PlaySession, names: Sequence[str], hand_number: int
) -> tuple[RenderableType, str]:
    """The score sheet of a finished hand (the match's end under the last) and its
    explanation in words."""
    state = session.match.hand_states[hand_number - 1]
    result = state.result
    assert result is not None
    sheet = score_sheet(
        state.game,
        state.options,
        [e.seen_by(session.me) for e in state.history],
        result,
        state.context.scores,
        names,
        hand_number,
    )
    me = session.me
    body: RenderableType = sheet_table(sheet, names, session.match.target, me)
    outcome = session.match.result
    if outcome is not None and hand_number == len(session.match.hand_states):
        won = match_outcome(state.game, outcome.final, outcome.ranks, names)
        words = say(addressed(won, names, me))
        over = (
            _("Match over: {outcome}.")
            if session.match.target is not None
            else _("Game over: {outcome}.")
        )
        body = Group(Text(over.format(outcome=words) + "\n", style="bold"), body)
    return body, say(addressed(sheet.explanation, names, me))
