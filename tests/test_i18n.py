"""Languages (issue 20): catalogs complete and current, the language chosen per person,
numbers, dates and ordinals in the language's form, the command's errors in German."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po

from pips import i18n
from pips.i18n import _

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "src" / "pips" / "locale"
FIELD = re.compile(r"\{(\w*)[^{}]*\}")


@cache
def code_messages() -> frozenset[str]:
    """Every message the code marks for translation, as pybabel extracts it
    (``scripts/catalogs``: ``_``, ``ngettext``, the core's ``N_`` and ``phrase``, the
    help texts of the commands and the games, the templates, and the scripts' ``t``)."""
    keywords = {**DEFAULT_KEYWORDS, "N_": None, "phrase": None, "t": None, "personal": (1,)}
    methods = [
        ("pips/cli/**.py", "pips.i18n.extract_help"),
        ("pips/games/traits.py", "python"),
        ("pips/games/**.py", "pips.i18n.extract_help"),
        ("pips/**.py", "python"),
        ("pips/server/templates/**.html", "jinja2"),
        ("pips/server/static/**.js", "javascript"),
    ]
    found = extract_from_dir(str(ROOT / "src"), method_map=methods, keywords=keywords)
    ids: set[str] = set()
    for _filename, _line, message, _comments, _context in found:
        ids.add(message if isinstance(message, str) else message[0])
    return frozenset(ids)


def catalog(path: Path) -> dict[str, object]:
    with path.open("rb") as po:
        read = read_po(po)
    return {m.id if isinstance(m.id, str) else m.id[0]: m for m in read if m.id}


def test_the_template_holds_exactly_the_messages_of_the_code() -> None:
    marked = code_messages()
    assert marked, "no message is marked for translation"
    template = set(catalog(LOCALE / "pips.pot"))
    assert template == marked, (
        f"stale catalogs (run scripts/catalogs): new {sorted(marked - template)}, "
        f"gone {sorted(template - marked)}"
    )


@pytest.mark.parametrize("language", [code for code in i18n.LANGUAGES if code != i18n.SOURCE])
def test_every_message_is_translated_with_the_same_fields(language: str) -> None:
    messages = catalog(LOCALE / language / "LC_MESSAGES" / "pips.po")
    assert set(messages) == code_messages(), "stale catalog: run scripts/catalogs"
    for msgid, message in messages.items():
        # A plural message has a form per number, each with the fields of the English.
        forms = message.string  # type: ignore[attr-defined]
        for text in forms if isinstance(forms, tuple) else (forms,):
            assert text, f"{language}: no translation of {msgid!r}"
            assert sorted(FIELD.findall(text)) == sorted(FIELD.findall(msgid)), msgid
        assert "fuzzy" not in message.flags, f"{language}: fuzzy {msgid!r}"  # type: ignore[attr-defined]


def test_the_language_comes_from_the_environment_as_gettext_reads_it() -> None:
    assert i18n.from_environment({"LANG": "de_DE.UTF-8"}) == "de"
    assert i18n.from_environment({"LANG": "de_DE.UTF-8", "LC_ALL": "en_GB.UTF-8"}) == "en"
    assert i18n.from_environment({"LANGUAGE": "fr:de", "LANG": "en_US"}) == "de"
    assert i18n.from_environment({"LC_MESSAGES": "de_AT", "LANG": "C"}) == "de"
    assert i18n.from_environment({"LANG": "fr_FR.UTF-8"}) == "en"
    assert i18n.from_environment({"LANG": "C"}) == "en"
    assert i18n.from_environment({}) == "en"


def test_a_browser_gets_the_best_language_it_accepts() -> None:
    assert i18n.negotiate("de-DE,de;q=0.9,en;q=0.8") == "de"
    assert i18n.negotiate("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5") == "en"
    assert i18n.negotiate("en;q=0.5, de;q=0.6") == "de"
    assert i18n.negotiate("de;q=0, en") == "en"
    assert i18n.negotiate("fr") == "en"
    assert i18n.negotiate("") == "en"
    assert i18n.negotiate(None) == "en"
    assert i18n.negotiate("de;q=abc, en;q=0.1") == "en"


def test_an_unknown_language_is_refused_with_the_choices() -> None:
    assert i18n.supported("DE") == "de"
    assert i18n.supported("de_CH.UTF-8") == "de"
    with pytest.raises(ValueError, match=r"unknown language 'xx'.*de \(Deutsch\)"):
        i18n.supported("xx")


def test_messages_numbers_dates_and_ordinals_in_each_language() -> None:
    with i18n.speaking("de"):
        assert _("interrupted") == "abgebrochen"
        assert i18n.ordinal(3) == "3."
        assert i18n.format_date(date(2026, 10, 3)) == "03.10.2026"
        assert i18n.format_number(1234.5, digits=1) == "1.234,5"
    assert _("interrupted") == "interrupted"
    assert [i18n.ordinal(n, "en") for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th",
    ]  # fmt: skip
    assert i18n.format_date(date(2026, 10, 3), "en") == "Oct 3, 2026"
    assert i18n.format_number(1234.5, "en", digits=1) == "1,234.5"


def pips(
    *args: str, lang: str, extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env["LANG"] = lang
    env.update(extra or {})
    return subprocess.run(
        [sys.executable, "-m", "pips", *args], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.mark.process
def test_the_commands_errors_in_german_under_a_german_lang() -> None:
    german = pips("simulate", "fido", "--players", "3", "--hands", "0", lang="de_DE.UTF-8")
    assert german.returncode == 2
    assert german.stderr.strip() == "Fehler: --hands muss mindestens 1 sein"
    english = pips("simulate", "fido", "--players", "3", "--hands", "0", lang="en_US.UTF-8")
    assert english.stderr.strip() == "error: --hands must be at least 1"
    chosen = pips(
        "--lang", "en", "simulate", "fido", "--players", "3", "--hands", "0", lang="de_DE.UTF-8"
    )
    assert chosen.stderr.strip() == "error: --hands must be at least 1"
    wrong = pips("--lang", "xx", "version", lang="de_DE.UTF-8")
    assert wrong.returncode == 2
    assert "Fehler: unbekannte Sprache 'xx'" in wrong.stderr
    assert "Traceback" not in wrong.stderr


@pytest.mark.process
def test_the_commands_help_in_german() -> None:
    env = {"COLUMNS": "200"}
    german = pips("--help", lang="de_DE.UTF-8", extra=env)
    assert german.returncode == 0
    assert "Domino spielen, studieren und werten." in german.stdout
    assert "Befehle" in german.stdout and "Optionen" in german.stdout
    assert "Ein druckbares Spielformular (PDF)" in german.stdout
    sheet = pips("--lang", "de", "sheet", "--help", lang="en_US.UTF-8", extra=env)
    assert "Anzahl der SpielerInnen." in sheet.stdout and "[erforderlich]" in sheet.stdout
    english = pips("sheet", "--help", lang="en_US.UTF-8", extra=env)
    assert "Number of players." in english.stdout and "[required]" in english.stdout
    # The game flags' help is made of every game's values and defaults.
    flags = pips("play", "--help", lang="de_DE.UTF-8", extra=env)
    assert "Anzahl der SpielerInnen. fido: 3 bis 9, erforderlich;" in flags.stdout
    assert "Das Spiel: fido, family, draw, doubles, partnership" in flags.stdout
    # The sheet's own --lang sets the sheet's language, not the command's.
    own = pips("sheet", "--lang", "de", "--help", lang="en_US.UTF-8", extra=env)
    assert "Number of players." in own.stdout


def test_a_phrase_is_its_english_and_is_said_in_the_readers_language() -> None:
    """The core's words (pips.core.phrase): English wherever they are passed on as they
    are, translated with their fields (phrases in fields too) where an edge says them."""
    import pickle

    from pips.core.phrase import joined, phrase

    went = phrase("{who} went out", who="Jürgen")
    line = phrase(
        "{how}; the fewest pips are shared, so nobody scores ({rule}).", how=went, rule="FA-09"
    )
    assert line == "Jürgen went out; the fewest pips are shared, so nobody scores (FA-09)."
    assert pickle.loads(pickle.dumps(line)) == line
    with i18n.speaking("de"):
        assert i18n.say(line) == (
            "Jürgen ist raus; die wenigsten Augen sind geteilt, also punktet niemand (FA-09)."
        )
        sets = joined([phrase("double-{top}", top=6), phrase("double-{top}", top=9)])
        assert i18n.say(sets) == "Doppel-6, Doppel-9"
        # A figure in a phrase gets the language's decimal sign.
        threat = phrase("gives the next seat about {points} points", points=1.5)
        assert i18n.say(threat) == "gibt dem nächsten Sitz etwa 1,5 Punkte"
        assert i18n.decimal(29.0) == "29,00" and i18n.percent(0.333) == "33,3%"
        # Names and other plain strings in a message are never looked up.
        message = {"said": went, "names": ["draw", "Stock"], "n": 3, "list": [went]}
        assert i18n.translated(message) == {
            "said": "Jürgen ist raus",
            "names": ["draw", "Stock"],
            "n": 3,
            "list": ["Jürgen ist raus"],
        }
    assert i18n.say(line) == str(line)


def test_a_table_message_is_encoded_in_each_readers_language() -> None:
    """One message of a table, as two clients of it hear it (every table client encodes
    through ``messages.encode_for``): each in its own language, names left alone."""
    pytest.importorskip("orjson")
    from pips.core.phrase import phrase
    from pips.server import messages

    message = {"type": "error", "said": phrase("{who} went out", who="Jürgen"), "n": 3}
    german = json.loads(messages.encode_for(message, "de"))
    english = json.loads(messages.encode_for(message, i18n.SOURCE))
    assert german == {"type": "error", "said": "Jürgen ist raus", "n": 3}
    assert english == {"type": "error", "said": "Jürgen went out", "n": 3}


def test_a_rule_error_is_explained_in_the_readers_language() -> None:
    from pips.core.errors import RuleError
    from pips.games.registry import find_game

    with pytest.raises(RuleError) as refused:
        find_game("family").options_from_json({"players": 5})
    assert i18n.explain(refused.value) == "§2.1: the family game is for 2 to 4 players, not 5"
    with i18n.speaking("de"):
        assert i18n.explain(refused.value) == (
            "§2.1: das Familienspiel ist für 2 bis 4 SpielerInnen, nicht 5"
        )


def test_every_word_of_the_pages_scripts_reaches_a_german_page() -> None:
    """Every ``t(...)`` of the scripts is handed to the page in German (a message with
    fields, ``t("{n} tiles", {n})``, included)."""
    from pips.server import web

    scripts = {m for m in code_messages() if m in web.SCRIPT_MESSAGES}
    assert "count {s}: {rest} over a multiple of {d}" in scripts
    assert set(web.script_words("de")) == set(web.SCRIPT_MESSAGES)


@pytest.mark.process
def test_the_frameworks_own_words_in_german() -> None:
    """click's (typer's) usage line and its errors: an unknown option, a missing one,
    a bad value, an unknown command."""
    unknown = pips("sheet", "--bogus", lang="de_DE.UTF-8", extra={"COLUMNS": "200"})
    assert unknown.returncode == 2
    assert "Aufruf: pips sheet" in unknown.stderr
    assert "Die Option --bogus gibt es nicht (mögliche Optionen: --out, --rows)" in unknown.stderr
    missing = pips("sheet", "fido", lang="de_DE.UTF-8", extra={"COLUMNS": "200"})
    assert "Option '--players' fehlt." in missing.stderr
    command = pips("bogus", lang="de_DE.UTF-8", extra={"COLUMNS": "200"})
    assert "Den Befehl 'bogus' gibt es nicht." in command.stderr
    english = pips("sheet", "--bogus", lang="C.UTF-8", extra={"COLUMNS": "200"})
    assert "No such option: --bogus (Possible options: --out, --rows)" in english.stderr
    assert "Usage: pips sheet" in english.stderr
    assert "Traceback" not in unknown.stderr + missing.stderr + command.stderr


@pytest.mark.process
def test_the_rules_and_a_bad_record_in_german(tmp_path: Path) -> None:
    """pips rules in the German rules' words; a record that does not read, refused in
    German with the place it fails."""
    rules = pips("rules", "fido", lang="de_DE.UTF-8", extra={"COLUMNS": "200"})
    assert "FIDO-Divisorspiel: eine Runde, 3 bis 9 SpielerInnen" in rules.stdout
    assert "»nackte« Seite" in rules.stdout and "Mutter-Theresa-Regel" in rules.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "nope"}', encoding="utf-8")
    checked = pips("check", str(bad), lang="de_DE.UTF-8")
    assert checked.returncode == 1
    assert "Aufzeichnung 1: format muss 'pips.record/1' sein, nicht 'nope'" in checked.stderr


@pytest.mark.process
def test_a_game_in_the_terminal_calls_the_person_du_in_german(tmp_path: Path) -> None:
    """The person's default name is said in their language, and once only: "Du", not
    "You" or "Du (du)"; their own moves are told to them ("Du legst", not "Du legt"); a
    name they give is theirs as it is."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}

    def play(*extra: str, lang: str = "de_DE.UTF-8") -> tuple[str, list[str]]:
        save = tmp_path / f"game-{len(list(tmp_path.iterdir()))}.json"
        played = subprocess.run(
            [
                *(sys.executable, "-m", "pips", "play", "draw", "--players", "2", "--seed", "3"),
                *("--bots", "greedy", "--text", "--save", str(save), *extra),
            ],
            input="1\n" * 200,
            capture_output=True,
            text=True,
            env={**env, "LANG": lang},
            timeout=120,
        )
        assert played.returncode == 0, played.stderr
        return played.stdout, json.loads(save.read_text())["seats"]

    german, seats = play()
    assert seats[0] == "Du" and "0 Du, 1 greedy-1" in german
    assert "Du legst" in german and "Du legt" not in german
    assert "You" not in german and "Du (du)" not in german
    english, seats = play(lang="en_US.UTF-8")
    assert seats[0] == "You" and "You lay" in english and "You lays" not in english
    _, seats = play("--name", "Jürgen")
    assert seats[0] == "Jürgen"


def test_the_catalog_finds_every_word_the_scripts_mark() -> None:
    """Every ``t("...")`` in the pages' scripts is one ``pybabel`` extracts (it does not
    look inside a template string's ``${...}``: a word marked there stays English)."""
    import re

    from pips.server import web

    marked = {
        found.group(1)
        for script in (web.HERE / "static").glob("*.js")
        for found in re.finditer(r'\bt\("([^"\\]+)"', script.read_text(encoding="utf-8"))
    }
    assert marked and marked <= set(web.SCRIPT_MESSAGES), marked - set(web.SCRIPT_MESSAGES)


def test_a_figure_in_a_phrase_reads_in_the_readers_form() -> None:
    """Issue 51: the exercises' values were f-strings in the phrases' calls (+0.53 in
    German too, and pybabel warned of each). A figure keeps its decimals and its sign
    and takes the reader's decimal sign."""
    from pips.core.phrase import Figure, phrase

    said = phrase(
        "{choice} expects {value}, {difference} less.",
        choice="6-4",
        value=Figure(-0.531, sign=True),
        difference=Figure(1.2),
    )
    assert said == "6-4 expects -0.53, 1.20 less."
    with i18n.speaking("de"):
        assert i18n.say(said) == "6-4 erwartet -0,53, 1,20 weniger."
        assert i18n.say(phrase("{value}", value=Figure(0.5, sign=True))) == "+0,50"


def test_the_rating_chart_speaks_the_readers_language() -> None:
    """Issue 50: the rating chart's words were English on a German page."""
    import matplotlib

    from pips.server.routes.lists import _plot

    history = [
        {"month": "2026-10", "rating": 1.5, "mu": 20.0, "sigma": 5.0, "place": 2},
        {"month": "2026-11", "rating": 2.25, "mu": 21.0, "sigma": 4.0, "place": 1},
    ]
    with matplotlib.rc_context({"svg.fonttype": "none"}), i18n.speaking("de"):
        svg = _plot("Anna", "FIDO divisor game", history).decode()
    words = set(re.findall(r">([^<>]{2,60})</text>", svg))
    assert {"Platz", "Schätzung ± Unsicherheit", "Okt 2026", "Nov 2026", "1,5"} <= words, words
    assert "place" not in words and "mu ± sigma" not in words


def _compiler() -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "compile_catalogs", ROOT / "scripts" / "compile_catalogs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_compiled_catalogs_are_those_of_their_sources() -> None:
    """The server loads catalogs compiled once (scripts/compile_catalogs.py, run by
    scripts/catalogs): each ``pips.mo`` holds its ``pips.po``'s translations, and the
    scripts' messages are those the scripts mark now. After a translation or a script
    changed: ``python scripts/compile_catalogs.py``."""
    import gettext
    import io

    compiler: Any = _compiler()
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/pips.po")):
        shipped = gettext.GNUTranslations(po.with_suffix(".mo").open("rb"))
        fresh = gettext.GNUTranslations(io.BytesIO(compiler.compiled(po)))
        assert shipped._catalog == fresh._catalog, f"{po}: run python scripts/compile_catalogs.py"  # type: ignore[attr-defined]
    shipped_words = (LOCALE / "script-messages.json").read_text(encoding="utf-8")
    assert shipped_words == compiler.script_messages_json(), (
        "run python scripts/compile_catalogs.py"
    )


@pytest.mark.process
def test_a_starting_server_compiles_no_catalog_and_extracts_no_message() -> None:
    """Babel's extractors and catalog compiler are tools of the build, not of the start:
    making the app and speaking German loads neither (a fresh interpreter, since this
    one's tests load them)."""
    probe = (
        "import sys\n"
        "from pips import i18n\n"
        "from pips.server.app import create_app\n"
        "from pips.server.settings import Settings\n"
        "create_app(Settings(database='sqlite://', warm=False, publish_lists=False))\n"
        "with i18n.speaking('de'):\n"
        "    assert i18n._('no such table') != 'no such table'\n"
        "print(sorted(m for m in sys.modules if m.startswith('babel.messages')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
