"""Claims and merges: an account says "this is me" of a player, and an administrator
merges two players who are one person.

A claim blocks nobody until it is approved: several accounts may claim one player at
once, each waits for the player's group's representative (or an administrator, for a
player of no group, of an unapproved group, or whose group answered for the player only
after the claim: :func:`pips.results.authority.claim_decider`); nobody decides their
own claim; and an account has at most :data:`MOST_WAITING` claims
waiting, so that one account cannot claim every player. Approved, the account's other
players merge into the claimed one and every other waiting claim of that player is
refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, aliased

from pips.core.phrase import phrase
from pips.results.authority import Action, decide
from pips.results.common import Conflict, Context, ResultsError
from pips.results.facts import actor_facts, claim_facts, need, require
from pips.results.players import find_player, player_json
from pips.store.models import Player, PlayerClaim, ResultPlayer, User

MOST_WAITING = 3
"""Claims an account may have waiting at once."""
MOST_AT_ONCE = 500
"""Claims decided in one step."""


class Claims:
    """Claiming, deciding claims and merging players."""

    def __init__(self, context: Context) -> None:
        self.context = context

    def claim(self, actor: int, player_id: int) -> dict[str, Any]:
        """An account asks to be a player."""
        with self.context.db.session() as session, session.begin():
            need(session, actor, Action.CLAIM)
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
            self._decide(session, actor, player_id, approve, claimant)
        return self._player(player_id)

    def decide_all(
        self,
        actor: int,
        claims: Sequence[tuple[int, str | None]],
        approve: bool,
        *,
        save: bool = False,
    ) -> dict[str, Any]:
        """Approve or refuse many waiting claims in one step (``claims``: each a
        player's id and the claimant's name, ``None`` for the oldest claim), each as
        :meth:`decide` would, all or none: one claim the actor may not decide, or
        that no longer waits, refuses the whole step. Without ``save`` nothing
        changes: what would be decided is shown (the review before the one step)."""
        wanted = list(dict.fromkeys(claims))[:MOST_AT_ONCE]
        with self.context.db.session() as session, session.begin():
            shown = [self._decide(session, actor, p, approve, c) for p, c in wanted]
            if not save:
                session.rollback()
        return {"approved": approve, "claims": shown, "decided": len(shown), "saved": save}

    def _decide(
        self,
        session: Session,
        actor: int,
        player_id: int,
        approve: bool,
        claimant: str | None,
    ) -> dict[str, Any]:
        """One claim decided in the caller's transaction: what was decided."""
        player = find_player(session, player_id)
        query = select(PlayerClaim).where(
            PlayerClaim.player_id == player.id, PlayerClaim.decided_at.is_(None)
        )
        if claimant is not None:
            query = query.join(User, User.id == PlayerClaim.user_id).where(User.name == claimant)
        claim = session.scalars(query.order_by(PlayerClaim.id)).first()
        if claim is None:
            raise Conflict(phrase("nobody claims {name}", name=player.name))
        need(session, actor, Action.DECIDE_CLAIM, claim_facts(session, player, claim))
        if approve:
            # A claim waiting from before its account became a bot (or before bots
            # were refused claims) is still the claimant's ask: approved, it would put
            # a bot on the world list.
            require(decide(actor_facts(session, claim.user_id), Action.CLAIM))
        now = self.context.clock()
        claim.decided_at, claim.decided_by, claim.approved = now, actor, approve
        who = session.get(User, claim.user_id)
        merged: list[str] = []
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
                merged.append(other.name)
            # The player is somebody's now: the other claims of it are answered.
            session.execute(
                update(PlayerClaim)
                .where(PlayerClaim.player_id == player.id, PlayerClaim.decided_at.is_(None))
                .values(decided_at=now, decided_by=actor, approved=False)
            )
        session.flush()
        return {
            "player": player.id,
            "name": player.name,
            "claimant": who.name if who is not None else None,
            "approved": approve,
            "merged": merged,
        }

    def merge(self, actor: int, source: int, into: int) -> dict[str, Any]:
        """Merge player ``source`` into ``into`` (an administrator: one person entered
        under two names, or in two clubs)."""
        with self.context.db.session() as session, session.begin():
            need(session, actor, Action.MERGE)
            merge_players(session, find_player(session, source), find_player(session, into))
        return self._player(into)

    def waiting(self, actor: int) -> list[dict[str, Any]]:
        """The claims ``actor`` decides (:func:`~pips.results.authority.decide`): of
        their approved groups' players, and (an administrator) of the others; never
        their own; the oldest first."""
        with self.context.db.session() as session:
            facts = actor_facts(session, actor)
            rows = session.execute(
                select(Player, PlayerClaim)
                .join(PlayerClaim, PlayerClaim.player_id == Player.id)
                .where(PlayerClaim.decided_at.is_(None))
                .order_by(PlayerClaim.created_at, PlayerClaim.id)
                .limit(2000)
            ).all()
            since: dict[int, Any] = {}
            players: dict[int, Player] = {}
            mine: dict[int, list[int]] = {}
            for player, claim in rows:
                if decide(facts, Action.DECIDE_CLAIM, claim_facts(session, player, claim)):
                    since.setdefault(player.id, claim.created_at)
                    players[player.id] = player
                    mine.setdefault(player.id, []).append(claim.user_id)
            names = dict(
                session.execute(
                    select(User.id, User.name).where(
                        User.id.in_({u for us in mine.values() for u in us})
                    )
                ).all()
            )
            now = self.context.clock()
            return [
                {
                    **player_json(session, players[pid], count=False),
                    "waiting_days": (now - at).days,
                    # The claims of the player this account decides (never its own).
                    "decides": [names[u] for u in mine[pid]],
                }
                for pid, at in since.items()
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
