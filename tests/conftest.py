"""Fixtures shared by test files: a server process per test (on the database the test is
parametrized with, SQLite when it is not)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server_helpers import Server, new_database


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Server]:
    """``pips serve`` over a fresh database; ``indirect`` parametrization names its kind."""
    kind = getattr(request, "param", "sqlite")
    running = Server(tmp_path, new_database(kind, tmp_path), grace=60).start()
    try:
        yield running
    finally:
        running.stop()
