"""Fixtures shared by test files: a server process per test (on the database the test is
parametrized with, SQLite when it is not).

Nothing of the server is imported until a fixture needs it: the rules' tests load no
web framework, database driver or browser library (``tests/test_installs.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.databases import database_urls, migrated_database
from tests.tiers import UNMARKED

if TYPE_CHECKING:
    from tests.in_process import InProcess
    from tests.in_thread import ThreadServer
    from tests.test_results_server import Site


@pytest.fixture(autouse=True)
def _tier(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test not marked ``process`` that starts a server fails (tests/tiers.py)."""
    if request.node.get_closest_marker("process") is None:
        monkeypatch.setenv(UNMARKED, request.node.nodeid)


@pytest.fixture(autouse=True)
def _pages_closed(request: pytest.FixtureRequest) -> Iterator[None]:
    """The pages a test opened in the module's chromium are closed when it ends. Left
    open, every page of the module's earlier tests went on rendering and holding its
    websocket to the end of the module: test_web_table.py cost the machine 171 s of CPU
    for 143 s of its run, chromium most of it."""
    if "browser" not in request.fixturenames:
        yield
        return
    browser = request.getfixturevalue("browser")
    before = list(browser.contexts)  # the module's own (the layout engine's page)
    yield
    for context in browser.contexts:
        if context not in before:
            context.close()


@pytest.fixture
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[ThreadServer]:
    """A server on a port of its own over a fresh database (migrated: the server's own
    migration at its start finds nothing to do), served in a thread of this process
    (tests/in_thread.py); ``indirect`` parametrization names its kind."""
    from tests.in_thread import ThreadServer

    kind = getattr(request, "param", "sqlite")
    running = ThreadServer(tmp_path, migrated_database(kind, tmp_path), grace=60).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module", params=database_urls())
def shared_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ThreadServer]:
    """One server per database (as :func:`server`) for a module's tests that change
    nothing another test reads (each acts as people of its own), so the server starts
    once, not per test."""
    from tests.in_thread import ThreadServer

    home = tmp_path_factory.mktemp("shared")
    running = ThreadServer(home, migrated_database(request.param, home), grace=60).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module", params=database_urls())
def in_process(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[InProcess]:
    """The app in this process, one per database for a module's tests (as
    :func:`shared_server`, where the server's process is incidental: HTTP only)."""
    from tests.in_process import InProcess

    home = tmp_path_factory.mktemp("in-process")
    with InProcess(home, migrated_database(request.param, home)) as app:
        yield app


@pytest.fixture(params=database_urls())
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    """The app in this process over a fresh database of each kind, its clock moved by
    the test (:class:`tests.test_results_server.Site`)."""
    from fastapi.testclient import TestClient

    from tests.test_results_server import Site

    built = Site(migrated_database(request.param, tmp_path))
    with TestClient(built.app):
        yield built
    built.db.dispose()


LONGEST_FIRST = (
    "test_cluster_kills.py",  # 43 s here, up to 155 s on a loaded machine
    "test_web_table.py",
    "test_server.py",
    "test_attacks.py",
    "test_cluster_failover.py",
    "test_api.py",
    "test_tui.py",
    "test_web_events.py",
    "test_attacks_accounts.py",
    "test_results_server.py",
    "test_cluster.py",
    "test_web.py",
    "test_fuzz_server.py",
    "test_results_trust.py",
    "test_proxy.py",
    "test_cluster_workers.py",  # 35 s here, 47 s on a loaded machine
    "test_tui_sizes.py",
    "test_club_evening.py",
    "test_analysis.py",
    "test_attacks_world_list.py",
    "test_web_results.py",
    "test_championship.py",
    "test_events.py",
    "test_layout_engine.py",
    "test_cli_conventions.py",
)
"""The test files that take longest (seconds of a worker, measured with
``pytest --durations=0``: 112 down to 27), started first. The files run in parallel a
file per worker (scripts/test), in the order collected (xdist's reordering by the
number of tests is turned off there: files of many quick tests came first and the long
ones last, and the run ended on one worker's long tail). Longest first, the short files
fill the gaps at the end."""


PROCESS_FIXTURES = frozenset({"server", "shared_server", "behind_a_proxy"})
"""Fixtures that start real processes (``pips serve``, nginx): a test that uses one is
marked ``process``, and ``bash scripts/test --quick`` leaves it out."""

BROWSER_FIXTURES = frozenset({"browser", "engine"})
"""Fixtures that start chromium (through playwright): a test that uses one is marked
``browser``."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if used & PROCESS_FIXTURES:
            item.add_marker(pytest.mark.process)
        if used & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)
    rank = {name: number for number, name in enumerate(LONGEST_FIRST)}
    # A stable sort: within a file, and among the other files, the order is kept.
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
