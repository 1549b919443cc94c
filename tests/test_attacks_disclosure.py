"""Issue 48: what a stranger sends proves nothing it only claims, and learns nothing it
may not know. Each test is an attack that once worked, shown refused:

* a server's record relabelled ``deal_mode: manual`` (its commitments stripped, or
  kept) passed ``pips check --require-proof``;
* group names took look-alike letters and markup that account names refuse;
* ``GET /api/events`` gave every event's key, a group's page its invitations, the
  anonymous check a result's id; a result dated 1899-12-31 was taken.
"""

from __future__ import annotations

import json
import secrets
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from pips import record
from pips.bots import make_bot
from pips.games.registry import find_game
from pips.sim import play_game
from tests.test_cli import run
from tests.test_results_server import Site, csv_text

# -- 9. a self-declared manual deal proves nothing -----------------------------------------


def server_record() -> dict[str, Any]:
    """A FIDO game as a server's public table writes it: every deal committed to, the
    salts revealed, no seed."""
    spec = find_game("fido")
    options = spec.options_from_json({"players": 3, "set": 9})
    match = play_game(spec, options, [make_bot("greedy")] * 3, seed=11)
    salts = [secrets.token_hex(16) for _ in match.hand_states]
    return dict(
        record.write_record(
            match, ["Ann", "Bo", "Cy"], bots=[None, "greedy", "greedy"], salts=salts
        )
    )


def relabelled(written: dict[str, Any], *, strip: bool) -> dict[str, Any]:
    forged: dict[str, Any] = json.loads(json.dumps(written))
    forged["options"]["deal_mode"] = "manual"
    if strip:
        del forged["commitments"]
        for hand in forged["hands"]:
            del hand["commitment"], hand["salt"]
    return forged


def test_a_server_record_relabelled_manual_fails_require_proof(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The attack: take a server's record, say its deal was typed in at a real table
    (F-24) and strip the commitments that would tie it to what was dealt. It replays
    (a manual deal's draws name their tiles), and `--require-proof` took it as proven."""
    written = server_record()
    genuine = tmp_path / "genuine.jsonl"
    genuine.write_text(record.dumps(written) + "\n")
    code, out, _ = run(["check", "--require-proof", str(genuine)], capsys)
    assert code == 0 and "match the commitments" in out

    forged = relabelled(written, strip=True)
    record.replay(forged)  # a valid record: the rules alone cannot tell
    path = tmp_path / "forged.jsonl"
    path.write_text(record.dumps(forged) + "\n")
    code, out, _ = run(["check", str(path)], capsys)
    assert code == 0 and "typed in at a real table" in out  # said, not proven
    code, _, err = run(["check", "--require-proof", str(path)], capsys)
    assert code == 1
    assert "proves nothing about how they were dealt" in err
    code, out, _ = run(["check", "--require-proof", "--json", str(path)], capsys)
    assert code == 1
    found = json.loads(out)["files"][0]
    assert found["proven"] is False and found["dealt_by_hand"] == len(forged["hands"])


def test_a_manual_deal_in_a_record_with_a_servers_marks_is_suspect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A server never deals by hand (its tables refuse the option), so commitments
    beside a manual deal are a server's record relabelled: its commitments do not
    count (a manual deal's draws name any tile), and the check says why."""
    forged = relabelled(server_record(), strip=False)
    assert record.provenance(forged) == ["suspect"] * len(forged["hands"])
    path = tmp_path / "kept.jsonl"
    path.write_text(record.dumps(forged) + "\n")
    code, out, _ = run(["check", str(path)], capsys)
    assert code == 0 and "match the commitments" not in out
    assert "a server's table, which never deals by hand: record 1 hand 1" in out
    code, _, err = run(["check", "--require-proof", str(path)], capsys)
    assert code == 1 and "never deals by hand" in err
    # Stand-ins are a server's alone too.
    stripped = relabelled(server_record(), strip=True)
    assert record.provenance({**stripped, "stand_ins": []}) == ["suspect"]
    assert record.provenance(stripped) == ["by hand"]


# -- 10. a group's name under the rule of an account's ------------------------------------


@pytest.mark.slow
def test_a_group_name_that_looks_like_a_taken_one_or_holds_markup_is_refused(
    site: Site,
) -> None:
    """Account names refuse look-alike letters and markup; group names took both:
    ``Dominoclub Kіel`` (a Cyrillic і) beside ``Dominoclub Kiel`` got an address of its
    own, and a representative's vouching with it."""
    anna, mallory = site.person("Anna"), site.person("Mallory")
    assert anna.post("/api/groups", {"name": "Dominoclub Kiel"}).status_code == 201
    for lookalike in (
        "Dominoclub K\u0456el",  # Cyrillic і
        "D\u03bfminoclub Kiel",  # Greek ο
        "DOMINOCLUB  KIEL",  # the same name, shouted
        "Dorninoclub Kiel",  # rn for m
        "Domino Club Kiel",  # a space more
        "Domino-Club Kiel",  # a hyphen
        "Domino.club Kiel",  # a dot
        "DominoclubKiel",  # a space less
    ):
        refused = mallory.post("/api/groups", {"name": lookalike})
        assert refused.status_code == 409, (lookalike, refused.text)
        assert "taken" in refused.json()["message"]
    for markup in ("<b>Club</b>", "Club\u202eKiel", "Club\u200bKiel", "=HYPERLINK(1)"):
        refused = mallory.post("/api/groups", {"name": markup})
        assert refused.status_code == 422, (markup, refused.text)
    # The form says the same.
    page = mallory.client.post(
        "/groups", data={"csrf": mallory.csrf, "name": "Dominoclub K\u0456el"}
    )
    assert page.status_code == 409 and "looks like" in page.text
    assert [g["name"] for g in anna.client.get("/api/groups").json()] == ["Dominoclub Kiel"]
    # Names of any language stay welcome.
    for name in ("Domino-Freunde Mühle", "1. DC O'Neill e.V."):
        made = mallory.post("/api/groups", {"name": name})
        assert made.status_code == 201, made.text
    assert mallory.post("/api/groups", {"name": "Domino-Freunde Mühle"}).status_code == 409


# -- 13. keys, invitations and ids only to those who may have them ------------------------


@pytest.mark.slow
def test_the_events_list_gives_an_events_key_only_to_those_who_act_on_it(site: Site) -> None:
    """An event's key is its address, which nobody finds by counting (docs/events.md);
    ``GET /api/events`` and the events page handed every key to anyone."""
    root = site.admin()
    anna, ben, olga = site.person("Anna"), site.person("Ben"), site.person("Olga")
    slug = site.approved_group(anna, "Kiel", root)
    # Ben is Kiel's member: a name on a club's event is linked to an account only with
    # the club's word (docs/results.md, players rule 3), so the seat "Ben" is his.
    assert anna.post(f"/api/groups/{slug}/members", {"name": "Ben"}).status_code == 200
    assert ben.post(f"/api/groups/{slug}/join", {}).status_code == 200
    body = {"name": "Kieler Abend", "game": "fido", "date": "2026-10-10", "rounds": 1}
    made = anna.post("/api/events", {**body, "group": slug})
    assert made.status_code == 201, made.text
    key = made.json()["key"]
    added = anna.post(f"/api/events/{key}/players", {"names": ["Ben", "Cleo", "Dora"]})
    assert added.status_code == 200, added.text
    anonymous = TestClient(site.app)
    for stranger in (anonymous, olga.client):
        listed = stranger.get("/api/events").json()
        assert [e["name"] for e in listed] == ["Kieler Abend"]
        assert listed[0]["key"] is None
        page = stranger.get("/events").text
        assert key not in page and "Kieler Abend" in page
    for insider in (anna, ben, root):
        assert insider.client.get("/api/events").json()[0]["key"] == key
        assert f'href="/events/{key}"' in insider.client.get("/events").text


@pytest.mark.slow
def test_a_groups_invitations_are_shown_to_the_two_sides_only(site: Site) -> None:
    anna, ben, olga = site.person("Anna"), site.person("Ben"), site.person("Olga")
    assert anna.post("/api/groups", {"name": "Hafenclub"}).status_code == 201
    assert anna.post("/api/groups/hafenclub/members", {"name": "Ben"}).status_code == 200
    assert olga.post("/api/groups/hafenclub/join", {}).status_code == 200  # asks
    shown = anna.client.get("/api/groups/hafenclub").json()
    assert shown["invited"] == ["Ben"] and shown["asked"] == ["Olga"]
    assert ben.client.get("/api/groups/hafenclub").json()["invited"] == ["Ben"]
    assert ben.client.get("/api/groups/hafenclub").json()["asked"] == []
    for stranger in (TestClient(site.app), site.person("Paul").client):
        seen = stranger.get("/api/groups/hafenclub").json()
        assert seen["invited"] == [] and seen["asked"] == []
        assert seen["members"] == ["Anna"]
        page = stranger.get("/groups/hafenclub").text
        assert "Ben" not in page and "Olga" not in page
    assert "Ben" in anna.client.get("/groups/hafenclub").text


def fido_game(day: str) -> dict[str, Any]:
    return {
        "game": "fido",
        "date": day,
        "set": 6,
        "players": [
            {"name": "Anna", "points": 14, "pips": 0},
            {"name": "Ben", "points": 17, "pips": 13},
            {"name": "Cleo", "points": 9, "pips": 1},
        ],
    }


def test_the_anonymous_check_says_already_entered_without_the_results_number(
    site: Site,
) -> None:
    """The check anyone may call answered "already entered: result N": whoever holds a
    game's sheet learnt where its result is kept (a private table's, say)."""
    anna = site.person("Anna")
    made = anna.post("/api/results", {"results": [fido_game("2026-10-03")]})
    assert made.status_code == 201, made.text
    number = made.json()["ids"][0]
    anonymous = TestClient(site.app)
    batch = {"results": [fido_game("2026-10-03")]}
    told = anonymous.post("/api/results/check", json=batch)
    assert told.status_code == 409 and "already entered" in told.text
    assert f"result {number}" not in told.text and str(number) not in told.json()["message"]
    two = {"results": [fido_game("2026-10-04"), fido_game("2026-10-03")]}
    told = anonymous.post("/api/results/check", json=two)
    assert told.status_code == 409 and "game 2" in told.text and "result" not in told.text
    # Who may see the result is told where it is.
    mine = anna.post("/api/results/check", batch)
    assert mine.status_code == 409 and f"result {number}" in mine.text


def test_a_result_before_the_earliest_date_is_refused_on_every_route(site: Site) -> None:
    """1899-12-31 is a spreadsheet's empty date; it was taken as a game's."""
    anna = site.person("Anna")
    for day in ("1899-12-31", "1970-01-01", "1999-12-31"):
        game = fido_game(day)
        for answer in (
            anna.post("/api/results", {"results": [game]}),
            TestClient(site.app).post("/api/results/check", json={"results": [game]}),
        ):
            assert answer.status_code == 422, answer.text
            assert "2000-01-01, the earliest a result may carry" in answer.text
    rows = [
        [1, "31.12.1899", "Kiel", "fido", 6, 3, seat, name, points, pips, out, "", ""]
        for seat, name, points, pips, out in (
            (1, "Anna", 14, 0, "yes"),
            (2, "Ben", 17, 13, ""),
            (3, "Cleo", 9, 1, ""),
        )
    ]
    sent = anna.post("/api/results/csv", None, content=csv_text(rows), params={})
    assert sent.status_code == 422 and "the earliest a result may carry" in sent.text
    form = {
        "csrf": anna.csrf,
        "game": "fido",
        "players": "3",
        "date": "1899-12-31",
        "set": "6",
        **{f"name{i}": n for i, n in enumerate(("Anna", "Ben", "Cleo"))},
        **{f"points{i}": str(p) for i, p in enumerate((14, 17, 9))},
        **{f"pips{i}": str(p) for i, p in enumerate((0, 13, 1))},
        "out": "0",
        "action": "save",
    }
    page = anna.client.post("/results/new", data=form)
    assert page.status_code == 422 and "the earliest a result may carry" in page.text
    assert site.count() == 0
    assert anna.post("/api/results", {"results": [fido_game("2000-01-01")]}).status_code == 201


# -- what a client sent, quoted back ------------------------------------------------------


def test_a_message_that_quotes_a_client_shows_its_controls_and_does_not_obey_them(
    site: Site,
) -> None:
    """``GET /api/lists/%E2%80%AEfido`` answered "no published list of \u202efido":
    the right-to-left override sent in the address was echoed into the message, where it
    turns the words after it around. Quoted text shows such a character as ``\\u202e``
    (``pips.text.quoted``), and no message carries one."""
    anna = site.person("Anna")
    sneaky = "%E2%80%AEfido%E2%80%8B%0A"
    for address in (
        f"/api/lists/{sneaky}",
        f"/api/lists/fido?month=2026-10{sneaky}",
        f"/api/lists/fido/players/{sneaky}",
        f"/api/groups/{sneaky}",
        f"/api/results?month={sneaky}",
    ):
        answer = anna.client.get(address)
        assert answer.status_code in (404, 422), (address, answer.text)
        message = answer.json()["message"]
        assert not any(unicodedata.category(c)[0] in "CZ" and c != " " for c in message), (
            address,
            ascii(message),
        )
        assert "\\u202e" in message, (address, message)
    page = anna.client.get(f"/list?game={sneaky}", headers={"Accept": "text/html"})
    assert page.status_code == 404 and "\u202e" not in page.text and "\\u202e" in page.text
    long = anna.client.get("/api/lists/" + "x" * 3000).json()["message"]
    assert len(long) < 200 and "…" in long
