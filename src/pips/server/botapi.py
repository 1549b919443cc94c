"""The Bot API's services (docs/bots-api.md): bot accounts, every account's stream of
events, challenges between accounts, and the bots' own rating pool.

- **Bot accounts** are declared once, before the account's first game
  (:meth:`BotAccounts.upgrade`); a bot is shown as one, never on the world list (its
  games are entered unrated for people, :func:`unrated_for_bots`, and
  :func:`pips.results.list_inputs.rated_games` leaves out any result with a bot account
  in it), and rated among bots only (:func:`bot_pool`).
- **Events** (:class:`AccountEvents`): what happens to an account — a challenge made to
  it or by it, declined or canceled, a game of its starting or ending — is told to every
  event stream the account has open, in every server process (several processes: on the
  broker's channel every node hears, :mod:`pips.server.cluster`).
- **Challenges** (:class:`Challenges`) are rows in the database, so any process may
  accept, decline or cancel one; the process that accepts makes the table.

Nothing here decides a game: the table is made by :class:`~pips.server.tables.Tables`,
its moves go to its actor as the websocket's do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from pips.core.names import name_key
from pips.core.phrase import Phrase, phrase
from pips.results.common import BOT_PLAYED
from pips.results.rating import PlayerRating, RatedGame, compute
from pips.server.accounts.identity import Identity
from pips.server.round import ForAnyone, SeatChoice, SeatHolder, TableError
from pips.store.db import Database
from pips.store.models import (
    Challenge,
    GameTable,
    Player,
    PlayerClaim,
    ResultPlayer,
    Seat,
    User,
    now,
)

if TYPE_CHECKING:
    from pips.server.cluster import Cluster
    from pips.server.table import LiveTable

log = logging.getLogger("pips.server")

CHALLENGE_MINUTES = 60
"""Minutes a challenge waits for its answer; older ones are gone."""
MOST_CHALLENGES = 20
"""Challenges an account may have waiting at once."""
MOST_RECEIVED = 30
"""Challenges waiting for one account's answer at once, from everyone together: a
flood of challenges (from many free accounts) is refused before it buries the ones the
account wants to see."""
STREAMS_PER_ACCOUNT = 4
"""Event streams one account may hold open in one server process."""
GAME_STREAMS_PER_ACCOUNT = 16
"""Game streams one account may hold open in one server process (a bot playing many
games at once opens one per game)."""
WAITING_SEEKS = 3
"""Waiting tables a bot may sit at, seeking more (a seek flood takes no more seats from
people's tables than this)."""


class BotApiError(TableError):
    """A request of the Bot API refused: ``status`` is its HTTP status."""

    def __init__(self, message: object, status: int = 409, field: str | None = None) -> None:
        super().__init__(message, field=field)
        self.status = status


# -- bot accounts ----------------------------------------------------------------------


def bot_accounts(session: Session, users: Sequence[int | None]) -> set[int]:
    """Which of ``users`` are bot accounts."""
    accounts = [u for u in users if u is not None]
    if not accounts:
        return set()
    return set(session.scalars(select(User.id).where(User.id.in_(accounts), User.bot)))


def unrated_for_bots(session: Session, users: Sequence[int | None]) -> Phrase | None:
    """Why a game at the server's tables is not rated for people: a bot account played
    (a bot past its probation would otherwise be rated as a person on the world list)."""
    if bot_accounts(session, users):
        return BOT_PLAYED
    return None


def has_played(session: Session, user_id: int) -> bool:
    """Whether ``user_id`` is at anything a person's rating is made of: a seat at the
    server's tables, a line of any result, a player, or a claim waiting."""
    asks = (
        select(Seat.user_id).where(Seat.user_id == user_id),
        select(ResultPlayer.user_id).where(ResultPlayer.user_id == user_id),
        select(Player.user_id).where(Player.user_id == user_id),
        select(PlayerClaim.user_id).where(
            PlayerClaim.user_id == user_id, PlayerClaim.decided_at.is_(None)
        ),
    )
    return any(session.scalar(ask.limit(1)) is not None for ask in asks)


class BotAccounts:
    """Declaring a bot account, and asking whether accounts are bots."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def upgrade(self, user_id: int) -> bool:
        """Make ``user_id`` a bot account; refused once it has sat at any table, is at
        any result (entered by hand too: paper, CSV, JSON, events), is any player's or
        claims one (a person's games and ratings are not handed to a program, and a
        bot's result is left off the world list for every player at it, so a player
        turning bot would take real games from the others' ratings). Whether it was
        one already."""
        with self.db.session() as session, session.begin():
            user = session.get(User, user_id)
            if user is None:
                raise BotApiError(phrase("no such account"), 404)
            if user.bot:
                return True
            if has_played(session, user_id):
                raise BotApiError(
                    phrase(
                        "an account becomes a bot before its first game: this one has "
                        "played, is at a result, or has or claims a player already "
                        "(make a new account for the bot)"
                    )
                )
            user.bot = True
            return False

    def is_bot(self, user_id: int | None) -> bool:
        if user_id is None:
            return False
        with self.db.session() as session:
            return bool(session.scalar(select(User.bot).where(User.id == user_id)))


# -- events ----------------------------------------------------------------------------


class AccountEvents:
    """Every account's open event streams in this process, and telling them, here and
    (several processes) at every other node."""

    OP = "account-event"

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.streams: dict[int, set[asyncio.Queue[dict[str, Any]]]] = {}
        self.game_streams: dict[int, int] = {}
        """Game streams open here, by account."""
        self.tasks: set[asyncio.Task[None]] = set()
        cluster.handlers[self.OP] = self._heard
        cluster.tables.announced.append(self.announce)

    def open(self, user_id: int) -> asyncio.Queue[dict[str, Any]]:
        """A new stream of ``user_id``'s events; :class:`BotApiError` (429) when the
        account has too many open here."""
        mine = self.streams.setdefault(user_id, set())
        if len(mine) >= STREAMS_PER_ACCOUNT:
            raise BotApiError(
                phrase("an account holds at most {count} event streams", count=STREAMS_PER_ACCOUNT),
                429,
            )
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=1000)
        mine.add(queue)
        return queue

    def open_game(self, user_id: int) -> None:
        """Count a new game stream of ``user_id``'s; :class:`BotApiError` (429) when the
        account has too many open here."""
        held = self.game_streams.get(user_id, 0)
        if held >= GAME_STREAMS_PER_ACCOUNT:
            raise BotApiError(
                phrase(
                    "an account holds at most {count} game streams",
                    count=GAME_STREAMS_PER_ACCOUNT,
                ),
                429,
            )
        self.game_streams[user_id] = held + 1

    def close_game(self, user_id: int) -> None:
        held = self.game_streams.get(user_id, 0) - 1
        if held > 0:
            self.game_streams[user_id] = held
        else:
            self.game_streams.pop(user_id, None)

    def close(self, user_id: int, queue: asyncio.Queue[dict[str, Any]]) -> None:
        mine = self.streams.get(user_id, set())
        mine.discard(queue)
        if not mine:
            self.streams.pop(user_id, None)

    async def tell(self, users: Sequence[int], event: dict[str, Any]) -> None:
        """Tell ``event`` to every stream of ``users``, at every process."""
        if self.cluster.several and self.cluster.redis is not None:
            # Every node listens on the channel "all": each hands it to its own streams.
            await self.cluster.send_to_node(
                "all", {"op": self.OP, "users": list(users), "event": event}
            )
        else:
            self._deliver(users, event)

    async def _heard(self, message: dict[str, Any]) -> None:
        self._deliver([int(u) for u in message["users"]], message["event"])

    def _deliver(self, users: Sequence[int], event: dict[str, Any]) -> None:
        for user_id in set(users):
            for queue in self.streams.get(user_id, ()):
                with contextlib.suppress(asyncio.QueueFull):  # a stream not read is dropped
                    queue.put_nowait(event)

    def announce(self, table: LiveTable, what: str) -> None:
        """A table's game started or ended: its accounts are told (from the table's
        actor; the telling runs apart so the table never waits on it)."""
        users = [
            e.user_id
            for e in table.round.entrants
            if e.user_id is not None and e.kind in ("person", "bot")
        ]
        if not users:
            return
        event = {"type": what, "game": game_of(table)}
        task = asyncio.get_running_loop().create_task(self._told(users, event))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _told(self, users: Sequence[int], event: dict[str, Any]) -> None:
        try:
            await self.tell(users, event)
        except Exception:  # the broker is away: the streams find the game when they reconnect
            log.exception("an account event could not be told")


def game_of(table: LiveTable) -> dict[str, Any]:
    """A table as an event names it."""
    return {
        "id": table.id,
        "game": table.round.spec.name,
        "status": table.status,
        "url": f"/t/{table.id}",
    }


# -- challenges -------------------------------------------------------------------------


@dataclass(frozen=True)
class Asked:
    """A challenge as its rows have it: both accounts, and whether each is a bot."""

    row: dict[str, Any]
    challenger: Identity
    challenged: Identity
    challenger_bot: bool
    challenged_bot: bool

    def to_json(self) -> dict[str, Any]:
        row = self.row
        return {
            "id": row["id"],
            "status": row["status"],
            "challenger": {"name": self.challenger.name, "bot": self.challenger_bot},
            "challenged": {"name": self.challenged.name, "bot": self.challenged_bot},
            "game": row["game"],
            "options": row["options"],
            "seats": row["seats"],
            "turn_seconds": row["turn_seconds"],
            "table": row["table_id"],
            "url": None if row["table_id"] is None else f"/t/{row['table_id']}",
        }


Decision = Literal["accept", "decline", "cancel"]


class Challenges:
    """Challenges over one database (every method reads or writes it: call them off the
    event loop)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def create(
        self,
        challenger: Identity,
        name: str,
        game: str,
        options: dict[str, Any],
        seats: list[dict[str, Any]],
        turn_seconds: int | None,
    ) -> Asked:
        """``challenger`` asks the account ``name`` to play."""
        assert challenger.user_id is not None
        with self.db.session() as session, session.begin():
            them = session.scalars(select(User).where(User.name_key == name_key(name))).first()
            if them is None:
                raise BotApiError(phrase("no such player"), 404)
            if them.id == challenger.user_id:
                raise BotApiError(phrase("you cannot challenge yourself"), 422)

            def waiting(*which: Any) -> int:
                return int(
                    session.scalar(
                        select(func.count())
                        .select_from(Challenge)
                        .where(
                            *which,
                            Challenge.status == "created",
                            Challenge.created_at > self._since(),
                        )
                    )
                    or 0
                )

            mine = Challenge.challenger_id == challenger.user_id
            if waiting(mine, Challenge.challenged_id == them.id):
                # One question at a time to one account: asking again is spam.
                raise BotApiError(
                    phrase(
                        "you have challenged {name} already: wait for the answer, or cancel"
                        " that challenge first",
                        name=them.name,
                    )
                )
            if waiting(mine) >= MOST_CHALLENGES:
                raise BotApiError(
                    phrase(
                        "you have {count} challenges waiting: cancel one first",
                        count=MOST_CHALLENGES,
                    ),
                    429,
                )
            if waiting(Challenge.challenged_id == them.id) >= MOST_RECEIVED:
                raise BotApiError(
                    phrase(
                        "{name} has {count} challenges waiting for an answer: try again later",
                        name=them.name,
                        count=MOST_RECEIVED,
                    ),
                    429,
                )
            row = Challenge(
                id=secrets.token_urlsafe(9),
                challenger_id=challenger.user_id,
                challenged_id=them.id,
                game=game,
                options=options,
                seats=seats,
                turn_seconds=turn_seconds,
                status="created",
                created_at=now(),
            )
            session.add(row)
            session.flush()
            return self._asked(session, row)

    @staticmethod
    def _since() -> Any:
        return now() - timedelta(minutes=CHALLENGE_MINUTES)

    def _asked(self, session: Session, row: Challenge) -> Asked:
        users = {
            u.id: u
            for u in session.scalars(
                select(User).where(User.id.in_((row.challenger_id, row.challenged_id)))
            )
        }
        one, other = users[row.challenger_id], users[row.challenged_id]
        data = {
            "id": row.id,
            "status": row.status,
            "game": row.game,
            "options": dict(row.options),
            "seats": list(row.seats),
            "turn_seconds": row.turn_seconds,
            "table_id": row.table_id,
        }
        return Asked(
            data,
            Identity(user_id=one.id, name=one.name),
            Identity(user_id=other.id, name=other.name),
            one.bot,
            other.bot,
        )

    def waiting(self, user_id: int) -> list[Asked]:
        """The challenges made to ``user_id`` or by it that wait for an answer, oldest
        first."""
        with self.db.session() as session:
            rows = session.scalars(
                select(Challenge)
                .where(
                    (Challenge.challenger_id == user_id) | (Challenge.challenged_id == user_id),
                    Challenge.status == "created",
                    Challenge.created_at > self._since(),
                )
                .order_by(Challenge.created_at)
                .limit(MOST_CHALLENGES + MOST_RECEIVED)
            )
            return [self._asked(session, row) for row in rows]

    def asked_of(self, challenge_id: str, user_id: int) -> Asked:
        """The challenge ``challenge_id`` made to ``user_id`` that waits for its answer;
        :class:`BotApiError` (404) if there is none (another's challenge is not told
        apart from none)."""
        with self.db.session() as session:
            row = session.scalars(
                select(Challenge).where(
                    Challenge.id == challenge_id[:16],
                    Challenge.challenged_id == user_id,
                    Challenge.status == "created",
                    Challenge.created_at > self._since(),
                )
            ).first()
            if row is None:
                raise BotApiError(phrase("no such challenge"), 404)
            return self._asked(session, row)

    def decide(self, challenge_id: str, user_id: int, decision: Decision) -> Asked:
        """Accept or decline (the one challenged) or cancel (the challenger) a challenge
        still waiting: decided once, whichever process is asked (the row changes only
        from ``created``)."""
        mine = (
            Challenge.challenger_id == user_id
            if decision == "cancel"
            else Challenge.challenged_id == user_id
        )
        status = {"accept": "accepted", "decline": "declined", "cancel": "canceled"}[decision]
        with self.db.session() as session, session.begin():
            row = session.scalars(
                select(Challenge).where(Challenge.id == challenge_id[:16], mine)
            ).first()
            if row is None:
                raise BotApiError(phrase("no such challenge"), 404)
            changed = session.execute(
                update(Challenge)
                .where(
                    Challenge.id == row.id,
                    Challenge.status == "created",
                    Challenge.created_at > self._since(),
                )
                .values(status=status)
            )
            if changed.rowcount != 1:  # type: ignore[attr-defined]
                raise BotApiError(phrase("the challenge was answered or withdrawn already"))
            session.refresh(row)
            return self._asked(session, row)

    def made_table(self, challenge_id: str, table_id: str) -> None:
        with self.db.session() as session, session.begin():
            session.execute(
                update(Challenge).where(Challenge.id == challenge_id).values(table_id=table_id)
            )


def challenge_seats(asked: Asked) -> list[SeatChoice | SeatHolder]:
    """The seats of the table an accepted challenge makes: the challenger, the one
    challenged, then the other seats as the challenge named them (open or a bot; a
    stored bot's name checked again as a client's would be)."""
    from pips.server.requests import BotSeat

    one, other = asked.challenger, asked.challenged
    seats: list[SeatChoice | SeatHolder] = [
        SeatHolder("person", one.name, one.user_id),
        SeatHolder("person", other.name, other.user_id),
    ]
    for seat in asked.row["seats"]:
        if seat.get("kind") == "bot":
            seats.append(BotSeat(kind="bot", bot=seat.get("bot") or "greedy").choice())
        else:
            seats.append(ForAnyone())
    return seats


# -- seeking ----------------------------------------------------------------------------


def open_tables(db: Database, game: str, options: dict[str, Any], me: Identity) -> list[str]:
    """Public tables of ``game`` with these options that wait with a seat open to
    anyone, oldest first (where ``me`` has no seat yet)."""
    with db.session() as session:
        rows = session.execute(
            select(GameTable.id, GameTable.options)
            .where(
                GameTable.status == "waiting",
                GameTable.private.is_(False),
                GameTable.game == game,
                GameTable.id.in_(
                    select(Seat.table_id).where(
                        Seat.kind == "open", Seat.user_id.is_(None), Seat.guest.is_(None)
                    )
                ),
                GameTable.id.not_in(select(Seat.table_id).where(Seat.user_id == me.user_id)),
            )
            .order_by(GameTable.created_at)
            .limit(50)
        ).all()
    return [table_id for table_id, stored in rows if dict(stored) == options]


def waiting_at(db: Database, user_id: int) -> int:
    """How many tables that wait for players ``user_id`` has a seat at."""
    with db.session() as session:
        return int(
            session.scalar(
                select(func.count()).where(
                    GameTable.status == "waiting",
                    GameTable.id.in_(select(Seat.table_id).where(Seat.user_id == user_id)),
                )
            )
            or 0
        )


def ongoing(db: Database, user_id: int) -> list[dict[str, Any]]:
    """The tables ``user_id`` has a place at that wait or are played, as events name
    them (what an event stream begins with)."""
    with db.session() as session:
        rows = session.execute(
            select(GameTable.id, GameTable.game, GameTable.status)
            .where(
                GameTable.status.in_(("waiting", "playing")),
                GameTable.id.in_(select(Seat.table_id).where(Seat.user_id == user_id)),
            )
            .order_by(GameTable.created_at)
            .limit(100)
        ).all()
    return [
        {"id": table_id, "game": game, "status": status, "url": f"/t/{table_id}"}
        for table_id, game, status in rows
    ]


# -- the bots' pool ---------------------------------------------------------------------


def bot_games(db: Database, game: str, limit: int = 20_000) -> list[RatedGame]:
    """The finished games of ``game`` at the server's tables whose every seat was a bot
    account's, as the rating takes them (the newest ``limit``)."""
    with db.session() as session:
        bots = dict(session.execute(select(User.id, User.name).where(User.bot)).all())
        if not bots:
            return []
        rows = session.execute(
            select(GameTable.id, GameTable.finished_at, GameTable.record)
            .where(GameTable.status == "finished", GameTable.game == game)
            .where(
                GameTable.id.not_in(
                    select(Seat.table_id).where(
                        Seat.user_id.is_(None) | Seat.user_id.not_in(list(bots))
                    )
                )
            )
            .order_by(GameTable.finished_at.desc())
            .limit(limit)
        ).all()
    games: list[RatedGame] = []
    for order, (_table_id, finished_at, written) in enumerate(reversed(rows)):
        if not written or not written.get("result") or finished_at is None:
            continue
        names = list(written.get("seats", []))
        ranks = list(written["result"].get("ranks", []))
        if len(names) != len(ranks) or len(set(names)) != len(names):
            continue
        games.append(RatedGame(finished_at.date(), order, tuple((n,) for n in names), tuple(ranks)))
    return games


def bot_pool(db: Database, game: str) -> list[PlayerRating]:
    """The bots' rating of ``game``: openskill's Plackett-Luce over their games with
    one another (:func:`pips.results.rating.compute`, recent games weighing more as on
    the world list), best first."""
    games = bot_games(db, game)
    if not games:
        return []
    return compute(games, max(g.played_on for g in games), None)
