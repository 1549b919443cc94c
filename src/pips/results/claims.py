"""Claims and merges: an account says "this is me" of a player, and an administrator
merges two players who are one person.

A claim blocks nobody until it is approved: several accounts may claim one player at
once, each waits for the player's group's representative (or, for a player of no
group, an administrator), and an account has at most :data:`MOST_WAITING` claims
waiting, so that one account cannot claim every player. Approved, the account's other
players merge into the claimed one and every other waiting claim of that player is
refused.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session, aliased

from pips.core.phrase import phrase
from pips.results.common import (
    Conflict,
    Context,
    NotAllowed,
    ResultsError,
    is_admin,
)
from pips.results.players import find_player, player_json
from pips.store.models import Group, Player, PlayerClaim, ResultPlayer, User

MOST_WAITING = 3
"""Claims an account may have waiting at once."""


class Claims:
    """Claiming, deciding claims and merging players."""

    def __init__(self, context: Context) -> None:
        self.context = context

    def claim(self, actor: int, player_id: int) -> dict[str, Any]:
        """An account asks to be a player."""
        with self.context.db.session() as session, session.begin():
            player = find_player(session, player_id)
            if player.user_id == actor:
                raise Conflict(phrase("{name} is already your player", name=player.name))
            if player.user_id is not None:
                raise Conflict(phrase("{name} is already claimed by an account", name=player.name))
            waiting = select(PlayerClaim).where(
                PlayerClaim.user_id == actor, PlayerClaim.decided_at.is_(None)
            )
            mine = session.scalars(waiting).all()
            if any(c.player_id == player.id for c in mine):
                raise Conflict(
                    phrase("your claim of {name} waits for a decision", name=player.name)
                )
            if len(mine) >= MOST_WAITING:
                raise ResultsError(
                    phrase(
                        "you have {count} claims waiting: wait for their decisions first",
                        count=len(mine),
                    )
                )
            session.add(
                PlayerClaim(player_id=player.id, user_id=actor, created_at=self.context.clock())
            )
        return self._player(player_id)

    def decide(
        self, actor: int, player_id: int, approve: bool, claimant: str | None = None
    ) -> dict[str, Any]:
        """Approve or refuse a waiting claim of a player (the oldest, or
        ``claimant``'s): its group's representative or an administrator."""
        with self.context.db.session() as session, session.begin():
            player = find_player(session, player_id)
            group = session.get(Group, player.group_id) if player.group_id else None
            if not (is_admin(session, actor) or (group and group.representative_id == actor)):
                where = (
                    phrase("the representative of {name}", name=group.name)
                    if group
                    else phrase("an administrator")
                )
                raise NotAllowed(
                    phrase("a claim of {name} is decided by {where}", name=player.name, where=where)
                )
            query = select(PlayerClaim).where(
                PlayerClaim.player_id == player.id, PlayerClaim.decided_at.is_(None)
            )
            if claimant is not None:
                query = query.join(User, User.id == PlayerClaim.user_id).where(
                    User.name == claimant
                )
            claim = session.scalars(query.order_by(PlayerClaim.id)).first()
            if claim is None:
                raise Conflict(phrase("nobody claims {name}", name=player.name))
            now = self.context.clock()
            claim.decided_at, claim.decided_by, claim.approved = now, actor, approve
            if approve:
                others = session.scalars(
                    select(Player).where(
                        Player.user_id == claim.user_id,
                        Player.merged_into.is_(None),
                        Player.id != player.id,
                    )
                ).all()
                player.user_id = claim.user_id
                for other in others:
                    merge_players(session, other, player)
                # The player is somebody's now: the other claims of it are answered.
                session.execute(
                    update(PlayerClaim)
                    .where(PlayerClaim.player_id == player.id, PlayerClaim.decided_at.is_(None))
                    .values(decided_at=now, decided_by=actor, approved=False)
                )
        return self._player(player_id)

    def merge(self, actor: int, source: int, into: int) -> dict[str, Any]:
        """Merge player ``source`` into ``into`` (an administrator: one person entered
        under two names, or in two clubs)."""
        with self.context.db.session() as session, session.begin():
            if not is_admin(session, actor):
                raise NotAllowed(phrase("players are merged by an administrator"))
            merge_players(session, find_player(session, source), find_player(session, into))
        return self._player(into)

    def waiting(self, actor: int) -> list[dict[str, Any]]:
        """The claims ``actor`` decides: of their groups' players, and (an
        administrator) of players of no group; the oldest first."""
        with self.context.db.session() as session:
            mine = select(Group.id).where(Group.representative_id == actor)
            query = (
                select(Player, func.min(PlayerClaim.created_at))
                .join(PlayerClaim, PlayerClaim.player_id == Player.id)
                .where(PlayerClaim.decided_at.is_(None))
                .group_by(Player.id)
            )
            if is_admin(session, actor):
                query = query.where(or_(Player.group_id.in_(mine), Player.group_id.is_(None)))
            else:
                query = query.where(Player.group_id.in_(mine))
            rows = session.execute(query.order_by(func.min(PlayerClaim.created_at))).all()
            now = self.context.clock()
            return [
                {**player_json(session, p, count=False), "waiting_days": (now - since).days}
                for p, since in rows
            ]

    def _player(self, player_id: int) -> dict[str, Any]:
        with self.context.db.session() as session:
            return player_json(session, find_player(session, player_id, follow=True))


def merge_players(session: Session, source: Player, into: Player) -> None:
    """Merge ``source`` into ``into``: its results become ``into``'s. Two players of
    one game are two people and are never merged."""
    if source.id == into.id:
        raise ResultsError(phrase("a player cannot be merged into itself"))
    if source.user_id and into.user_id and source.user_id != into.user_id:
        raise Conflict(
            phrase(
                "{name} and {name2} are two accounts' players", name=source.name, name2=into.name
            )
        )
    mine = aliased(ResultPlayer)
    theirs = aliased(ResultPlayer)
    shared = session.scalar(
        select(mine.result_id)
        .join(theirs, theirs.result_id == mine.result_id)
        .where(mine.player_id == source.id, theirs.player_id == into.id)
        .limit(1)
    )
    if shared is not None:
        raise Conflict(
            phrase(
                "{name} and {name2} played in the same game (result {result}), so they are "
                "two people",
                name=source.name,
                name2=into.name,
                result=shared,
            )
        )
    session.execute(
        update(ResultPlayer).where(ResultPlayer.player_id == source.id).values(player_id=into.id)
    )
    session.execute(
        update(Player).where(Player.merged_into == source.id).values(merged_into=into.id)
    )
    if into.user_id is None:
        into.user_id = source.user_id
    source.user_id, source.merged_into = None, into.id
