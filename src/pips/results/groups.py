"""Groups (clubs): founded by an account, which becomes the representative; members
added and removed by the representative, who may hand the role on."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import selectinload

from pips.core.phrase import phrase
from pips.results.common import Conflict, NotAllowed, ResultsError, ServiceBase, slugify
from pips.store.models import (
    Group,
    GroupMember,
)


class Groups(ServiceBase):
    """Founding and running groups."""

    def create_group(self, actor: int, name: str) -> dict[str, Any]:
        name = " ".join(name.split())
        slug = slugify(name)
        if not 2 <= len(name) <= 60 or not slug:
            raise ResultsError(
                phrase("a group's name is 2 to 60 characters, with letters or digits")
            )
        try:
            with self.db.session() as session, session.begin():
                group = Group(name=name, slug=slug, representative_id=actor)
                group.members.append(GroupMember(user_id=actor))
                session.add(group)
        except IntegrityError:
            raise Conflict(f"there is already a group called {name!r}") from None
        return self.group(slug)

    def group(self, slug: str) -> dict[str, Any]:
        with self.db.session() as session:
            group = self._group(session, slug)
            members = sorted(m.user.name for m in group.members)
            return {
                "name": group.name,
                "slug": group.slug,
                "representative": group.representative.name,
                "members": members,
                "created_at": group.created_at.isoformat(),
                "approved": group.approved_at is not None,
            }

    def groups(self, member: int | None = None) -> list[dict[str, Any]]:
        with self.db.session() as session:
            query = select(Group).order_by(Group.name)
            if member is not None:
                query = query.join(GroupMember).where(GroupMember.user_id == member)
            return [
                {
                    "name": g.name,
                    "slug": g.slug,
                    "members": len(g.members),
                    "approved": g.approved_at is not None,
                }
                for g in session.scalars(query.options(selectinload(Group.members)))
            ]

    def change_member(self, actor: int, slug: str, name: str, *, add: bool) -> dict[str, Any]:
        """Add or remove a member (the representative only; the representative stays)."""
        with self.db.session() as session, session.begin():
            group = self._group(session, slug)
            if group.representative_id != actor:
                raise NotAllowed(
                    phrase("only the representative of {name} changes its members", name=group.name)
                )
            user = self._user(session, name)
            current = {m.user_id: m for m in group.members}
            if add and user.id not in current:
                group.members.append(GroupMember(user_id=user.id))
            elif not add:
                if user.id == group.representative_id:
                    raise ResultsError(
                        phrase("hand the representative's role to another member first")
                    )
                if user.id in current:
                    group.members.remove(current[user.id])
        return self.group(slug)

    def set_representative(self, actor: int, slug: str, name: str) -> dict[str, Any]:
        with self.db.session() as session, session.begin():
            group = self._group(session, slug)
            if group.representative_id != actor:
                raise NotAllowed(
                    phrase("only the representative of {name} hands the role on", name=group.name)
                )
            user = self._user(session, name)
            if user.id not in {m.user_id for m in group.members}:
                raise ResultsError(
                    phrase("{name} is not a member of {name2}", name=user.name, name2=group.name)
                )
            group.representative_id = user.id
        return self.group(slug)
