"""A results CSV of blank lines (review F3): bounded by lines, blank ones skipped
before the csv module parses them, and every upload, refused or not, spends one of
the address's checks (reading it is work done). Counted, not timed."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest

from pips.results.entry import EntryError
from pips.results.entry_formats import MOST_LINES, read_csv
from tests.in_process import InProcess
from tests.server_helpers import Browser

HEADER = "game_no,date,place,game,set,divisor,seat,player,running,pips,out,final,rank,target\n"
ROW = "1,2026-11-01,,fido,6,,{seat},{name},{points},{pips},,,,\n"
GAME = "".join(
    ROW.format(seat=seat, name=name, points=points, pips=pips)
    for seat, name, points, pips in ((1, "Ann", 20, 3), (2, "Bo", 10, 5), (3, "Cy", 15, 0))
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcess]:
    with InProcess(tmp_path_factory.mktemp("csv")) as app:
        yield app


def test_blank_lines_are_counted_and_refused_past_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fed: list[str] = []
    reader = csv.reader

    def counting(lines: Any, **kwargs: Any) -> Any:
        def seen() -> Iterator[str]:
            for line in lines:
                fed.append(line)
                yield line

        return reader(seen(), **kwargs)

    monkeypatch.setattr(csv, "reader", counting)
    blank = HEADER + "\n" * (MOST_LINES * 10) + GAME
    with pytest.raises(EntryError) as refused:
        read_csv(blank.encode(), date(2026, 11, 2), 2000, MOST_LINES)
    assert f"at most {MOST_LINES} lines; line {MOST_LINES + 1}" in str(refused.value)
    # Blank lines never reach the row parser: the header alone did.
    assert fed == [HEADER]


def test_blank_lines_within_the_bound_keep_the_lines_numbers() -> None:
    # A game is named by its first line, a cell by its own: blank lines counted.
    bad = ROW.format(seat=4, name="Di", points="x", pips=1)
    with pytest.raises(EntryError) as refused:
        read_csv(HEADER + "\n\n" + GAME + "\n\n" + bad, date(2026, 11, 2), 2000, MOST_LINES)
    assert "(line 4)" in str(refused.value), str(refused.value)
    long = ROW.format(seat=4, name="D" * 1001, points=1, pips=1)
    with pytest.raises(EntryError) as refused:
        read_csv(HEADER + "\n\n" + GAME + "\n\n" + long, date(2026, 11, 2), 2000, MOST_LINES)
    assert "line 9:" in str(refused.value), str(refused.value)
    games = read_csv(HEADER + "\n\r\n" + GAME, date(2026, 11, 2), 2000, MOST_LINES)
    assert len(games) == 1


def test_a_refused_upload_spends_a_check(
    server: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    mallory = Browser(server)
    assert mallory.form("/register", name="Mallory", password="password-1").status_code == 303
    checks = server.app.state.limits.checks
    # The bucket's clock stands still: nothing refills between the requests.
    monkeypatch.setattr(checks, "clock", lambda: 0.0)
    burst = int(checks.burst)
    blank = (HEADER + "\n" * (MOST_LINES + 1)).encode()
    headers = {"X-CSRF-Token": mallory.csrf, "Content-Type": "text/csv"}
    answers = [
        mallory.http.post("/api/results/csv", content=blank, headers=headers).status_code
        for _ in range(burst + 1)
    ]
    assert answers == [422] * burst + [429], answers
