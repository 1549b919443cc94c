"""What a client shows a player, in words, from a seat's view: the order of a hand, the
layout, each move, what each playable tile would do, and the score sheet of a finished
hand.

The one place of these words: the terminal client, the line-by-line client, the pips
server's messages (and so the browser) and replays all take them from here. Whatever
differs between games is asked of the game (:class:`~pips.games.face.GameSpec`). Nothing
here changes a game: it only reads views, moves and results, so a display aid can never
leak or decide anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pips.core.errors import RuleError
from pips.core.moves import At, Draw, Misdeal, Move, Pass, Play
from pips.core.notation import move_text
from pips.core.outcome import Ending, HandResult
from pips.core.phrase import N_, PERSONAL, Phrase, joined, personal, phrase
from pips.core.tiles import Tile
from pips.core.view import SPECTATOR, MoveEvent, View
from pips.games.options import GameOptions
from pips.games.registry import GameState, find_game
from pips.record import Replay

# -- the order of a hand -----------------------------------------------------------------


def hand_rows(view: View) -> list[list[Tile]]:
    """The seat's hand as the players of its game like to hold it, in rows (FIDO: the
    Ratzek order, F-03; the partnership game: as taken, PT-03; else by number)."""
    return find_game(view.game).hand_rows(view)


def hand_order(view: View) -> list[Tile]:
    """:func:`hand_rows` flattened: the order in which the hand is shown."""
    return [tile for row in hand_rows(view) for tile in row]


# -- the layout and the moves in words ----------------------------------------------------


# The layout's sides, by the game's word for them (FIDO's naked sides, F-07).
_SIDES = {
    "side": N_("sides {points}"),
    "naked side": N_("naked sides {points}"),
    "spinner side": N_("spinner sides {points}"),
}


def describe_layout(view: View) -> str:
    """The open ends and sides by id and value, and the count where the game keeps one
    (F-04, F-15)."""
    layout = view.layout
    if not layout.tiles:
        return phrase("layout: empty")
    ends = " ".join(f"#{p.id}:{p.value}" for p in layout.open_ends) or "-"
    parts: list[str] = [phrase("open ends {ends}", ends=ends)]
    sides = layout.naked_sides
    if sides:
        points = " ".join(f"#{p.id}:{p.value}" for p in sides)
        template = _SIDES.get(find_game(view.game).side_word, _SIDES["side"])
        parts.append(phrase(template, points=points))
    divisor = count_divisor(view)
    if divisor:
        s = layout.count
        parts.append(
            phrase(
                "S = {count}, divisor {divisor}, S mod {divisor} = {rest}",
                count=s,
                divisor=divisor,
                rest=s % divisor,
            )
        )
    return joined(parts, " | ")


def count_divisor(view: View) -> int:
    """The divisor of a game whose count scores (F-01), else 0."""
    spec = find_game(view.game)
    return spec.traits(view.options).divisor if spec.scores_during_hand else 0


# What a player does, said to the player themself and about them to the others (the
# game's pass word: PT-07's knock or the others' pass).
_PASSES = {
    "pass": (N_("You pass"), N_("{who} passes")),
    "knock": (N_("You knock"), N_("{who} knocks")),
}


def describe_event(
    event: MoveEvent, names: Sequence[str], game: str, *, you: int | None = None
) -> str:
    """One move in words, as every client's log shows it; the seat ``you`` is spoken
    to ("You lay 6-4 on 6"), as the terminal client speaks to its player. The words
    are a :class:`~pips.core.phrase.Phrase`: English, and said in another language at
    the edge."""
    second = event.seat == you
    who: str = (
        names[event.seat]
        if 0 <= event.seat < len(names)
        else phrase("seat {number}", number=event.seat)
    )
    move = event.move
    if isinstance(move, Play):
        tile = f"{move.touching}-{move.free}"
        said: Phrase
        if move.at is At.OPEN:
            said = (
                phrase("You open with {tile}", tile=tile)
                if second
                else phrase("{who} opens with {tile}", who=who, tile=tile)
            )
        elif move.at is At.SIDE:
            said = (
                phrase("You lay {tile} at the side of {value}", tile=tile, value=move.touching)
                if second
                else phrase(
                    "{who} lays {tile} at the side of {value}",
                    who=who,
                    tile=tile,
                    value=move.touching,
                )
            )
        else:
            said = (
                phrase("You lay {tile} on {value}", tile=tile, value=move.touching)
                if second
                else phrase("{who} lays {tile} on {value}", who=who, tile=tile, value=move.touching)
            )
        if move.inline:
            said = phrase("{move} in line", move=said)
        if event.layout_count is not None:
            if event.points:
                return (
                    phrase(
                        "{move}, S = {count}, score {points}",
                        move=said,
                        count=event.layout_count,
                        points=event.points,
                    )
                    if second
                    else phrase(
                        "{move}, S = {count}, scores {points}",
                        move=said,
                        count=event.layout_count,
                        points=event.points,
                    )
                )
            return phrase("{move}, S = {count}", move=said, count=event.layout_count)
        return said
    if isinstance(move, Draw):
        if not move.tile:
            return phrase("{who} draws a tile", who=who)
        if second:
            return phrase("You draw {tile}", tile=move.tile)
        return phrase("{who} draws {tile}", who=who, tile=move.tile)
    if isinstance(move, Pass):
        yours, theirs = _PASSES.get(find_game(game).pass_word, _PASSES["pass"])
        passed = phrase(yours) if second else phrase(theirs, who=who)
        if event.set_aside:
            aside = " ".join(map(str, event.set_aside))
            return phrase(
                "{passed} falsely: {tiles} set aside face up (PT-08)", passed=passed, tiles=aside
            )
        return passed
    if isinstance(move, Misdeal):
        return phrase("misdeal: {move}", move=move)
    return phrase("{who}: {move}", who=who, move=move)


def standings(game: str, scores: Sequence[int], names: Sequence[str]) -> str:
    """The match scores in one line, by pair where seats play in pairs."""
    if find_game(game).pairs:
        half = len(names) // 2
        return ", ".join(f"{'/'.join(names[s::half])} {scores[s]}" for s in range(half))
    return ", ".join(f"{names[i]} {s}" for i, s in enumerate(scores))


PAIR_LETTERS = "AB"
"""Pairs are called A (seats 0 and 2) and B (seats 1 and 3), on every screen."""


def match_outcome(
    game: str, final: Sequence[int], ranks: Sequence[int], names: Sequence[str]
) -> Phrase:
    """Who won a finished match, in words: a pair and the score of both pairs
    ("pair A (Ann and Cleo) wins 30 : 18"), or the winner and their points; those who
    share first place, together."""
    spec = find_game(game)
    teams = spec.teams(len(names))
    first = [team for team in teams if ranks[team[0]] == 1]
    if spec.pairs:
        score = " : ".join(
            str(final[team[0]]) for team in sorted(teams, key=lambda team: ranks[team[0]])
        )
        if len(first) > 1:
            return phrase("the pairs share the match, {score}", score=score)
        team = first[0]
        return phrase(
            "pair {letter} ({names}) wins {score}",
            letter=PAIR_LETTERS[teams.index(team)],
            names=joined([names[seat] for seat in team], " & "),
            score=score,
        )
    points = final[first[0][0]]
    if len(first) > 1:
        return phrase(
            "{names} share first place with {points} points",
            names=joined([names[team[0]] for team in first]),
            points=points,
        )
    return Phrase(WINS, {"name": names[first[0][0]], "points": points})


WINS = personal(
    "{name} wins with {points} points",
    "name",
    N_("{name} wins with {points} points"),
    N_("You win with {points} points"),
)


# -- what a play would do --------------------------------------------------------------


@dataclass(frozen=True)
class PlayOutcome:
    """One legal play as the player sees it: where it goes and, in FIDO, the count it
    makes and what that scores (F-05 to F-07, F-15)."""

    move: Play
    count: int | None
    points: int


def play_outcomes(view: View, moves: Sequence[Move]) -> dict[Tile, list[PlayOutcome]]:
    """Every legal play, grouped by tile in the order the moves are listed.

    Places that are the same for the rules (same kind, value and in/across) are kept
    once: the engine takes the oldest (F-04 makes them equivalent).
    """
    spec = find_game(view.game)
    values = {p.id: p.value for p in view.layout.points}
    seen: set[tuple[Tile, int, str, int, bool]] = set()
    out: dict[Tile, list[PlayOutcome]] = {}
    for move in moves:
        if not isinstance(move, Play):
            continue
        key = (move.tile, move.touching, move.at.value, values.get(move.end, -1), move.inline)
        if key in seen:
            continue
        seen.add(key)
        count = spec.count_after(view.layout.count, move)
        points = spec.immediate_points(view, move)
        out.setdefault(move.tile, []).append(PlayOutcome(move, count, points))
    return out


# -- the score sheet of a hand ---------------------------------------------------------


@dataclass(frozen=True)
class ScoringPlay:
    """A play that scored during the hand (F-15)."""

    number: int
    seat: int
    move: Play
    count: int
    points: int


@dataclass(frozen=True)
class SheetLine:
    """One seat's line on the sheet: before the hand, scored, left in hand, after."""

    seat: int
    before: int
    points: int
    pips: int
    change: int
    final: int
    rank: int


@dataclass(frozen=True)
class ScoreSheet:
    """A finished hand as a score sheet: how it ended, the scoring plays (FIDO), every
    seat's line, and one sentence on how the points came about."""

    game: str
    hand: int
    ended: Ending
    out: int | None
    plays: tuple[ScoringPlay, ...]
    lines: tuple[SheetLine, ...]
    explanation: str


def score_sheet(
    game: str,
    options: GameOptions,
    history: Sequence[MoveEvent],
    result: HandResult,
    before: Sequence[int],
    names: Sequence[str],
    hand: int = 1,
) -> ScoreSheet:
    """The sheet of a finished hand from its public history and result."""
    before = tuple(before) or (0,) * len(result.final)
    plays = tuple(
        ScoringPlay(number, e.seat, e.move, e.layout_count or 0, e.points)
        for number, e in enumerate(history, 1)
        if isinstance(e.move, Play) and e.points
    )
    lines = tuple(
        SheetLine(
            seat,
            before[seat],
            result.points[seat],
            result.pips[seat],
            result.final[seat] - before[seat],
            result.final[seat],
            result.ranks[seat],
        )
        for seat in range(len(result.final))
    )
    explanation = explain_hand(game, options, result, names)
    return ScoreSheet(game, hand, result.ended, result.out, plays, lines, explanation)


def hand_sheet(state: GameState, names: Sequence[str]) -> ScoreSheet:
    """The sheet of a finished hand in progress of a match (or a one-hand game)."""
    assert state.result is not None
    return score_sheet(
        state.game,
        state.options,
        state.history,
        state.result,
        state.context.scores,
        names,
        state.context.number,
    )


@dataclass(frozen=True)
class SheetTable:
    """A finished hand's lines as every client shows them: a title, the columns of the
    game's sheet and a row of text per seat, and how the points came about."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    explanation: str

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "columns": list(self.columns),
            "rows": [list(r) for r in self.rows],
            "explanation": self.explanation,
        }


HAND_WENT_OUT = personal(
    "Hand {number}: {who} went out",
    "who",
    N_("Hand {number}: {who} went out"),
    N_("Hand {number}: you went out"),
)


def addressed(words: Any, names: Sequence[str], you: int | None) -> Any:
    """``words`` as said to the player at seat ``you`` among ``names``: a seat given by
    its number is named ("Bo can lay a tile and must play"), and the reader's own seat
    is spoken to ("you can lay a tile and must play", "You win with 30 points") where
    the phrase has that form (:data:`pips.core.phrase.PERSONAL`); phrases within
    phrases too. Other words are returned as they are."""
    if not isinstance(words, Phrase):
        return words
    fields = {key: addressed(value, names, you) for key, value in words.fields.items()}
    forms = PERSONAL.get(words.template)
    if forms is None:
        return Phrase(words.template, fields)
    field, named, yours = forms
    value = fields.get(field)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        seat: int | None = value
    else:
        seat = next((s for s, n in enumerate(names) if value == n), None)
    if seat is None:
        return Phrase(words.template, fields)
    others = {key: v for key, v in fields.items() if key != field}
    if seat == you:
        return Phrase(yours, others)
    return Phrase(named, {**others, field: names[seat], "name": names[seat]})


PLACE_WORDS = {
    "end": N_("end"),
    "side": N_("side"),
    "in line": N_("in line"),
    "across": N_("across"),
}
"""The words of the move notation that say where a tile goes, to be said in the reader's
language (the notation itself, typed and recorded, stays as it is)."""


def move_words(move: Move, legal: Sequence[Move], pass_word: str) -> Phrase:
    """A move as a person reads it, to be said in their language: ``6-4 Ende`` for
    ``6-4 end``, ``ziehen`` for ``draw``, the game's own word for passing (PT-07)."""
    if isinstance(move, Pass):
        return Phrase(pass_word)
    if isinstance(move, Draw):
        return phrase("draw") if move.tile is None else phrase("draw {tile}", tile=move.tile)
    text = move_text(move, legal)
    if not isinstance(move, Play):
        return Phrase(text.replace("{", "{{").replace("}", "}}"))
    tile, _space, rest = text.partition(" ")
    places = []
    for english, message in PLACE_WORDS.items():
        if english in rest:
            places.append(Phrase(message))
            rest = rest.replace(english, "")
    if not places:
        return Phrase("{tile}", {"tile": tile})
    return Phrase("{tile} {places}", {"tile": tile, "places": joined(places, " ")})


def refusal(error: Exception, names: Sequence[str], you: int | None) -> Any:
    """A refused move as its player reads it: the rule's words said to them, the rule's
    id after ("you can lay a tile and must play (FA-05)"), not ``FA-05: seat 0 ...``."""
    if isinstance(error, RuleError):
        return phrase(
            "{words} ({rule})", words=addressed(error.detail, names, you), rule=error.rule
        )
    return addressed(error.args[0] if error.args else str(error), names, you)


def sheet_table(sheet: ScoreSheet, names: Sequence[str]) -> SheetTable:
    """The lines of ``sheet`` as a table. A game that scores during the hand shows the
    running points, the pips deducted and the final score (F-21); the others the score
    before the hand, the pips left, what the hand scored and the total."""
    if sheet.out is not None:
        title = Phrase(HAND_WENT_OUT, {"number": sheet.hand, "who": names[sheet.out]})
    else:
        title = phrase("Hand {number}: blocked, nobody can play", number=sheet.hand)
    spec = find_game(sheet.game)
    # Pairs are placed as pairs: first and second, not the first and third of four
    # seats (issue 51).
    ranks = sorted({ln.rank for ln in sheet.lines})
    place = {ln.seat: ranks.index(ln.rank) + 1 if spec.pairs else ln.rank for ln in sheet.lines}
    if spec.scores_during_hand:
        columns: tuple[str, ...] = (
            phrase("player"),
            phrase("points"),
            phrase("pips left"),
            phrase("final"),
            phrase("place"),
        )
        rows: tuple[tuple[str, ...], ...] = tuple(
            (
                names[ln.seat],
                str(ln.points),
                f"-{ln.pips}" if ln.pips else "0",
                str(ln.final),
                str(place[ln.seat]),
            )
            for ln in sheet.lines
        )
    else:
        columns = (
            phrase("player"),
            phrase("before"),
            phrase("pips left"),
            phrase("scored"),
            phrase("total"),
            phrase("place"),
        )
        rows = tuple(
            (
                names[ln.seat],
                str(ln.before),
                str(ln.pips),
                f"+{ln.change}" if ln.change else "0",
                str(ln.final),
                str(place[ln.seat]),
            )
            for ln in sheet.lines
        )
    # A column of zeros says nothing (a one-hand draw game has no score before or
    # after): it is left out. The players, pips and places always stay.
    keep = [
        i
        for i, column in enumerate(columns)
        if column in ("player", "pips left", "place") or any(row[i] != "0" for row in rows)
    ]
    columns = tuple(columns[i] for i in keep)
    rows = tuple(tuple(row[i] for i in keep) for row in rows)
    return SheetTable(title, columns, rows, sheet.explanation)


def explain_hand(game: str, options: GameOptions, result: HandResult, names: Sequence[str]) -> str:
    """How the hand's points came about, with the arithmetic of the game's rule."""
    return find_game(game).explain_hand(options, result, names)


# -- replays ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """One position of a replay: the public view and every hand face up (a finished
    or recorded game has nothing left to hide)."""

    hand: int
    move: int
    view: View
    hands: tuple[tuple[Tile, ...], ...]
    event: MoveEvent | None
    result: HandResult | None
    before: tuple[int, ...]


def layouts_move_by_move(played: GameState) -> list[dict[str, Any]]:
    """The public layout (as a table's clients are sent it) after each move of a hand
    that has been played: the hand dealt again and played move by move."""
    spec = find_game(played.game)
    dealt = played.dealt
    state = spec.from_deal(played.options, dealt.hands, dealt.stock, dealt.voided, played.context)
    layouts: list[dict[str, Any]] = []
    for event in played.history:
        state.play(event.move)
        layouts.append(state.view(SPECTATOR).to_json(history=False)["layout"])
    return layouts


def replay_positions(replayed: Replay) -> list[Position]:
    """Every position of a record: each hand from its deal, one move at a time."""
    positions: list[Position] = []
    spec = replayed.spec
    for number, played in enumerate(replayed.match.hand_states, 1):
        dealt = played.dealt
        state = spec.from_deal(
            replayed.options, dealt.hands, dealt.stock, dealt.voided, played.context
        )
        before = tuple(played.context.scores) or (0,) * state.players
        positions.append(_frame(state, number, 0, None, before))
        for index, event in enumerate(played.history, 1):
            state.play(event.move)
            positions.append(_frame(state, number, index, event, before))
    return positions


def _frame(
    state: GameState, hand: int, move: int, event: MoveEvent | None, before: tuple[int, ...]
) -> Position:
    hands = tuple(state.view(seat).hand for seat in range(state.players))
    return Position(hand, move, state.view(SPECTATOR), hands, event, state.result, before)
