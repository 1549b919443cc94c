"""What a site administrator does: approve groups (their representative's word then
confirms their results), see what waits for a decision (disputes, claims, flagged
results). Administrators are made on the command line only (``pips admin grant``):
no request over the network makes one."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from pips.core.phrase import phrase
from pips.results.authority import Action
from pips.results.common import Conflict, Context, account_named, group_named, need_admin
from pips.results.facts import need
from pips.results.holds import Holds, causes
from pips.results.register import of_group
from pips.results.vouching import group_facts, settle_again
from pips.store.models import Group, Result, User


class Administration:
    """The administrators' part of the results service."""

    def __init__(self, context: Context, holds: Holds) -> None:
        self.context = context
        self.holds = holds

    def set_admin(self, name: str, admin: bool = True) -> dict[str, Any]:
        """Grant or take back the administrator role (the command line's, not the
        web's: whoever runs ``pips admin`` holds the server's database)."""
        with self.context.db.session() as session, session.begin():
            user = account_named(session, name)
            user.admin = admin
            return {"name": user.name, "admin": user.admin}

    def is_admin(self, user_id: int | None) -> bool:
        with self.context.db.session() as session:
            user = session.get(User, user_id) if user_id is not None else None
            return bool(user and user.admin)

    def admins(self) -> list[str]:
        with self.context.db.session() as session:
            return list(session.scalars(select(User.name).where(User.admin).order_by(User.name)))

    def approve_group(self, actor: int, slug: str, approve: bool = True) -> dict[str, Any]:
        with self.context.db.session() as session, session.begin():
            group = group_named(session, slug)
            need(session, actor, Action.APPROVE, group_facts(group))
            if approve and group.approved_at is not None:
                raise Conflict(phrase("{name} is approved already", name=group.name))
            group.approved_at = self.context.clock() if approve else None
            group.approved_by = actor if approve else None
            session.flush()
            if approve:
                # The representative's word given before the approval counts now.
                rows = settle_again(session, of_group(group.id))
                self.holds.recheck(session, causes(rows))
            name = group.name
        return {"group": slug, "name": name, "approved": approve}

    def waiting(self, actor: int) -> dict[str, Any]:
        """What waits for an administrator: disputes, held results, groups to approve."""
        with self.context.db.session() as session:
            need_admin(session, actor)
            disputed = session.scalars(
                select(Result)
                .where(Result.status == "disputed")
                .options(selectinload(Result.reviews))
                .order_by(Result.id)
                .limit(200)
            ).all()
            groups = session.scalars(
                select(Group)
                .where(Group.approved_at.is_(None))
                # Those whose representative asked first, the longest waiting first.
                .order_by(
                    Group.approval_asked_at.is_(None), Group.approval_asked_at, Group.created_at
                )
            ).all()
            return {
                "disputed": [
                    {
                        "id": r.id,
                        "game": r.game,
                        "date": r.played_on.isoformat(),
                        "reason": next(
                            (v.comment for v in reversed(r.reviews) if v.action == "dispute"), ""
                        ),
                    }
                    for r in disputed
                ],
                "held": self.holds.open_holds(session),
                "groups": [
                    {
                        "name": g.name,
                        "slug": g.slug,
                        "representative": g.representative.name,
                        "asked": None
                        if g.approval_asked_at is None
                        else g.approval_asked_at.isoformat(timespec="seconds"),
                    }
                    for g in groups
                ],
            }
