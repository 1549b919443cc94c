"""The websocket protocol's version is the number 1 (docs/server.md): JSON's ``true``
and ``1.0`` equal 1 in Python and were taken for it (hostile review)."""

from __future__ import annotations

import json

import pytest

from pips.server.messages import MoveMessage, ProtocolError, parse


@pytest.mark.parametrize("version", [True, 1.0, "1", 2, None])
def test_a_message_of_any_other_version_is_refused(version: object) -> None:
    with pytest.raises(ProtocolError):
        parse(json.dumps({"v": version, "type": "ping"}))


def test_a_message_of_version_1_is_read() -> None:
    assert parse(json.dumps({"v": 1, "type": "move", "move": 0, "moves_made": 3})) == (
        MoveMessage(v=1, type="move", move=0, moves_made=3)
    )
