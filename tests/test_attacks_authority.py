"""Strangers with power over other people's results (issue 49, items 1 and 2), tried
through the JSON API as a hostile free account would, on SQLite and PostgreSQL: every
one answered by the authority model (:mod:`pips.results.authority`)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.test_results_server import Person, Site, fido

DAY = "2026-10-03"
KIEL_GAME = fido(DAY, ("Anna", 30, 0), ("Ben", 12, 3), ("Cleo", 5, 7))


def kiel(site: Site) -> tuple[Person, Person, Person, str]:
    """An approved club, Kiel (represented by Anna), Ben its member; (root, anna, ben,
    slug)."""
    root, anna, ben = site.admin(), site.person("Anna"), site.person("Ben")
    slug = site.approved_group(anna, "Kiel", root)
    assert anna.post(f"/api/groups/{slug}/members", {"name": "Ben"}).status_code == 200
    assert ben.post(f"/api/groups/{slug}/join", {}).status_code == 200
    return root, anna, ben, slug


def shown(person: Person, result_id: int) -> dict[str, Any]:
    found = person.client.get(f"/api/results/{result_id}")
    assert found.status_code == 200, found.text
    return dict(found.json())


def player_id(person: Person, name: str) -> int:
    (found,) = person.client.get("/api/players", params={"name": name}).json()
    return int(found["id"])


def strangers_event(mallory: Person, names: list[str], known: dict[str, int]) -> str:
    """A club nobody approved, founded by Mallory, and an event of hers on the day of
    Kiel's game with the same players: its key."""
    made = mallory.post("/api/groups", {"name": "Mallorys Runde"})
    assert made.status_code == 201, made.text
    body = {"name": "Abend", "game": "fido", "date": DAY, "rounds": 1, "options": {"set": 6}}
    event = mallory.post("/api/events", {**body, "group": made.json()["slug"]})
    assert event.status_code == 201, event.text
    key = str(event.json()["key"])
    added = mallory.post(f"/api/events/{key}/players", {"names": names, "known_players": known})
    assert added.status_code == 200, added.text
    return key


@pytest.mark.slow
def test_a_stranger_cannot_withdraw_a_clubs_result_by_an_event_of_the_same_day(
    site: Site,
) -> None:
    """Item 1: an event of the day with the same players gave its organiser the word
    to withdraw the club's counted result (``_organises_its_table``)."""
    _, anna, _, slug = kiel(site)
    made = anna.enter(KIEL_GAME, group=slug)
    assert made.status_code == 201, made.text
    (rid,) = made.json()["ids"]
    assert shown(anna, rid)["counts"]
    mallory = site.person("Mallory")
    key = strangers_event(mallory, ["Anna", "Ben", "Cleo"], {"Cleo": player_id(anna, "Cleo")})
    assert mallory.post(f"/api/events/{key}/rounds").status_code == 201  # a table of them
    refused = mallory.post(f"/api/results/{rid}/withdraw")
    assert refused.status_code == 403, refused.text
    assert "who may" in refused.json()["message"]
    after = shown(anna, rid)
    assert after["status"] == "confirmed" and after["counts"]


@pytest.mark.slow
def test_a_strangers_event_closed_with_the_same_numbers_takes_nothing_over(
    site: Site,
) -> None:
    """Item 1: the same numbers entered at the stranger's own event's table, and its
    close withdrew every result of that fingerprint, another's too."""
    _, anna, _, slug = kiel(site)
    (rid,) = anna.enter(KIEL_GAME, group=slug).json()["ids"]
    mallory = site.person("Mallory")
    key = strangers_event(mallory, ["Anna", "Ben", "Cleo"], {"Cleo": player_id(anna, "Cleo")})
    drawn = mallory.post(f"/api/events/{key}/rounds")
    assert drawn.status_code == 201, drawn.text
    lines = {p["name"]: p for p in KIEL_GAME["players"]}
    table = drawn.json()["drawn"][0]["tables"][0]
    entered = mallory.post(
        f"/api/events/{key}/rounds/1/tables/{table['number']}",
        {"players": [lines[n] for n in table["seats"]]},
    )
    assert entered.status_code == 200, entered.text
    closed = mallory.post(f"/api/events/{key}/close")
    assert closed.status_code == 200, closed.text
    after = shown(anna, rid)
    assert after["status"] == "confirmed" and after["counts"], after["reviews"]
    # The stranger's event records its table's game, kept beside the club's and never
    # counting: the game counts once, as the club's.
    month = anna.client.get("/api/results", params={"month": "2026-10"}).json()
    (copy,) = [r["id"] for r in month["results"] if r["id"] != rid]
    beside = shown(anna, copy)
    assert not beside["counts"] and f"result {rid}" in beside["why_not"], beside


@pytest.mark.slow
def test_joining_a_strangers_event_changes_no_players_group_nor_who_decides_claims(
    site: Site,
) -> None:
    """Item 2: a player of no group added to a club's event became the club's, and
    its representative then approved a claim of it (even their own); the real person
    later got 409 "already claimed"."""
    root, _anna, ben, _slug = kiel(site)
    home = fido(DAY, ("Ben", 20, 0), ("Zora Quast", 10, 3), ("Anna", 5, 4))
    made = ben.post("/api/results", {"results": [home], "new_players": ["Zora Quast"]})
    assert made.status_code == 201, made.text
    (rid,) = made.json()["ids"]
    assert root.post(f"/api/results/{rid}/confirm").status_code == 200
    zora = player_id(ben, "Zora Quast")
    mallory = site.person("Mallory")
    strangers_event(mallory, ["Zora Quast", "Mallory", "Anna"], {"Zora Quast": zora})
    assert mallory.client.get(f"/api/players/{zora}").json()["group"] is None
    # Mallory claims Zora and cannot decide her own claim; nor can a second account.
    assert mallory.post(f"/api/players/{zora}/claim").status_code == 200
    own = mallory.post(f"/api/players/{zora}/claim/approve?claimant=Mallory")
    assert own.status_code == 403, own.text
    sock = site.person("Sockenpuppe")
    assert sock.post(f"/api/players/{zora}/claim").status_code == 200
    assert mallory.post(f"/api/players/{zora}/claim/approve?claimant=Sockenpuppe").status_code == (
        403
    )
    # The real person claims too; an administrator decides, and it is hers.
    real = site.person("Zora Quast")
    assert real.post(f"/api/players/{zora}/claim").status_code == 200
    waiting = root.client.get("/api/admin/waiting").json()["claims"]
    assert [c["id"] for c in waiting] == [zora]
    decided = root.post(f"/api/players/{zora}/claim/approve?claimant=Zora Quast")
    assert decided.status_code == 200, decided.text
    assert decided.json()["account"] == "Zora Quast"


@pytest.mark.slow
def test_an_approved_clubs_event_does_not_vouch_for_a_player_it_does_not_answer_for(
    site: Site,
) -> None:
    """Item 2: an approved club's representative who adds a player of no group to
    the club's event made the player the club's, and invented losses of the player
    counted."""
    _root, anna, ben, slug = kiel(site)
    home = fido(DAY, ("Ben", 20, 0), ("Zora Quast", 10, 3), ("Anna", 5, 4))
    (rid,) = ben.post("/api/results", {"results": [home], "new_players": ["Zora Quast"]}).json()[
        "ids"
    ]
    zora = player_id(ben, "Zora Quast")
    key, _ = clubs_evening(anna, slug, "2026-10-04", "Zora Quast", {"Zora Quast": zora})
    assert anna.post(f"/api/events/{key}/close").status_code == 200
    assert anna.client.get(f"/api/players/{zora}").json()["group"] is None
    zoras = anna.client.get("/api/results", params={"player": str(zora)}).json()["results"]
    evening = next(r for r in zoras if r["event"] is not None)
    assert not evening["counts"]
    assert "administrator" in evening["why_not"]
    assert shown(anna, rid)["id"] == rid


@pytest.mark.slow
def test_a_question_of_names_gives_its_candidates_as_data(site: Site) -> None:
    """Item 5: through the API the candidates existed only inside the message's words;
    now each comes with its id, club and last game, and a player named with its own
    club is found there without a question."""
    _, anna, _ben, slug = kiel(site)
    made = anna.enter(KIEL_GAME, group=slug)
    assert made.status_code == 201, made.text
    cleo = player_id(anna, "Cleo")
    mallory = site.person("Mallory")
    club = mallory.post("/api/groups", {"name": "Mallorys Runde"}).json()["slug"]
    body = {"name": "Abend", "game": "fido", "date": DAY, "rounds": 1, "group": club}
    key = mallory.post("/api/events", body).json()["key"]
    asked = mallory.post(f"/api/events/{key}/players", {"names": ["Cleo"]})
    assert asked.status_code == 422, asked.text
    (candidate,) = asked.json()["candidates"]["Cleo"]
    assert candidate["id"] == cleo and candidate["group"] == "Kiel"
    assert candidate["last_game"] == DAY
    # Named with her club, she is found there: no question.
    found = mallory.post(
        f"/api/events/{key}/players", {"names": ["Cleo"], "clubs": {"Cleo": "Kiel"}}
    )
    assert found.status_code == 200, found.text
    (seated,) = found.json()["players"]
    assert seated["player"] == cleo and seated["club"] == "Kiel"
    assert anna.client.get(f"/api/players/{cleo}").json()["group"]["slug"] == slug
    # A refusal that asks nothing carries no candidates.
    refused = mallory.post(f"/api/results/{made.json()['ids'][0]}/withdraw")
    assert refused.status_code == 403 and "candidates" not in refused.json()


def clubs_evening(
    anna: Person, slug: str, day: str, guest: str, known: dict[str, int] | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """Kiel's evening on ``day``, run by Anna, with Ben and ``guest`` at one table
    whose game (the guest losing) is entered: its key and the table's lines."""
    body = {"name": "Clubabend", "game": "fido", "date": day, "rounds": 1}
    key = anna.post("/api/events", {**body, "options": {"set": 6}, "group": slug}).json()["key"]
    names = {"names": ["Anna", "Ben", guest], "known_players": known or {}}
    added = anna.post(f"/api/events/{key}/players", names)
    assert added.status_code == 200, added.text
    table = anna.post(f"/api/events/{key}/rounds").json()["drawn"][0]["tables"][0]
    scores = {"Anna": (40, 0), "Ben": (30, 2), guest: (0, 30)}
    lines = [{"name": n, "points": scores[n][0], "pips": scores[n][1]} for n in table["seats"]]
    entered = anna.post(f"/api/events/{key}/rounds/1/tables/{table['number']}", {"players": lines})
    assert entered.status_code == 200, entered.text
    return key, lines


def clubs_event_with_a_guest(site: Site) -> tuple[Person, Person, str, dict[str, Any]]:
    """Kiel's evening with Mallory, an account of no club:
    (anna, mallory, key, the game as entered)."""
    _, anna, _ben, slug = kiel(site)
    mallory = site.person("Mallory")
    key, lines = clubs_evening(anna, slug, DAY, "Mallory")
    return anna, mallory, key, {"game": "fido", "date": DAY, "set": 6, "players": lines}


def test_a_stranger_cannot_plant_a_clubs_event_game_for_his_free_group(site: Site) -> None:
    """Hostile review: a stranger's unapproved group entered the event's game (he
    played nothing) and its close then made no result of the table; withdrawing his
    copy made the game vanish."""
    anna, _mallory, key, game = clubs_event_with_a_guest(site)
    stranger = site.person("Stefan")
    group = stranger.post("/api/groups", {"name": "Stranger Club Three"}).json()["slug"]
    known = {p["name"]: player_id(anna, p["name"]) for p in game["players"][:1]}
    planted = stranger.post(
        "/api/results",
        {"group": group, "results": [game], "known_players": known, "new_players": ["Mallory"]},
    )
    assert planted.status_code == 403, planted.text
    assert "approved group" in planted.json()["message"]
    check = anna.post(f"/api/events/{key}/close?check=true")
    assert check.status_code == 200, check.text
    assert check.json()["results"] == 1 and check.json()["kept"] == 0


def test_a_players_own_copy_neither_suppresses_nor_removes_the_events_result(
    site: Site,
) -> None:
    """Hostile review: Mallory (a player of the table, no club member) entered the game
    himself before the close; the close kept his copy and made nothing, and his
    withdrawal then left the game nowhere. Now the close records the event's result,
    his copy gives way (kept, never counting) and withdrawing it takes nothing away."""
    anna, mallory, key, game = clubs_event_with_a_guest(site)
    own = mallory.post("/api/results", {"results": [game]})
    assert own.status_code == 201, own.text
    (copy,) = own.json()["ids"]
    check = anna.post(f"/api/events/{key}/close?check=true").json()
    assert (check["results"], check["counting"], check["kept"]) == (1, 1, 1), check
    assert anna.post(f"/api/events/{key}/close").status_code == 200
    month = anna.client.get("/api/results", params={"month": "2026-10"}).json()["results"]
    (event_result,) = [r["id"] for r in month if r["event"] is not None]
    assert shown(anna, event_result)["counts"]
    beside = shown(anna, copy)
    assert not beside["counts"] and "Clubabend" in beside["why_not"], beside
    # Not the organiser's to withdraw; its enterer's, and the event's game stays.
    assert anna.post(f"/api/results/{copy}/withdraw").status_code == 403
    assert mallory.post(f"/api/results/{copy}/withdraw").status_code == 200
    after = shown(anna, event_result)
    assert after["status"] == "confirmed" and after["counts"], after
    # The event's result holds the game: entered again outside, it is a duplicate.
    again = mallory.post("/api/results", {"results": [game]})
    assert again.status_code == 409, again.text


def test_a_name_registered_first_is_not_linked_to_a_clubs_new_player_unasked(
    site: Site,
) -> None:
    """Hostile review (name squatting): an account registered under a name that later
    appears new on a club's result became that seat (rule 3 of
    pips.results.players), so the club's word no longer covered it and the squatter
    could dispute the club's game. Now the seat is the club's new player, and the
    account is linked only by a claim the club's representative approves."""
    _, anna, _ben, slug = kiel(site)
    squatter = site.person("Hans Meyer")
    game = fido(DAY, ("Anna", 30, 0), ("Ben", 12, 3), ("Hans Meyer", 5, 7))
    made = anna.post(
        "/api/results", {"group": slug, "results": [game], "new_players": ["Hans Meyer"]}
    )
    assert made.status_code == 201, made.text
    (rid,) = made.json()["ids"]
    hans = player_id(anna, "Hans Meyer")
    seat = anna.client.get(f"/api/players/{hans}").json()
    assert seat["account"] is None and seat["group"]["slug"] == slug, seat
    assert shown(anna, rid)["counts"]
    assert squatter.post(f"/api/results/{rid}/dispute", {"comment": "nie"}).status_code == 403
    # The real Hans claims the seat; Kiel's representative agrees.
    assert squatter.post(f"/api/players/{hans}/claim").status_code == 200
    decided = anna.post(f"/api/players/{hans}/claim/approve")
    assert decided.status_code == 200, decided.text
    assert decided.json()["account"] == "Hans Meyer"
