"""Why a result is held, and why its hold was lifted, in the reader's language (issue
50): the reasons are kept as phrases beside their English text and said to each reader,
on the result's page, in the JSON API and on the administrators' list; a row from before
(no phrase kept) still shows its English. On SQLite and on PostgreSQL (``site``)."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from sqlalchemy import update

from pips.core.phrase import Figure, Phrase, kept, phrase, restored
from pips.i18n import say, speaking
from pips.store.models import ResultHold
from tests.test_results_server import Site, fido

GERMAN = {"Accept-Language": "de-DE,de;q=0.9"}
ENGLISH = {"Accept-Language": "en"}


def test_a_kept_phrase_is_said_again_with_its_nested_phrases_figures_and_days() -> None:
    inner = phrase("the result was withdrawn")
    words = phrase(
        "{name}: {games} games, {wins} won, on {day}; nobody plays more than "
        "{most_games} or wins more than {most_wins} in a day",
        name="Anna",
        games=Figure(41.5, 1),
        wins=3,
        day=date(2026, 10, 3),
        most_games=40,
        most_wins=inner,
    )
    again = restored(kept(words), "stale English")
    assert isinstance(again, Phrase) and again == words and again.template == words.template
    with speaking("de"):
        assert say(again) == say(words)
        assert "am 03.10.2026" in say(again) and "41,5 Spiele" in say(again)
        assert "das Ergebnis wurde zurückgezogen" in say(again)
    # Plain words keep nothing; nothing kept, or nothing readable, gives the English.
    assert kept("plain") is None and kept(None) is None
    assert restored(None, "old words") == "old words"
    assert restored({"phrase": "{missing}", "fields": {}}, "old words") == "old words"
    assert restored({"phrase": "{a}", "fields": {"a": {"odd": 1}}}, "old words") == "old words"


def held_day(site: Site) -> tuple[Any, Any, list[int]]:
    """41 confirmed games of Anna, Ben and Cleo on 2026-10-03 (more than anyone plays
    in a day): all held, by each of them. The representative, the administrator and the
    results' numbers."""
    root = site.admin("Root")
    anna = site.person("Anna")
    slug = site.approved_group(anna, "Kiel", root)
    many = [
        fido("2026-10-03", ("Ben", 20 + n, 0), ("Anna", 100 if n % 2 else 5, 2), ("Cleo", 1, 4))
        for n in range(41)
    ]
    made = anna.enter(*many, group=slug)
    assert made.status_code == 201, made.text
    return anna, root, [int(url.rsplit("/", 1)[1]) for url in made.json()["urls"]]


def test_a_hold_and_its_lifting_read_in_the_readers_language(site: Site) -> None:
    anna, root, ids = held_day(site)
    german = anna.client.get(f"/api/results/{ids[0]}", headers=GERMAN).json()
    # Which of the three holds comes first is not fixed (each names its player).
    assert re.match(r"(Anna|Ben|Cleo): 41 Spiele, \d+ gewonnen, am 03\.10\.2026", german["held"])
    holds = german["holds"]
    assert {h["reason"].split(":")[0] for h in holds} == {"Anna", "Ben", "Cleo"}
    assert all("niemand spielt mehr als 40" in h["reason"] for h in holds)
    assert all(h["lifted_because"] is None for h in holds)
    assert german["why_not"] == f"für die Administration zurückgehalten: {german['held']}"
    english = anna.client.get(f"/api/results/{ids[0]}", headers=ENGLISH).json()
    assert all(re.match(r"(Anna|Ben|Cleo): 41 games, ", h["reason"]) for h in english["holds"])
    assert "on 2026-10-03; nobody plays more than 40" in english["held"]
    page = anna.client.get(f"/results/{ids[0]}", headers=GERMAN).text
    assert "niemand spielt mehr als 40" in page and "nobody plays" not in page
    waiting = root.client.get("/api/admin/waiting", headers=GERMAN).json()
    causes = [c["reason"] for h in waiting["held"] for c in h["causes"]]
    assert causes and all("niemand spielt mehr als 40" in c for c in causes)
    assert "niemand spielt mehr als 40" in root.client.get("/admin", headers=GERMAN).text
    # One of them withdrawn, they are within the bounds again: the others' holds are
    # lifted, and why is said in each reader's language too.
    assert anna.post(f"/api/results/{ids[-1]}/withdraw", {}).status_code == 200
    german = anna.client.get(f"/api/results/{ids[0]}", headers=GERMAN).json()
    hold = next(h for h in german["holds"] if h["reason"].startswith("Ben: 41 Spiele"))
    assert german["held"] is None
    assert hold["lifted_because"].startswith("Ben hat")
    assert "am 03.10.2026 40 bestätigte Spiele" in hold["lifted_because"]
    assert "wieder in den Grenzen" in hold["lifted_because"]
    english = anna.client.get(f"/api/results/{ids[0]}", headers=ENGLISH).json()
    assert all(
        "on 2026-10-03: within the bounds again" in h["lifted_because"] for h in english["holds"]
    )
    page = anna.client.get(f"/results/{ids[0]}", headers=GERMAN).text
    assert "wieder in den Grenzen" in page and "within the bounds" not in page
    # The withdrawn result's own hold was lifted by its withdrawal.
    withdrawn = anna.client.get(f"/api/results/{ids[-1]}", headers=GERMAN).json()
    assert withdrawn["holds"][0]["lifted_because"] == "das Ergebnis wurde zurückgezogen"


def test_a_hold_from_before_the_phrases_were_kept_shows_its_english(site: Site) -> None:
    anna, _, ids = held_day(site)
    with site.db.session() as session, session.begin():
        session.execute(
            update(ResultHold)
            .where(ResultHold.result_id == ids[0])
            .values(reason="held the old way", reason_phrase=None)
        )
    german = anna.client.get(f"/api/results/{ids[0]}", headers=GERMAN).json()
    assert {h["reason"] for h in german["holds"]} == {"held the old way"}
    # The flag of the result is still the kept phrase it was given: German.
    assert "41 Spiele" in german["held"]


def test_why_a_result_is_not_rated_is_kept_as_its_phrase() -> None:
    from pips.results.register import why_not_counted
    from pips.store.models import Result

    row = Result(status="confirmed", rated=False, flag=None)
    row.unrated = phrase("not rated: a bot or a guest played")
    assert row.unrated_phrase == {"phrase": "not rated: a bot or a guest played", "fields": {}}
    why = why_not_counted(row, [])
    assert why is not None
    with speaking("de"):
        assert say(why) == "nicht gewertet: ein Bot oder ein Gast spielte"
    row.unrated = None
    assert row.unrated_phrase is None and row.unrated_words is None
