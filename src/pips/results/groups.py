"""Groups (clubs): founded by an account, which becomes the representative; members by
consent of both sides; the representative may hand the role on.

An account becomes a member when both sides agreed: the representative invites it and
it accepts (``join``), or it asks (``join``) and the representative accepts (adds
it). Only members count where membership matters: an approved group's representative
vouches for its members' results (:mod:`pips.results.trust`), so nobody is made a
club's member, and has their results vouched for, unasked.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from pips.core.phrase import phrase
from pips.i18n import reason
from pips.results.authority import Action, GroupFacts, HandOver
from pips.results.common import (
    Conflict,
    Context,
    NotAllowed,
    ResultsError,
    account_named,
    group_named,
    slugify,
)
from pips.results.facts import need
from pips.results.holds import Holds, causes
from pips.results.vouching import MEMBER, group_facts, settle_again
from pips.store.models import Group, GroupMember, Player, Result, ResultPlayer
from pips.text import NameTaken, check_held, sort_key

INVITED, ASKED = "invited", "asked"
NAME_LENGTH = 60
"""The longest group name (a club's full name runs longer than an account's)."""


def member_ids(group: Group) -> set[int]:
    """The accounts that are members of ``group`` (both sides agreed)."""
    return {m.user_id for m in group.members if m.status == MEMBER}


class Groups:
    """Founding and running groups."""

    def __init__(self, context: Context) -> None:
        self.context = context

    def create(self, actor: int, name: str) -> dict[str, Any]:
        """A new group of ``name``, held to the rule of an account's name (no markup,
        no invisible characters, nothing that looks like a group's name already
        taken: ``Dominoclub Kіel`` with a Cyrillic і beside ``Dominoclub Kiel``)."""
        try:
            with self.context.db.session() as session, session.begin():
                need(session, actor, Action.FOUND)
                # Groups are few (a club each): their names are compared here, by the
                # same skeletons an account's name is.
                held = session.scalars(select(Group.name)).all()
                try:
                    name = check_held(name, held, NAME_LENGTH)
                except NameTaken as exc:
                    raise Conflict(reason(exc)) from None
                except ValueError as exc:
                    raise ResultsError(reason(exc)) from None
                slug = slugify(name)
                if not slug:
                    raise ResultsError(
                        phrase("a group's name is 2 to 60 characters, with letters or digits")
                    )
                group = Group(name=name, slug=slug, representative_id=actor)
                group.members.append(GroupMember(user_id=actor, status=MEMBER))
                session.add(group)
        except IntegrityError:
            raise Conflict(phrase("there is already a group called {name!r}", name=name)) from None
        return self.group(slug)

    def group(self, slug: str, viewer: int | None = None) -> dict[str, Any]:
        """The group as its page shows it to ``viewer``. Its members are public; an
        invitation or a request to join is between two sides, so it is shown only to
        them: all to the representative, one's own to the account it names."""
        with self.context.db.session() as session:
            group = group_named(session, slug)
            by_status: dict[str, list[str]] = {MEMBER: [], INVITED: [], ASKED: []}
            mine = None
            representative = viewer is not None and viewer == group.representative_id
            for m in group.members:
                if m.status == MEMBER or representative or m.user_id == viewer:
                    by_status.setdefault(m.status, []).append(m.user.name)
                if m.user_id == viewer:
                    mine = m.status
            return {
                "name": group.name,
                "slug": group.slug,
                "representative": group.representative.name,
                "members": sorted(by_status[MEMBER], key=sort_key),
                "invited": sorted(by_status[INVITED], key=sort_key),
                "asked": sorted(by_status[ASKED], key=sort_key),
                "membership": mine,
                "created_at": group.created_at.isoformat(),
                "approved": group.approved_at is not None,
                "approval_asked": None
                if group.approval_asked_at is None
                else group.approval_asked_at.isoformat(timespec="seconds"),
            }

    def ask_approval(self, actor: int, slug: str) -> dict[str, Any]:
        """The representative asks an administrator to approve the group (its word
        then confirms its members' results); asked once, the administrators' page
        lists it among the groups that asked."""
        with self.context.db.session() as session, session.begin():
            group = group_named(session, slug)
            if group.representative_id != actor:
                raise NotAllowed(phrase("only the group's representative asks for its approval"))
            if group.approved_at is not None:
                raise Conflict(phrase("{name} is approved already", name=group.name))
            if group.approval_asked_at is None:
                group.approval_asked_at = self.context.clock()
        return self.group(slug, actor)

    def listing(self, member: int | None = None) -> list[dict[str, Any]]:
        with self.context.db.session() as session:
            query = select(Group).order_by(Group.name)
            if member is not None:
                query = query.join(GroupMember).where(
                    GroupMember.user_id == member, GroupMember.status == MEMBER
                )
            found = session.scalars(query.options(selectinload(Group.members))).all()
            return [
                {
                    "name": g.name,
                    "slug": g.slug,
                    "members": len(member_ids(g)),
                    "approved": g.approved_at is not None,
                }
                for g in sorted(found, key=lambda g: sort_key(g.name))
            ]

    def change_member(self, actor: int, slug: str, name: str, *, add: bool) -> dict[str, Any]:
        """The representative invites an account (or accepts one that asked), or
        removes a member; the representative stays."""
        with self.context.db.session() as session, session.begin():
            group = group_named(session, slug)
            need(session, actor, Action.ADD_TO_GROUP, group_facts(group))
            user = account_named(session, name)
            current = {m.user_id: m for m in group.members}
            row = current.get(user.id)
            if add:
                if row is None:
                    group.members.append(GroupMember(user_id=user.id, status=INVITED))
                elif row.status == ASKED:
                    row.status = MEMBER
                    self._member_joined(session, user.id)
            else:
                if user.id == group.representative_id:
                    raise ResultsError(
                        phrase("hand the representative's role to another member first")
                    )
                if row is not None:
                    group.members.remove(row)
        return self.group(slug, actor)

    def join(self, actor: int, slug: str, *, leave: bool = False) -> dict[str, Any]:
        """An account accepts the group's invitation, or asks to join (or, with
        ``leave``, leaves or takes its request back)."""
        with self.context.db.session() as session, session.begin():
            group = group_named(session, slug)
            row = next((m for m in group.members if m.user_id == actor), None)
            if leave:
                if actor == group.representative_id:
                    raise ResultsError(
                        phrase("hand the representative's role to another member first")
                    )
                if row is not None:
                    group.members.remove(row)
            elif row is None:
                group.members.append(GroupMember(user_id=actor, status=ASKED))
            elif row.status == INVITED:
                row.status = MEMBER
                self._member_joined(session, actor)
        return self.group(slug, actor)

    def _member_joined(self, session: Session, user: int) -> None:
        """A new member's provisional results are settled again: the group's word
        given on them counts now (no second click for each)."""
        session.flush()
        players = select(Player.id).where(Player.user_id == user)
        theirs = select(ResultPlayer.result_id).where(ResultPlayer.player_id.in_(players))
        rows = settle_again(session, Result.id.in_(theirs))
        Holds(self.context).recheck(session, causes(rows))

    def set_representative(self, actor: int, slug: str, name: str) -> dict[str, Any]:
        """Hand the representative's role to the member ``name``
        (:data:`~pips.results.authority.Action.HAND_OVER`: the representative or an
        administrator, only to a member who accepted)."""
        with self.context.db.session() as session, session.begin():
            group = group_named(session, slug)
            user = account_named(session, name)
            member = user.id in member_ids(group)
            facts = GroupFacts(group.id, group.representative_id, group.approved_at is not None)
            need(session, actor, Action.HAND_OVER, HandOver(facts, user.id, member))
            group.representative_id = user.id
        return self.group(slug, actor)
