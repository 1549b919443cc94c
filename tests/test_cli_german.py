"""The command line in German (issue 50, item 10): a yes-or-no question takes "j",
a refusal ends with a non-zero status, and a round's state is said in German."""

from __future__ import annotations

import pytest
import typer
from click.testing import CliRunner

from pips import i18n
from pips.cli.base import save_or_stop, yes_or_no
from pips.cli.event_service import show_event


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("j\n", True), ("ja\n", True), ("J\n", True), ("y\n", True), ("n\n", False),
     ("nein\n", False), ("\n", False), ("vielleicht\nj\n", True)],
)  # fmt: skip
def test_a_german_question_takes_j_and_ja(typed: str, meant: bool) -> None:
    with CliRunner().isolation(input=typed) as (shown, _errors, _both), i18n.speaking("de"):
        assert yes_or_no("Speichern?") is meant
    assert "[j/N]" in shown.getvalue().decode()


def test_a_refusal_saves_nothing_and_ends_with_status_1(monkeypatch: pytest.MonkeyPatch) -> None:
    with (
        CliRunner().isolation(input="n\n"),
        i18n.speaking("de"),
        pytest.raises(typer.Exit) as ended,
    ):
        monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
        save_or_stop()
    assert ended.value.exit_code == 1


def test_a_rounds_state_is_said_in_german(capsys: pytest.CaptureFixture[str]) -> None:
    shown = {
        "name": "Hafenabend",
        "game": "fido",
        "date": "2026-10-03",
        "key": "abcdefgh",
        "drawn": [
            {"number": n, "status": status, "date": "2026-10-03", "method": "lot",
             "tables": [], "byes": []}
            for n, status in ((1, "closed"), (2, "playing"), (3, "drawn"))
        ],
        "standings": [],
    }  # fmt: skip
    with i18n.speaking("de"):
        show_event(shown)
    said = capsys.readouterr().out
    assert "(beendet)" in said and "(wird gespielt)" in said
    assert "(ausgelost, nicht gestartet)" in said
    assert "(closed)" not in said and "(playing)" not in said
