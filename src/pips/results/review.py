"""Reviewing a result, under the trust model of docs/results.md ("Which results
count", :mod:`pips.results.trust`):

- **confirm**: a player of the game (the account of a seat's player, for their own
  line); the representative of an approved group for the results of its members; an
  administrator. What the confirmations add up to (``server``, ``admin``, ``event``,
  ``group`` or only ``players``) is :func:`~pips.results.trust.vouched_by`'s to say.
- **dispute** (with a reason): only a player of the game; a server game is not
  disputable by its players (the server saw every move).
- **resolve**: a player withdraws their own dispute.
- **reject** or **uphold** a dispute: an administrator, or the representative of the
  result's approved group when the representative neither entered nor played the game
  (nobody decides their own case). Rejected, the result stands as it stood; upheld, it
  is withdrawn.
- **withdraw**: whoever entered it, the representative of the group it was entered
  for or of an approved group every player belongs to, an administrator (never the
  organiser of another event of the same day: :mod:`pips.results.authority`).
- **clear**: an administrator lets a result held by a flag (an anomaly) count.

Every change of status rechecks the anomaly holds of the result's players on its day
(:mod:`pips.results.holds`): a withdrawal or an upheld dispute lifts at once a hold
the result helped cause.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from pips.core.phrase import phrase
from pips.results.authority import Action, Actor, decide
from pips.results.common import Conflict, Context, NotFound, ResultsError, held, is_admin
from pips.results.facts import actor_facts, require, result_facts
from pips.results.holds import Holds, causes
from pips.results.register import Register
from pips.results.trust import PLAYERS, could_vouch
from pips.results.vouching import open_disputes, seats_of_all, settle
from pips.store.models import Group, Result, ResultReview

ACTIONS = {
    "confirm": Action.CONFIRM,
    "dispute": Action.DISPUTE,
    "resolve": Action.RESOLVE,
    "reject": Action.REJECT,
    "uphold": Action.UPHOLD,
    "withdraw": Action.WITHDRAW,
    "clear": Action.CLEAR,
}
"""The reviews of a result, each with the action authority decides."""


class Reviews:
    """Confirming, disputing, deciding disputes, withdrawing and clearing results."""

    def __init__(self, context: Context, holds: Holds, register: Register) -> None:
        self.context = context
        self.holds = holds
        self.register = register

    def review(self, actor: int, result_id: int, action: str, comment: str = "") -> dict[str, Any]:
        """Act on a result (see the module's rules; who may is
        :mod:`pips.results.authority`'s to say)."""
        comment = comment.strip()[:500]
        if action not in ACTIONS:
            raise ResultsError(phrase("the action is one of {choices}", choices=", ".join(ACTIONS)))
        with self.context.db.session() as session, session.begin():
            row = session.get(Result, result_id)
            if row is None:
                raise NotFound(phrase("no result {result_id}", result_id=result_id))
            self._act(session, actor_facts(session, actor), row, action, comment)
        return self.register.result(result_id, actor)

    def _act(self, session: Session, actor: Actor, row: Result, action: str, comment: str) -> None:
        """One review of one result, in the caller's transaction."""
        if row.status == "withdrawn":
            raise Conflict(phrase("the result was withdrawn"))
        require(decide(actor, ACTIONS[action], result_facts(session, row)))
        disputes = open_disputes(row)
        if action == "confirm":
            if row.status == "disputed":
                raise Conflict(phrase("the result is disputed: the dispute is decided first"))
        elif action == "dispute":
            if not comment:
                raise ResultsError(phrase("say what is wrong with the result"))
            row.status = "disputed"
            disputes.add(actor.id)
        elif action == "resolve":
            disputes.discard(actor.id)
        elif action in ("reject", "uphold"):
            if row.status != "disputed":
                raise Conflict(phrase("the result is not disputed"))
            disputes.clear()
            if action == "uphold":
                row.status, row.fingerprint = "withdrawn", None
        elif action == "withdraw":
            row.status, row.fingerprint = "withdrawn", None
        elif action == "clear":
            if not held(row):
                raise Conflict(phrase("the result is not held by a flag"))
            row.flag_cleared_by = actor.id
            self.holds.release(session, row, phrase("cleared by an administrator"))
        row.reviews.append(ResultReview(user_id=actor.id, action=action, comment=comment))
        session.flush()
        if row.status != "withdrawn" and not disputes:
            settle(session, row)
        if row.status == "withdrawn":
            self.holds.release(session, row, phrase("the result was withdrawn"))
        self.holds.recheck(session, causes([row]))

    def waiting(self, actor: int, limit: int = 200) -> list[dict[str, Any]]:
        """The results that wait on ``actor`` to count, oldest first, each with why
        and its age: their own seat's confirmation; as the representative of an
        approved group, results with a seat of the group's; as an administrator, every
        result that waits (players without accounts can never confirm, so somebody
        with a word must), and every dispute to decide."""
        with self.context.db.session() as session:
            admin = is_admin(session, actor)
            represented = {
                g.id: g.name
                for g in session.scalars(
                    select(Group).where(
                        Group.representative_id == actor, Group.approved_at.is_not(None)
                    )
                )
            }
            rows = session.scalars(
                select(Result)
                .where(
                    Result.status.in_(("provisional", "disputed")),
                    or_(Result.confirmed_by.is_(None), Result.confirmed_by == PLAYERS),
                )
                .order_by(Result.entered_at, Result.id)
                .limit(5000)
            ).all()
            seats = seats_of_all(session, rows)
            now = self.context.clock()
            found = []
            for row in rows:
                said = {r.user_id for r in row.reviews if r.action == "confirm"}
                own = [
                    seat
                    for seat, trust in enumerate(seats[row.id])
                    if trust.account == actor and actor not in said
                ]
                groups = {
                    name for gid, name in represented.items() if could_vouch(seats[row.id], gid)
                }
                if row.status == "disputed":
                    why = phrase("a dispute to decide") if admin else None
                elif own:
                    why = phrase("your own line to confirm")
                elif groups and actor not in said:
                    why = phrase("as representative of {groups}", groups=", ".join(sorted(groups)))
                elif admin:
                    why = phrase("an administrator's word makes it count")
                else:
                    why = None
                if why is None:
                    continue
                found.append(
                    {
                        "id": row.id,
                        "game": row.game,
                        "date": row.played_on.isoformat(),
                        "entered_at": row.entered_at.isoformat(),
                        "days": max(0, (now - row.entered_at).days),
                        "players": [p.name for p in row.players],
                        "status": row.status,
                        "why": why,
                    }
                )
                if len(found) >= limit:
                    break
            return found
