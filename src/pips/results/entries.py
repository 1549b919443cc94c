"""Results entered and read: a batch of checked games saved whole or not at all, a
finished server game entered by itself, one result or a page of them, a month's export.

Who may enter: an account that played in the game; for a group, a member who played
in it, or the group's representative for any of the group's games.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import case, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from pips.core.names import name_key
from pips.core.phrase import phrase
from pips.games.registry import find_game
from pips.results.common import (
    Conflict,
    Filter,
    NotAllowed,
    NotFound,
    ResultsError,
    counted,
    counted_clause,
    log,
    month_bounds,
    month_of,
)
from pips.results.entry import Checked, Entry, Line, check, entry_from_record, write_csv
from pips.results.players import Players
from pips.store.models import (
    Group,
    Player,
    Result,
    ResultPlayer,
    User,
    WorldList,
    WorldListResult,
)

MAX_GAMES_A_DAY = 40
"""More real-table games than this by one player on one day are held for an
administrator: a FIDO game at a real table takes a quarter of an hour at the least,
so 40 are ten hours without a break."""

MAX_WINS_A_DAY = 25
"""More wins than this by one player on one day are held too."""


@dataclass(frozen=True)
class Entered:
    """What a saved batch made: its results' ids and the names that became players."""

    ids: list[int]
    new_players: list[str]


class Entries(Players):
    """Entering and reading results."""

    def check(self, entry: Entry) -> Checked:
        return check(entry, self.today())

    def enter(
        self,
        actor: int,
        results: Sequence[Checked],
        *,
        source: str,
        group: str | None = None,
        new_players: Collection[str] = (),
    ) -> list[int]:
        """Save checked results, all or none; the ids, in order."""
        return self.enter_batch(
            actor, results, source=source, group=group, new_players=new_players
        ).ids

    def enter_batch(
        self,
        actor: int,
        results: Sequence[Checked],
        *,
        source: str,
        group: str | None = None,
        new_players: Collection[str] = (),
        save: bool = True,
    ) -> Entered:
        """Save checked results, all or none (``save`` false: check who may enter them,
        duplicates and names, and save nothing). ``new_players``: names confirmed as
        new players though they are close to known ones."""
        if not results:
            raise ResultsError(phrase("no results to enter"))
        moment = self.clock()
        with self.db.session() as session, session.begin():
            user = session.get(User, actor)
            if user is None:
                raise NotAllowed(phrase("sign in with an account to enter results"))
            group_row = None if not group else self._group(session, group)
            if group_row is not None:
                members = {m.user_id for m in group_row.members}
                if actor not in members:
                    raise NotAllowed(
                        phrase("only members of {name} enter its results", name=group_row.name)
                    )
            fingerprints = [r.fingerprint() for r in results]
            for number, result in enumerate(results, 1):
                if user.name_key in {name_key(n) for n in result.entry.names}:
                    continue
                if group_row is None or group_row.representative_id != actor:
                    where = f"{result.called(number)}: " if len(results) > 1 else ""
                    raise NotAllowed(
                        phrase(
                            "{where}you did not play in this game; the representative of "
                            "its group enters games for others",
                            where=where,
                        )
                    )
            self._refuse_duplicates(session, results, fingerprints)
            seating = self.seat_names(
                session,
                user,
                group_row,
                (n for r in results for n in r.entry.names),
                new_players,
                make=save,
            )
            if not save:
                session.rollback()
                return Entered([], seating.new)
            vouched = (
                group_row is not None
                and group_row.approved_at is not None
                and group_row.representative_id == actor
            )
            rows = [
                self._row(result, fp, seating.players, source, moment, actor, group_row)
                for result, fp in zip(results, fingerprints, strict=True)
            ]
            for row in rows:
                # The word of an approved group's representative confirms; anything
                # else waits for the other players' accounts (docs/results.md).
                row.status, row.confirmed_by = (
                    ("confirmed", "group") if vouched else ("provisional", None)
                )
            session.add_all(rows)
            try:
                session.flush()
            except IntegrityError:
                raise Conflict("already entered (at the same moment by someone else)") from None
            self._flag_anomalies(session, rows)
            return Entered([row.id for row in rows], seating.new)

    def duplicates(self, results: Sequence[Checked]) -> None:
        """Refuse (:class:`Conflict`) a batch with a game twice, or a game entered
        before, whatever the order of its seats: what entering would refuse, for the
        check that saves nothing."""
        with self.db.session() as session:
            self._refuse_duplicates(session, results, [r.fingerprint() for r in results])

    @staticmethod
    def _refuse_duplicates(
        session: Session, results: Sequence[Checked], fingerprints: Sequence[str]
    ) -> None:
        seen: dict[str, int] = {}
        for number, fingerprint in enumerate(fingerprints, 1):
            if fingerprint in seen:
                earlier = results[seen[fingerprint] - 1].called(seen[fingerprint])
                later = results[number - 1].called(number)
                raise Conflict(f"{earlier} and {later} are the same game")
            seen[fingerprint] = number
        known = session.execute(
            select(Result.id, Result.fingerprint).where(Result.fingerprint.in_(fingerprints))
        ).all()
        if known:
            said = sorted((seen[str(fp)], rid) for rid, fp in known)
            where = ", ".join(
                f"{results[n - 1].called(n)} is result {rid}"
                if len(results) > 1
                else f"result {rid}"
                for n, rid in said
            )
            raise Conflict(f"already entered (whatever the order of its seats): {where}")

    def _flag_anomalies(self, session: Session, rows: Sequence[Result]) -> None:
        """Hold for an administrator every result of a player who, with these, has
        more real-table games or wins on one day than anyone could play."""
        pairs = {(p.player_id, row.played_on) for row in rows for p in row.players}
        players = {pid for pid, _ in pairs if pid is not None}
        days = {day for _, day in pairs}
        if not players:
            return
        real = (Result.status != "withdrawn", Result.source != "server")
        counts = session.execute(
            select(
                ResultPlayer.player_id,
                Result.played_on,
                func.count(),
                func.sum(case((ResultPlayer.rank == 1, 1), else_=0)),
            )
            .join(Result, Result.id == ResultPlayer.result_id)
            .where(ResultPlayer.player_id.in_(players), Result.played_on.in_(days), *real)
            .group_by(ResultPlayer.player_id, Result.played_on)
        ).all()
        for player_id, day, games, wins in counts:
            if (player_id, day) not in pairs:
                continue
            if games <= MAX_GAMES_A_DAY and (wins or 0) <= MAX_WINS_A_DAY:
                continue
            name = session.scalar(select(Player.name).where(Player.id == player_id))
            reason = (
                f"{name}: {games} games, {wins} won, on {day.isoformat()}; nobody plays more "
                f"than {MAX_GAMES_A_DAY} or wins more than {MAX_WINS_A_DAY} in a day"
            )
            theirs = select(ResultPlayer.result_id).where(ResultPlayer.player_id == player_id)
            session.execute(
                update(Result)
                .where(Result.id.in_(theirs), Result.played_on == day, Result.flag.is_(None))
                .where(*real)
                .values(flag=reason)
            )

    def server_game_result(
        self, table_id: str, record: dict[str, Any], users: Sequence[int | None], rated: bool
    ) -> Result | None:
        """The result of a game finished on the server (confirmed: the server saw every
        move), as a row for the caller to store with the game's end in one transaction;
        ``users`` are the seats' accounts. A result the entry rules cannot express (the
        draw game's match extension) is not entered: ``None``."""
        played = self.clock()
        try:
            entry = entry_from_record(record, played.date())
            checked = check(entry, played.date(), record.get("options"))
        except (KeyError, ValueError) as exc:
            log.warning("table %s: its result is not entered (%s)", table_id, exc)
            return None
        players: dict[str, Player] = {}
        with self.db.session() as session:
            for name, user_id in zip(checked.entry.names, users, strict=True):
                user = session.get(User, user_id) if user_id is not None else None
                if user is not None:
                    # Made, if new, with the result (the caller's transaction).
                    players[name_key(name)] = self.own_player(session, user, None, make=False)
            session.expunge_all()
        row = self._row(
            checked, checked.fingerprint(table_id), players, "server", played, None, None
        )
        row.status, row.confirmed_by, row.table_id, row.rated = (
            "confirmed",
            "server",
            table_id,
            rated,
        )
        return row

    @staticmethod
    def _row(
        result: Checked,
        fingerprint: str,
        players: dict[str, Player],
        source: str,
        moment: datetime,
        actor: int | None,
        group: Group | None,
    ) -> Result:
        entry = result.entry
        team_of = {seat: team for team, seats in enumerate(result.teams) for seat in seats}
        seats = []
        for seat, line in enumerate(entry.lines):
            player = players.get(name_key(line.name))
            seats.append(
                ResultPlayer(
                    seat=seat,
                    name=line.name,
                    user_id=None if player is None else player.user_id,
                    player=player,
                    team=team_of[seat],
                    points=line.points,
                    pips=line.pips,
                    out=line.out,
                    final=result.final[seat],
                    rank=result.ranks[seat],
                )
            )
        return Result(
            game=entry.game,
            played_on=entry.played_on,
            place=entry.place,
            set=entry.set,
            divisor=result.divisor,
            target=result.target,
            group_id=None if group is None else group.id,
            source=source,
            entered_by=actor,
            entered_at=moment,
            status="provisional",
            rated=True,
            fingerprint=fingerprint,
            players=seats,
        )

    def result(self, result_id: int) -> dict[str, Any]:
        with self.db.session() as session:
            row = session.get(Result, result_id)
            if row is None:
                raise NotFound(phrase("no result {result_id}", result_id=result_id))
            return self._shown(session, [row])[0]

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
        if where.status == "held":
            query = query.where(Result.flag.is_not(None), Result.flag_cleared_by.is_(None))
        elif where.status:
            query = query.where(Result.status == where.status)
        if where.player:
            named = select(ResultPlayer.result_id).where(ResultPlayer.name == where.player)
            if where.player.isdigit():
                named = select(ResultPlayer.result_id).where(
                    ResultPlayer.player_id == int(where.player)
                )
            query = query.where(Result.id.in_(named))
        with self.db.session() as session:
            total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
            rows = session.scalars(
                query.options(
                    selectinload(Result.players),
                    selectinload(Result.reviews),
                    selectinload(Result.group),
                )
                .order_by(Result.played_on.desc(), Result.id.desc())
                .limit(max(1, min(where.limit, 500)))
                .offset(max(0, where.offset))
            ).all()
            return self._shown(session, rows), total

    def _shown(self, session: Session, rows: Sequence[Result]) -> list[dict[str, Any]]:
        """Results as the pages and the API show them, read with a fixed number of
        queries however many there are."""
        if not rows:
            return []
        users = {r.entered_by for r in rows} | {v.user_id for r in rows for v in r.reviews}
        players = {p.player_id for r in rows for p in r.players if p.player_id is not None}
        names = dict(
            session.execute(select(User.id, User.name).where(User.id.in_(users - {None}))).all()
        )
        accounts = dict(
            session.execute(select(Player.id, Player.user_id).where(Player.id.in_(players))).all()
        )
        first_list = dict(
            session.execute(
                select(WorldListResult.result_id, WorldList.month)
                .join(WorldList, WorldList.id == WorldListResult.list_id)
                .where(WorldListResult.result_id.in_([r.id for r in rows]))
            ).all()
        )
        published: dict[str, set[str]] = defaultdict(set)
        for game, month in session.execute(select(WorldList.game, WorldList.month)):
            published[game].add(month)
        return [
            self._json(row, names, accounts, first_list.get(row.id), published[row.game])
            for row in rows
        ]

    @staticmethod
    def _json(
        row: Result,
        names: dict[int, str],
        accounts: dict[int, int | None],
        listed_in: str | None,
        published: set[str],
    ) -> dict[str, Any]:
        held = row.flag if row.flag and row.flag_cleared_by is None else None
        counts = counted(row)
        late = month_of(row.entered_at) > month_of(row.played_on)
        counts_in = listed_in
        if counts_in is None and counts:
            counts_in = month_of(row.entered_at)
            while counts_in in published:
                counts_in = month_of(month_bounds(counts_in)[1])
        confirmed = {v.user_id for v in row.reviews if v.action in ("confirm", "resolve")}
        seats = []
        for p in row.players:
            user = accounts.get(p.player_id) if p.player_id is not None else None
            seats.append(
                {
                    "seat": p.seat + 1,
                    "name": p.name,
                    "player": p.player_id,
                    "account": user is not None,
                    "confirmed": user is not None and (user in confirmed or user == row.entered_by),
                    "team": p.team,
                    "points": p.points,
                    "pips": p.pips,
                    "out": p.out,
                    "final": p.final,
                    "rank": p.rank,
                }
            )
        return {
            "id": row.id,
            "game": row.game,
            "title": find_game(row.game).title,
            "date": row.played_on.isoformat(),
            "place": row.place,
            "set": row.set,
            "divisor": row.divisor,
            "target": row.target,
            "group": None
            if row.group is None
            else {
                "name": row.group.name,
                "slug": row.group.slug,
                "approved": row.group.approved_at is not None,
            },
            "source": row.source,
            "table": row.table_id,
            "entered_by": names.get(row.entered_by) if row.entered_by else None,
            "entered_at": row.entered_at.isoformat(timespec="seconds"),
            "status": row.status,
            "confirmed_by": row.confirmed_by,
            "rated": row.rated,
            "held": held,
            "counts": counts,
            "late": late,
            "counts_in": counts_in,
            "players": seats,
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
        """The month's results as the CSV a group sends to its federation. For a
        published month: exactly the results its lists counted for the first time
        (the month's own and the late ones they took in), whatever happened to them
        since; before that, the results of the month that count now."""
        first, after = month_bounds(month)
        with self.db.session() as session:
            if group:
                self._group(session, group)
            lists = select(WorldList.id).where(WorldList.month == month)
            listed = select(WorldListResult.result_id).where(WorldListResult.list_id.in_(lists))
            if session.scalar(select(func.count()).select_from(listed.subquery())):
                query = select(Result).where(Result.id.in_(listed))
            else:
                query = select(Result).where(
                    Result.played_on >= first, Result.played_on < after, *counted_clause()
                )
            query = query.options(selectinload(Result.players)).order_by(
                Result.played_on, Result.id
            )
            if group:
                query = query.join(Group).where(Group.slug == group)
            return write_csv((row.id, _checked(row)) for row in session.scalars(query))


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
        row.target,
    )
    return Checked(
        entry,
        row.divisor,
        tuple(p.final for p in players),
        tuple(p.rank for p in players),
        tuple(tuple(teams[t]) for t in sorted(teams)),
        row.target,
    )
