"""What a table tells its clients: the lobby's summary of a table, the state message
each seat is sent (its own view only, C-06), how a finished hand ended, the running
match sheet and the moves so far in words. The round returns what happened (a
:class:`~pips.core.view.MoveEvent` in a :class:`~pips.server.round.Played`); every
message is made here, at the edge, read from the
:class:`~pips.server.round.Round` without changing it."""

from __future__ import annotations

from functools import lru_cache

from pips.core.legal import distinct
from pips.core.phrase import phrase
from pips.core.view import SPECTATOR, MoveEvent, move_to_json
from pips.display import describe_event, hand_order, hand_sheet, match_outcome, sheet_table
from pips.games.options import GameOptions
from pips.games.registry import Game
from pips.games.traits import DrawRule
from pips.server import messages
from pips.server.round import Round


def face(spec: Game, options: GameOptions) -> messages.Face:
    """What a client needs to know of the game's face: whether there is a stock, and
    the word for passing."""
    return {
        "stock": spec.traits(options).draw is not DrawRule.NONE,
        "pass_word": spec.pass_word.capitalize(),
    }


def summary(
    game_round: Round,
    table_id: str,
    private: bool,
    turn_seconds: int | None,
    away: frozenset[int] = frozenset(),
) -> messages.TableSummary:
    """What the lobby and the API show of a table (no hidden information);
    ``away``: the entrants whose person has no connection."""
    match = game_round.match
    return {
        "id": table_id,
        "game": game_round.spec.name,
        "title": phrase(game_round.spec.title),
        "options": game_round.options.to_json(),
        "status": game_round.status,  # type: ignore[typeddict-item]
        "private": private,
        "seats": [
            {
                "kind": s.kind,
                "name": s.name,
                "bot": s.bot,
                "away": i in away,
                # A bot plays this person's seat while they are away.
                "stand_in": s.taken_over,
                # An open seat kept for one person (named): a rematch's.
                "kept": s.kept,
            }
            for i, s in enumerate(game_round.entrants)
        ],
        "scores": None if match is None else list(match.scores),
        "pairs": game_round.spec.pairs,
        "face": face(game_round.spec, game_round.options),
        "turn_seconds": turn_seconds,
        "practice": game_round.practice,
        "seed": game_round.seed,
        "hints": game_round.hints,
    }


def shared_part(game_round: Round, summary: messages.TableSummary) -> messages.SharedState:
    """What every seat's state message has in common (public)."""
    shared: messages.SharedState = {
        "v": messages.VERSION,
        "type": "state",
        "table": summary,
        "names": game_round.names(),
        "moves_made": game_round.moves_made,
    }
    match = game_round.match
    if match is not None:
        finished = just_finished(game_round)
        if finished is not None:
            shared["hand_over"] = hand_over(game_round, finished)
        shared["hands"] = match_sheet(game_round)
        commitment = game_round.commitment()
        if commitment is not None:
            shared["commitment"] = commitment
        result = match.result
        shared["match"] = {
            "scores": list(match.scores),
            "target": match.target,
            "over": match.is_over,
            "result": None if result is None else result.to_json(),
            "outcome": None
            if result is None
            else match_outcome(
                game_round.spec.name, result.final, result.ranks, game_round.names()
            ),
        }
    return shared


def just_finished(game_round: Round) -> int | None:
    """The index of the hand that has just ended: the last one of a match that is
    over, or the one before a next hand nobody has moved in yet. Between those
    moments every seat is shown how it ended (all hands are face up by then)."""
    match = game_round.match
    if match is None or not match.hand_states:
        return None
    if match.current.result is not None:
        return len(match.hand_states) - 1
    if len(match.hand_states) > 1 and not match.current.history:
        return len(match.hand_states) - 2
    return None


def hand_over(game_round: Round, index: int) -> messages.HandEnd:
    """How hand ``index`` ended, for every seat alike: the last move, every hand
    face up, the layout as it was left and the sheet with the arithmetic in words."""
    match = game_round.match
    assert match is not None
    state = match.hand_states[index]
    assert state.result is not None
    names = game_round.names()
    table = sheet_table(hand_sheet(state, names), names)
    last = state.history[-1] if state.history else None
    return {
        "hand": index + 1,
        "ended": state.result.ended.value,
        "out": state.result.out,
        "said": "" if last is None else said(game_round, last.seen_by(SPECTATOR)),
        "last": None if last is None else messages.event_json(last.seen_by(SPECTATOR)),
        "hands": [[t.to_json() for t in state.view(s).hand] for s in range(state.players)],
        "layout": state.view(SPECTATOR).to_json(history=False)["layout"],
        "sheet": table.to_json(),  # type: ignore[typeddict-item]
        "scores": list(state.result.final),
        "match_over": match.is_over and index == len(match.hand_states) - 1,
    }


def match_sheet(game_round: Round) -> list[messages.HandLine]:
    """The running match sheet: every finished hand, what it gave each seat and the
    totals after it."""
    match = game_round.match
    assert match is not None
    lines: list[messages.HandLine] = []
    for number, state in enumerate(match.hand_states, 1):
        if state.result is None:
            continue
        before = tuple(state.context.scores) or (0,) * state.players
        lines.append(
            {
                "hand": number,
                "ended": state.result.ended.value,
                "out": state.result.out,
                "change": [f - b for f, b in zip(state.result.final, before, strict=True)],
                "totals": list(state.result.final),
            }
        )
    return lines


def log(game_round: Round, seat: int) -> list[str]:
    """The current hand's moves so far as ``seat`` may see them, in words."""
    match = game_round.match
    if match is None:
        return []
    names = game_round.names()
    return [
        describe_event(event, names, game_round.spec.name)
        for event in match.current.view(seat).history
    ]


def hint(game_round: Round, seat: int) -> messages.Hint:
    """The hint message for ``seat`` at its turn (:meth:`Round.advice`, refused with
    :class:`~pips.server.round.TableError` where no hint is given)."""
    move, reasons = game_round.advice(seat)
    return {
        "v": messages.VERSION,
        "type": "hint",
        # The wire names a move by its number in the list the seat was sent.
        "move": list(game_round.offered()).index(move),
        "moves_made": game_round.moves_made,
        "reasons": list(reasons),
    }


def said(game_round: Round, event: MoveEvent) -> str:
    return _said(event, tuple(game_round.names()), game_round.spec.name)


@lru_cache(maxsize=64)
def _said(event: MoveEvent, names: tuple[str, ...], game: str) -> str:
    # A move reads the same to every seat but the mover (a drawn tile is hidden):
    # the words are made once per way of seeing it, for every client of the table.
    return describe_event(event, names, game)


def message_for(
    game_round: Round,
    seat: int,
    shared: messages.SharedState,
    event: MoveEvent | None = None,
    *,
    history: bool = False,
) -> messages.StateMessage:
    """The state message for one seat (or a spectator): its own view only; with
    ``history`` the view keeps the hand's moves as the seat saw them (a bot's game
    stream, whose engine reads them as the external-bot protocol gives them)."""
    message: messages.StateMessage = {**shared, "seat": seat}  # type: ignore[typeddict-item]
    match = game_round.match
    if match is None:
        return message
    view = match.current.view(seat)
    # The moves so far are not repeated in every message: ``event`` carries the
    # newest, and the finished record all of them.
    message["view"] = view.to_json(history=history)
    if seat >= 0:
        message["hand_order"] = [t.to_json() for t in hand_order(view)]
    if event is not None:
        seen = event.seen_by(seat)
        message["event"] = messages.event_json(seen)
        message["said"] = said(game_round, seen)
    if (
        seat >= 0
        and match.current_seat == seat
        and game_round.status == "playing"
        and not game_round.is_bot(seat)  # a stand-in's turn is not the person's yet
    ):
        legal = game_round.offered()
        message["legal"] = [move_to_json(seat, m) for m in legal]
        message["choices"] = distinct(legal)
    return message
