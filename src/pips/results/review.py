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
- **withdraw**: whoever entered it, the group's representative, an administrator.
- **clear**: an administrator lets a result held by a flag (an anomaly) count.

Every change of status rechecks the anomaly holds of the result's players on its day
(:mod:`pips.results.holds`): a withdrawal or an upheld dispute lifts at once a hold
the result helped cause.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from pips.core.names import name_key
from pips.core.phrase import phrase
from pips.results.common import Conflict, Context, NotAllowed, NotFound, ResultsError, is_admin
from pips.results.groups import groups_of_players
from pips.results.holds import Holds, causes
from pips.results.register import Register
from pips.results.trust import PLAYERS, could_vouch
from pips.results.vouching import seats_of_all, settle
from pips.store.models import (
    Event,
    EventRound,
    EventTable,
    Group,
    Player,
    Result,
    ResultReview,
)

ACTIONS = ("confirm", "dispute", "resolve", "reject", "uphold", "withdraw", "clear")


class Reviews:
    """Confirming, disputing, deciding disputes, withdrawing and clearing results."""

    def __init__(self, context: Context, holds: Holds, register: Register) -> None:
        self.context = context
        self.holds = holds
        self.register = register

    def review(self, actor: int, result_id: int, action: str, comment: str = "") -> dict[str, Any]:
        """Act on a result (see the module's rules)."""
        comment = comment.strip()[:500]
        if action not in ACTIONS:
            raise ResultsError(phrase("the action is one of {choices}", choices=", ".join(ACTIONS)))
        with self.context.db.session() as session, session.begin():
            row = session.get(Result, result_id)
            if row is None:
                raise NotFound(phrase("no result {result_id}", result_id=result_id))
            if row.status == "withdrawn":
                raise Conflict(phrase("the result was withdrawn"))
            accounts = self._seat_accounts(session, row)
            played = actor in accounts
            admin = is_admin(session, actor)
            vouches = self._represents_a_seat(session, row, actor)
            group = row.group
            representative = group is not None and group.representative_id == actor
            approved = group is not None and group.approved_at is not None
            open_disputes = self._open_disputes(row)
            if action == "confirm":
                if row.status == "disputed":
                    raise Conflict(phrase("the result is disputed: the dispute is decided first"))
                if not (played or vouches or admin):
                    raise NotAllowed(
                        phrase(
                            "a result is confirmed by its players' accounts, the "
                            "representative of an approved group of its players, or an "
                            "administrator"
                        )
                    )
            elif action == "dispute":
                if not played:
                    raise NotAllowed(phrase("only the game's players dispute it"))
                if row.source == "server":
                    raise NotAllowed(
                        phrase(
                            "a game played on the server is not disputed: the server saw every move"
                        )
                    )
                if not comment:
                    raise ResultsError(phrase("say what is wrong with the result"))
                row.status = "disputed"
                open_disputes.add(actor)
            elif action == "resolve":
                if actor not in open_disputes:
                    raise NotAllowed(phrase("a player withdraws only a dispute of their own"))
                open_disputes.discard(actor)
            elif action in ("reject", "uphold"):
                neutral = (
                    ((representative and approved) or vouches)
                    and not played
                    and row.entered_by != actor
                )
                if not (admin or neutral):
                    raise NotAllowed(
                        phrase(
                            "a dispute is decided by an administrator (or the "
                            "representative of an approved group who neither entered nor "
                            "played the game)"
                        )
                    )
                if row.status != "disputed":
                    raise Conflict(phrase("the result is not disputed"))
                open_disputes.clear()
                if action == "uphold":
                    row.status, row.fingerprint = "withdrawn", None
            elif action == "withdraw":
                allowed = actor == row.entered_by or representative or admin
                if not (allowed or self._organises_its_table(session, row, actor)):
                    raise NotAllowed(
                        phrase(
                            "a result is withdrawn by whoever entered it, the group's "
                            "representative, the organiser of the event its table played "
                            "at, or an administrator"
                        )
                    )
                row.status, row.fingerprint = "withdrawn", None
            elif action == "clear":
                if not admin:
                    raise NotAllowed(phrase("a flagged result is cleared by an administrator"))
                if row.flag is None or row.flag_cleared_by is not None:
                    raise Conflict(phrase("the result is not held by a flag"))
                row.flag_cleared_by = actor
                self.holds.release(session, row, phrase("cleared by an administrator"))
            row.reviews.append(ResultReview(user_id=actor, action=action, comment=comment))
            session.flush()
            if row.status != "withdrawn" and not open_disputes:
                settle(session, row)
            if row.status == "withdrawn":
                self.holds.release(session, row, phrase("the result was withdrawn"))
            self.holds.recheck(session, causes([row]))
        return self.register.result(result_id, actor)

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

    @staticmethod
    def _represents_a_seat(session: Session, row: Result, actor: int) -> bool:
        """Whether ``actor`` represents an approved group one of the result's players
        belongs to (their word vouches for those seats)."""
        ids = [p.player_id for p in row.players if p.player_id is not None]
        players = list(session.scalars(select(Player).where(Player.id.in_(ids))))
        groups = frozenset().union(*groups_of_players(session, players).values())
        if not groups:
            return False
        return (
            session.scalar(
                select(Group.id).where(
                    Group.id.in_(groups),
                    Group.representative_id == actor,
                    Group.approved_at.is_not(None),
                )
            )
            is not None
        )

    @staticmethod
    def _organises_its_table(session: Session, row: Result, actor: int) -> bool:
        """Whether ``actor`` organised an event of the result's day with a table of
        exactly the result's players (a game entered by hand outside the event)."""
        if row.event_id is not None or row.source == "server":
            return False
        seated = frozenset(name_key(p.name) for p in row.players)
        tables = session.scalars(
            select(EventTable.seats)
            .join(EventRound, EventRound.id == EventTable.round_id)
            .join(Event, Event.id == EventRound.event_id)
            .where(Event.organiser_id == actor, Event.played_on == row.played_on)
        )
        return any(frozenset(name_key(n) for n in seats) == seated for seats in tables)

    @staticmethod
    def _seat_accounts(session: Session, row: Result) -> dict[int, int]:
        """The accounts of the result's players (as they are now: claims count), each
        with its seat."""
        ids = [p.player_id for p in row.players if p.player_id is not None]
        users = dict(
            session.execute(select(Player.id, Player.user_id).where(Player.id.in_(ids))).all()
        )
        accounts = {}
        for seat in row.players:
            user = users.get(seat.player_id) if seat.player_id is not None else None
            if user is not None:
                accounts[user] = seat.seat
        return accounts

    @staticmethod
    def _open_disputes(row: Result) -> set[int]:
        disputes: set[int] = set()
        for review in row.reviews:
            if review.action == "dispute":
                disputes.add(review.user_id)
            elif review.action == "resolve":
                disputes.discard(review.user_id)
            elif review.action in ("reject", "uphold"):
                disputes.clear()
        return disputes
