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

from collections.abc import Sequence
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from pips.core.phrase import phrase
from pips.results.authority import Action, Actor, decide
from pips.results.common import Conflict, Context, NotFound, ResultsError, counted, held
from pips.results.events.common import find_event
from pips.results.facts import actor_facts, event_facts, need, require, result_facts
from pips.results.holds import Holds, causes
from pips.results.players import find_player, player_json
from pips.results.register import Register, representative_labels
from pips.results.trust import PLAYERS, VOUCHING
from pips.results.vouching import group_facts, needs_of, open_disputes, seats_of_all, settle
from pips.store.models import Group, Player, Result, ResultPlayer, ResultReview

MOST_AT_ONCE = 1000
"""Results confirmed in one step (a championship's other club has far fewer)."""

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

BULK = ("reject", "uphold", "clear")
"""The decisions taken for many results in one step (:meth:`Reviews.decide_all`;
confirming many is :meth:`Reviews.confirm_all`)."""


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

    def waiting(
        self, actor: int, limit: int = 200, event: str | None = None
    ) -> list[dict[str, Any]]:
        """The results that wait on ``actor`` to count (those of ``event``, by its
        key), oldest first, each with why and its age: their own line to confirm; as
        the representative of an approved group, results that need the group's word
        for its players (:func:`~pips.results.trust.needs`); as an administrator,
        every result that waits, and every dispute to decide."""
        with self.context.db.session() as session:
            facts = actor_facts(session, actor)
            rows = self._unvouched(session, event)
            seats = seats_of_all(session, rows)
            needed = needs_of(session, rows, seats)
            names = self._group_names(session, facts.approved)
            now = self.context.clock()
            found = []
            for row in rows:
                said = {r.user_id for r in row.reviews if r.action in ("confirm", "reject")}
                said.add(row.entered_by or 0)
                # Where only an administrator's word makes it count, a
                # representative's adds nothing.
                wants = needed[row.id]
                mine = frozenset() if wants.admin_only else wants.groups & facts.approved
                if row.status == "disputed":
                    # A representative sees the disputes its word may decide.
                    decides = facts.admin or (
                        bool(facts.approved)
                        and bool(decide(facts, Action.REJECT, result_facts(session, row)))
                    )
                    why = phrase("a dispute to decide") if decides else None
                elif actor not in said and any(t.account == actor for t in seats[row.id]):
                    why = phrase("your own line to confirm")
                elif mine and actor not in said:
                    why = phrase(
                        "as representative of {groups}",
                        groups=", ".join(sorted(names[g] for g in mine)),
                    )
                elif facts.admin:
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

    def waiting_at(self, key: str) -> list[dict[str, Any]]:
        """What an event's results wait for, per person who can act
        (:func:`waits_of`)."""
        with self.context.db.session() as session:
            return waits_of(session, self._unvouched(session, key))

    def confirm_all(
        self,
        actor: int,
        ids: Sequence[int] = (),
        *,
        event: str | None = None,
        save: bool = False,
    ) -> dict[str, Any]:
        """Confirm many results in one step (``ids``, or every result of ``event``
        the actor's word adds to), each as :meth:`review` would, all or none. The
        actor's groups' players proposed at those results by another (an event's
        "Name; Club") are agreed first: confirming them is the representative's
        word that they are the group's. Without ``save`` nothing changes: what would
        change is shown (the review before the one confirmation)."""
        with self.context.db.session() as session, session.begin():
            facts = actor_facts(session, actor)
            if event is not None:
                rows = [r for r in self._unvouched(session, event) if r.status == "provisional"]
            else:
                wanted = sorted(set(ids))[:MOST_AT_ONCE]
                rows = list(session.scalars(select(Result).where(Result.id.in_(wanted))))
            agreed = self._agree_proposed(session, facts, rows)
            done = []
            for row in rows:
                said = {r.user_id for r in row.reviews if r.action == "confirm"}
                if row.status != "provisional" or actor in said:
                    continue
                if not decide(facts, Action.CONFIRM, result_facts(session, row)):
                    if event is not None:
                        continue  # an event's results the actor has no word on
                    require(decide(facts, Action.CONFIRM, result_facts(session, row)))
                self._act(session, facts, row, "confirm", "")
                done.append(row)
            shown = [
                {
                    "id": row.id,
                    "date": row.played_on.isoformat(),
                    "players": [p.name for p in row.players],
                    "counts": counted(row),
                }
                for row in done
            ]
            if not save:
                session.rollback()
            return {
                "results": shown,
                "confirmed": len(shown),
                "counting": sum(1 for r in shown if r["counts"]),
                "players": agreed,
                "saved": save,
            }

    def decide_all(
        self,
        actor: int,
        action: str,
        ids: Sequence[int],
        comment: str = "",
        *,
        save: bool = False,
    ) -> dict[str, Any]:
        """Decide many results in one step: ``reject`` or ``uphold`` their disputes, or
        ``clear`` their flags, each as :meth:`review` would (who may is
        :mod:`pips.results.authority`'s to say, result by result), all or none: one
        result the actor may not decide, or that waits for no such decision, refuses
        the whole step. Without ``save`` nothing changes: what would become of each
        result is shown (the review before the one decision)."""
        if action not in BULK:
            raise ResultsError(phrase("the action is one of {choices}", choices=", ".join(BULK)))
        comment = comment.strip()[:500]
        wanted = sorted(set(ids))[:MOST_AT_ONCE]
        with self.context.db.session() as session, session.begin():
            facts = actor_facts(session, actor)
            rows = list(session.scalars(select(Result).where(Result.id.in_(wanted))))
            missing = sorted(set(wanted) - {r.id for r in rows})
            if missing:
                raise NotFound(phrase("no result {result_id}", result_id=missing[0]))
            for row in rows:
                self._act(session, facts, row, action, comment)
            shown = [
                {
                    "id": row.id,
                    "date": row.played_on.isoformat(),
                    "players": [p.name for p in row.players],
                    "status": row.status,
                    "counts": counted(row),
                }
                for row in rows
            ]
            if not save:
                session.rollback()
            return {"action": action, "results": shown, "decided": len(shown), "saved": save}

    def sanction(
        self, actor: int, key: str, *, sanction: bool = True, save: bool = False
    ) -> dict[str, Any]:
        """An administrator sanctions an event (a federation's championship): its real
        tables' results then count whoever plays; or takes the sanction back. Without
        ``save`` nothing changes: what would count is shown."""
        with self.context.db.session() as session, session.begin():
            found = find_event(session, key)
            need(session, actor, Action.SANCTION, event_facts(session, found))
            found.sanctioned_at = self.context.clock() if sanction else None
            found.sanctioned_by = actor if sanction else None
            session.flush()
            rows = [
                r
                for r in session.scalars(select(Result).where(Result.event_id == found.id))
                if r.status in ("provisional", "confirmed") and r.source != "server"
            ]
            for row in rows:
                settle(session, row)
            self.holds.recheck(session, causes(rows))
            counting = sum(1 for r in rows if counted(r))
            if not save:
                session.rollback()
            return {
                "event": key,
                "sanctioned": sanction,
                "results": len(rows),
                "counting": counting,
                "saved": save,
            }

    def agree(self, actor: int, player_id: int) -> dict[str, Any]:
        """The representative of the group another proposed a player for agrees that
        the player is the group's; the player's results are settled again."""
        with self.context.db.session() as session, session.begin():
            player = find_player(session, player_id)
            group = session.get(Group, player.group_id) if player.group_id else None
            if group is None or player.group_agreed_at is not None:
                raise Conflict(phrase("{name} waits for no group's word", name=player.name))
            need(session, actor, Action.ADD_TO_GROUP, group_facts(group))
            player.group_agreed_at = self.context.clock()
            session.flush()
            theirs = select(ResultPlayer.result_id).where(ResultPlayer.player_id == player.id)
            rows = session.scalars(
                select(Result).where(Result.id.in_(theirs), Result.status == "provisional")
            ).all()
            for row in rows:
                settle(session, row)
            self.holds.recheck(session, causes(rows))
        with self.context.db.session() as session:
            return player_json(session, find_player(session, player_id))

    def _agree_proposed(self, session: Session, actor: Actor, rows: Sequence[Result]) -> list[str]:
        """Agree that the players of ``rows`` whom another proposed as players of a
        group ``actor`` represents are the group's (their representative's word)."""
        ids = {p.player_id for row in rows for p in row.players if p.player_id is not None}
        if not ids or not actor.represents:
            return []
        proposed = session.scalars(
            select(Player).where(
                Player.id.in_(ids),
                Player.group_id.in_(actor.represents),
                Player.group_agreed_at.is_(None),
            )
        ).all()
        now = self.context.clock()
        for player in proposed:
            group = session.get(Group, player.group_id)
            require(decide(actor, Action.ADD_TO_GROUP, group_facts(group)))
            player.group_agreed_at = now
        session.flush()
        return sorted(p.name for p in proposed)

    @staticmethod
    def _unvouched(session: Session, event: str | None) -> Sequence[Result]:
        """Results that do not count yet for want of a word, and disputes (of
        ``event``, by key)."""
        # A dispute waits for a decision whatever word the result had before it.
        query = select(Result).where(
            or_(
                Result.status == "disputed",
                (Result.status == "provisional")
                & or_(Result.confirmed_by.is_(None), Result.confirmed_by == PLAYERS),
            )
        )
        if event is not None:
            query = query.where(Result.event_id == find_event(session, event).id)
        return session.scalars(query.order_by(Result.entered_at, Result.id).limit(5000)).all()

    @staticmethod
    def _group_names(session: Session, groups: frozenset[int]) -> dict[int, str]:
        if not groups:
            return {}
        return dict(session.execute(select(Group.id, Group.name).where(Group.id.in_(groups))).all())


def waits_of(session: Session, rows: Sequence[Result]) -> list[dict[str, Any]]:
    """What provisional results wait for, per person who can act: each
    representative whose word they need (for their group's players), each player
    whose own line they need, and an administrator (for what nobody else can
    confirm); with how many results each, the most first."""
    rows = [r for r in rows if r.status == "provisional" and r.confirmed_by not in VOUCHING]
    needed = needs_of(session, rows)
    labels = representative_labels(session, {g for n in needed.values() for g in n.groups})
    counts: dict[tuple[str, str], int] = {}
    for row in rows:
        found = needed[row.id]
        if found.admin_only:
            waits = {("admin", "")}
        else:
            waits = {("representative", labels[g]) for g in found.groups if g in labels}
            waits |= {("player", row.players[i].name) for i in found.seats}
        for wait in waits:
            counts[wait] = counts.get(wait, 0) + 1
    return [
        {"kind": kind, "who": who, "results": n}
        for (kind, who), n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
