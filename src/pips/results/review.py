"""Reviewing a result: its players confirm or dispute it; a dispute is resolved by
whoever raised it or the group's representative; whoever entered it, or the
representative, withdraws it. Disputed and withdrawn results do not count."""

from __future__ import annotations

from typing import Any

from pips.results.common import Conflict, NotAllowed, NotFound, ResultsError
from pips.results.entries import Entries
from pips.store.models import (
    Result,
    ResultReview,
    User,
)


class Reviews(Entries):
    """Confirming, disputing, resolving and withdrawing results."""

    def review(self, actor: int, result_id: int, action: str, comment: str = "") -> dict[str, Any]:
        """Confirm, dispute, resolve or withdraw a result (see the module's rules)."""
        comment = comment.strip()[:500]
        with self.db.session() as session, session.begin():
            row = session.get(Result, result_id)
            if row is None:
                raise NotFound(f"no result {result_id}")
            # A player is linked to an account by name when the result is entered; an
            # account made later under the same name speaks for that player too.
            user = session.get(User, actor)
            played = actor in {p.user_id for p in row.players} or (
                user is not None
                and user.name.casefold() in {p.name.casefold() for p in row.players}
            )
            representative = row.group is not None and row.group.representative_id == actor
            if row.status == "withdrawn":
                raise Conflict("the result was withdrawn")
            if action == "confirm":
                if not played:
                    raise NotAllowed("only the game's players confirm it")
                if row.status == "disputed":
                    raise Conflict("the result is disputed: resolve the dispute first")
                row.status = "confirmed"
            elif action == "dispute":
                if not played:
                    raise NotAllowed("only the game's players dispute it")
                if not comment:
                    raise ResultsError("say what is wrong with the result")
                row.status = "disputed"
            elif action == "resolve":
                disputers = {r.user_id for r in row.reviews if r.action == "dispute"}
                if actor not in disputers and not representative:
                    raise NotAllowed(
                        "a dispute is resolved by whoever raised it or the group's representative"
                    )
                if row.status != "disputed":
                    raise Conflict("the result is not disputed")
                confirmed = any(r.action == "confirm" for r in row.reviews)
                row.status = "confirmed" if confirmed else "entered"
            elif action == "withdraw":
                if actor != row.entered_by and not representative:
                    raise NotAllowed(
                        "a result is withdrawn by whoever entered it or the group's representative"
                    )
                row.status = "withdrawn"
                row.fingerprint = None
            else:
                raise ResultsError("the action is confirm, dispute, resolve or withdraw")
            row.reviews.append(ResultReview(user_id=actor, action=action, comment=comment))
        return self.result(result_id)
