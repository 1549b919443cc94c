"""The database side of :mod:`pips.results.trust`: who gave their word on a stored
result, which groups its seats belong to, and so what confirms it (``settle``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from pips.results.authority import EventFacts, GroupFacts
from pips.results.trust import EventWord, Needs, SeatTrust, Word, needs, vouched_by
from pips.store.models import Event, Group, GroupMember, Player, Result, User

MEMBER = "member"
"""A group member's status once both sides agreed (:mod:`pips.results.groups`)."""

WORDS = ("confirm", "reject", "resolve")
"""Reviews that give the reviewer's word: a confirmation, a dispute rejected (by its
decider), a dispute taken back (by the disputer)."""


def groups_of_players(session: Session, players: list[Player]) -> dict[int, frozenset[int]]:
    """Each player's groups: the group whose result first named it (a player of the
    group) once the group's side answered for it, and the groups its account is a
    member of. A group another only proposed ("Name; Club" at another club's event)
    is not the player's until its representative agrees."""
    accounts = {p.user_id for p in players if p.user_id is not None}
    memberships: dict[int, set[int]] = {}
    if accounts:
        for group_id, user_id in session.execute(
            select(GroupMember.group_id, GroupMember.user_id).where(
                GroupMember.user_id.in_(accounts), GroupMember.status == MEMBER
            )
        ):
            memberships.setdefault(user_id, set()).add(group_id)
    found = {}
    for p in players:
        groups = set(memberships.get(p.user_id, ())) if p.user_id is not None else set()
        if p.group_id is not None and p.group_agreed_at is not None:
            groups.add(p.group_id)
        found[p.id] = frozenset(groups)
    return found


def seats_of(session: Session, row: Result) -> list[SeatTrust]:
    """The result's seats: each player's account (as it is now: claims count) and
    groups."""
    return seats_of_all(session, [row])[row.id]


def seats_of_all(session: Session, rows: Sequence[Result]) -> dict[int, list[SeatTrust]]:
    """:func:`seats_of` for many results, with a fixed number of queries."""
    ids = {p.player_id for row in rows for p in row.players if p.player_id is not None}
    players = list(session.scalars(select(Player).where(Player.id.in_(ids))))
    by_id = {p.id: p for p in players}
    groups = groups_of_players(session, players)
    found = {}
    for row in rows:
        seats = []
        for seat in row.players:
            player = by_id.get(seat.player_id) if seat.player_id is not None else None
            if player is None:
                seats.append(SeatTrust(None, frozenset()))
            else:
                seats.append(SeatTrust(player.user_id, groups[player.id]))
        found[row.id] = seats
    return found


def _speakers(row: Result) -> list[int]:
    """Whoever entered the result and whoever confirmed it (or decided or took back a
    dispute of it) since their own last dispute of it."""
    users: list[int] = []
    if row.entered_by is not None:
        users.append(row.entered_by)
    for review in row.reviews:
        if review.action == "dispute":
            users = [u for u in users if u != review.user_id]
        elif review.action in WORDS:
            users.append(review.user_id)
    return list(dict.fromkeys(users))


def open_disputes(row: Result) -> set[int]:
    """The accounts whose dispute of the result is open (not taken back or decided)."""
    disputes: set[int] = set()
    for review in row.reviews:
        if review.action == "dispute":
            disputes.add(review.user_id)
        elif review.action == "resolve":
            disputes.discard(review.user_id)
        elif review.action in ("reject", "uphold"):
            disputes.clear()
    return disputes


def words_of(session: Session, row: Result) -> list[Word]:
    """Who gave their word on the result, with the approved groups each represents."""
    return words_of_all(session, [row])[row.id]


def words_of_all(session: Session, rows: Sequence[Result]) -> dict[int, list[Word]]:
    """:func:`words_of` for many results, with a fixed number of queries."""
    speakers = {row.id: _speakers(row) for row in rows}
    users = {u for found in speakers.values() for u in found}
    admins = set(session.scalars(select(User.id).where(User.id.in_(users), User.admin)))
    represents: dict[int, set[int]] = {}
    for group_id, user_id in session.execute(
        select(Group.id, Group.representative_id).where(
            Group.representative_id.in_(users), Group.approved_at.is_not(None)
        )
    ):
        represents.setdefault(user_id, set()).add(group_id)
    return {
        rid: [Word(u, u in admins, frozenset(represents.get(u, ()))) for u in found]
        for rid, found in speakers.items()
    }


def event_word(session: Session, row: Result) -> EventWord | None:
    """The word of the event a real table's result was played at, if its organiser's
    word counts (an administrator, or the representative of the approved group the
    event is for) or an administrator sanctioned it."""
    return event_words_of(session, [row]).get(row.id)


def event_words_of(session: Session, rows: Sequence[Result]) -> dict[int, EventWord]:
    """:func:`event_word` for many results, with a fixed number of queries."""
    ids = {row.event_id for row in rows if row.event_id is not None and row.source != "server"}
    if not ids:
        return {}
    events = {e.id: e for e in session.scalars(select(Event).where(Event.id.in_(ids)))}
    admins = set(
        session.scalars(
            select(User.id).where(
                User.id.in_({e.organiser_id for e in events.values()}), User.admin
            )
        )
    )
    words: dict[int, EventWord] = {}
    for event in events.values():
        facts = facts_of_event(event, event.organiser_id in admins)
        if facts.vouches_for_all:
            words[event.id] = EventWord(True, frozenset())
        elif facts.vouching_groups:
            words[event.id] = EventWord(False, facts.vouching_groups)
    return {
        row.id: words[row.event_id]
        for row in rows
        if row.event_id in words and row.source != "server"
    }


def facts_of_event(event: Event, organiser_admin: bool) -> EventFacts:
    """An event as :mod:`pips.results.authority` sees it."""
    return EventFacts(
        event.id,
        event.organiser_id,
        group_facts(event.group),
        organiser_admin=organiser_admin,
        sanctioned=event.sanctioned_at is not None,
        closed=event.status == "closed",
    )


def group_facts(group: Group | None) -> GroupFacts | None:
    """A group as :mod:`pips.results.authority` sees it."""
    if group is None:
        return None
    return GroupFacts(group.id, group.representative_id, group.approved_at is not None)


def settle_again(session: Session, where: ColumnElement[bool]) -> list[Result]:
    """Settle the provisional results ``where`` says once more (a group approved, a
    member joined, a player agreed): a word given before now counts without anybody
    confirming each result again. The caller rechecks the holds of those returned."""
    rows = list(
        session.scalars(select(Result).where(Result.status == "provisional", where).limit(5000))
    )
    for row in rows:
        settle(session, row)
    return rows


def settle(session: Session, row: Result) -> None:
    """The status once no dispute is open: confirmed by what vouches for it
    (:func:`~pips.results.trust.vouched_by`), else provisional. A server game stays
    confirmed by the server."""
    if row.source == "server":
        row.status, row.confirmed_by = "confirmed", "server"
        return
    row.confirmed_by = vouched_by(
        seats_of(session, row), words_of(session, row), event_word(session, row)
    )
    row.status = "confirmed" if row.confirmed_by else "provisional"


def needs_of(
    session: Session,
    rows: Sequence[Result],
    seats: Mapping[int, Sequence[SeatTrust]] | None = None,
    approved: frozenset[int] | None = None,
) -> dict[int, Needs]:
    """For each result, what it still needs to count (:func:`~pips.results.trust.needs`),
    with a fixed number of queries (the ``seats`` of :func:`seats_of_all` and the
    ``approved`` groups among theirs, if read)."""
    if seats is None:
        seats = seats_of_all(session, rows)
    words = words_of_all(session, rows)
    events = event_words_of(session, rows)
    if approved is None:
        wanted = {g for found in seats.values() for seat in found for g in seat.groups}
        approved = frozenset(
            session.scalars(
                select(Group.id).where(Group.id.in_(wanted), Group.approved_at.is_not(None))
            )
        )
    return {
        row.id: needs(seats[row.id], words[row.id], events.get(row.id), approved) for row in rows
    }
