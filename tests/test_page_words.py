"""What the pages say in words, not codes (issue 51, item 9): the table form's options
and values in English and German, no deal offered that a table refuses, counts in
proper plurals."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.in_process import InProcess
from tests.server_helpers import Browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcess]:
    with InProcess(tmp_path_factory.mktemp("words")) as app:
        yield app


CODES = ("highest_double", "draw_until_playable", "mother theresa", "losers_only", "set_double")


def test_the_table_form_says_its_options_in_words(server: InProcess) -> None:
    guest = Browser(server, "Worte")
    english = guest.http.get("/", headers={"Accept-Language": "en"}).text
    for code in CODES:
        assert f">{code}<" not in english and f"> {code}</label>" not in english, code
    for words in ("Mother Theresa rule", "the highest double", "draw until a tile fits"):
        assert words in english, words
    german = guest.http.get("/", headers={"Accept-Language": "de"}).text
    for words in ("Mutter-Theresa-Regel", "der höchste Doppelstein", "ziehen, bis ein Stein passt"):
        assert words in german, words
    # A deal by hand is refused at a table here (F-24 is for real tables): not offered.
    for page in (english, german):
        assert 'value="manual"' not in page


def test_an_upload_counts_its_games_in_a_proper_plural(server: InProcess) -> None:
    """ "1 game(s) read" (issue 51, item 9): one game, one word."""
    owner = Browser(server)
    assert owner.form("/register", name="Zählerin", password="geheim123").status_code == 303
    row = "1,2026-11-01,,fido,6,,{seat},{name},{points},{pips},,,,"
    header = "game_no,date,place,game,set,divisor,seat,player,running,pips,out,final,rank,target"
    rows = [
        row.format(seat=1, name="Zählerin", points=20, pips=3),
        row.format(seat=2, name="Bo", points=10, pips=5),
        row.format(seat=3, name="Cä", points=15, pips=0),
    ]
    for language, said in (("en", "1 game read:"), ("de", "1 Partie gelesen:")):
        page = owner.http.post(
            "/results/upload",
            data={"csv_text": "\n".join([header, *rows]), "csrf": owner.csrf, "action": "check"},
            headers={"Accept-Language": language},
        ).text
        assert said in page, page[page.find("<main") : page.find("<main") + 1500]
        assert "game(s)" not in page and "Partie(n)" not in page


def test_german_wordings_a_new_user_stumbled_on() -> None:
    """A German organiser's review: no "0 davon zählen", no "eine SpielerIn" where at
    least one is meant, the removal question about the player, the one word for a
    replay and for games counted."""
    from pips.i18n import translations

    de = translations("de")
    assert de.gettext("None of them counts for the world list at once.") == (
        "Keines davon zählt sofort für die Weltrangliste."
    )
    many = de.ngettext(
        "{count} result has a player no approved club answers for: it counts once an administrator confirms it or sanctions the event.",  # noqa: E501
        "{count} results have a player no approved club answers for: they count once an administrator confirms them or sanctions the event.",  # noqa: E501
        25,
    )
    assert "mindestens eine SpielerIn" in many
    removal = de.gettext("Remove {name} from the event? They have not played yet.")
    assert "Diese Person hat noch keine Partie gespielt" in removal
    assert de.gettext("Your table: your name") == "Dein Tisch – Name eingeben"
    assert de.gettext("replay") == "Nachspielen"
    assert de.gettext("games") == "Partien"
