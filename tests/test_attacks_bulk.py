"""Bulk decisions, the representative's role and founding groups (issue 49), tried
through the JSON API and the pages as a stranger's account, or four free accounts of one
person, would, on SQLite and PostgreSQL: each step decides many results or claims at
once only where the authority model (:mod:`pips.results.authority`) lets its account
decide every one, all or none, and shows its review first without changing anything."""

from __future__ import annotations

from typing import Any

from tests.test_attacks_authority import kiel, player_id, shown
from tests.test_results_server import Person, Site, fido


def member(site: Site, rep: Person, slug: str, name: str) -> Person:
    """A new account that accepted ``rep``'s invitation to the group ``slug``."""
    person = site.person(name)
    assert rep.post(f"/api/groups/{slug}/members", {"name": name}).status_code == 200
    assert person.post(f"/api/groups/{slug}/join", {}).status_code == 200
    return person


def disputed(by: Person, enterer: Person, slug: str, *games: dict[str, Any]) -> list[int]:
    """``games`` entered for the group ``slug`` by ``enterer``, each disputed by ``by``."""
    made = enterer.enter(*games, group=slug)
    assert made.status_code == 201, made.text
    ids = [int(i) for i in made.json()["ids"]]
    for rid in ids:
        answer = by.post(f"/api/results/{rid}/dispute", {"comment": "so war das nicht"})
        assert answer.json()["status"] == "disputed", answer.text
    return ids


def statuses(person: Person, ids: list[int]) -> list[str]:
    return [shown(person, rid)["status"] for rid in ids]


def test_strangers_decide_no_dispute_in_bulk_and_a_review_changes_nothing(site: Site) -> None:
    """A free account, and four of one person, cannot reject (make count) or uphold
    (withdraw) an approved club's disputed results in one step; whoever entered the
    results cannot either; an administrator's review changes nothing, and one result
    that waits for no such decision refuses the whole step."""
    root, anna, ben, slug = kiel(site)
    ids = disputed(
        ben,
        anna,
        slug,
        fido("2026-10-03", ("Anna", 30, 0), ("Ben", 12, 3), ("Cleo", 5, 7)),
        fido("2026-10-04", ("Anna", 20, 0), ("Ben", 18, 3), ("Cleo", 5, 7)),
    )
    ring = [site.person(f"Mallory {n}") for n in range(4)]
    for sock in ring:
        for action in ("reject", "uphold", "clear"):
            refused = sock.post("/api/results/decide", {"action": action, "ids": ids, "save": True})
            assert refused.status_code == 403, refused.text
            assert "who may" in refused.json()["message"]
    # Her free club, founded and handed round the ring, gives her no word either.
    made = ring[0].post("/api/groups", {"name": "Mallorys Runde"})
    assert made.status_code == 201, made.text
    assert ring[0].post("/api/results/decide", {"action": "reject", "ids": ids}).status_code == 403
    # Anna entered them: nobody decides a dispute about a game they entered.
    assert anna.post("/api/results/decide", {"action": "reject", "ids": ids}).status_code == 403
    assert statuses(anna, ids) == ["disputed", "disputed"]
    # The administrator's review shows what would become of each, and changes nothing.
    review = root.post("/api/results/decide", {"action": "uphold", "ids": ids})
    assert review.status_code == 200, review.text
    assert [r["status"] for r in review.json()["results"]] == ["withdrawn", "withdrawn"]
    assert not review.json()["saved"] and statuses(anna, ids) == ["disputed", "disputed"]
    # All or none: a result not disputed in the step refuses it whole.
    (plain,) = anna.enter(
        fido("2026-10-05", ("Anna", 30, 0), ("Ben", 10, 3), ("Cleo", 5, 7)), group=slug
    ).json()["ids"]
    mixed = root.post(
        "/api/results/decide", {"action": "reject", "ids": [*ids, plain], "save": True}
    )
    assert mixed.status_code == 409, mixed.text
    assert statuses(anna, ids) == ["disputed", "disputed"]
    # Bad input: a clear error, nothing changed.
    for body in ({"action": "explode", "ids": ids}, {"action": "reject", "ids": []}):
        assert root.post("/api/results/decide", body).status_code == 422
    missing = root.post("/api/results/decide", {"action": "reject", "ids": [10**6], "save": True})
    assert missing.status_code == 404
    done = root.post("/api/results/decide", {"action": "reject", "ids": ids, "save": True})
    assert done.status_code == 200 and done.json()["saved"]
    assert statuses(anna, ids) == ["confirmed", "confirmed"]
    assert all(shown(anna, rid)["counts"] for rid in ids)


def test_a_representative_decides_the_clubs_disputes_in_one_step_on_the_page(
    site: Site,
) -> None:
    """Kiel's representative, who neither entered nor played, sees the disputes of the
    club's results on *To confirm* and rejects them in one step, after a review; a
    result of another club in the same step refuses it whole."""
    root, anna, ben, slug = kiel(site)
    cleo = member(site, anna, slug, "Cleo")
    ids = disputed(
        cleo,
        ben,
        slug,
        fido("2026-10-03", ("Ben", 30, 0), ("Cleo", 12, 3), ("Dora", 5, 7)),
        fido("2026-10-04", ("Ben", 20, 0), ("Cleo", 18, 3), ("Dora", 5, 7)),
    )
    hanna = site.person("Hanna")
    hamburg = site.approved_group(hanna, "Hamburg", root)
    hugo = member(site, hanna, hamburg, "Hugo")
    (theirs,) = disputed(
        member(site, hanna, hamburg, "Hilde"),
        hugo,
        hamburg,
        fido("2026-10-03", ("Hugo", 30, 0), ("Hilde", 12, 3), ("Heiko", 5, 7)),
    )
    listed = anna.client.get("/results/waiting")
    assert 'id="decide-disputes"' in listed.text
    for rid in ids:
        assert f'name="ids" value="{rid}"' in listed.text
    assert f'name="ids" value="{theirs}"' not in listed.text
    # Another club's dispute in the step: refused whole, nothing changed.
    form = {"csrf": anna.csrf, "action": "reject", "ids": [str(i) for i in [*ids, theirs]]}
    refused = anna.client.post("/results/waiting/decide", data=form)
    assert refused.status_code == 403 and "who may" in refused.text
    assert statuses(anna, [*ids, theirs]) == ["disputed"] * 3
    # The review first: it names every result and changes nothing.
    form = {"csrf": anna.csrf, "action": "reject", "ids": [str(i) for i in ids]}
    review = anna.client.post("/results/waiting/decide", data=form)
    assert review.status_code == 200 and 'id="confirm-yes"' in review.text
    assert all(f"Result {rid}" in review.text for rid in ids)
    assert statuses(anna, ids) == ["disputed", "disputed"]
    # Confirmed, exactly what it showed.
    shown_ids = ",".join(str(i) for i in ids)
    done = anna.client.post(
        "/results/waiting/decide",
        data={"csrf": anna.csrf, "action": "reject", "ids": shown_ids, "confirm": "yes"},
    )
    assert done.status_code == 200, done.text[:500]
    assert statuses(anna, ids) == ["confirmed", "confirmed"]
    assert shown(hanna, theirs)["status"] == "disputed"


def test_claims_are_decided_in_bulk_only_by_who_decides_each(site: Site) -> None:
    """A stranger and her sock puppets claim a club's players; none of them decides
    a claim, her own least, one by one or in bulk; the club's representative decides
    them in one step after a review, all or none; a free club's players' claims go to
    an administrator, however many accounts its founder holds."""
    root, anna, _ben, slug = kiel(site)
    made = anna.enter(
        fido("2026-10-03", ("Ben", 30, 0), ("Zora Quast", 12, 3), ("Yann Ruh", 5, 7)),
        group=slug,
    )
    assert made.status_code == 201, made.text
    zora, yann = player_id(anna, "Zora Quast"), player_id(anna, "Yann Ruh")
    ring = [site.person(f"Mallory {n}") for n in range(4)]
    for sock in ring[:2]:
        assert sock.post(f"/api/players/{zora}/claim").status_code == 200
    real = site.person("Yann Ruh")
    assert real.post(f"/api/players/{yann}/claim").status_code == 200
    own = [{"player": zora, "claimant": "Mallory 0"}]
    for sock in ring:
        for approve in (True, False):
            body = {"claims": own, "approve": approve, "save": True}
            assert sock.post("/api/players/claims", body).status_code == 403
    assert shown_player(anna, zora)["claims"] == ["Mallory 0", "Mallory 1"]
    # The representative: the review first, on the page.
    page = anna.client.get("/results/waiting")
    assert f'value="{zora}:Mallory 0"' in page.text and f'value="{yann}:Yann Ruh"' in page.text
    form = {
        "csrf": anna.csrf,
        "decision": "refuse",
        "claims": [f"{zora}:Mallory 0", f"{zora}:Mallory 1"],
    }
    review = anna.client.post("/results/waiting/claims", data=form)
    assert review.status_code == 200 and 'id="confirm-yes"' in review.text
    assert shown_player(anna, zora)["claims"] == ["Mallory 0", "Mallory 1"]
    lines = f"{zora}:Mallory 0\n{zora}:Mallory 1"
    done = anna.client.post(
        "/results/waiting/claims",
        data={"csrf": anna.csrf, "decision": "refuse", "claims": lines, "confirm": "yes"},
    )
    assert done.status_code == 200, done.text[:500]
    assert shown_player(anna, zora)["claims"] == []
    # All or none: a claim decided already in the step refuses it whole.
    both = [{"player": yann, "claimant": "Yann Ruh"}, {"player": zora, "claimant": "Mallory 0"}]
    again = anna.post("/api/players/claims", {"claims": both, "approve": True, "save": True})
    assert again.status_code == 409, again.text
    assert shown_player(anna, yann)["account"] is None
    approved = anna.post("/api/players/claims", {"claims": both[:1], "approve": True, "save": True})
    assert approved.status_code == 200, approved.text
    assert shown_player(anna, yann)["account"] == "Yann Ruh"
    # A free club's player: its founder's word decides no claim of it, in bulk or not.
    assert ring[0].post("/api/groups", {"name": "Mallorys Runde"}).status_code == 201
    free = ring[0].enter(
        fido("2026-10-04", ("Mallory 0", 30, 0), ("Xaver Opfer", 12, 3), ("Mallory 1", 5, 7)),
        group="mallorys-runde",
    )
    assert free.status_code == 201, free.text
    xaver = player_id(anna, "Xaver Opfer")
    assert ring[2].post(f"/api/players/{xaver}/claim").status_code == 200
    body = {"claims": [{"player": xaver, "claimant": "Mallory 2"}], "approve": True, "save": True}
    assert ring[0].post("/api/players/claims", body).status_code == 403
    assert root.post("/api/players/claims", {**body, "approve": False}).status_code == 200


def shown_player(person: Person, player: int) -> dict[str, Any]:
    found = person.client.get(f"/api/players/{player}")
    assert found.status_code == 200, found.text
    return dict(found.json())


def test_the_representatives_role_moves_only_by_its_holders_word_to_a_member(
    site: Site,
) -> None:
    """Nobody takes a club's voice: a stranger cannot hand Kiel's role to herself, nor
    its representative to an account that is not its member; handed to a member, the
    old representative's word decides nothing more; an administrator hands on the role
    of a club whose representative is gone."""
    root, anna, ben, slug = kiel(site)
    mallory = site.person("Mallory")
    for to in ("Mallory", "Ben", "Anna"):
        taken = mallory.post(f"/api/groups/{slug}/representative", {"name": to})
        assert taken.status_code == 403, taken.text
    # Invited, not yet accepted: no member, no role.
    assert anna.post(f"/api/groups/{slug}/members", {"name": "Mallory"}).status_code == 200
    refused = anna.post(f"/api/groups/{slug}/representative", {"name": "Mallory"})
    assert refused.status_code == 403 and "member of the group" in refused.json()["message"]
    assert shown_group(mallory, slug)["representative"] == "Anna"
    # Handed to Ben, a member: the claims of Kiel's players are his to decide now.
    made = ben.enter(
        fido("2026-10-04", ("Ben", 30, 0), ("Anna", 12, 3), ("Yann Ruh", 5, 7)), group=slug
    )
    assert made.status_code == 201, made.text
    yann = player_id(ben, "Yann Ruh")
    claimant = site.person("Yann Ruh")
    assert claimant.post(f"/api/players/{yann}/claim").status_code == 200
    handed = anna.post(f"/api/groups/{slug}/representative", {"name": "Ben"})
    assert handed.status_code == 200, handed.text
    assert handed.json()["representative"] == "Ben"
    body = {"claims": [{"player": yann}], "approve": True}
    assert anna.post("/api/players/claims", body).status_code == 403
    assert ben.post("/api/players/claims", body).status_code == 200
    # Anna cannot take it back; an administrator hands it on (Ben is gone).
    assert anna.post(f"/api/groups/{slug}/representative", {"name": "Anna"}).status_code == 403
    back = root.post(f"/api/groups/{slug}/representative", {"name": "Anna"})
    assert back.status_code == 200 and back.json()["representative"] == "Anna"


def shown_group(person: Person, slug: str) -> dict[str, Any]:
    found = person.client.get(f"/api/groups/{slug}")
    assert found.status_code == 200, found.text
    return dict(found.json())


def test_four_free_accounts_found_a_dozen_groups_at_most_and_none_speaks(site: Site) -> None:
    """Founding is free, so one person's four accounts found groups: each holds at most
    three that wait for approval (an administrator's list is not flooded by one
    account), and none of their groups gives any word: their results entered for each
    other, confirmed by every one of them, count for nothing."""
    ring = [site.person(f"Ring {n}") for n in range(4)]
    for n, sock in enumerate(ring):
        for k in range(3):
            made = sock.post("/api/groups", {"name": f"Runde {n}-{k}"})
            assert made.status_code == 201, made.text
        refused = sock.post("/api/groups", {"name": f"Runde {n}-9"})
        assert refused.status_code == 403, refused.text
        assert "fewer than 3 groups" in refused.json()["message"]
    # Members of each other's group, the role handed round: still nobody's word.
    for n, sock in enumerate(ring[1:], 1):
        invited = ring[0].post("/api/groups/runde-0-0/members", {"name": f"Ring {n}"})
        assert invited.status_code == 200, invited.text
        assert sock.post("/api/groups/runde-0-0/join", {}).status_code == 200
    handed = ring[0].post("/api/groups/runde-0-0/representative", {"name": "Ring 1"})
    assert handed.status_code == 200, handed.text
    game = fido("2026-10-03", ("Ring 1", 40, 0), ("Ring 2", 5, 3), ("Ring 3", 4, 4))
    (rid,) = ring[1].enter(game, group="runde-0-0").json()["ids"]
    for sock in ring:
        sock.post(f"/api/results/{rid}/confirm", {})
    assert not shown(ring[0], rid)["counts"]
    for sock in ring:
        approve = sock.post("/api/groups/runde-0-0/approve", {"approve": True})
        assert approve.status_code == 403, approve.text
