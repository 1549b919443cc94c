"""Perft: the number of legal move sequences from fixed positions, pinned in a file.

The counts and the order of legal moves at each position were generated once with
``python -m tests.test_perft --regenerate`` and are kept in ``tests/data/perft_fido.json``.
An optimisation that changes either changes the rules: regenerate only for a rule fix,
and say so in the commit.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from pips.games.fido import FidoOptions, FidoState
from tests.helpers import brute_force_legal, perft, walk

PINNED = Path(__file__).parent / "data" / "perft_fido.json"

POSITIONS: list[dict[str, Any]] = [
    {
        "name": "d6-4p-start",
        "options": {"players": 4, "set": 6},
        "seed": 1,
        "prefix": 0,
        "depth": 6,
    },
    {"name": "d6-3p-mid", "options": {"players": 3, "set": 6}, "seed": 2, "prefix": 6, "depth": 4},
    {
        "name": "d9-5p-mid-mother-theresa",
        "options": {"players": 5, "set": 9, "mother_theresa": True},
        "seed": 3,
        "prefix": 8,
        "depth": 4,
    },
    {
        "name": "d12-5p-start",
        "options": {"players": 5, "set": 12},
        "seed": 4,
        "prefix": 0,
        "depth": 5,
    },
    {
        "name": "d12-4p-mid-inline-optional",
        "options": {"players": 4, "set": 12, "doubles_inline": "optional"},
        "seed": 5,
        "prefix": 12,
        "depth": 3,
    },
    {
        "name": "d18-9p-mid",
        "options": {"players": 9, "set": 18},
        "seed": 6,
        "prefix": 20,
        "depth": 3,
    },
    {
        "name": "d15-3p-late",
        "options": {"players": 3, "set": 15},
        "seed": 7,
        "prefix": 60,
        "depth": 3,
    },
]


def position(spec: dict[str, Any]) -> FidoState:
    state = FidoState.new_hand(FidoOptions(**spec["options"]), random.Random(spec["seed"]))
    rng = random.Random(spec["seed"])
    for _ in range(spec["prefix"]):
        state.play(rng.choice(state.legal_moves()))
    return state


def measure(spec: dict[str, Any]) -> dict[str, Any]:
    state = position(spec)
    return {
        "counts": [perft(state, d) for d in range(1, spec["depth"] + 1)],
        "legal_moves": [str(m) for m in state.legal_moves()],
        "representative_moves": [str(m) for m in state.representative_moves()],
    }


@pytest.mark.parametrize("spec", POSITIONS, ids=[p["name"] for p in POSITIONS])
def test_perft_counts_and_move_order_are_pinned(spec: dict[str, Any]) -> None:
    pinned = json.loads(PINNED.read_text())[spec["name"]]
    assert measure(spec) == pinned


@pytest.mark.parametrize("spec", POSITIONS, ids=[p["name"] for p in POSITIONS])
def test_legal_moves_agree_with_a_brute_force_generator(spec: dict[str, Any]) -> None:
    assert walk(position(spec), min(spec["depth"], 3), brute_force_legal) > 1


if __name__ == "__main__" and sys.argv[1:] == ["--regenerate"]:
    PINNED.write_text(json.dumps({p["name"]: measure(p) for p in POSITIONS}, indent=1) + "\n")
    print(f"wrote {PINNED}")
