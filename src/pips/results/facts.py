"""The database side of :mod:`pips.results.authority`: the facts it decides from, read
from the stored accounts, groups, players, results, events and claims, and
:func:`require`, which turns a refusal into the service's :class:`NotAllowed`.

Every part of the results service that changes something asks through here; none
decides on its own who may."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from pips.core.phrase import Phrase, phrase
from pips.results.authority import (
    Action,
    Actor,
    ClaimFacts,
    Decision,
    EventFacts,
    Refused,
    ResultFacts,
    Target,
    decide,
)
from pips.results.common import NotAllowed
from pips.results.vouching import facts_of_event, group_facts, open_disputes, seats_of
from pips.store.models import Event, Group, GroupMember, Player, PlayerClaim, Result, User


def actor_facts(session: Session, actor: int) -> Actor:
    """An account as authority sees it: administrator or not, the groups it
    represents (and which of them are approved) and those it is a member of."""
    account = session.execute(select(User.admin, User.bot).where(User.id == actor)).first()
    admin, bot = (bool(account[0]), bool(account[1])) if account is not None else (False, False)
    represents = {
        gid: approved is not None
        for gid, approved in session.execute(
            select(Group.id, Group.approved_at).where(Group.representative_id == actor)
        )
    }
    members = frozenset(
        session.scalars(
            select(GroupMember.group_id).where(
                GroupMember.user_id == actor, GroupMember.status == "member"
            )
        )
    )
    return Actor(
        actor,
        admin,
        frozenset(g for g, ok in represents.items() if ok),
        frozenset(represents),
        members,
        bot,
    )


def event_facts(session: Session, event: Event) -> EventFacts:
    organiser_admin = bool(session.scalar(select(User.admin).where(User.id == event.organiser_id)))
    return facts_of_event(event, organiser_admin)


def result_facts(session: Session, row: Result) -> ResultFacts:
    return ResultFacts(
        tuple(seats_of(session, row)),
        entered_by=row.entered_by,
        group=group_facts(row.group),
        event=row.event_id,
        server=row.source == "server",
        disputers=frozenset(open_disputes(row)),
    )


def claim_facts(session: Session, player: Player, claim: PlayerClaim) -> ClaimFacts:
    group = session.get(Group, player.group_id) if player.group_id else None
    return ClaimFacts(
        claim.user_id,
        claim.created_at,
        group_facts(group),
        player.group_agreed_at if group is not None else None,
    )


def said(refused: Refused) -> Phrase:
    """A refusal in words: its own sentence, or the rule of who may."""
    if refused.whole:
        return Phrase(refused.reason)
    return phrase("not allowed; who may: {who}", who=Phrase(refused.reason))


def require(decision: Decision) -> None:
    """Go on if ``decision`` allows, else refuse (:class:`NotAllowed`) with its rule."""
    if isinstance(decision, Refused):
        raise NotAllowed(said(decision))


def may(session: Session, actor: int, action: Action, target: Target = None) -> Decision:
    """:func:`~pips.results.authority.decide` for a stored account."""
    return decide(actor_facts(session, actor), action, target)


def need(session: Session, actor: int, action: Action, target: Target = None) -> Actor:
    """:func:`require` what :func:`may` decides; the actor's facts, for more asks."""
    facts = actor_facts(session, actor)
    require(decide(facts, action, target))
    return facts
