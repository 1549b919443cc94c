"""A championship whose results count (issue 49, items 3 to 5): 120 known players of
twelve approved clubs, run by one club's representative over two days, on SQLite and
PostgreSQL. Players named "Name; Club" are found in their own club without a question;
at the close only the organising club's tables count at once, and the close says whose
word the others wait for; one confirmation per other club (with its review first), or
an administrator's sanction, makes every result count; each club's export holds its
players' games."""

from __future__ import annotations

import csv
import io
import random
from datetime import date

import pytest
from sqlalchemy import select

from pips.core.names import name_key
from pips.results.entry import Entry, Line, check
from pips.store.models import User
from tests.databases import each_on_one_database
from tests.test_championship import CLUBS, enter_round
from tests.test_events import event_of
from tests.test_results_server import Person, Site

FIRST = ["Jürgen", "Bärbel", "Anna-Lena", "Götz", "Zoë", "Ömer", "Lena", "Max", "Ida", "Hans"]


SPEAKER = 5
"""The club whose representative signs in on the pages (Dominofreunde Graz); the
other clubs' representatives act through the service (a dozen sign-ups from one
address would meet the server's limit of sign-in attempts)."""


def account(site: Site, name: str) -> int:
    """An account that never signs in (no password hash to compute)."""
    with site.db.session() as session, session.begin():
        user = User(name=name, name_key=name_key(name), password_hash="!")
        session.add(user)
        session.flush()
        return int(user.id)


def account_of(site: Site, name: str) -> int:
    with site.db.session() as session:
        return int(session.scalars(select(User.id).where(User.name == name)).one())


def clubs_with_players(
    site: Site,
) -> tuple[Person, Person, Person, list[int], list[str], dict[str, str]]:
    """Twelve approved clubs, each with ten players known from a club evening of
    September (two games of five, entered by the club's representative); (the
    administrator, the organiser, Graz's representative, every club's
    representative's account, the clubs' addresses, each player's club)."""
    root = site.admin()
    root_id = account_of(site, "Root")
    organiser, speaker = site.person("Vertreter 00"), site.person(f"Vertreter {SPEAKER:02d}")
    service = site.results
    representatives, slugs, club_of = [], [], {}
    for number, club in enumerate(CLUBS):
        name = f"Vertreter {number:02d}"
        rep = account_of(site, name) if number in (0, SPEAKER) else account(site, name)
        slug = service.groups.create(rep, club)["slug"]
        service.admin.approve_group(root_id, slug)
        names = [f"{first} {club.split()[-1]}" for first in FIRST]
        for game in (names[:5], names[5:]):
            lines = tuple(
                Line(n, 5 * (seat + 1), 0 if seat == 0 else 3) for seat, n in enumerate(game)
            )
            checked = check(Entry("fido", date(2026, 9, 12), 9, lines), site.clock().date())
            service.entries.enter(rep, [checked], source="api", group=slug, new_players=game)
        representatives.append(rep)
        slugs.append(slug)
        club_of.update(dict.fromkeys(names, club))
    return root, organiser, speaker, representatives, slugs, club_of


def championship(site: Site, organiser: Person, slug: str, club_of: dict[str, str]) -> str:
    """The championship of the 120, run by the first club, four rounds over two days,
    every table entered and the event ready to close: its key."""
    made = organiser.post(
        "/api/events",
        {
            "name": "Deutsche Meisterschaft",
            "game": "fido",
            "date": "03.10.2026",
            "days": ["03.10.2026", "04.10.2026"],
            "rounds": 4,
            "options": {"set": 9},
            "group": slug,
        },
    )
    assert made.status_code == 201, made.text
    key = str(made.json()["key"])
    # The players' form in German: "Name; Club" per line, each a known player of that
    # club, found there: not one question, no new player.
    text = "\n".join(f"{name}; {club}" for name, club in club_of.items())
    added = organiser.client.post(
        f"/events/{key}/players",
        data={"csrf": organiser.csrf, "names": text},
        headers={"Accept-Language": "de"},
    )
    assert added.status_code == 200, added.text[:2000]
    assert 'id="asked"' not in added.text
    shown = event_of(organiser, key)
    assert len(shown["players"]) == 120
    assert {p["name"]: p["club"] for p in shown["players"]} == club_of
    rng = random.Random(49)
    for number in range(1, 5):
        assert organiser.post(f"/api/events/{key}/rounds").status_code == 201
        enter_round(site, organiser, key, number, rng)
    return key


def month(person: Person) -> list[dict[str, object]]:
    listed = person.client.get("/api/results", params={"month": "2026-10", "limit": 500}).json()
    return [r for r in listed["results"] if r["event"] is not None]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("site", "way"),
    each_on_one_database(["each club confirms", "an administrator sanctions"]),
    indirect=["site"],
)
def test_a_championship_of_twelve_clubs_counts_after_one_word_per_club(
    site: Site, way: str
) -> None:
    root, organiser, speaker, representatives, slugs, club_of = clubs_with_players(site)
    key = championship(site, organiser, slugs[0], club_of)

    # The close says, before it happens, what will count and whose word the rest waits
    # for; nothing changes by asking.
    check = organiser.post(f"/api/events/{key}/close?check=true")
    assert check.status_code == 200, check.text
    summary = check.json()
    assert summary["results"] == sum(len(r["tables"]) for r in event_of(organiser, key)["drawn"])
    waiting = {w["who"]: w["results"] for w in summary["waiting"]}
    assert set(waiting) == {f"Vertreter {n:02d} ({club})" for n, club in enumerate(CLUBS)} - {
        f"Vertreter 00 ({CLUBS[0]})"
    }
    assert event_of(organiser, key)["status"] == "open"
    page = organiser.client.post(
        f"/events/{key}/close", data={"csrf": organiser.csrf}, headers={"Accept-Language": "de"}
    )
    assert "Vertreter 05 (Dominofreunde Graz)" in page.text
    closed = organiser.post(f"/api/events/{key}/close")
    assert closed.status_code == 200, closed.text
    results = month(organiser)
    assert len(results) == summary["results"]
    assert sum(1 for r in results if r["counts"]) == summary["counting"] < len(results)
    # No result says that none of its players belongs to an approved group.
    assert not any("none of its players" in str(r["why_not"]) for r in results)
    assert {w["who"] for w in event_of(organiser, key)["waiting"]} == set(waiting)

    if way == "each club confirms":
        # Graz's representative on the pages: the review first, then one step.
        review = speaker.client.post(
            f"/events/{key}/confirm", data={"csrf": speaker.csrf}, headers={"Accept-Language": "de"}
        )
        assert review.status_code == 200 and 'id="confirm-yes"' in review.text
        assert month(organiser) == results  # the review changed nothing
        done = speaker.client.post(
            f"/events/{key}/confirm", data={"csrf": speaker.csrf, "confirm": "yes"}
        )
        assert done.status_code == 200, done.text[:500]
        # The others through the service (the API's path: POST /api/events/KEY/confirm).
        for number, rep in enumerate(representatives[1:], 1):
            if number == SPEAKER:
                continue
            shown = site.results.reviews.confirm_all(rep, event=key)
            assert shown["confirmed"] > 0 and not shown["saved"]
            saved = site.results.reviews.confirm_all(rep, event=key, save=True)
            assert saved["confirmed"] == shown["confirmed"]
        # A stranger's one step confirms nothing.
        stranger = site.person("Mallory")
        assert stranger.post(f"/api/events/{key}/confirm", {"save": True}).json()["confirmed"] == 0
    else:
        refused = organiser.post(f"/api/events/{key}/sanction", {"save": True})
        assert refused.status_code == 403
        review = root.post(f"/api/events/{key}/sanction", {})
        assert review.json()["counting"] == len(results) and not review.json()["saved"]
        assert root.post(f"/api/events/{key}/sanction", {"save": True}).status_code == 200

    results = month(organiser)
    assert all(r["counts"] for r in results), [r["why_not"] for r in results if not r["counts"]]
    assert event_of(organiser, key)["waiting"] == []

    # Each club's export holds every game of its players.
    for slug, club in zip(slugs, CLUBS, strict=True):
        exported = organiser.client.get(
            "/api/results/export.csv", params={"month": "2026-10", "group": slug}
        )
        assert exported.status_code == 200
        rows = list(csv.DictReader(io.StringIO(exported.text.lstrip("\ufeff"))))
        games = {r["game_no"] for r in rows}
        theirs = {
            str(r["id"])
            for r in results
            if any(club_of.get(p["name"]) == club for p in r["players"])  # type: ignore[attr-defined]
        }
        # The organising club's export holds its whole championship; every other
        # club's, exactly its players' games.
        assert theirs <= games if club == CLUBS[0] else theirs == games, club
        names = {name_key(r["player"]) for r in rows}
        assert {name_key(n) for n, c in club_of.items() if c == club} <= names
