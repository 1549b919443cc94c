"""The tiers of the suite: tests that start real processes are marked ``process`` (and
those that drive chromium ``browser``); ``bash scripts/test --quick`` runs the rest.

A mark forgotten would put a slow test in the quick tier unseen, so the helpers that start
processes (a ``pips serve``, a terminal under tmux) call :func:`starting_a_process`, which
fails a test that is not marked."""

from __future__ import annotations

import os

import pytest

UNMARKED = "PIPS_TEST_UNMARKED"
"""Set (to the test's id) while a test not marked ``process`` runs (tests/conftest.py)."""

STARTS_LOG = "PIPS_TEST_STARTS_LOG"
"""A file each server start is noted in, a line per start, where set: how many server
processes a run starts (``PIPS_TEST_STARTS_LOG=/tmp/starts bash scripts/test``)."""


def starting_a_process(what: str) -> None:
    test = os.environ.get(UNMARKED)
    if test:
        pytest.fail(f"{test} starts {what}: mark it @pytest.mark.process (tests/tiers.py)")
    log = os.environ.get(STARTS_LOG)
    if log:
        with open(log, "a", encoding="utf-8") as starts:
            starts.write(f"{what}\t{os.environ.get('PYTEST_CURRENT_TEST', '')}\n")
