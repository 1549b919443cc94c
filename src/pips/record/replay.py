"""Reading a record back: every move replayed through the engine, every deal checked
against its seed or its commitment, every claimed result against the rules'
(docs/record-format.md)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pips.core.deal import Deal, check_partition
from pips.core.errors import RuleError
from pips.core.fairness import SCHEME, deal_commitment
from pips.core.lots import LotDraw, LotRule, Lots, draw_lots, replay_lots
from pips.core.moves import At, Draw, Misdeal, Move, Pass, Play
from pips.core.phrase import phrase
from pips.core.tiles import Tile
from pips.games.match import Match
from pips.games.options import GameOptions
from pips.games.registry import Game, GameState, find_game
from pips.i18n import reason
from pips.record.format import FORMAT, RecordError


@dataclass
class Replay:
    """A record replayed: the game, the options, the names and the match."""

    spec: Game
    options: GameOptions
    seats: list[str]
    match: Match
    seed: int | None = None
    bots: list[str | None] | None = None
    stand_ins: list[dict[str, Any]] = field(default_factory=list)
    """Runs of moves a bot made for an absent person (the record's ``stand_ins``)."""

    @property
    def states(self) -> list[GameState]:
        """Every hand, as it stands at the end of the record."""
        return self.match.hand_states

    @property
    def final(self) -> GameState:
        return self.match.current


def _tile(value: Any, where: str) -> Tile:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise RecordError(
            phrase(
                "{where}: a tile is written [a, b], got {value}",
                where=where,
                value=json.dumps(value),
            ),
            rule="C-01",
        )
    try:
        return Tile.of(value[0], value[1])
    except ValueError as exc:
        raise RecordError(phrase("{where}: {exc}", where=where, exc=reason(exc))) from None


def _tiles(value: Any, where: str) -> list[Tile]:
    if not isinstance(value, list):
        raise RecordError(phrase("{where} must be a list of tiles", where=where))
    return [_tile(v, where) for v in value]


def move_from_json(data: Any, state: Any) -> Move:
    """A move in the record's words (as :func:`pips.core.view.move_to_json` writes it)
    for the hand ``state``; :class:`RecordError` when it is malformed. Whether it is
    legal is for the engine to say."""
    if not isinstance(data, dict):
        raise RecordError(phrase("a move is an object"))
    kinds = [k for k in ("play", "draw", "pass", "misdeal") if k in data]
    if len(kinds) != 1:
        raise RecordError(phrase("a move has exactly one of play, draw, pass, misdeal"))
    kind = kinds[0]
    if kind == "misdeal":
        body = data["misdeal"]
        if not isinstance(body, dict) or not isinstance(data.get("seat"), int):
            raise RecordError(
                phrase('a misdeal is {{"seat": s, "misdeal": {{"returned", "drawn"}}}}')
            )
        return Misdeal(
            data["seat"],
            tuple(_tiles(body.get("returned", []), "returned")),
            tuple(_tiles(body.get("drawn", []), "drawn")),
        )
    if kind == "pass":
        if data["pass"] is not True:
            raise RecordError(phrase('a pass is written "pass": true'))
        return Pass()
    if kind == "draw":
        return Draw(None if data["draw"] is None else _tile(data["draw"], "draw"))
    halves = data["play"]
    if (
        not isinstance(halves, list)
        or len(halves) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in halves)
    ):
        raise RecordError(phrase("a play is written [touching, open]"), rule="C-01")
    tile = _tile(halves, "play")
    touching = halves[0]
    try:
        at = At(str(data.get("at")))
    except ValueError:
        raise RecordError(
            phrase('"at" must be open, end or side, not {value!r}', value=data.get("at"))
        ) from None
    inline = data.get("inline", False)
    if not isinstance(inline, bool):
        raise RecordError(phrase('"inline" is true or false'))
    if at is At.OPEN:
        return Play(tile, touching, at, -1, inline)
    end = data.get("end")
    if end is None:
        # A hand-written record may leave the point out: any point of that value and
        # kind is the same for the rules (F-04); take the oldest.
        ids = (
            state.layout.ends_with(touching) if at is At.END else state.layout.sides_with(touching)
        )
        end = ids[0] if ids else -1
    if not isinstance(end, int) or isinstance(end, bool):
        raise RecordError(phrase('"end" is the id of an open point'))
    return Play(tile, touching, at, end, inline)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _lots(record: Mapping[str, Any], spec: Game, options: GameOptions) -> Lots | None:
    """The record's lots, checked against the lot procedure (DB-01, PT-01)."""
    rule = spec.lots(options)
    data = record.get("lots")
    if rule is None:
        if data is not None:
            raise RecordError(
                phrase("a {name} game with these options draws no lots", name=spec.name)
            )
        return None
    lot_rule = "DB-01" if rule is LotRule.FIRST_PLAYER else "PT-01"
    if not isinstance(data, dict) or not isinstance(data.get("draws"), list):
        raise RecordError(
            phrase('the seats were drawn by lot: "lots" must give the draws'), rule=lot_rule
        )
    draws = []
    for item in data["draws"]:
        if not isinstance(item, list) or len(item) != 2 or not _int(item[0]):
            raise RecordError(phrase("a lot is written [entrant, [a, b]]"))
        draws.append(LotDraw(item[0], _tile(item[1], "lots")))
    try:
        lots = replay_lots(options.players, rule, draws)
    except ValueError as exc:
        raise RecordError(phrase("lots: {exc}", exc=reason(exc)), rule=lot_rule) from None
    if data.get("seating") != list(lots.seating):
        raise RecordError(
            phrase("lots: the draws seat the entrants {value}", value=list(lots.seating)),
            rule=lot_rule,
        )
    return lots


def replay(record: Mapping[str, Any]) -> Replay:
    """Replay a record through the engine; :class:`RecordError` at the first fault."""
    if not isinstance(record, Mapping):
        raise RecordError(phrase("a record is a JSON object"))
    if record.get("format") != FORMAT:
        raise RecordError(
            phrase(
                "format must be {FORMAT!r}, not {value!r}",
                FORMAT=FORMAT,
                value=record.get("format"),
            )
        )
    try:
        spec = find_game(str(record.get("game")))
    except RuleError as exc:
        raise RecordError(str(exc)) from None
    raw_options = record.get("options")
    if not isinstance(raw_options, dict):
        raise RecordError(phrase("options must be an object"))
    try:
        options = spec.options_from_json(raw_options)
    except (RuleError, TypeError) as exc:
        raise RecordError(phrase("options: {exc}", exc=reason(exc))) from None
    seats = record.get("seats")
    if (
        not isinstance(seats, list)
        or not all(isinstance(s, str) for s in seats)
        or len(seats) != options.players
    ):
        raise RecordError(phrase("seats must list {players} names", players=options.players))
    hands = record.get("hands")
    if not isinstance(hands, list) or not hands:
        raise RecordError(phrase("hands must list the hands played"))
    if spec.target(options) is None and len(hands) != 1:
        raise RecordError(phrase("a {name} game with these options is one hand", name=spec.name))
    seed = record.get("seed")
    if seed is not None and not _int(seed):
        raise RecordError(phrase("seed must be an integer"))
    bots = record.get("bots")
    if bots is not None and (
        not isinstance(bots, list)
        or len(bots) != options.players
        or not all(b is None or isinstance(b, str) for b in bots)
    ):
        raise RecordError(
            phrase("bots must list {players} bot names or nulls", players=options.players)
        )

    scheme = record.get("commitments")
    if scheme is not None and scheme != SCHEME:
        raise RecordError(
            phrase(
                "unknown commitment scheme {scheme!r}; this pips checks {SCHEME!r}",
                scheme=scheme,
                SCHEME=SCHEME,
            )
        )
    lots = _lots(record, spec, options)
    match = Match(spec, options, lots=lots)
    # A seeded match is dealt from one stream: the lots first, then hand after hand.
    dealer = None
    if seed is not None and getattr(options, "deal_mode", "automatic") == "automatic":
        dealer = random.Random(seed)
        rule = spec.lots(options)
        if rule is not None and draw_lots(options.players, rule, options.top, dealer) != lots:
            raise RecordError(
                phrase("the lots are not the ones seed {seed} gives", seed=seed), rule="C-06"
            )
    for number, hand in enumerate(hands, 1):
        if scheme is not None or (isinstance(hand, dict) and "commitment" in hand):
            if not isinstance(hand, dict):
                raise RecordError(phrase("a hand is an object"), hand=number)
            _check_commitment(hand, number)
        _replay_hand(match, dealer, hand, number, seed)
    result = record.get("result")
    if result is not None:
        actual = match.result
        if actual is None:
            raise RecordError(
                phrase("the record has a result but the game is not over"),
                hand=len(hands),
                rule="C-09",
            )
        _check_result(result, actual.to_json(), None)
    stand_ins = _stand_ins(record.get("stand_ins", []), match)
    return Replay(spec, options, list(seats), match, seed, bots, stand_ins)


def _stand_ins(value: Any, match: Match) -> list[dict[str, Any]]:
    """The record's ``stand_ins``, checked against the game: each names a seat, a bot,
    a hand and the first and last of that hand's moves, all of them the seat's."""
    wrong = RecordError(
        phrase(
            "stand_ins must list objects of seat, bot, hand and moves [first, last]"
            " that the seat made in that hand"
        )
    )
    if not isinstance(value, list):
        raise wrong
    runs: list[dict[str, Any]] = []
    for run in value:
        if not isinstance(run, dict) or set(run) != {"seat", "bot", "hand", "moves"}:
            raise wrong
        seat, bot, hand, moves = run["seat"], run["bot"], run["hand"], run["moves"]
        if not (_int(seat) and _int(hand) and isinstance(bot, str) and 0 < len(bot) <= 40):
            raise wrong
        if not (isinstance(moves, list) and len(moves) == 2 and all(_int(m) for m in moves)):
            raise wrong
        if not (0 <= seat < match.players and 1 <= hand <= len(match.hand_states)):
            raise wrong
        history = match.hand_states[hand - 1].history
        first, last = moves
        if not 1 <= first <= last <= len(history):
            raise wrong
        if history[first - 1].seat != seat or history[last - 1].seat != seat:
            raise wrong
        runs.append({"seat": seat, "bot": bot, "hand": hand, "moves": [first, last]})
    return runs


def _replay_hand(
    match: Match, dealer: random.Random | None, hand: Any, number: int, seed: int | None
) -> None:
    if not isinstance(hand, dict):
        raise RecordError(phrase("a hand is an object"), hand=number)
    deal = hand.get("deal")
    if not isinstance(deal, list):
        raise RecordError(phrase("deal must list each seat's tiles"), hand=number)
    hands = [_tiles(h, f"deal of seat {i}") for i, h in enumerate(deal)]
    stock = _tiles(hand.get("stock"), "stock") if hand.get("stock") is not None else None
    redeals = hand.get("redeals", [])
    if not isinstance(redeals, list) or not all(isinstance(r, dict) for r in redeals):
        raise RecordError(phrase("redeals must be a list of {{deal, stock}}"), hand=number)
    voided = [
        (
            [_tiles(h, "redeal") for h in r.get("deal", [])],
            _tiles(r.get("stock", []), "redeal stock"),
        )
        for r in redeals
    ]
    for void_hands, void_stock in voided:
        # A deal is thrown in only when the rules say so (no double, five doubles ...):
        # the engine must refuse to start it.
        check = match.spec.from_deal
        try:
            check_partition(match.options.top, void_hands, void_stock, "C-06")
            check(match.options, void_hands, void_stock)
        except RuleError as exc:
            if exc.rule == "C-06":
                raise RecordError(
                    phrase("a thrown-in deal: {detail}", detail=exc.detail), hand=number
                ) from None
            continue
        raise RecordError(
            phrase("a deal was thrown in that could be played"), hand=number, rule="C-06"
        )
    try:
        state = match.add_hand(hands, stock, voided)
    except RuleError as exc:
        raise RecordError(exc.detail, hand=number, rule=exc.rule) from None
    if dealer is not None:
        # An automatic deal from a seed can be checked: the shuffle is reproducible.
        expected = match.spec.deal(match.options, dealer)
        if expected != Deal.of(hands, stock or [], voided):
            raise RecordError(
                phrase("the deal is not the one seed {seed} gives", seed=seed),
                hand=number,
                rule="C-06",
            )
    moves = hand.get("moves")
    if not isinstance(moves, list):
        raise RecordError(phrase("moves must be a list"), hand=number)
    for index, data in enumerate(moves, 1):
        try:
            move = move_from_json(data, state)
        except RecordError as exc:
            raise RecordError(str(exc), hand=number, move=index, rule=exc.rule) from None
        turn = state.current_seat
        if not isinstance(move, Misdeal) and turn is not None and data.get("seat") != turn:
            raise RecordError(
                phrase(
                    "seat {value} moves, but it is seat {turn}'s turn",
                    value=data.get("seat"),
                    turn=turn,
                ),
                hand=number,
                move=index,
                rule="C-05",
            )
        try:
            event = match.play(move)
        except RuleError as exc:
            raise RecordError(exc.detail, hand=number, move=index, rule=exc.rule) from None
        if isinstance(move, Play):
            for key, actual in (("points", event.points), ("count", event.layout_count)):
                if key in data and data[key] != actual:
                    raise RecordError(
                        phrase(
                            "{key} {value} should be {actual}",
                            key=key,
                            value=data[key],
                            actual=actual,
                        ),
                        hand=number,
                        move=index,
                        rule="F-15",
                    )
        if "set_aside" in data:
            written = _tiles(data["set_aside"], "set_aside")
            if sorted(written) != sorted(event.set_aside):
                shown = " ".join(map(str, event.set_aside)) or "nothing"
                raise RecordError(
                    phrase("the knock sets aside {shown}", shown=shown),
                    hand=number,
                    move=index,
                    rule="PT-08",
                )
    result = hand.get("result")
    if result is not None:
        if state.result is None:
            raise RecordError(
                phrase("the hand has a result but is not over"), hand=number, rule="C-09"
            )
        _check_result(result, state.result.to_json(), number)


def _check_commitment(hand: Mapping[str, Any], number: int) -> None:
    """The deal is the one committed to at the deal: SHA-256 of the revealed salt and the
    deal must give the commitment every seat was sent."""
    salt, committed = hand.get("salt"), hand.get("commitment")
    if not isinstance(salt, str) or not isinstance(committed, str):
        raise RecordError(phrase("a committed deal has a salt and a commitment (hex)"), hand=number)
    if deal_commitment(salt, hand) != committed:
        raise RecordError(
            phrase("the deal is not the one committed to before the first move"), hand=number
        )


def _check_result(claimed: Any, actual: Mapping[str, Any], hand: int | None) -> None:
    """A result written in a record must say what the replay says, field by field."""
    if not isinstance(claimed, dict):
        raise RecordError(phrase("a result is an object"), hand=hand)
    for key, value in claimed.items():
        if key not in actual:
            raise RecordError(phrase("unknown result field {key!r}", key=key), hand=hand)
        if actual[key] != value:
            raise RecordError(
                phrase(
                    "result {key} {value} should be {value2}",
                    key=key,
                    value=value,
                    value2=actual[key],
                ),
                hand=hand,
                rule="F-21",
            )
