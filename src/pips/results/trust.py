"""Who vouches for a result, and so whether it may move the world list.

Accounts are free: four accounts of one person confirm each other's results as
readily as four people do. So what the world list counts comes only from sources that
cost an attacker something real (docs/results.md, "Which results count"):

- ``server``: a game played at the server's tables, every move seen, between accounts
  past their probation (:mod:`pips.results.fairplay`);
- ``admin``: an administrator's word (administrators are made on the server's machine);
- ``group``: the word of the representative of an **approved** group (a club an
  administrator approved), for the seats of **its own members**;
- ``event``: an event organised by an approved group's representative (or an
  administrator), for the seats of the group's members.

A seat that is not a member of a vouching group is covered by its own account's
confirmation (a guest from another club confirms their own line). Results whose only
word is their players' accounts are confirmed by ``players``: kept and shown (a
player's history, a group's page) but never counted.

This module is pure: :func:`vouched_by` decides from what the service read.

    >>> seats = (SeatTrust(1, frozenset({7})), SeatTrust(None, frozenset({7})))
    >>> vouched_by(seats, [Word(5, admin=False, groups=frozenset({7}))])
    'group'
    >>> vouched_by(seats, [Word(1, admin=False, groups=frozenset())])  # a seat's own word
    >>> ring = (SeatTrust(1, frozenset()), SeatTrust(2, frozenset()))
    >>> vouched_by(ring, [Word(1, False, frozenset()), Word(2, False, frozenset())])
    'players'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pips.results.authority import SeatTrust as SeatTrust

VOUCHING = ("server", "admin", "event", "group")
"""What may confirm a result that counts for the world list."""

PLAYERS = "players"
"""Confirmed by the accounts of all its players only: kept, shown, never counted."""


@dataclass(frozen=True, slots=True)
class Word:
    """Somebody who entered or confirmed a result: an account, whether it is an
    administrator, and the approved groups it represents."""

    user: int
    admin: bool
    groups: frozenset[int]


@dataclass(frozen=True, slots=True)
class EventWord:
    """An event's word for its real tables' results: its organiser's approved groups,
    or ``admin`` when an administrator organised it."""

    admin: bool
    groups: frozenset[int]


def vouched_by(
    seats: Sequence[SeatTrust], words: Iterable[Word], event: EventWord | None = None
) -> str | None:
    """What confirms a result with these ``seats`` given these ``words``: one of
    :data:`VOUCHING`, :data:`PLAYERS`, or ``None`` (provisional).

    The event's word and the representatives' words add up: at a championship the
    organising club's event covers its own players' seats, and each other approved
    club's representative covers theirs, so a table of three clubs counts once each
    club with a player there gave its word."""
    said = list(words)
    if any(w.admin for w in said):
        return "admin"
    if event is not None and event.admin:
        return "event"
    own = {w.user for w in said}
    by_event = event.groups if event is not None else frozenset()
    groups = by_event.union(*(w.groups for w in said))
    if _covers(seats, groups, own):
        return "event" if any(s.groups & by_event for s in seats) else "group"
    if seats and all(s.account is not None and s.account in own for s in seats):
        return PLAYERS
    return None


def _covers(seats: Sequence[SeatTrust], groups: frozenset[int], own: set[int]) -> bool:
    """Whether ``groups`` vouch for at least one seat and every other seat is a member
    of one of them or confirmed by its own account."""
    if not groups or not any(s.groups & groups for s in seats):
        return False
    return all(s.groups & groups or (s.account is not None and s.account in own) for s in seats)


@dataclass(frozen=True, slots=True)
class Needs:
    """What a result still needs to count: the word of a representative of one of
    ``groups`` (each for its players' seats), the own confirmation of the accounts of
    ``seats`` (indices; guests no approved group answers for), or, ``admin_only``, an
    administrator's (a seat nobody else can speak for: no approved group, no account;
    or no approved group at the table at all, since accounts alone never count)."""

    groups: frozenset[int] = frozenset()
    seats: tuple[int, ...] = ()
    admin_only: bool = False
    orphans: tuple[int, ...] = ()
    """The seats (indices) of no approved group and no account."""


def needs(
    seats: Sequence[SeatTrust],
    words: Iterable[Word],
    event: EventWord | None,
    approved: frozenset[int],
) -> Needs:
    """What a result with these ``seats`` needs besides these ``words`` (and the
    event's) to count, given the ``approved`` groups."""
    said = list(words)
    if any(w.admin for w in said) or (event is not None and event.admin):
        return Needs()
    own = {w.user for w in said}
    given = (event.groups if event is not None else frozenset()).union(*(w.groups for w in said))
    groups: set[int] = set()
    waiting: list[int] = []
    orphans: list[int] = []
    for index, seat in enumerate(seats):
        if seat.groups & given or (seat.account is not None and seat.account in own):
            continue
        if seat.groups & approved:
            groups |= seat.groups & approved
        elif seat.account is not None:
            waiting.append(index)
        else:
            orphans.append(index)
    # Only accounts' words, with no group to vouch at the table: they never count.
    alone = bool(seats) and not groups and not any(s.groups & given for s in seats)
    return Needs(frozenset(groups), tuple(waiting), bool(orphans) or alone, tuple(orphans))
