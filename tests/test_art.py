"""The layout picture: every laid tile and every open point is drawn, for every game and
option, however narrow the screen (hypothesis over random hands)."""

from __future__ import annotations

import random
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pips.core.moves import At
from pips.games.registry import find_game
from pips.tui.art import draw_picture, plain

CASES: list[tuple[str, dict[str, Any]]] = [
    ("fido", {"players": 3, "set": 6}),
    ("fido", {"players": 5, "set": 12}),
    ("fido", {"players": 4, "set": 9, "doubles_inline": "optional"}),
    ("family", {"players": 3, "doubles_branch": True}),
    ("draw", {"players": 2}),
    ("doubles", {"players": 4}),
    ("doubles", {"players": 3, "spinner": "none"}),
    ("partnership", {}),
]


@settings(max_examples=60, deadline=None)
@given(
    case=st.sampled_from(CASES),
    seed=st.integers(0, 2**20),
    moves=st.integers(0, 80),
    width=st.none() | st.integers(30, 120),
)
def test_every_tile_and_open_point_is_drawn(
    case: tuple[str, dict[str, Any]], seed: int, moves: int, width: int | None
) -> None:
    game, options = case
    spec = find_game(game)
    opts = spec.options_from_json(options)
    state = spec.new_hand(opts, random.Random(seed))
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_over:
            break
        legal = state.legal_moves()
        state.play(legal[rng.randrange(len(legal))])
    layout = state.view(-1).layout
    labels = {p.id: chr(ord("a") + i % 26) for i, p in enumerate(layout.points)}
    text = plain(draw_picture(layout, top=opts.top, labels=labels, max_width=width).lines)
    if not layout.tiles:
        assert "no tile" in text
        return
    # Every open point is one socket with its value and key, ends and sides alike.
    sockets = re.findall(r"‹(\d+):([a-z])›", text)
    expected = sorted((str(p.value), labels[p.id]) for p in layout.points)
    assert sorted(sockets) == expected
    # Every laid tile is drawn once (in line, or upright across), or counted in a mark.
    in_line = len(re.findall(r"\[\s*\d+│\d+\s*\]", text))
    across = text.count("├")
    hidden = sum(int(n) for n in re.findall(r"…(\d+)…", text))
    assert in_line + across + hidden == len(layout.tiles)
    assert sum(t.across for t in layout.tiles) >= across
    if width is None:
        assert hidden == 0
    assert "…0…" not in text
    # A lane begins with its mark and then a tile or a socket, never a gap (the bottom
    # halves of upright doubles, "└6┘", are taken out first).
    marks = re.sub(r"└\s?\d+┘", "", text)
    assert all(rest in "[‹" for rest in re.findall(r"[└┊](.)", marks))
    # An open naked side (F-04) or spinner side (DB-05) starts a side lane of its own.
    sides = [p for p in layout.points if p.kind is At.SIDE]
    assert len(sides) == len(re.findall(r"┊‹", text))
