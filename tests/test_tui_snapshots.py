"""Snapshots of the table as the terminal client draws it, one per layout kind.

Each position is reached by playing a seeded match by key presses, so a snapshot pins
both the play and the drawing. After a deliberate change to the drawing, rewrite them
with ``PIPS_UPDATE_SNAPSHOTS=1 pytest tests/test_tui_snapshots.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from pips.tui.app import PlayApp
from tests.test_tui import new_session, play_out, run_app, settle, text_of

SNAPSHOTS = Path(__file__).parent / "snapshots"

KINDS: dict[str, tuple[str, dict[str, Any], int, tuple[int, int]]] = {
    # name: (game, options, turns of the person to play first, terminal size)
    "fido-cross": ("fido", {"players": 4, "set": 9}, 5, (120, 44)),
    "family-line": ("family", {"players": 3}, 3, (120, 44)),
    "family-branching": ("family", {"players": 3, "doubles_branch": True}, 3, (120, 44)),
    "doubles-spinner": ("doubles", {"players": 3}, 5, (120, 44)),
    "doubles-no-spinner": ("doubles", {"players": 3, "spinner": "none"}, 5, (120, 44)),
    "fido-cross-narrow": ("fido", {"players": 4, "set": 9}, 8, (64, 60)),
    "partnership-line-narrow": ("partnership", {}, 5, (60, 44)),
}


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(KINDS))
def test_the_table_of_each_layout_kind(tmp_path: Path, kind: str) -> None:
    game, options, turns, size = KINDS[kind]
    session = new_session(tmp_path, game, seed=11, options=options)
    app = PlayApp(session, delay=0)
    pictures: list[str] = []

    async def script(pilot: Pilot[object]) -> None:
        await pilot.resize_terminal(*size)
        await play_out(pilot, session, stop_after=turns)
        await settle(pilot, session)
        pictures.append(text_of(app, "#table").rstrip() + "\n")

    run_app(app, script)
    path = SNAPSHOTS / f"table-{kind}.txt"
    if os.environ.get("PIPS_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(pictures[0], encoding="utf-8")
    assert pictures[0] == path.read_text(encoding="utf-8")
