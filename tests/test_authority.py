"""The authority model (issue 49, :mod:`pips.results.authority`): its properties over
random worlds of accounts, groups, events, results and claims, and its table in
docs/results.md held against the code."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pips.results.authority import (
    MOST_UNAPPROVED,
    RULES,
    Action,
    Actor,
    ClaimFacts,
    EntryFacts,
    EventFacts,
    GroupFacts,
    HandOver,
    ResultFacts,
    TableFacts,
    TakeOver,
    decide,
    stands,
)
from pips.results.trust import EventWord, SeatTrust, Word, vouched_by

ROOT = Path(__file__).resolve().parents[1]
ACCOUNTS = range(1, 7)
GROUPS = range(1, 5)


@dataclass(frozen=True)
class World:
    """Accounts (some administrators) and groups, each with its representative and
    whether an administrator approved it."""

    admins: frozenset[int]
    representatives: dict[int, int]
    approved: frozenset[int]

    def actor(self, account: int) -> Actor:
        mine = frozenset(g for g, rep in self.representatives.items() if rep == account)
        return Actor(account, account in self.admins, mine & self.approved, mine, mine)

    def group(self, group: int) -> GroupFacts:
        return GroupFacts(group, self.representatives[group], group in self.approved)


@st.composite
def worlds(draw: st.DrawFn) -> World:
    admins = draw(st.frozensets(st.sampled_from(ACCOUNTS), max_size=1))
    reps = {g: draw(st.sampled_from(ACCOUNTS)) for g in GROUPS}
    approved = draw(st.frozensets(st.sampled_from(GROUPS)))
    return World(admins, reps, approved)


seats = st.builds(
    SeatTrust,
    account=st.none() | st.sampled_from(ACCOUNTS),
    groups=st.frozensets(st.sampled_from(GROUPS), max_size=2),
)


@st.composite
def results(draw: st.DrawFn, world: World) -> ResultFacts:
    group = draw(st.none() | st.sampled_from(GROUPS))
    return ResultFacts(
        tuple(draw(st.lists(seats, min_size=2, max_size=5))),
        entered_by=draw(st.none() | st.sampled_from(ACCOUNTS)),
        group=None if group is None else world.group(group),
        event=draw(st.none() | st.integers(1, 3)),
        server=draw(st.booleans()),
        disputers=draw(st.frozensets(st.sampled_from(ACCOUNTS), max_size=2)),
    )


@st.composite
def events(draw: st.DrawFn, world: World) -> EventFacts:
    organiser = draw(st.sampled_from(ACCOUNTS))
    group = draw(st.none() | st.sampled_from(GROUPS))
    return EventFacts(
        draw(st.integers(1, 3)),
        organiser,
        None if group is None else world.group(group),
        organiser_admin=organiser in world.admins,
        sanctioned=draw(st.booleans()),
        closed=draw(st.booleans()),
    )


def word_covers(world: World, account: int, result: ResultFacts) -> bool:
    """What an account's word covers, said once more from the principle
    (docs/results.md): an administrator everything; nobody else a server game; an
    account what it entered and its own line; a representative the results entered for
    its group; an approved group's representative its players' and members' seats."""
    if account in world.admins:
        return True
    if result.server:
        return False
    if result.entered_by == account:
        return True
    if result.group is not None and world.representatives[result.group.id] == account:
        return True
    vouching = {g for g, rep in world.representatives.items() if rep == account} & world.approved
    return all(s.account == account or s.groups & vouching for s in result.seats)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_no_account_withdraws_or_upholds_against_a_result_its_word_does_not_cover(
    data: st.DataObject,
) -> None:
    world = data.draw(worlds())
    result = data.draw(results(world))
    for account in ACCOUNTS:
        for action in (Action.WITHDRAW, Action.UPHOLD):
            if decide(world.actor(account), action, result):
                assert word_covers(world, account, result), (account, action)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_confirmation_speaks_only_for_seats_the_word_covers(data: st.DataObject) -> None:
    world = data.draw(worlds())
    result = data.draw(results(world))
    for account in ACCOUNTS:
        actor = world.actor(account)
        if decide(actor, Action.CONFIRM, result) and not actor.admin:
            assert any(s.account == account or s.groups & actor.approved for s in result.seats), (
                account
            )


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.data())
def test_an_event_takes_over_only_what_its_organisers_word_covers(
    data: st.DataObject,
) -> None:
    world = data.draw(worlds())
    event = data.draw(events(world))
    result = data.draw(results(world))
    for account in ACCOUNTS:
        if not decide(world.actor(account), Action.TAKE_OVER, TakeOver(event, result)):
            continue
        assert account == event.organiser or account in world.admins
        assert result.event is None, "another event's result"
        assert not result.server
        # The event's word is its organiser's, whoever closes it.
        organiser = event.organiser
        group = event.group
        own_group = (
            frozenset({group.id})
            if group is not None and group.approved and group.representative == organiser
            else frozenset()
        )
        assert (
            event.organiser_admin
            or event.sanctioned
            or result.entered_by == organiser
            or all(s.groups & own_group or s.account == organiser for s in result.seats)
        )


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_nobody_decides_their_own_claim_and_new_or_unapproved_groups_go_to_an_admin(
    data: st.DataObject,
) -> None:
    world = data.draw(worlds())
    start = datetime(2026, 10, 1)
    group = data.draw(st.none() | st.sampled_from(GROUPS))
    agreed = data.draw(st.none() | st.integers(0, 10))
    claim = ClaimFacts(
        claimant=data.draw(st.sampled_from(ACCOUNTS)),
        claimed_at=start + timedelta(days=5),
        group=None if group is None else world.group(group),
        agreed_at=None if agreed is None else start + timedelta(days=agreed),
    )
    for account in ACCOUNTS:
        if not decide(world.actor(account), Action.DECIDE_CLAIM, claim):
            continue
        assert account != claim.claimant
        if account in world.admins:
            continue
        assert claim.group is not None and claim.group.approved
        assert claim.group.representative == account
        assert claim.agreed_at is not None and claim.agreed_at <= claim.claimed_at


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_an_unapproved_groups_word_counts_for_nothing_beyond_its_members_accounts(
    data: st.DataObject,
) -> None:
    """Accounts are free: a world without administrators and approved groups has no
    result that counts, whatever its accounts and their groups say."""
    chosen = data.draw(st.lists(seats, min_size=2, max_size=5))
    trusts = list(chosen)
    speakers = data.draw(st.frozensets(st.sampled_from(ACCOUNTS)))
    words = [Word(u, False, frozenset()) for u in speakers]
    event = data.draw(st.none() | st.just(EventWord(False, frozenset())))
    assert vouched_by(trusts, words, event) in (None, "players")
    world = World(frozenset(), {g: 1 for g in GROUPS}, frozenset())
    for seat in chosen:
        assert not decide(world.actor(1), Action.VOUCH, seat)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_closed_event_changes_no_more_and_a_stranger_corrects_nothing(
    data: st.DataObject,
) -> None:
    world = data.draw(worlds())
    event = data.draw(events(world))
    accounts = data.draw(st.frozensets(st.sampled_from(ACCOUNTS), max_size=3))
    table = TableFacts(event, accounts, round_closed=data.draw(st.booleans()))
    for account in ACCOUNTS:
        allowed = bool(decide(world.actor(account), Action.CORRECT, table))
        if event.closed:
            assert not allowed
        elif allowed:
            assert account in world.admins or account == event.organiser or account in accounts


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_only_an_approved_groups_word_enters_games_its_enterer_did_not_play(
    data: st.DataObject,
) -> None:
    """Hostile review: a free group's representative entered any game for the group,
    planting games that name other people on their histories."""
    world = data.draw(worlds())
    group = data.draw(st.none() | st.sampled_from(GROUPS))
    entry = EntryFacts(
        played=False,
        group=None if group is None else world.group(group),
        member=data.draw(st.booleans()),
    )
    for account in ACCOUNTS:
        if decide(world.actor(account), Action.ENTER, entry):
            assert entry.group is not None and entry.group.approved
            assert entry.group.representative == account and entry.member


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_no_copy_a_free_account_may_withdraw_keeps_an_events_result_from_counting(
    data: st.DataObject,
) -> None:
    """Hostile review: a copy of an event table's game entered outside it (by a
    player, a free group, an event nobody vouches for) kept the close from making the
    event's result, and withdrawing it then left the game nowhere. Without an
    administrator or an approved group, no such copy that does not count already
    stands in the way of the event's result."""
    world = World(
        frozenset(), {g: data.draw(st.sampled_from(ACCOUNTS)) for g in GROUPS}, frozenset()
    )
    result = data.draw(results(world))
    its_event = data.draw(st.none() | events(world))
    if its_event is not None:
        its_event = EventFacts(
            its_event.id, its_event.organiser, its_event.group, closed=its_event.closed
        )
    own = all(s.account == (its_event.organiser if its_event else None) for s in result.seats)
    assert stands(result, counts=True, its_event=its_event)
    assert stands(result, counts=False, its_event=its_event) == (its_event is not None and own)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_representatives_role_moves_only_by_its_holders_word_to_a_member(
    data: st.DataObject,
) -> None:
    """Handing a group's role on (``hand-over``): only its representative or an
    administrator, and only to an account that agreed to be the group's member; a
    stranger never takes a club's voice, nor is anybody made one unasked."""
    world = data.draw(worlds())
    group = world.group(data.draw(st.sampled_from(GROUPS)))
    handing = HandOver(group, data.draw(st.sampled_from(ACCOUNTS)), data.draw(st.booleans()))
    for account in ACCOUNTS:
        allowed = bool(decide(world.actor(account), Action.HAND_OVER, handing))
        holder = account in world.admins or account == group.representative
        assert allowed == (holder and handing.member)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_founding_gives_no_word_and_floods_no_administrators_list(data: st.DataObject) -> None:
    """Founding a group (``found``): any account, holding fewer than
    :data:`MOST_UNAPPROVED` groups not yet approved; the groups of four free accounts of
    one person stay unapproved and speak for nobody, so founding grants no word: their
    representative vouches for no seat and decides no claim."""
    world = data.draw(worlds())
    for account in ACCOUNTS:
        actor = world.actor(account)
        waiting = len(actor.represents - actor.approved)
        assert bool(decide(actor, Action.FOUND)) == (actor.admin or waiting < MOST_UNAPPROVED)
    free = World(frozenset(), world.representatives, frozenset())
    seat = data.draw(seats)
    for account in ACCOUNTS:
        assert not decide(free.actor(account), Action.VOUCH, seat)
        group = data.draw(st.sampled_from(GROUPS))
        claim = ClaimFacts(
            claimant=data.draw(st.sampled_from(ACCOUNTS)),
            claimed_at=datetime(2026, 10, 5),
            group=free.group(group),
            agreed_at=datetime(2026, 10, 1),
        )
        assert not decide(free.actor(account), Action.DECIDE_CLAIM, claim)


def test_the_table_in_the_documentation_is_the_code() -> None:
    """docs/results.md, "Who may do what": one row per action, in the model's words."""
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    section = text.split("### Who may do what", 1)[1].split("\n\n", 2)[1]
    rows = re.findall(r"^\| `([a-z-]+)` \| (.+) \|$", section, re.MULTILINE)
    documented = {Action(name): " ".join(who.split()) for name, who in rows}
    assert documented == {action: " ".join(rule.split()) for action, rule in RULES.items()}


def test_a_representative_confirms_for_the_groups_seats_not_for_a_stranger() -> None:
    kiel = Actor(1, approved=frozenset({7}), represents=frozenset({7}))
    stranger = Actor(2, represents=frozenset({8}))
    seats_ = (SeatTrust(None, frozenset({7})), SeatTrust(9))
    assert decide(kiel, Action.CONFIRM, ResultFacts(seats_))
    assert not decide(stranger, Action.CONFIRM, ResultFacts(seats_))
    assert not decide(stranger, Action.WITHDRAW, ResultFacts(seats_, entered_by=9))
    refused = decide(stranger, Action.DECIDE_CLAIM, ClaimFacts(2, datetime(2026, 1, 1)))
    assert not refused and "own claim" in getattr(refused, "reason", "")


# -- the database side: what no event and no approval may do --------------------------


def pool(club: Any) -> dict[str, int]:
    """Players of every kind, made once: Kiel's (approved), of no group, an account's,
    and of Mallory's club nobody approved; by name, their numbers."""
    from pips.results.entry import Entry, Line, check

    def game(day: int, *names: str) -> Any:
        lines = tuple(Line(n, 10 - i, 0 if i == 0 else 2) for i, n in enumerate(names))
        return check(Entry("fido", date(2026, 10, day), 6, lines), club.moment.date())

    ids = club.ids
    club.results.groups.create(ids["Mallory"], "Mallorys Runde")
    club.results.entries.enter(
        ids["Anna"],
        [game(1, "Anna", "Kora", "Kurt")],
        source="api",
        group="kiel",
        new_players=["Kora", "Kurt"],
    )
    club.results.entries.enter(
        ids["Ben"], [game(2, "Ben", "Nele", "Nils")], source="api", new_players=["Nele", "Nils"]
    )
    club.results.entries.enter(
        ids["Mallory"],
        [game(3, "Mallory", "Mia", "Moritz")],
        source="api",
        group="mallorys-runde",
        new_players=["Mia", "Moritz"],
    )
    found: dict[str, int] = {}
    for name in ("Anna", "Ben", "Kora", "Kurt", "Nele", "Nils", "Mallory", "Mia", "Moritz"):
        (player,) = club.results.players.named(name)
        found[name] = int(player["id"])
    return found


def groups_now(club: Any) -> tuple[dict[int, tuple[Any, Any]], set[tuple[int, int, str]]]:
    from sqlalchemy import select

    from pips.store.models import GroupMember, Player

    with club.db.session() as session:
        players = {p.id: (p.group_id, p.group_agreed_at) for p in session.scalars(select(Player))}
        members = {(m.group_id, m.user_id, m.status) for m in session.scalars(select(GroupMember))}
    return players, members


def test_joining_an_event_never_changes_a_players_group(tmp_path: Path) -> None:
    """Over random events (organised by an approved club's representative, an
    unapproved club's, an administrator) adding random players of every kind, named
    with a random club or none: no player's group, and no membership, changes."""
    from tests.databases import new_database
    from tests.test_results_trust import Club

    club = Club(new_database("sqlite", tmp_path))
    try:
        known = pool(club)
        before = groups_now(club)
        numbers = count()

        @settings(max_examples=25, deadline=None)
        @given(
            organiser=st.sampled_from(
                [("Anna", "kiel"), ("Mallory", "mallorys-runde"), ("Root", None)]
            ),
            chosen=st.lists(st.sampled_from(sorted(known)), min_size=1, max_size=5, unique=True),
            clubs=st.lists(
                st.sampled_from([None, "Kiel", "Mallorys Runde", "Nirgendwo"]),
                min_size=5,
                max_size=5,
            ),
        )
        def join(
            organiser: tuple[str, str | None], chosen: list[str], clubs: list[str | None]
        ) -> None:
            who, group = organiser
            made = club.results.events.create(
                club.ids[who],
                name=f"Abend {next(numbers)}",
                game="fido",
                played_on=date(2026, 10, 5),
                rounds=1,
                group=group,
            )
            given = {n: c for n, c in zip(chosen, clubs, strict=False) if c is not None}
            club.results.events.add_players(
                club.ids[who],
                made["key"],
                chosen,
                new_players=chosen,
                known_players={n: known[n] for n in chosen},
                clubs=given,
            )
            players, members = groups_now(club)
            assert {p: players[p] for p in before[0]} == before[0]
            assert members == before[1]

        join()
    finally:
        club.db.dispose()


def test_an_approval_and_a_member_joining_need_no_click_per_result(tmp_path: Path) -> None:
    """Issue 49, item 3: at a club evening, after the club's approval, each result
    needed its own click, and again after a player joined the club."""
    from pips.results.entry import Entry, Line, check
    from tests.databases import new_database
    from tests.test_results_trust import Club

    club = Club(new_database("sqlite", tmp_path))
    try:
        ids = club.ids
        dora = club.account("Dora")
        club.results.groups.create(ids["Mallory"], "Neumühle")
        entered = []
        for day in range(1, 13):
            names = ("Mallory", f"Gast {day}", "Dora")
            lines = tuple(Line(n, 10 - i, 0 if i == 0 else 2) for i, n in enumerate(names))
            game = check(Entry("fido", date(2026, 10, day), 6, lines), club.moment.date())
            entered += club.enter("Mallory", game, group="neumuehle", new_players=[names[1]])
        shown = [club.results.register.result(i) for i in entered]
        assert not any(r["counts"] for r in shown)
        club.results.admin.approve_group(ids["Root"], "neumuehle")
        # Dora's seat is the club's player (an account outside the club is linked only
        # by the club's word: rule 3 of pips.results.players), so the approval alone
        # makes every result count; Dora's claim of the seat waits for Mallory.
        assert all(club.results.register.result(i)["counts"] for i in entered)
        players = club.results.players.of_group("neumuehle")
        dora_seat = next(p for p in players if p["name"] == "Dora")
        assert dora_seat["account"] is None, players
        club.results.claims.claim(dora, dora_seat["id"])
        club.results.claims.decide(ids["Mallory"], dora_seat["id"], True)
        club.results.groups.change_member(ids["Mallory"], "neumuehle", "Dora", add=True)
        club.results.groups.join(dora, "neumuehle")
        assert all(club.results.register.result(i)["counts"] for i in entered)
        assert club.results.players.player(dora_seat["id"])["account"] == "Dora"
    finally:
        club.db.dispose()
