"""What the owner of a table says to a client connected at another process is the table
protocol's (issue 54): the refusal of a private table is the protocol's ``error``, as a
client connected at the owner is told, not a dict of its own. Runs one process's
cluster without a broker: its publishing is caught."""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from pips.games.registry import find_game
from pips.server.accounts.identity import Identity
from pips.server.cluster import Cluster
from pips.server.limits import Limits
from pips.server.round import ForAnyone, ForCreator
from pips.server.settings import Settings
from pips.server.tables import Tables
from pips.store.db import Database
from tests.protocol_schema import check_server_message


def test_a_forwarded_client_refused_a_private_table_is_told_in_the_protocol(
    tmp_path: Path,
) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []

    async def scene() -> None:
        defaults = Settings()
        db = Database(f"sqlite:///{tmp_path / 'p.db'}")
        tables = Tables(db, bot_delay=3600, grace=defaults.grace, unattended=defaults.unattended)
        db.upgrade()
        owner = Identity(guest="g-1", name="Ann")
        table = await tables.create(
            find_game("draw"),
            find_game("draw").options_from_json({"players": 2}),
            [ForCreator(), ForAnyone()],
            owner,
            private=True,
            seed=3,
        )
        cluster = Cluster(tables, db, Limits(), lease=10.0, node="owner")

        async def send_to_node(node: str, message: dict[str, Any]) -> bool:
            sent.append((node, message))
            return True

        cluster.send_to_node = send_to_node  # type: ignore[method-assign]
        stranger = Identity(guest="g-2", name="Bo")
        await cluster._on_arrive(
            {
                "conn": "c-1",
                "node": "elsewhere",
                "table": table.id,
                "who": asdict(stranger),
                "invite": "",  # not the table's invitation
                "language": "de",
            }
        )
        await table.close()

    asyncio.run(scene())
    texts = [m for node, m in sent if node == "elsewhere" and m["op"] == "text"]
    closes = [m["code"] for node, m in sent if m["op"] == "close"]
    assert len(texts) == 1 and closes == [4404]
    told = json.loads(texts[0]["text"])
    check_server_message(told)
    assert told["type"] == "error" and told["code"] == "not_found"
    assert told["message"] == "diesen Tisch gibt es nicht"  # said in the client's language
