"""JSON bodies say what they mean (review lows a and b): ``true`` is no round count,
``1`` no ``true``, ``2.0`` or ``"2"`` no whole number; an event's name is bounded as
the service keeps it (80 characters), refused as ``body.name``. Forms stay lax: they
send only text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.in_process import InProcess
from tests.server_helpers import Browser

EVENT = {"name": "Kieler Abend", "game": "fido", "date": "10.10.2026", "rounds": 3}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcess]:
    with InProcess(tmp_path_factory.mktemp("strict")) as app:
        yield app


@pytest.fixture(scope="module")
def anna(server: InProcess) -> Browser:
    person = Browser(server)
    assert person.form("/register", name="Anna", password="password-1").status_code == 303
    return person


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("rounds", True),
        ("rounds", "2"),
        ("rounds", 2.0),
        ("online", 1),
        ("online", "true"),
        ("counted", 2.0),
        ("name", "x" * 81),
    ],
)
def test_an_event_body_of_loose_types_is_refused_by_field(
    anna: Browser, field: str, value: Any
) -> None:
    response = anna.post("/api/events", {**EVENT, field: value})
    assert response.status_code == 422, response.text
    assert response.json()["field"] == f"body.{field}", response.text


def test_a_challenge_turn_timer_is_no_boolean(server: InProcess) -> None:
    ben = Browser(server)
    assert ben.form("/register", name="Ben", password="password-1").status_code == 303
    response = ben.post("/api/challenge/nobody", {"game": "draw", "turn_seconds": True})
    assert response.status_code == 422, response.text
    assert response.json()["field"] == "body.turn_seconds", response.text
    # Refused as no whole number, not as the one second true was read as before.
    from pydantic import ValidationError

    from pips.server.routes.challenges import NewChallenge

    with pytest.raises(ValidationError) as refused:
        NewChallenge.model_validate({"game": "draw", "turn_seconds": True})
    assert refused.value.errors()[0]["type"] == "int_type"
