"""Players are people, not strings: the names of a result are matched to the players a
group (or the person entering) already knows, and a name close to a known player is
asked about before a new player is made. Claims and merges: :mod:`pips.results.claims`.

A name on a result becomes a player by these rules, in order:

1. the name of the account entering the result: that account's player;
2. a player of the group the result is entered for (without a group: a player the
   person entering has played with) of the same name, however it is capitalised;
3. an account of that name: its player (so that the account can confirm the result),
   when the result is entered for no group or the account is a member of the group
   the name plays for; for an account outside that group the name becomes a new player
   of the group instead (rule 4, without asking), which the account may claim: the
   link then waits for the group's representative (or an administrator) to agree;
4. otherwise a new player of the group, unless the name is close to a known player
   ("Ana Berg" and "Anna Berg", "Jörg Müller" and "Joerg Mueller"): then entry stops
   and asks, "did you mean Anna Berg?", until the name is confirmed as new.

A name that only matches an account made after the player (a stranger registering
"Anna Berg") never takes over that player's results: rule 2 comes before rule 3, and an
account becomes a known player's only through an approved claim. Nor does registering
a name that later appears new on a club's result link that seat to the account without
the club's word (rule 3): a free account must not become a seat the club's
representative cannot answer for.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from pips.core.names import name_key
from pips.core.phrase import joined, phrase
from pips.results.common import Conflict, Context, NotFound, ResultsError, group_named
from pips.results.groups import member_ids
from pips.results.vouching import MEMBER
from pips.store.models import Group, GroupMember, Player, PlayerClaim, Result, ResultPlayer, User
from pips.text import sort_key

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
    """Names that may be known players, not yet confirmed as new nor chosen:
    ``suggestions`` maps each to the known players it may be (as labels: the name, and
    the group), ``candidates`` to the same players as :func:`candidate_json` shows
    them, so that a form can offer the choice."""

    def __init__(
        self,
        suggestions: dict[str, list[str]],
        where: str = "",
        candidates: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        self.suggestions = suggestions
        self.candidates = candidates or {}
        asked = [
            phrase(
                "{name!r} may be a known player: did you mean {known}?",
                name=name,
                known=joined(list(known), " / "),
            )
            for name, known in suggestions.items()
        ]
        super().__init__(
            phrase(
                "{where}{asked} Choose the player meant, or confirm the name as a new "
                "player (new players), and enter again.",
                where=where,
                asked=joined(asked, "; "),
            )
        )


def candidate_label(player: Player, group: Group | None) -> str:
    """A known player as a question names them: the name, the group if any, and the
    player's number (which a script gives to choose them)."""
    where = "" if group is None else f"{group.name}, "
    return f"{player.name} ({where}#{player.id})"


@dataclass
class BatchPlayers:
    """The players of a batch's names, made and found as the rules of this module say."""

    players: dict[str, Player] = field(default_factory=dict)
    """By :func:`name_key`."""
    new: list[str] = field(default_factory=list)
    """Names that became new players."""


class Players:
    """Finding, making and reading players."""

    def __init__(self, context: Context) -> None:
        self.context = context

    # -- names to players ------------------------------------------------------------

    def seat_names(
        self,
        session: Session,
        actor: User,
        group: Group | None,
        names: Iterable[str],
        new_names: Collection[str] = (),
        *,
        known: Mapping[str, int] | None = None,
        make: bool = True,
        clubs: Mapping[str, Group] | None = None,
        speaks_for: Collection[int] = (),
        accounts_consent: bool = False,
    ) -> BatchPlayers:
        """The players of ``names`` (rules 1 to 4 of this module); raises
        :class:`UnknownPlayers` for a name that may be a known player and is neither
        in ``new_names`` nor chosen in ``known`` (name to player id). With ``make``
        false nothing is added (a check).

        ``clubs`` (by :func:`name_key`) names another club a player plays for (an
        event's "Name; Club"): the player is found among that club's players, without
        a question, or made there, the club's until its representative agrees unless
        the one entering speaks for it (``speaks_for``: the groups whose word they
        give, :mod:`pips.results.authority`).
        ``accounts_consent``: each account named consents for itself before its seat
        counts (an online event's players accept their seats), so rule 3 links an
        account of the name whatever its group."""
        allowed = {name_key(n) for n in new_names}
        chosen = {name_key(n): int(i) for n, i in (known or {}).items()}
        wanted: dict[str, str] = {}
        for name in names:
            wanted.setdefault(name_key(name), name)
        seating = BatchPlayers()
        circles: dict[int | None, tuple[Sequence[Player], dict[str, Player]]] = {}

        def circle_of(home: Group | None) -> tuple[Sequence[Player], dict[str, Player]]:
            where = None if home is None else home.id
            if where not in circles:
                circle = self._circle(session, actor, home)
                by_key: dict[str, Player] = {}
                for player in circle:
                    by_key.setdefault(player.name_key, player)
                circles[where] = (circle, by_key)
            return circles[where]

        now = self.context.clock()
        accounts = {
            u.name_key: u
            for u in session.scalars(select(User).where(User.name_key.in_(list(wanted))))
        }
        asked: dict[str, list[Player]] = {}
        for key, name in wanted.items():
            home = (clubs or {}).get(key, group)
            circle, by_key = circle_of(home)
            if key == actor.name_key:
                seating.players[key] = self.own_player(session, actor, home, make=make)
            elif key in by_key:
                seating.players[key] = by_key[key]
            elif key in accounts and (
                home is None or accounts_consent or accounts[key].id in member_ids(home)
            ):
                seating.players[key] = self.own_player(session, accounts[key], home, make=make)
            else:
                similar = self._maybe(session, circle, name, key)
                if key in chosen:
                    picked = next((p for p in similar if p.id == chosen[key]), None)
                    if picked is None:
                        raise ResultsError(
                            phrase(
                                "player {number} is not a player named like {name!r}",
                                number=chosen[key],
                                name=name,
                            )
                        )
                    seating.players[key] = picked
                    continue
                if similar and key not in allowed and key not in accounts:
                    asked[name] = similar
                    continue
                # Made by the group's own side (entering for it, its event) or by one
                # who speaks for it, the group answered for the player; else it waits
                # for the representative's word (an organiser naming another's club).
                ours = group is not None and home is not None and home.id == group.id
                agreed = home is not None and (ours or home.id in speaks_for)
                player = Player(
                    name=name,
                    name_key=key,
                    group_id=None if home is None else home.id,
                    group_agreed_at=now if agreed else None,
                )
                if make:
                    session.add(player)
                seating.players[key] = player
                seating.new.append(name)
        if asked:
            groups = {
                g.id: g
                for g in session.scalars(
                    select(Group).where(
                        Group.id.in_({p.group_id for ps in asked.values() for p in ps})
                    )
                )
            }
            raise UnknownPlayers(
                {
                    name: [candidate_label(p, groups.get(p.group_id or 0)) for p in ps]
                    for name, ps in asked.items()
                },
                candidates={
                    name: [candidate_json(session, p, groups.get(p.group_id or 0)) for p in ps]
                    for name, ps in asked.items()
                },
            )
        if make:
            session.flush()
        return seating

    @staticmethod
    def _maybe(session: Session, circle: Sequence[Player], name: str, key: str) -> list[Player]:
        """The known players a new name may mean: players of the circle with a close
        name, and players anywhere of exactly this name (the same person entered at
        an evening and at home must stay one player)."""
        similar = [p for p in circle if close(p.name, name)]
        seen = {p.id for p in similar}
        elsewhere = session.scalars(
            select(Player)
            .where(Player.name_key == key, Player.merged_into.is_(None))
            .order_by(Player.id)
            .limit(10)
        ).all()
        return similar + [p for p in elsewhere if p.id not in seen]

    def own_player(
        self, session: Session, user: User, group: Group | None, *, make: bool = True
    ) -> Player:
        """The player an account is (the oldest, if claims gave it more than one). A
        new one belongs to ``group`` only if the account is its member: nobody becomes
        a group's player by being named on its result."""
        player = session.scalars(
            select(Player)
            .where(Player.user_id == user.id, Player.merged_into.is_(None))
            .order_by(Player.id)
        ).first()
        if player is None:
            member = group is not None and user.id in member_ids(group)
            player = Player(
                name=user.name,
                name_key=user.name_key,
                user_id=user.id,
                group_id=group.id if group is not None and member else None,
                group_agreed_at=self.context.clock() if group is not None and member else None,
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
            clubs = select(GroupMember.group_id).where(
                GroupMember.user_id == actor.id, GroupMember.status == MEMBER
            )
            query = select(Player).where(or_(Player.id.in_(met), Player.group_id.in_(clubs)))
        return session.scalars(
            query.where(Player.merged_into.is_(None)).order_by(Player.id).limit(5000)
        ).all()

    # -- reading -----------------------------------------------------------------------

    def player(self, player_id: int) -> dict[str, Any]:
        with self.context.db.session() as session:
            player = find_player(session, player_id, follow=True)
            return player_json(session, player)

    def of_group(self, slug: str) -> list[dict[str, Any]]:
        """A group's players, with their accounts and waiting claims."""
        with self.context.db.session() as session:
            group = group_named(session, slug)
            rows = sorted(
                session.scalars(
                    select(Player).where(Player.group_id == group.id, Player.merged_into.is_(None))
                ),
                key=lambda p: sort_key(p.name),
            )
            return [player_json(session, p, count=False) for p in rows]

    def named(self, name: str) -> list[dict[str, Any]]:
        """Players of this name (there may be several people of one name)."""
        with self.context.db.session() as session:
            rows = session.scalars(
                select(Player)
                .where(Player.name_key == name_key(name), Player.merged_into.is_(None))
                .order_by(Player.id)
            ).all()
            return [player_json(session, p, count=False) for p in rows]


def candidate_json(session: Session, player: Player, group: Group | None) -> dict[str, Any]:
    """A known player as a question offers them: enough to tell two people of one
    name apart (their group, whether they have an account, their last game)."""
    last = session.scalar(
        select(func.max(Result.played_on))
        .join(ResultPlayer, ResultPlayer.result_id == Result.id)
        .where(ResultPlayer.player_id == player.id)
    )
    return {
        "id": player.id,
        "name": player.name,
        "group": None if group is None else group.name,
        "account": player.user_id is not None,
        "last_game": None if last is None else last.isoformat(),
    }


def player_json(session: Session, player: Player, count: bool = True) -> dict[str, Any]:
    """A player as pages and the API show it: its group, account and waiting claims."""
    waiting = session.execute(
        select(User.name)
        .join(PlayerClaim, PlayerClaim.user_id == User.id)
        .where(PlayerClaim.player_id == player.id, PlayerClaim.decided_at.is_(None))
        .order_by(PlayerClaim.id)
    ).scalars()
    account = session.get(User, player.user_id) if player.user_id else None
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
    claims = list(waiting)
    return {
        "id": player.id,
        "name": player.name,
        "group": None
        if group is None
        else {
            "name": group.name,
            "slug": group.slug,
            "agreed": player.group_agreed_at is not None,
        },
        "account": None if account is None else account.name,
        "claimed_by": claims[0] if claims else None,
        "claims": claims,
        "results": games,
    }


def find_player(session: Session, player_id: int, *, follow: bool = False) -> Player:
    """Player ``player_id`` (with ``follow``, the player it was merged into), or
    :class:`NotFound` / :class:`Conflict` for a merged one."""
    player = session.get(Player, player_id)
    if player is None:
        raise NotFound(phrase("no player {player_id}", player_id=player_id))
    while follow and player.merged_into is not None:
        player = session.get(Player, player.merged_into) or player
        if player.merged_into == player.id:
            break
    if not follow and player.merged_into is not None:
        raise Conflict(
            phrase(
                "player {player_id} was merged into player {into}",
                player_id=player_id,
                into=player.merged_into,
            )
        )
    return player
