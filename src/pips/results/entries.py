"""Results entered and read: a batch of checked games saved whole or not at all, a
finished server game entered by itself, one result or a page of them, a month's export.

Who may enter: an account that played in the game; for a group, a member who played
in it, or the group's representative for any of the group's games.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from pips.core.names import name_key
from pips.results.common import (
    COUNTED,
    Conflict,
    Filter,
    NotAllowed,
    NotFound,
    ResultsError,
    ServiceBase,
    log,
    month_bounds,
)
from pips.results.entry import Checked, Entry, Line, check, entry_from_record, write_csv
from pips.store.models import (
    Group,
    Result,
    ResultPlayer,
    User,
)


class Entries(ServiceBase):
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
                if user.name_key in {name_key(n) for n in result.entry.names}:
                    continue
                if group_row is None or group_row.representative_id != actor:
                    where = f"{result.called(number)}: " if len(results) > 1 else ""
                    raise NotAllowed(
                        f"{where}you did not play in this game; the representative of its "
                        "group enters games for others"
                    )
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
        accounts = {
            name_key(name): user
            for name, user in zip(checked.entry.names, users, strict=True)
            if user is not None
        }
        row = self._row(
            checked, checked.fingerprint(table_id), accounts, "server", played, None, None
        )
        row.status, row.table_id, row.rated = "confirmed", table_id, rated
        return row

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
                    user_id=accounts.get(name_key(line.name)),
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
