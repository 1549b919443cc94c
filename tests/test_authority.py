"""The authority model (issue 49, :mod:`pips.results.authority`): its properties over
random worlds of accounts, groups, events, results and claims, and its table in
docs/results.md held against the code."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pips.results.authority import (
    RULES,
    Action,
    Actor,
    ClaimFacts,
    EventFacts,
    GroupFacts,
    ResultFacts,
    Seat,
    TableFacts,
    TakeOver,
    decide,
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
    Seat,
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


@settings(max_examples=200)
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


@settings(max_examples=200)
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


@settings(max_examples=200)
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


@settings(max_examples=200)
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


@settings(max_examples=300)
@given(st.data())
def test_an_unapproved_groups_word_counts_for_nothing_beyond_its_members_accounts(
    data: st.DataObject,
) -> None:
    """Accounts are free: a world without administrators and approved groups has no
    result that counts, whatever its accounts and their groups say."""
    chosen = data.draw(st.lists(seats, min_size=2, max_size=5))
    trusts = [SeatTrust(s.account, s.groups) for s in chosen]
    speakers = data.draw(st.frozensets(st.sampled_from(ACCOUNTS)))
    words = [Word(u, False, frozenset()) for u in speakers]
    event = data.draw(st.none() | st.just(EventWord(False, frozenset())))
    assert vouched_by(trusts, words, event) in (None, "players")
    world = World(frozenset(), {g: 1 for g in GROUPS}, frozenset())
    for seat in chosen:
        assert not decide(world.actor(1), Action.VOUCH, seat)


@settings(max_examples=200)
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
    seats_ = (Seat(None, frozenset({7})), Seat(9))
    assert decide(kiel, Action.CONFIRM, ResultFacts(seats_))
    assert not decide(stranger, Action.CONFIRM, ResultFacts(seats_))
    assert not decide(stranger, Action.WITHDRAW, ResultFacts(seats_, entered_by=9))
    refused = decide(stranger, Action.DECIDE_CLAIM, ClaimFacts(2, datetime(2026, 1, 1)))
    assert not refused and "own claim" in getattr(refused, "reason", "")
