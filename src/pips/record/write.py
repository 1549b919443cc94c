"""Writing records: a match (or a hand) as one JSON document, with its deals, moves,
results and, for a public table, each deal's commitment and salt; files of records
saved and loaded as JSON Lines."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pips import __version__, files
from pips.core.fairness import SCHEME, deal_commitment
from pips.core.phrase import phrase
from pips.core.tiles import Tile
from pips.core.view import event_to_json
from pips.games.match import Match
from pips.games.registry import GameState, find_game
from pips.record.format import FORMAT, RecordError

# -- writing ---------------------------------------------------------------------------


def _tiles_json(tiles: Sequence[Tile]) -> list[list[int]]:
    return [t.to_json() for t in tiles]


def dealt_json(state: GameState) -> dict[str, Any]:
    """A hand's deal as the record writes it: ``deal``, ``stock`` and, when deals were
    thrown in first, ``redeals`` (what a deal's commitment is made of)."""
    dealt = state.dealt
    hand: dict[str, Any] = {
        "deal": [_tiles_json(h) for h in dealt.hands],
        "stock": _tiles_json(dealt.stock),
    }
    if dealt.voided:
        hand["redeals"] = [
            {"deal": [_tiles_json(h) for h in d], "stock": _tiles_json(s)} for d, s in dealt.voided
        ]
    return hand


def _hand_json(state: GameState, salt: str | None = None) -> dict[str, Any]:
    hand = dealt_json(state)
    if salt is not None:
        hand["salt"] = salt
        hand["commitment"] = deal_commitment(salt, hand)
    hand["moves"] = [event_to_json(e) for e in state.history]
    if state.result is not None:
        hand["result"] = state.result.to_json()
    return hand


def write_record(
    game: Match | GameState,
    seats: Sequence[str],
    *,
    seed: int | None = None,
    played_at: datetime | None = None,
    bots: Sequence[str | None] | None = None,
    salts: Sequence[str] | None = None,
    stand_ins: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The record of a match (or of a single hand) in ``pips.record/1`` form.

    ``seats`` are the players' names in seat order; ``bots`` (optional) names the bot
    that played each seat, ``None`` for a person, so an unfinished game can be resumed
    with the same bots. ``salts`` (a server's unpredictable deals, one per hand) reveals
    each deal's salt and writes its commitment beside it
    (:func:`pips.core.fairness.deal_commitment`). ``stand_ins`` are the runs of moves a
    bot made for a person who was away (a server's ``Round.stand_ins_json``). The game
    may be unfinished: the
    record then has no ``result`` yet and can be continued later.
    """
    match = game if isinstance(game, Match) else Match.of_hand(find_game(game.game), game)
    if len(seats) != match.players:
        raise ValueError(f"{len(seats)} seat names for {match.players} players")
    record: dict[str, Any] = {
        "format": FORMAT,
        "game": match.spec.name,
        "options": match.options.to_json(),
        "seats": list(seats),
    }
    if bots is not None:
        if len(bots) != match.players:
            raise ValueError(f"{len(bots)} bots for {match.players} players")
        record["bots"] = list(bots)
    if stand_ins:
        record["stand_ins"] = [dict(run) for run in stand_ins]
    if seed is not None:
        record["seed"] = seed
    record["played_at"] = (played_at or datetime.now(UTC)).isoformat(timespec="seconds")
    record["generator"] = f"pips {__version__}"
    if match.lots is not None:
        record["lots"] = match.lots.to_json()
    if salts is not None:
        if len(salts) < len(match.hand_states):
            raise ValueError(f"{len(salts)} salts for {len(match.hand_states)} hands")
        record["commitments"] = SCHEME
    record["hands"] = [
        _hand_json(h, None if salts is None else salts[i]) for i, h in enumerate(match.hand_states)
    ]
    result = match.result
    if result is not None:
        record["result"] = result.to_json()
    return record


def dumps(record: Mapping[str, Any]) -> str:
    """One record as one line of JSON (JSON Lines friendly)."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def save(records: Sequence[Mapping[str, Any]], path: Path) -> None:
    """Write records to ``path``: one JSON document, or JSON Lines for ``.jsonl``."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        if path.suffix == ".jsonl":
            for record in records:
                out.write(dumps(record) + "\n")
        else:
            if len(records) != 1:
                raise ValueError("a .json file holds one record; use .jsonl for several")
            json.dump(records[0], out, indent=1, ensure_ascii=False)
            out.write("\n")
    tmp.replace(path)  # never leave a half-written record behind


# -- reading ---------------------------------------------------------------------------


def load(path: Path) -> Iterator[dict[str, Any]]:
    """The records in a file: one JSON document, or JSON Lines; :class:`RecordError`
    for what the file says, :class:`~pips.files.FileProblem` when it cannot be read."""
    text = files.read_text(path)  # a file that cannot be read is no record's fault
    stripped = text.lstrip()
    if not stripped:
        raise RecordError(phrase("{path} is empty", path=path))
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        yield whole
        return
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(
                phrase("line {number} is not JSON: {msg}", number=number, msg=exc.msg)
            ) from None
        if not isinstance(item, dict):
            raise RecordError(phrase("line {number} is not a record object", number=number))
        yield item
