"""Reviewing a result, under the trust model of docs/results.md ("Which results
count"):

- **confirm**: a player of the game (the account of a seat's player); the
  representative of an approved group for the group's results; an administrator. A
  result is confirmed once the accounts of all its other players confirmed it, or once
  an approved group's representative or an administrator did; a server game is
  confirmed by the server.
- **dispute** (with a reason): only a player of the game; a server game is not
  disputable by its players (the server saw every move).
- **resolve**: a player withdraws their own dispute.
- **reject** or **uphold** a dispute: an administrator, or the representative of the
  result's approved group when the representative neither entered nor played the game
  (nobody decides their own case). Rejected, the result stands as it stood; upheld, it
  is withdrawn.
- **withdraw**: whoever entered it, the group's representative, an administrator.
- **clear**: an administrator lets a result held by a flag (an anomaly) count.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from pips.core.phrase import phrase
from pips.results.common import Conflict, NotAllowed, NotFound, ResultsError
from pips.results.entries import Entries
from pips.store.models import Player, Result, ResultReview

ACTIONS = ("confirm", "dispute", "resolve", "reject", "uphold", "withdraw", "clear")


class Reviews(Entries):
    """Confirming, disputing, deciding disputes, withdrawing and clearing results."""

    def review(self, actor: int, result_id: int, action: str, comment: str = "") -> dict[str, Any]:
        """Act on a result (see the module's rules)."""
        comment = comment.strip()[:500]
        if action not in ACTIONS:
            raise ResultsError(phrase("the action is one of {choices}", choices=", ".join(ACTIONS)))
        with self.db.session() as session, session.begin():
            row = session.get(Result, result_id)
            if row is None:
                raise NotFound(phrase("no result {result_id}", result_id=result_id))
            if row.status == "withdrawn":
                raise Conflict("the result was withdrawn")
            accounts = self._seat_accounts(session, row)
            played = actor in accounts
            admin = self._is_admin(session, actor)
            group = row.group
            representative = group is not None and group.representative_id == actor
            approved = group is not None and group.approved_at is not None
            open_disputes = self._open_disputes(row)
            if action == "confirm":
                if row.status == "disputed":
                    raise Conflict("the result is disputed: the dispute is decided first")
                if played:
                    pass
                elif representative and approved:
                    row.confirmed_by = row.confirmed_by or "group"
                elif admin:
                    row.confirmed_by = row.confirmed_by or "admin"
                else:
                    raise NotAllowed(
                        phrase(
                            "a result is confirmed by its players' accounts (or the "
                            "representative of an approved group)"
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
                neutral = representative and approved and not played and row.entered_by != actor
                if not (admin or neutral):
                    raise NotAllowed(
                        phrase(
                            "a dispute is decided by an administrator (or the "
                            "representative of an approved group who neither entered nor "
                            "played the game)"
                        )
                    )
                if row.status != "disputed":
                    raise Conflict("the result is not disputed")
                open_disputes.clear()
                if action == "reject":
                    # The result stands: the decider's word confirms it.
                    row.confirmed_by = row.confirmed_by or ("admin" if admin else "group")
                else:
                    row.status, row.fingerprint = "withdrawn", None
            elif action == "withdraw":
                if actor != row.entered_by and not representative and not admin:
                    raise NotAllowed(
                        phrase(
                            "a result is withdrawn by whoever entered it, the group's "
                            "representative or an administrator"
                        )
                    )
                row.status, row.fingerprint = "withdrawn", None
            elif action == "clear":
                if not admin:
                    raise NotAllowed(phrase("a flagged result is cleared by an administrator"))
                if row.flag is None or row.flag_cleared_by is not None:
                    raise Conflict("the result is not held by a flag")
                row.flag_cleared_by = actor
            row.reviews.append(ResultReview(user_id=actor, action=action, comment=comment))
            if row.status != "withdrawn" and not open_disputes:
                self._settle(row, accounts)
        return self.result(result_id)

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

    @staticmethod
    def _settle(row: Result, accounts: dict[int, int]) -> None:
        """The status once no dispute is open: confirmed by what confirmed it before,
        or by every other player's account; else provisional."""
        if row.confirmed_by is None:
            last: dict[int, str] = {}
            for review in row.reviews:
                if review.action in ("confirm", "dispute", "resolve"):
                    last[review.user_id] = "confirm" if review.action != "dispute" else "dispute"
            others = set(accounts) - {row.entered_by}
            everyone = len(accounts) == len(row.players)
            if everyone and others and all(last.get(user) == "confirm" for user in others):
                row.confirmed_by = "players"
        row.status = "confirmed" if row.confirmed_by else "provisional"
