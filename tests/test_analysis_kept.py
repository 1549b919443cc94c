"""A finished game's analysis is kept with its record (issue 51, item 7): after a restart
the server answers it from the database instead of making it again (a double-18 game's
took 30 s)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select, update

from pips.store.db import Database
from pips.store.models import GameTable
from tests.in_thread import ThreadServer
from tests.server_helpers import Browser, bots, wait_for

pytestmark = pytest.mark.process


def test_an_analysis_survives_a_restart(tmp_path: Path) -> None:
    server = ThreadServer(tmp_path, bot_delay=0.0).start()
    try:
        web = Browser(server, "Analytikerin")
        table = web.create("family", {"players": 2, "target": 1}, bots(2), seed=5)
        wait_for(
            lambda: web.http.get(f"/api/tables/{table}").json()["table"]["status"] == "finished",
            timeout=60,
        )
        first = web.http.get(f"/api/records/{table}/analysis", timeout=120)
        assert first.status_code == 200, first.text
        decisions = first.json()["decisions"]
        assert decisions
    finally:
        server.stop()
    db = Database(server.database)
    try:
        with db.session() as session, session.begin():
            kept = session.scalar(select(GameTable.analysis).where(GameTable.id == table))
            assert kept is not None and kept["decisions"] == decisions
            # Marked, to tell the kept analysis from one made again.
            kept["decisions"][0]["loss"] = 99.5
            session.execute(update(GameTable).where(GameTable.id == table).values(analysis=kept))
    finally:
        db.engine.dispose()
    again = ThreadServer(tmp_path, bot_delay=0.0).start()
    try:
        answer = Browser(again).http.get(f"/api/records/{table}/analysis", timeout=120)
        assert answer.status_code == 200, answer.text
        assert answer.json()["decisions"][0]["loss"] == 99.5
    finally:
        again.stop()
