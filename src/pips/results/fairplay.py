"""Fair play for rated server games: which games between accounts are rated, and how
much a game weighs when the same accounts meet again and again.

Two free accounts of one person can play each other at the server's tables as often as
they like; every such game is confirmed by the server, which saw every move, but what
it proves is only that two accounts played. So (docs/results.md, "Rated server games"):

- **Probation.** A game is rated only when every seat is an account past its
  probation: at least :data:`PROBATION_DAYS` days old, with at least
  :data:`PROBATION_GAMES` finished games at the server's tables against at least
  :data:`PROBATION_OPPONENTS` other accounts. This follows chess.com, whose
  leaderboards take accounts at least 7 days old, and lichess, which keeps a
  provisional player (too few rated games) off its leaderboards.
- **Rematches weigh less.** Each further rated meeting of the same two accounts within
  :data:`REMATCH_WINDOW` halves the game's weight in the world list (the first meeting
  weighs 1, the second 1/2, the fifth 1/16), as the ladder of the online game
  theFarWilds halved the points of every rematch with the same player in one week. At
  a table of more, the pair that met most decides. A farm of fifty games between two
  accounts in an evening weighs less than two games.
- **Anomaly checks** apply to server games too (:mod:`pips.results.holds`).

:func:`meeting_weights` is pure; :class:`Fairplay` reads the accounts' history.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import combinations

from sqlalchemy import func, select
from sqlalchemy.orm import Session, aliased

from pips.core.phrase import Phrase, phrase
from pips.results.common import Context
from pips.store.models import GameTable, Seat, User

PROBATION_DAYS = 7
PROBATION_GAMES = 10
PROBATION_OPPONENTS = 5
REMATCH_WINDOW = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class Meeting:
    """A rated server game as the weights see it: when it ended and its accounts."""

    key: int
    at: datetime
    accounts: tuple[int, ...]


def meeting_weights(games: Iterable[Meeting]) -> dict[int, float]:
    """Each game's weight: ``0.5 ** n``, where ``n`` is how often the pair of its
    accounts that met most had met in rated games within :data:`REMATCH_WINDOW`
    before it.

    >>> at = datetime(2026, 11, 2, 20)
    >>> games = [Meeting(i, at + timedelta(minutes=i), (1, 2)) for i in range(4)]
    >>> meeting_weights(games)
    {0: 1.0, 1: 0.5, 2: 0.25, 3: 0.125}
    >>> meeting_weights([Meeting(0, at, (1, 2)), Meeting(1, at + timedelta(days=8), (1, 2))])
    {0: 1.0, 1: 1.0}
    """
    met: dict[tuple[int, int], deque[datetime]] = defaultdict(deque)
    weights: dict[int, float] = {}
    for game in sorted(games, key=lambda g: (g.at, g.key)):
        most = 0
        pairs = list(combinations(sorted(set(game.accounts)), 2))
        for pair in pairs:
            seen = met[pair]
            while seen and game.at - seen[0] > REMATCH_WINDOW:
                seen.popleft()
            most = max(most, len(seen))
        for pair in pairs:
            met[pair].append(game.at)
        weights[game.key] = 0.5**most
    return weights


class Fairplay:
    """Whether a finished server game is rated (every account past its probation)."""

    def __init__(self, context: Context) -> None:
        self.context = context

    def unrated_because(self, session: Session, users: Sequence[int | None]) -> Phrase | None:
        """Why a game with these seats' accounts is not rated (``None``: it is)."""
        if any(user is None for user in users):
            return phrase("not rated: a bot or a guest played")
        accounts = [u for u in users if u is not None]
        if len(set(accounts)) != len(accounts):
            return phrase("not rated: one account held two seats")
        now = self.context.clock()
        for user_id in accounts:
            user = session.get(User, user_id)
            if user is None:
                return phrase("not rated: a bot or a guest played")
            days = (now - user.created_at).days
            games, opponents = self.games_and_opponents(session, user_id)
            if days < PROBATION_DAYS or games < PROBATION_GAMES or opponents < PROBATION_OPPONENTS:
                return phrase(
                    "not rated: {name} is in probation ({days} days, {games} games against "
                    "{opponents} opponents; rated from {need_days} days and {need_games} "
                    "games against {need_opponents} opponents)",
                    name=user.name,
                    days=days,
                    games=games,
                    opponents=opponents,
                    need_days=PROBATION_DAYS,
                    need_games=PROBATION_GAMES,
                    need_opponents=PROBATION_OPPONENTS,
                )
        return None

    @staticmethod
    def games_and_opponents(session: Session, user_id: int) -> tuple[int, int]:
        """An account's finished games at the server's tables, and how many other
        accounts it met there (before the game being judged, which is not finished in
        the database yet)."""
        mine = aliased(Seat)
        theirs = aliased(Seat)
        finished = select(GameTable.id).where(GameTable.status == "finished")
        games = (
            session.scalar(
                select(func.count(func.distinct(mine.table_id))).where(
                    mine.user_id == user_id, mine.kind == "person", mine.table_id.in_(finished)
                )
            )
            or 0
        )
        opponents = (
            session.scalar(
                select(func.count(func.distinct(theirs.user_id)))
                .select_from(mine)
                .join(theirs, theirs.table_id == mine.table_id)
                .where(
                    mine.user_id == user_id,
                    mine.kind == "person",
                    mine.table_id.in_(finished),
                    theirs.kind == "person",
                    theirs.user_id.is_not(None),
                    theirs.user_id != user_id,
                )
            )
            or 0
        )
        return games, opponents
