"""Players are people, not strings: the names of a result are matched to the players a
group (or the person entering) already knows, a name close to a known player is asked
about before a new player is made, an account claims a player (approved by the group's
representative or an administrator), and an administrator merges two players.

A name on a result becomes a player by these rules, in order:

1. the name of the account entering the result: that account's player;
2. a player of the group the result is entered for (without a group: a player the
   person entering has played with) of the same name, however it is capitalised;
3. an account of that name: its player (so that the account can confirm the result);
4. otherwise a new player of the group, unless the name is close to a known player
   ("Ana Berg" and "Anna Berg", "Jörg Müller" and "Joerg Mueller"): then entry stops
   and asks, "did you mean Anna Berg?", until the name is confirmed as new.

A name that only matches an account made after the player (a stranger registering
"Anna Berg") never takes over that player's results: rule 2 comes before rule 3, and an
account becomes a known player's only through an approved claim.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session, aliased

from pips.core.names import name_key
from pips.core.phrase import phrase
from pips.results.common import Conflict, NotAllowed, NotFound, ResultsError, ServiceBase
from pips.store.models import Group, Player, ResultPlayer, User

CLOSE = 0.8
"""How alike two names must be (difflib's ratio of their loose forms) to ask."""

UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def loose_key(name: str) -> str:
    """A name as a typist might have meant it: case, accents and umlauts folded
    ("Jörg Müller" and "Joerg Mueller" and "Jorg Muller" are alike)."""
    key = name_key(name).translate(UMLAUTS)
    bare = "".join(c for c in unicodedata.normalize("NFKD", key) if not unicodedata.combining(c))
    return bare.replace("ae", "a").replace("oe", "o").replace("ue", "u")


def close(a: str, b: str) -> bool:
    """Whether two different names look like one name typed twice."""
    la, lb = loose_key(a), loose_key(b)
    return la == lb or SequenceMatcher(None, la, lb).ratio() >= CLOSE


class UnknownPlayers(ResultsError):
    """Names close to known players, not confirmed as new: ``suggestions`` maps each
    to the known names it resembles."""

    def __init__(self, suggestions: dict[str, list[str]], where: str = "") -> None:
        self.suggestions = suggestions
        said = "; ".join(
            f"{name!r} is not a known player: did you mean {' or '.join(known)}?"
            for name, known in suggestions.items()
        )
        super().__init__(
            f"{where}{said} If they are new players, confirm the names as new "
            "(new players) and enter again."
        )


@dataclass
class Seating:
    """The players of a batch's names, made and found as the rules of this module say."""

    players: dict[str, Player] = field(default_factory=dict)
    """By :func:`name_key`."""
    new: list[str] = field(default_factory=list)
    """Names that became new players."""


class Players(ServiceBase):
    """Finding, making, claiming and merging players."""

    # -- names to players ------------------------------------------------------------

    def seat_names(
        self,
        session: Session,
        actor: User,
        group: Group | None,
        names: Iterable[str],
        new_names: Collection[str] = (),
        *,
        make: bool = True,
    ) -> Seating:
        """The players of ``names`` (rules 1 to 4 of this module); raises
        :class:`UnknownPlayers` for a name close to a known player that is not in
        ``new_names``. With ``make`` false nothing is added (a check)."""
        allowed = {name_key(n) for n in new_names}
        wanted: dict[str, str] = {}
        for name in names:
            wanted.setdefault(name_key(name), name)
        seating = Seating()
        circle = self._circle(session, actor, group)
        by_key: dict[str, Player] = {}
        for player in circle:
            by_key.setdefault(player.name_key, player)
        accounts = {
            u.name_key: u
            for u in session.scalars(select(User).where(User.name_key.in_(list(wanted))))
        }
        asked: dict[str, list[str]] = {}
        for key, name in wanted.items():
            if key == actor.name_key:
                seating.players[key] = self.own_player(session, actor, group, make=make)
            elif key in by_key:
                seating.players[key] = by_key[key]
            elif key in accounts:
                seating.players[key] = self.own_player(session, accounts[key], group, make=make)
            else:
                similar = sorted({p.name for p in circle if close(p.name, name)})
                if similar and key not in allowed:
                    asked[name] = similar
                    continue
                player = Player(name=name, name_key=key, group_id=group.id if group else None)
                if make:
                    session.add(player)
                seating.players[key] = player
                seating.new.append(name)
        if asked:
            raise UnknownPlayers(asked)
        if make:
            session.flush()
        return seating

    def own_player(
        self, session: Session, user: User, group: Group | None, *, make: bool = True
    ) -> Player:
        """The player an account is (the oldest, if claims gave it more than one)."""
        player = session.scalars(
            select(Player)
            .where(Player.user_id == user.id, Player.merged_into.is_(None))
            .order_by(Player.id)
        ).first()
        if player is None:
            player = Player(
                name=user.name,
                name_key=user.name_key,
                user_id=user.id,
                group_id=group.id if group else None,
            )
            if make:
                session.add(player)
                session.flush()
        return player

    def _circle(self, session: Session, actor: User, group: Group | None) -> Sequence[Player]:
        """The players a name on a result is compared with: the group's, or (without
        a group) those the person entering has played with, and players without a
        group of the person's own results."""
        if group is not None:
            query = select(Player).where(Player.group_id == group.id)
        else:
            mine = select(Player.id).where(Player.user_id == actor.id)
            their_results = select(ResultPlayer.result_id).where(ResultPlayer.player_id.in_(mine))
            met = select(ResultPlayer.player_id).where(ResultPlayer.result_id.in_(their_results))
            query = select(Player).where(Player.id.in_(met))
        return session.scalars(
            query.where(Player.merged_into.is_(None)).order_by(Player.id).limit(5000)
        ).all()

    # -- claims and merges -----------------------------------------------------------

    def claim(self, actor: int, player_id: int) -> dict[str, Any]:
        """An account asks to be a player; the group's representative (or an
        administrator, for a player of no group) decides."""
        with self.db.session() as session, session.begin():
            player = self._player(session, player_id)
            if player.user_id == actor:
                raise Conflict(f"{player.name} is already your player")
            if player.user_id is not None:
                raise Conflict(f"{player.name} is already claimed by an account")
            if player.claim_user_id not in (None, actor):
                raise Conflict(f"someone else's claim of {player.name} waits for a decision")
            player.claim_user_id, player.claimed_at = actor, self.clock()
        return self.player(player_id)

    def decide_claim(self, actor: int, player_id: int, approve: bool) -> dict[str, Any]:
        """Approve or refuse the waiting claim of a player: its group's representative
        or an administrator. Approved, the account's other players merge into it."""
        with self.db.session() as session, session.begin():
            player = self._player(session, player_id)
            group = session.get(Group, player.group_id) if player.group_id else None
            if not (self._is_admin(session, actor) or (group and group.representative_id == actor)):
                where = (
                    phrase("the representative of {name}", name=group.name)
                    if group
                    else phrase("an administrator")
                )
                raise NotAllowed(
                    phrase("a claim of {name} is decided by {where}", name=player.name, where=where)
                )
            claimant = player.claim_user_id
            if claimant is None:
                raise Conflict(f"nobody claims {player.name}")
            player.claim_user_id, player.claimed_at = None, None
            if approve:
                others = session.scalars(
                    select(Player).where(
                        Player.user_id == claimant,
                        Player.merged_into.is_(None),
                        Player.id != player.id,
                    )
                ).all()
                player.user_id = claimant
                for other in others:
                    self._merge(session, other, player)
        return self.player(player_id)

    def merge(self, actor: int, source: int, into: int) -> dict[str, Any]:
        """Merge player ``source`` into ``into`` (an administrator: one person entered
        under two names, or in two clubs)."""
        with self.db.session() as session, session.begin():
            if not self._is_admin(session, actor):
                raise NotAllowed(phrase("players are merged by an administrator"))
            self._merge(session, self._player(session, source), self._player(session, into))
        return self.player(into)

    def _merge(self, session: Session, source: Player, into: Player) -> None:
        if source.id == into.id:
            raise ResultsError(phrase("a player cannot be merged into itself"))
        if source.user_id and into.user_id and source.user_id != into.user_id:
            raise Conflict(f"{source.name} and {into.name} are two accounts' players")
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
                f"{source.name} and {into.name} played in the same game (result {shared}), "
                "so they are two people"
            )
        session.execute(
            update(ResultPlayer)
            .where(ResultPlayer.player_id == source.id)
            .values(player_id=into.id)
        )
        session.execute(
            update(Player).where(Player.merged_into == source.id).values(merged_into=into.id)
        )
        if into.user_id is None:
            into.user_id = source.user_id
        source.user_id, source.merged_into = None, into.id

    # -- reading -----------------------------------------------------------------------

    def player(self, player_id: int) -> dict[str, Any]:
        with self.db.session() as session:
            player = self._player(session, player_id, follow=True)
            return self._player_json(session, player)

    def players(self, slug: str) -> list[dict[str, Any]]:
        """A group's players, with their accounts and waiting claims."""
        with self.db.session() as session:
            group = self._group(session, slug)
            rows = session.scalars(
                select(Player)
                .where(Player.group_id == group.id, Player.merged_into.is_(None))
                .order_by(Player.name)
            ).all()
            return [self._player_json(session, p, count=False) for p in rows]

    def find_players(self, name: str) -> list[dict[str, Any]]:
        """Players of this name (there may be several people of one name)."""
        with self.db.session() as session:
            rows = session.scalars(
                select(Player)
                .where(Player.name_key == name_key(name), Player.merged_into.is_(None))
                .order_by(Player.id)
            ).all()
            return [self._player_json(session, p, count=False) for p in rows]

    def _player_json(self, session: Session, player: Player, count: bool = True) -> dict[str, Any]:
        users = {
            uid: uname
            for uid, uname in session.execute(
                select(User.id, User.name).where(
                    User.id.in_([u for u in (player.user_id, player.claim_user_id) if u])
                )
            )
        }
        group = session.get(Group, player.group_id) if player.group_id else None
        games = (
            session.scalar(
                select(func.count())
                .select_from(ResultPlayer)
                .where(ResultPlayer.player_id == player.id)
            )
            if count
            else None
        )
        return {
            "id": player.id,
            "name": player.name,
            "group": None if group is None else {"name": group.name, "slug": group.slug},
            "account": users.get(player.user_id) if player.user_id else None,
            "claimed_by": users.get(player.claim_user_id) if player.claim_user_id else None,
            "results": games,
        }

    def _player(self, session: Session, player_id: int, *, follow: bool = False) -> Player:
        player = session.get(Player, player_id)
        if player is None:
            raise NotFound(phrase("no player {player_id}", player_id=player_id))
        while follow and player.merged_into is not None:
            player = session.get(Player, player.merged_into) or player
            if player.merged_into == player.id:
                break
        if not follow and player.merged_into is not None:
            raise Conflict(f"player {player_id} was merged into player {player.merged_into}")
        return player

    @staticmethod
    def _is_admin(session: Session, actor: int | None) -> bool:
        if actor is None:
            return False
        return bool(session.scalar(select(User.admin).where(User.id == actor)))

    def claims_waiting(self, actor: int) -> list[dict[str, Any]]:
        """The claims ``actor`` decides: of their groups' players, and (an
        administrator) of players of no group."""
        with self.db.session() as session:
            mine = select(Group.id).where(Group.representative_id == actor)
            query = select(Player).where(Player.claim_user_id.is_not(None))
            if self._is_admin(session, actor):
                query = query.where(or_(Player.group_id.in_(mine), Player.group_id.is_(None)))
            else:
                query = query.where(Player.group_id.in_(mine))
            return [
                self._player_json(session, p, count=False)
                for p in session.scalars(query.order_by(Player.claimed_at))
            ]
