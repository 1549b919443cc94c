"""Perft for the line games: move-sequence counts and move order pinned in a file.

Generated once with ``python -m tests.test_perft_lines --regenerate`` into
``tests/data/perft_lines.json``; regenerate only for a rule fix and say so in the commit.
Every node is also checked against a brute-force move generator written from SPEC.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from pips.core.moves import Draw, Move, Pass, Play
from pips.games.common import HandState
from pips.games.match import Match
from pips.games.registry import find_game
from tests.helpers import perft, walk

PINNED = Path(__file__).parent / "data" / "perft_lines.json"

POSITIONS: list[dict[str, Any]] = [
    {"name": "family-3p-start", "game": "family", "options": {"players": 3}, "prefix": 0},
    {
        "name": "family-4p-branching-mid",
        "game": "family",
        "options": {"players": 4, "doubles_branch": True},
        "prefix": 6,
    },
    {"name": "draw-2p-start", "game": "draw", "options": {"players": 2}, "prefix": 0},
    {"name": "draw-3p-mid", "game": "draw", "options": {"players": 3}, "prefix": 4},
    {"name": "doubles-3p-spinner", "game": "doubles", "options": {"players": 3}, "prefix": 3},
    {
        "name": "doubles-4p-no-spinner-no-draw",
        "game": "doubles",
        "options": {"players": 4, "spinner": "none", "draw_rule": "no_draw"},
        "prefix": 1,
    },
    {"name": "partnership-start", "game": "partnership", "options": {}, "prefix": 0},
    {
        "name": "partnership-mid-penalize",
        "game": "partnership",
        "options": {"teams": "fixed", "false_knock": "penalize"},
        "prefix": 9,
    },
]
DEPTH = 7


def position(spec: dict[str, Any]) -> HandState:
    game = find_game(spec["game"])
    match = Match(game, game.options_from_json(spec["options"]), random.Random(11))
    rng = random.Random(12)
    for _ in range(spec["prefix"]):
        match.play(rng.choice(match.legal_moves()))
    state = match.current
    assert isinstance(state, HandState)
    return state


def measure(spec: dict[str, Any]) -> dict[str, Any]:
    state = position(spec)
    return {
        "counts": [perft(state, d) for d in range(1, DEPTH + 1)],
        "legal_moves": [str(m) for m in state.legal_moves()],
    }


def brute_force(state: HandState) -> set[Move]:
    """The legal moves by SPEC, tile by tile and point by point."""
    seat = state.turn
    hand = list(state.hands[seat])
    if not state.layout.tiles:
        return set(state.legal_moves())  # the opening rules have their own tests
    aside = state.set_aside[seat]
    usable = [t for t in hand if t not in aside] if len(aside) < len(hand) else hand
    plays: set[Move] = set()
    for point in state.layout.points:
        for tile in usable:
            if not tile.contains(point.value):
                continue
            if (
                state.game == "doubles"
                and not state.layout.contains_double(point.value)
                and not tile.is_double
            ):
                continue  # DB-06
            plays.add(Play(tile, point.value, point.kind, point.id))
    if plays:
        return plays
    if state.stock_size and state.draw_rule.value != "none":
        return {Draw()}
    return {Pass()}


@pytest.mark.parametrize("spec", POSITIONS, ids=[p["name"] for p in POSITIONS])
def test_perft_counts_and_move_order_are_pinned(spec: dict[str, Any]) -> None:
    assert measure(spec) == json.loads(PINNED.read_text())[spec["name"]]


@pytest.mark.parametrize("spec", POSITIONS, ids=[p["name"] for p in POSITIONS])
def test_legal_moves_agree_with_a_brute_force_generator(spec: dict[str, Any]) -> None:
    state = position(spec)
    assert walk(state, 3, brute_force) >= 1


if __name__ == "__main__" and sys.argv[1:] == ["--regenerate"]:
    PINNED.write_text(json.dumps({p["name"]: measure(p) for p in POSITIONS}, indent=1) + "\n")
    print(f"wrote {PINNED}")
