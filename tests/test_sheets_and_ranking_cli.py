"""Score sheets (the PDF's text) and the ``pips sheet`` / ``pips ranking`` commands."""

from __future__ import annotations

import csv
import io
from datetime import date, datetime
from pathlib import Path

import pdfplumber
import pytest

from pips.games.fido_count import DIVISORS, HAND_SIZES
from pips.results.entry import Entry, Line
from pips.results.service import Results
from pips.results.sheet import SCORING_ROWS, SheetError, score_sheet
from pips.server import accounts
from pips.store.db import Database
from tests.test_cli import run


def text_of(pdf: bytes) -> str:
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return "\n".join(page.extract_text() or "" for page in document.pages)


@pytest.mark.parametrize(("players", "top"), [(5, 12), (3, 6), (9, 18), (7, 15)])
def test_fido_sheet_has_the_header_the_hand_size_row_and_a_column_per_player(
    players: int, top: int
) -> None:
    names = ["Anna", "Ben", "Cleo"]
    pdf = score_sheet("fido", players, top, names=names, place="Kiel", day=date(2026, 10, 3))
    # A row per scoring play of 99 games in 100: one page for double-6 to double-12
    # at up to six players, at most three for double-18.
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        pages = len(document.pages)
    assert pages == 1 if top <= 12 and players <= 6 else 1 <= pages <= 3
    text = text_of(pdf)
    assert str(SCORING_ROWS[(top, players)]) in text.split()
    assert "FIDO divisor game — score sheet" in text
    assert "Date: 2026-10-03" in text and "Place: Kiel" in text
    assert f"Set: double-{top}" in text and f"Divisor: {DIVISORS[top]}" in text
    # F-02: the row of the hand-size table for this number of players, every set.
    flat = " ".join(text.split())
    for s in DIVISORS:
        stock = (s + 1) * (s + 2) // 2 - players * HAND_SIZES[players][s]
        assert f"{HAND_SIZES[players][s]} ({stock})" in flat
    hand = HAND_SIZES[players][top]
    assert f"{players} players hold {hand} tiles each" in flat
    for name in [*names, *(f"Player {i}" for i in range(4, players + 1))]:
        assert name in text
    for label in ("Scoring play", "Went out", "Running points", "Pips left", "Final score", "Rank"):
        assert label in text
    assert f"divides by {DIVISORS[top]}" in flat


def test_partnership_sheet_tallies_two_pairs_to_the_target() -> None:
    text = " ".join(text_of(score_sheet("partnership", 4, names=["A", "B", "C", "D"])).split())
    assert "Pair A: A + C" in text and "Pair B: B + D" in text
    assert "Match to: 30" in text and "1 point for 0 to 9 pips counted, 2 for 10 to 19" in text
    assert "floor(" not in text and "PT-10, PT-11, PT-13" in text  # ids in the footnote
    assert "Hand" in text and "Total" in text


@pytest.mark.parametrize(
    ("game", "players", "expected"),
    [
        ("family", 3, ["Match to: 100", "FA-08", "Hand", "Total"]),
        ("doubles", 4, ["Match to: 100", "DB-12", "Hand", "Total"]),
        ("draw", 4, ["Went out", "Pips left", "DR-07"]),
    ],
)
def test_sheets_of_the_other_games(game: str, players: int, expected: list[str]) -> None:
    text = " ".join(text_of(score_sheet(game, players)).split())
    for words in expected:
        assert words in text
    assert f"Player {players}" in text


def test_sheets_refuse_games_no_table_has() -> None:
    with pytest.raises(SheetError, match="F-02"):
        score_sheet("fido", 2, 12)
    with pytest.raises(SheetError, match="F-01"):
        score_sheet("fido", 4, 13)
    with pytest.raises(SheetError, match="6 names for 5 players"):
        score_sheet("fido", 5, 12, names=["a"] * 6)


def test_pips_sheet_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "sheet.pdf"
    code, out, _ = run(
        ["sheet", "fido", "--players", "5", "--set", "12", "--out", str(target)], capsys
    )
    assert code == 0 and "wrote" in out
    assert "Divisor: 7" in text_of(target.read_bytes())
    code, _, err = run(
        ["sheet", "fido", "--players", "2", "--out", str(tmp_path / "x.pdf")], capsys
    )
    assert code == 2 and "F-02" in err and not (tmp_path / "x.pdf").exists()
    code, _, err = run(
        ["sheet", "draw", "--players", "3", "--date", "3.10.", "--out", str(tmp_path / "x.pdf")],
        capsys,
    )
    assert code == 2 and "is not a date" in err


def seeded(url: str) -> None:
    """October results entered in October, and one entered late in November."""
    db = Database(url)
    db.upgrade()
    anna = accounts.create_account(db, "Anna", "password1")
    root = accounts.create_account(db, "Root", "password1")
    moment = [datetime(2026, 10, 20)]
    results = Results(db, clock=lambda: moment[0])
    results.admin.set_admin("Root")
    results.groups.create(anna.id, "Kiel")
    results.admin.approve_group(root.id, "kiel")
    for day in (3, 4, 5):
        entry = Entry(
            "fido",
            date(2026, 10, day),
            6,
            (Line("Anna", 30, 0), Line("Ben", 10, 2), Line("Cleo", 5, 4)),
            "Kiel",
        )
        results.entries.enter(anna.id, [results.entries.check(entry)], source="api", group="kiel")
    moment[0] = datetime(2026, 11, 3)
    late = Entry(
        "fido", date(2026, 10, 30), 6, (Line("Anna", 0, 9), Line("Ben", 50, 0), Line("Cleo", 1, 0))
    )
    results.entries.enter(anna.id, [results.entries.check(late)], source="api", group="kiel")
    db.dispose()


def test_ranking_compute_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'pips.db'}"
    seeded(url)
    code, out, _ = run(
        ["ranking", "compute", "--month", "2026-10", "--database", url, "--preview"], capsys
    )
    assert code == 0 and "(preview)" in out and "3 games" in out
    # The late result is said to count from November's list.
    assert "1 entered after 2026-10-31 (late)" in out and "list of 2026-11" in out
    code, out, _ = run(
        ["ranking", "compute", "--month", "2026-10", "--database", url, "--preview", "--top", "2"],
        capsys,
    )
    assert "Anna" in out and "Ben" in out and "Cleo" not in out
    code, out, _ = run(["ranking", "compute", "--month", "2026-10", "--database", url], capsys)
    assert code == 0 and "(published)" in out
    assert out.index("Anna") < out.index("Ben") < out.index("Cleo")
    code, _, err = run(["ranking", "compute", "--month", "2026-10", "--database", url], capsys)
    assert code == 2 and "published lists never change" in err
    code, _, err = run(["ranking", "compute", "--month", "2999-01", "--database", url], capsys)
    assert code == 2 and "is not over" in err
    code, _, err = run(["ranking", "compute", "--month", "Oct", "--database", url], capsys)
    assert code == 2 and "is not a month" in err
    code, _, err = run(
        ["ranking", "compute", "--month", "2026-10", "--database", url, "--half-life", "-3"],
        capsys,
    )
    assert code == 2 and "positive number of days" in err
    exported = tmp_path / "october.csv"
    code, _, _ = run(
        ["ranking", "export", "--month", "2026-10", "--database", url, "--out", str(exported)],
        capsys,
    )
    assert code == 0
    rows = list(csv.DictReader(exported.open()))
    # Exactly what October's list counted: the late result waits for November's.
    assert len(rows) == 9
    assert {r["date"] for r in rows} == {"2026-10-03", "2026-10-04", "2026-10-05"}
    assert {r["divisor"] for r in rows} == {"3"}
    assert [(r["player"], r["final"], r["rank"]) for r in rows[:3]] == [
        ("Anna", "30", "1"),
        ("Ben", "8", "2"),
        ("Cleo", "1", "3"),
    ]


def test_admin_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Administrators are made on the command line; they approve groups there too."""
    url = f"sqlite:///{tmp_path / 'pips.db'}"
    seeded(url)
    code, _, err = run(["admin", "grant", "Nobody", "--database", url], capsys)
    assert code == 2 and "no account named 'Nobody'" in err
    code, _, err = run(["admin", "approve", "kiel", "--by", "Anna", "--database", url], capsys)
    assert code == 2 and "'Anna' is not an administrator" in err
    code, out, _ = run(["admin", "grant", "anna", "--database", url], capsys)
    assert code == 0 and "Anna is an administrator" in out
    code, out, _ = run(["admin", "list", "--database", url], capsys)
    assert out.split() == ["Anna", "Root"]
    code, out, _ = run(
        ["admin", "approve", "kiel", "--withdraw", "--by", "Anna", "--database", url], capsys
    )
    assert code == 0 and "Kiel: not approved" in out
    code, out, _ = run(["admin", "waiting", "--by", "Anna", "--database", url], capsys)
    assert code == 0 and "groups not approved: 1" in out and "kiel (Kiel, Anna)" in out
    code, out, _ = run(["admin", "revoke", "Anna", "--database", url], capsys)
    assert code == 0 and "no longer" in out


@pytest.mark.parametrize(("game", "players"), [("fido", 5), ("partnership", 4), ("family", 3)])
def test_a_german_sheet_reads_back_in_german(game: str, players: int) -> None:
    """Issue 20: the sheet in German, with the German rules' words (Spielformular,
    Augen, Abzug, Stock) and the date as German clubs write it."""
    names = ["Jürgen", "Bärbel", "Jörg"]
    pdf = score_sheet(
        game, players, names=names, place="Büdelsdorf", day=date(2026, 10, 3), language="de"
    )
    flat = " ".join(text_of(pdf).split())
    assert "— Spielformular" in flat
    assert "Datum: 03.10.2026" in flat and "Ort: Büdelsdorf" in flat
    assert "Unterschriften" in flat
    for name in names:
        assert name in flat
    english = ("score sheet", "Date:", "Signatures", "Player ", "Rank", "Total", "Pips")
    assert not [word for word in english if word in flat], flat
    if game == "fido":
        assert "FIDO-Divisorspiel" in flat and "Satz: Doppel-12" in flat
        assert "Summe der Enden S ohne Rest durch 7 teilbar" in flat
        # The words of the web's result form: "Punkte im Spiel", "Augen übrig", "ist raus".
        for label in ("Punktende Züge", "Ist raus (x)", "Punkte im Spiel", "Augen übrig (Abzug)"):
            assert label in flat
        assert "Endstand" in flat and "Platz" in flat and "im Talon" in flat
        assert "SpielerIn 4" in flat
    if game == "partnership":
        assert "Paar A: Jürgen + Jörg" in flat and "Gezählte Augen" in flat


def test_the_sheet_command_takes_a_language_and_a_german_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "formular.pdf"
    code, out, err = run(
        [
            "sheet", "fido", "--players", "4", "--set", "9", "--lang", "de",
            "--date", "03.10.2026", "--out", str(out_file),
        ],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert out.startswith(f"wrote {out_file}")  # the command's language: the sheet's is de
    assert "Datum: 03.10.2026" in text_of(out_file.read_bytes())
    code, _, err = run(
        ["sheet", "fido", "--players", "4", "--lang", "xx", "--out", str(out_file)], capsys
    )
    assert code == 2 and "unknown language 'xx'" in err
