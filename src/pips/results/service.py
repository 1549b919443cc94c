"""Results, groups and world lists in the database: what the web pages, the JSON API
and ``pips ranking`` do, with their permission rules.

Who may do what:

- enter a result: an account that played in the game; for a group, a member who played
  in it, or the group's representative for any of the group's games;
- confirm or dispute: an account that played in the game;
- resolve a dispute: whoever disputed it, or the group's representative;
- withdraw: whoever entered it, or the group's representative;
- nobody changes a published list: a month is computed once (:meth:`compute_month`).

A batch of results (a CSV upload) is saved whole or not at all.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from pips.results.entry import GAMES, Checked, Entry, Line, check, entry_from_record, write_csv
from pips.results.rating import RatedGame, RatingSettings, compute
from pips.store.db import Database
from pips.store.models import (
    Group,
    GroupMember,
    Result,
    ResultPlayer,
    ResultReview,
    User,
    WorldList,
    WorldListRow,
)

log = logging.getLogger("pips.results")

COUNTED = ("entered", "confirmed")
"""Statuses whose results count for the world list."""

SLUG = re.compile(r"[^a-z0-9]+")


class ResultsError(Exception):
    """A refused request; ``status`` is the HTTP status the API answers with."""

    status = 422


class NotAllowed(ResultsError):
    status = 403


class NotFound(ResultsError):
    status = 404


class Conflict(ResultsError):
    status = 409


def settings_from_env() -> RatingSettings:
    """The rating settings of this installation: ``PIPS_RATING_HALF_LIFE`` days."""
    text = os.environ.get("PIPS_RATING_HALF_LIFE", "").strip()
    if not text:
        return RatingSettings()
    try:
        days = float(text)
    except ValueError:
        raise ValueError(f"PIPS_RATING_HALF_LIFE={text!r} is not a number of days") from None
    return RatingSettings(days)


def utc_now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def month_bounds(month: str) -> tuple[date, date]:
    """The first day of ``YYYY-MM`` and the first day of the month after."""
    match = re.fullmatch(r"(\d{4})-(\d{2})", month.strip())
    if not match or not 1 <= int(match[2]) <= 12:
        raise ResultsError(f"{month!r} is not a month (YYYY-MM)")
    first = date(int(match[1]), int(match[2]), 1)
    after = date(first.year + first.month // 12, first.month % 12 + 1, 1)
    return first, after


def month_of(day: date | datetime) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def slugify(name: str) -> str:
    return SLUG.sub("-", name.casefold()).strip("-")[:60]


@dataclass(frozen=True)
class Filter:
    """Which results a page or the API lists."""

    group: str | None = None
    game: str | None = None
    month: str | None = None
    player: str | None = None
    status: str | None = None
    limit: int = 50
    offset: int = 0


class Results:
    """The results service over a database; ``clock`` gives the time (UTC) so tests
    can place themselves in any month."""

    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], datetime] = utc_now,
        settings: RatingSettings | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.settings = settings or RatingSettings()

    # -- groups ----------------------------------------------------------------------

    def create_group(self, actor: int, name: str) -> dict[str, Any]:
        name = " ".join(name.split())
        slug = slugify(name)
        if not 2 <= len(name) <= 60 or not slug:
            raise ResultsError("a group's name is 2 to 60 characters, with letters or digits")
        try:
            with self.db.session() as session, session.begin():
                group = Group(name=name, slug=slug, representative_id=actor)
                group.members.append(GroupMember(user_id=actor))
                session.add(group)
        except IntegrityError:
            raise Conflict(f"there is already a group called {name!r}") from None
        return self.group(slug)

    def group(self, slug: str) -> dict[str, Any]:
        with self.db.session() as session:
            group = self._group(session, slug)
            members = sorted(m.user.name for m in group.members)
            return {
                "name": group.name,
                "slug": group.slug,
                "representative": group.representative.name,
                "members": members,
                "created_at": group.created_at.isoformat(),
            }

    def groups(self, member: int | None = None) -> list[dict[str, Any]]:
        with self.db.session() as session:
            query = select(Group).order_by(Group.name)
            if member is not None:
                query = query.join(GroupMember).where(GroupMember.user_id == member)
            return [
                {"name": g.name, "slug": g.slug, "members": len(g.members)}
                for g in session.scalars(query.options(selectinload(Group.members)))
            ]

    def change_member(self, actor: int, slug: str, name: str, *, add: bool) -> dict[str, Any]:
        """Add or remove a member (the representative only; the representative stays)."""
        with self.db.session() as session, session.begin():
            group = self._group(session, slug)
            if group.representative_id != actor:
                raise NotAllowed(f"only the representative of {group.name} changes its members")
            user = self._user(session, name)
            current = {m.user_id: m for m in group.members}
            if add and user.id not in current:
                group.members.append(GroupMember(user_id=user.id))
            elif not add:
                if user.id == group.representative_id:
                    raise ResultsError("hand the representative's role to another member first")
                if user.id in current:
                    group.members.remove(current[user.id])
        return self.group(slug)

    def set_representative(self, actor: int, slug: str, name: str) -> dict[str, Any]:
        with self.db.session() as session, session.begin():
            group = self._group(session, slug)
            if group.representative_id != actor:
                raise NotAllowed(f"only the representative of {group.name} hands the role on")
            user = self._user(session, name)
            if user.id not in {m.user_id for m in group.members}:
                raise ResultsError(f"{user.name} is not a member of {group.name}")
            group.representative_id = user.id
        return self.group(slug)

    def _group(self, session: Session, slug: str) -> Group:
        group = session.scalars(select(Group).where(Group.slug == slug)).first()
        if group is None:
            raise NotFound(f"no group {slug!r}")
        return group

    def _user(self, session: Session, name: str) -> User:
        user = session.scalars(select(User).where(User.name == name.strip())).first()
        if user is None:
            raise NotFound(f"no account named {name.strip()!r}")
        return user

    # -- entering ----------------------------------------------------------------------

    def today(self) -> date:
        return self.clock().date()

    def check(self, entry: Entry) -> Checked:
        return check(entry, self.today())

    def enter(
        self,
        actor: int,
        results: Sequence[Checked],
        *,
        source: str,
        group: str | None = None,
    ) -> list[int]:
        """Save checked results, all or none; the ids, in order."""
        if not results:
            raise ResultsError("no results to enter")
        moment = self.clock()
        with self.db.session() as session, session.begin():
            user = session.get(User, actor)
            if user is None:
                raise NotAllowed("sign in with an account to enter results")
            group_row = None if not group else self._group(session, group)
            if group_row is not None:
                members = {m.user_id for m in group_row.members}
                if actor not in members:
                    raise NotAllowed(f"only members of {group_row.name} enter its results")
            accounts = self._accounts(session, {n for r in results for n in r.entry.names})
            fingerprints = [r.fingerprint() for r in results]
            for number, result in enumerate(results, 1):
                if user.name.casefold() in (n.casefold() for n in result.entry.names):
                    continue
                if group_row is None or group_row.representative_id != actor:
                    where = f"game {number}: " if len(results) > 1 else ""
                    raise NotAllowed(
                        f"{where}you did not play in this game; the representative of its "
                        "group enters games for others"
                    )
            seen: dict[str, int] = {}
            for number, fingerprint in enumerate(fingerprints, 1):
                if fingerprint in seen:
                    raise Conflict(f"games {seen[fingerprint]} and {number} are the same game")
                seen[fingerprint] = number
            known = session.execute(
                select(Result.id, Result.fingerprint).where(Result.fingerprint.in_(fingerprints))
            ).all()
            if known:
                said = sorted((seen[str(fp)], rid) for rid, fp in known)
                where = ", ".join(
                    f"game {n} is result {rid}" if len(results) > 1 else f"result {rid}"
                    for n, rid in said
                )
                raise Conflict(f"already entered: {where}")
            rows = [
                self._row(result, fp, accounts, source, moment, actor, group_row)
                for result, fp in zip(results, fingerprints, strict=True)
            ]
            session.add_all(rows)
            try:
                session.flush()
            except IntegrityError:
                raise Conflict("already entered (at the same moment by someone else)") from None
            return [row.id for row in rows]

    def enter_server_game(
        self, table_id: str, record: dict[str, Any], users: Sequence[int | None], rated: bool
    ) -> int | None:
        """Enter a game finished on the server (confirmed: the server saw every move);
        ``users`` are the seats' accounts. A result the entry rules cannot express (the
        draw game's match extension) is not entered: ``None``."""
        played = self.clock()
        try:
            entry = entry_from_record(record, played.date())
            checked = check(entry, played.date(), record.get("options"))
        except (KeyError, ValueError) as exc:
            log.warning("table %s: its result is not entered (%s)", table_id, exc)
            return None
        with self.db.session() as session, session.begin():
            accounts = {
                name.casefold(): user
                for name, user in zip(checked.entry.names, users, strict=True)
                if user is not None
            }
            row = self._row(
                checked, checked.fingerprint(table_id), accounts, "server", played, None, None
            )
            row.status, row.table_id, row.rated = "confirmed", table_id, rated
            session.add(row)
            session.flush()
            return row.id

    def _accounts(self, session: Session, names: Iterable[str]) -> dict[str, int]:
        folded = {n.casefold() for n in names}
        if not folded:
            return {}
        rows = session.execute(
            select(User.id, User.name).where(func.lower(User.name).in_(folded))
        ).all()
        return {name.casefold(): uid for uid, name in rows if name.casefold() in folded}

    @staticmethod
    def _row(
        result: Checked,
        fingerprint: str,
        accounts: dict[str, int],
        source: str,
        moment: datetime,
        actor: int | None,
        group: Group | None,
    ) -> Result:
        entry = result.entry
        team_of = {seat: team for team, seats in enumerate(result.teams) for seat in seats}
        return Result(
            game=entry.game,
            played_on=entry.played_on,
            place=entry.place,
            set=entry.set,
            divisor=result.divisor,
            group_id=None if group is None else group.id,
            source=source,
            entered_by=actor,
            entered_at=moment,
            status="entered",
            rated=True,
            fingerprint=fingerprint,
            players=[
                ResultPlayer(
                    seat=seat,
                    name=line.name,
                    user_id=accounts.get(line.name.casefold()),
                    team=team_of[seat],
                    points=line.points,
                    pips=line.pips,
                    out=line.out,
                    final=result.final[seat],
                    rank=result.ranks[seat],
                )
                for seat, line in enumerate(entry.lines)
            ],
        )

    # -- reviewing ---------------------------------------------------------------------

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

    # -- reading -----------------------------------------------------------------------

    def result(self, result_id: int) -> dict[str, Any]:
        with self.db.session() as session:
            row = session.get(Result, result_id)
            if row is None:
                raise NotFound(f"no result {result_id}")
            return self._json(row, session)

    def results(self, where: Filter) -> tuple[list[dict[str, Any]], int]:
        """One page of results, newest game first, and how many there are in all."""
        query = select(Result)
        if where.group:
            query = query.join(Group).where(Group.slug == where.group)
        if where.game:
            query = query.where(Result.game == where.game)
        if where.month:
            first, after = month_bounds(where.month)
            query = query.where(Result.played_on >= first, Result.played_on < after)
        if where.status:
            query = query.where(Result.status == where.status)
        if where.player:
            query = query.where(
                Result.id.in_(
                    select(ResultPlayer.result_id).where(ResultPlayer.name == where.player)
                )
            )
        with self.db.session() as session:
            total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
            rows = session.scalars(
                query.options(selectinload(Result.players), selectinload(Result.reviews))
                .order_by(Result.played_on.desc(), Result.id.desc())
                .limit(max(1, min(where.limit, 500)))
                .offset(max(0, where.offset))
            ).all()
            return [self._json(row, session) for row in rows], total

    def _json(self, row: Result, session: Session) -> dict[str, Any]:
        reviewers = {r.user_id for r in row.reviews}
        names = (
            dict(session.execute(select(User.id, User.name).where(User.id.in_(reviewers))).all())
            if reviewers
            else {}
        )
        enterer = session.get(User, row.entered_by) if row.entered_by else None
        return {
            "id": row.id,
            "game": row.game,
            "date": row.played_on.isoformat(),
            "place": row.place,
            "set": row.set,
            "divisor": row.divisor,
            "group": None
            if row.group is None
            else {"name": row.group.name, "slug": row.group.slug},
            "source": row.source,
            "table": row.table_id,
            "entered_by": None if enterer is None else enterer.name,
            "entered_at": row.entered_at.isoformat(timespec="seconds"),
            "status": row.status,
            "rated": row.rated,
            "counts": row.rated and row.status in COUNTED,
            "players": [
                {
                    "seat": p.seat + 1,
                    "name": p.name,
                    "account": p.user_id is not None,
                    "team": p.team,
                    "points": p.points,
                    "pips": p.pips,
                    "out": p.out,
                    "final": p.final,
                    "rank": p.rank,
                }
                for p in row.players
            ],
            "reviews": [
                {
                    "by": names.get(r.user_id, "?"),
                    "action": r.action,
                    "comment": r.comment,
                    "at": r.created_at.isoformat(timespec="seconds"),
                }
                for r in row.reviews
            ],
        }

    def export(self, month: str, group: str | None = None) -> str:
        """The month's counted results as the CSV a group sends to its federation."""
        first, after = month_bounds(month)
        query = (
            select(Result)
            .where(
                Result.played_on >= first,
                Result.played_on < after,
                Result.status.in_(COUNTED),
            )
            .options(selectinload(Result.players))
            .order_by(Result.played_on, Result.id)
        )
        if group:
            query = query.join(Group).where(Group.slug == group)
        with self.db.session() as session:
            if group:
                self._group(session, group)
            return write_csv((row.id, _checked(row)) for row in session.scalars(query))

    # -- world lists -------------------------------------------------------------------

    def compute_month(self, month: str, *, publish: bool = True) -> list[dict[str, Any]]:
        """Compute the month's list of every game family from the results known at the
        month's end, and publish it (unless ``publish`` is false: a preview). A month is
        published once: published lists never change."""
        _, after = month_bounds(month)
        cutoff = datetime.combine(after, datetime.min.time())
        if self.clock() < cutoff:
            raise ResultsError(
                f"{month} is not over: its list is computed after {after - timedelta(days=1)}"
            )
        with self.db.session() as session:
            done = session.scalars(select(WorldList).where(WorldList.month == month)).first()
            if done is not None and publish:
                raise Conflict(
                    f"the list of {month} was published on {done.computed_at:%Y-%m-%d %H:%M} UTC "
                    "and published lists never change"
                )
            lists = []
            for game in GAMES:
                games = self._rated_games(session, game, after, cutoff)
                if games:
                    lists.append(
                        (game, games, compute(games, after - timedelta(days=1), self.settings))
                    )
            if not publish:
                return [
                    self._summary(game, month, games, standings) for game, games, standings in lists
                ]
            previous = {game: self._previous(session, game, month) for game, _, _ in lists}
        published = []
        try:
            with self.db.session() as session, session.begin():
                for game, games, standings in lists:
                    header = WorldList(
                        game=game,
                        month=month,
                        cutoff=cutoff,
                        computed_at=self.clock(),
                        settings=self.settings.to_json(),
                        games=len(games),
                        players=len(standings),
                    )
                    session.add(header)
                    session.flush()
                    before = previous[game]
                    accounts = self._accounts(session, (s.name for s in standings))
                    session.execute(
                        insert(WorldListRow),
                        [
                            {
                                "list_id": header.id,
                                "place": place,
                                "name": s.name,
                                "user_id": accounts.get(s.name.casefold()),
                                "mu": s.mu,
                                "sigma": s.sigma,
                                "rating": s.rating,
                                "games": s.games,
                                "last_played": s.last_played,
                                "previous_place": before.get(s.name, (None, None))[0],
                                "previous_rating": before.get(s.name, (None, None))[1],
                            }
                            for place, s in enumerate(standings, 1)
                        ],
                    )
                    published.append(self._summary(game, month, games, standings))
        except IntegrityError:
            raise Conflict(f"the list of {month} was published meanwhile") from None
        return published

    @staticmethod
    def _summary(
        game: str, month: str, games: Sequence[RatedGame], standings: Sequence[Any]
    ) -> dict[str, Any]:
        return {
            "game": game,
            "month": month,
            "games": len(games),
            "players": len(standings),
            "top": [
                {"place": i, "name": s.name, "rating": round(s.rating, 2), "games": s.games}
                for i, s in enumerate(standings[:10], 1)
            ],
        }

    def _rated_games(
        self, session: Session, game: str, after: date, cutoff: datetime
    ) -> list[RatedGame]:
        counted = (
            select(Result.id, Result.played_on).where(
                Result.game == game,
                Result.played_on < after,
                Result.entered_at < cutoff,
                Result.status.in_(COUNTED),
                Result.rated.is_(True),
            )
        ).subquery()
        rows = session.execute(
            select(
                counted.c.id,
                counted.c.played_on,
                ResultPlayer.team,
                ResultPlayer.name,
                ResultPlayer.rank,
            )
            .join(ResultPlayer, ResultPlayer.result_id == counted.c.id)
            .order_by(counted.c.id, ResultPlayer.team, ResultPlayer.seat)
        ).all()
        games: list[RatedGame] = []
        current = -1
        teams: dict[int, list[str]] = {}
        ranks: dict[int, int] = {}
        played = date.min

        def flush() -> None:
            if current >= 0:
                order = sorted(teams)
                games.append(
                    RatedGame(
                        played,
                        current,
                        tuple(tuple(teams[t]) for t in order),
                        tuple(ranks[t] for t in order),
                    )
                )

        for result_id, played_on, team, name, rank in rows:
            if result_id != current:
                flush()
                current, played, teams, ranks = result_id, played_on, defaultdict(list), {}
            teams[team].append(name)
            ranks[team] = rank
        flush()
        return games

    def _previous(self, session: Session, game: str, month: str) -> dict[str, tuple[int, float]]:
        header = session.scalars(
            select(WorldList)
            .where(WorldList.game == game, WorldList.month < month)
            .order_by(WorldList.month.desc())
        ).first()
        if header is None:
            return {}
        rows = session.execute(
            select(WorldListRow.name, WorldListRow.place, WorldListRow.rating).where(
                WorldListRow.list_id == header.id
            )
        ).all()
        return {name: (place, rating) for name, place, rating in rows}

    def publish_due(self) -> list[dict[str, Any]]:
        """Publish every month that is over and has no list yet (the server does this
        after each month's end); months with nothing to rate stay unpublished."""
        now = self.clock()
        with self.db.session() as session:
            first = session.scalar(select(func.min(Result.entered_at)))
            done = set(session.scalars(select(WorldList.month).distinct()))
        if first is None:
            return []
        published = []
        month = month_of(first)
        while True:
            _, after = month_bounds(month)
            if datetime.combine(after, datetime.min.time()) > now:
                break
            if month not in done:
                with contextlib.suppress(Conflict):  # another process published it first
                    published += self.compute_month(month)
            month = month_of(after)
        return published

    def months(self, game: str) -> list[dict[str, Any]]:
        with self.db.session() as session:
            return [
                {
                    "month": w.month,
                    "games": w.games,
                    "players": w.players,
                    "computed_at": w.computed_at.isoformat(timespec="seconds"),
                }
                for w in session.scalars(
                    select(WorldList).where(WorldList.game == game).order_by(WorldList.month.desc())
                )
            ]

    def world_list(
        self, game: str, month: str | None = None, *, offset: int = 0, limit: int = 100
    ) -> dict[str, Any] | None:
        """A published list (the newest when ``month`` is left out): one page of rows
        with their movement since the list before, and the biggest moves."""
        with self.db.session() as session:
            query = select(WorldList).where(WorldList.game == game)
            if month:
                month_bounds(month)
                query = query.where(WorldList.month == month)
            header = session.scalars(query.order_by(WorldList.month.desc())).first()
            if header is None:
                return None
            rows = session.scalars(
                select(WorldListRow)
                .where(WorldListRow.list_id == header.id)
                .order_by(WorldListRow.place)
                .offset(max(0, offset))
                .limit(max(1, min(limit, 500)))
            ).all()
            climb = WorldListRow.previous_place - WorldListRow.place
            moved = select(WorldListRow).where(
                WorldListRow.list_id == header.id, WorldListRow.previous_place.is_not(None)
            )
            risers = session.scalars(
                moved.where(climb > 0).order_by(climb.desc(), WorldListRow.place).limit(5)
            ).all()
            fallers = session.scalars(
                moved.where(climb < 0).order_by(climb, WorldListRow.place).limit(5)
            ).all()
            newcomers = session.scalar(
                select(func.count()).where(
                    WorldListRow.list_id == header.id, WorldListRow.previous_place.is_(None)
                )
            )
            return {
                "game": game,
                "month": header.month,
                "computed_at": header.computed_at.isoformat(timespec="seconds"),
                "cutoff": header.cutoff.isoformat(timespec="seconds"),
                "settings": header.settings,
                "games": header.games,
                "players": header.players,
                "offset": offset,
                "rows": [_row_json(r) for r in rows],
                "risers": [_row_json(r) for r in risers],
                "fallers": [_row_json(r) for r in fallers],
                "newcomers": newcomers,
            }

    def player_history(self, game: str, name: str) -> list[dict[str, Any]]:
        with self.db.session() as session:
            rows = session.execute(
                select(WorldList.month, WorldListRow)
                .join(WorldListRow, WorldListRow.list_id == WorldList.id)
                .where(WorldList.game == game, WorldListRow.name == name)
                .order_by(WorldList.month)
            ).all()
            return [{"month": month, **_row_json(row)} for month, row in rows]


def _row_json(row: WorldListRow) -> dict[str, Any]:
    move = None if row.previous_place is None else row.previous_place - row.place
    return {
        "place": row.place,
        "name": row.name,
        "rating": round(row.rating, 3),
        "mu": round(row.mu, 3),
        "sigma": round(row.sigma, 3),
        "games": row.games,
        "last_played": row.last_played.isoformat(),
        "previous_place": row.previous_place,
        "move": move,
        "change": None
        if row.previous_rating is None
        else round(row.rating - row.previous_rating, 3),
    }


def _checked(row: Result) -> Checked:
    """A stored result as the entry module's checked result (for the CSV)."""
    players = row.players
    teams: dict[int, list[int]] = defaultdict(list)
    for p in players:
        teams[p.team].append(p.seat)
    entry = Entry(
        row.game,
        row.played_on,
        row.set,
        tuple(Line(p.name, p.points, p.pips, p.out) for p in players),
        row.place,
    )
    return Checked(
        entry,
        row.divisor,
        tuple(p.final for p in players),
        tuple(p.rank for p in players),
        tuple(tuple(teams[t]) for t in sorted(teams)),
    )


def publish_due_apart(url: str, settings: RatingSettings) -> list[dict[str, Any]]:
    """:meth:`Results.publish_due` over a connection of its own: run by the server in a
    worker process, so that rating a month does not hold up the games being played."""
    db = Database(url)
    try:
        return Results(db, settings=settings).publish_due()
    finally:
        db.dispose()
