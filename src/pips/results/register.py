"""The register of results: one result, a page of them, a month's export.

A private table's game stays private once it has ended: its result is shown to its
players only, unless every person who played it asked to publish the table.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import Session, selectinload

from pips.core.phrase import Phrase, phrase
from pips.games.registry import find_game
from pips.i18n import say
from pips.results.common import (
    BOT_PLAYED,
    Context,
    Filter,
    NotFound,
    bot_seated,
    counted,
    counted_clause,
    group_named,
    held,
    held_clause,
    month_bounds,
    month_of,
)
from pips.results.entry import Checked, Entry, Line
from pips.results.entry_formats import write_csv
from pips.results.holds import Holds
from pips.results.trust import PLAYERS, VOUCHING, Needs
from pips.results.vouching import MEMBER, needs_of, seats_of_all
from pips.store.ids import row_id
from pips.store.models import (
    GameTable,
    Group,
    GroupMember,
    Player,
    Result,
    ResultPlayer,
    User,
    WorldList,
    WorldListResult,
)


def visible_to(viewer: int | None) -> ColumnElement[bool]:
    """The results ``viewer`` may see: all but a private table's unpublished game,
    which its players' accounts see."""
    private = select(GameTable.id).where(
        GameTable.private.is_(True), GameTable.published_at.is_(None)
    )
    shown = or_(Result.table_id.is_(None), Result.table_id.not_in(private))
    if viewer is None:
        return shown
    mine = select(ResultPlayer.result_id).where(ResultPlayer.user_id == viewer)
    return or_(shown, Result.id.in_(mine))


class Register:
    """Reading results: what pages, the API and the federation's export show."""

    def __init__(self, context: Context, holds: Holds) -> None:
        self.context = context
        self.holds = holds

    def result(self, result_id: int, viewer: int | None = None) -> dict[str, Any]:
        with self.context.db.session() as session:
            row = session.scalars(
                select(Result).where(Result.id == result_id, visible_to(viewer))
            ).first()
            if row is None:
                raise NotFound(phrase("no result {result_id}", result_id=result_id))
            shown = self._shown(session, [row])[0]
            shown["holds"] = self.holds.history(session, row.id)
            return shown

    def listing(self, where: Filter, viewer: int | None = None) -> tuple[list[dict[str, Any]], int]:
        """One page of results, newest game first, and how many there are in all."""
        query = select(Result).where(visible_to(viewer))
        if where.group:
            query = query.join(Group).where(Group.slug == where.group)
        if where.game:
            query = query.where(Result.game == where.game)
        if where.month:
            first, after = month_bounds(where.month)
            query = query.where(Result.played_on >= first, Result.played_on < after)
        if where.status == "held":
            query = query.where(held_clause())
        elif where.status:
            query = query.where(Result.status == where.status)
        if where.player:
            named = select(ResultPlayer.result_id).where(ResultPlayer.name == where.player)
            number = row_id(where.player)
            if number is not None:
                named = select(ResultPlayer.result_id).where(ResultPlayer.player_id == number)
            query = query.where(Result.id.in_(named))
        with self.context.db.session() as session:
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
        unvouched = [
            row for row in rows if row.status != "withdrawn" and row.confirmed_by not in VOUCHING
        ]
        seats = seats_of_all(session, unvouched) if unvouched else {}
        # The approved groups of the seats and their representatives, in one query.
        labels = representative_labels(
            session, {g for found in seats.values() for seat in found for g in seat.groups}
        )
        needed = needs_of(session, unvouched, seats, frozenset(labels)) if unvouched else {}
        deciders = representatives_of(needed, labels)
        # Only a result that would count can be left out for a bot (no query else).
        counting = [r.id for r in rows if counted(r)]
        bots = bot_seated(session, counting) if counting else set()
        shown = []
        for row in rows:
            shown.append(
                _json(
                    row,
                    names,
                    accounts,
                    first_list.get(row.id),
                    published[row.game],
                    needed.get(row.id, Needs()),
                    deciders.get(row.id, []),
                    bot=row.id in bots,
                )
            )
        return shown

    def export(self, month: str, group: str | None = None, language: str = "en") -> str:
        """The month's results as the CSV a group sends to its federation. For a
        published month: exactly the results its lists counted for the first time
        (the month's own and the late ones they took in), whatever happened to them
        since; before that, the results of the month that count now. In ``language``
        (:func:`~pips.results.entry_formats.write_csv`)."""
        first, after = month_bounds(month)
        with self.context.db.session() as session:
            found = group_named(session, group) if group else None
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
            if found is not None:
                query = query.where(of_group(found.id))
            return write_csv(((row.id, _checked(row)) for row in session.scalars(query)), language)


def of_group(group: int) -> ColumnElement[bool]:
    """The results of a group: entered for it, or with a seat of one of its players
    (made there, or agreed by its representative) or members: a club's export holds
    its players' games at another club's championship too."""
    players = select(Player.id).where(Player.group_id == group, Player.group_agreed_at.is_not(None))
    members = select(GroupMember.user_id).where(
        GroupMember.group_id == group, GroupMember.status == MEMBER
    )
    seats = select(ResultPlayer.result_id).where(
        or_(
            ResultPlayer.player_id.in_(players),
            ResultPlayer.player_id.in_(select(Player.id).where(Player.user_id.in_(members))),
        )
    )
    return or_(Result.group_id == group, Result.id.in_(seats))


def representatives_of(
    needed: Mapping[int, Needs], labels: Mapping[int, str]
) -> dict[int, list[str]]:
    """For each result, the representatives whose word it still needs (each for their
    group's players: :func:`~pips.results.trust.needs`), by their ``labels``."""
    return {
        rid: sorted({labels[g] for g in found.groups if g in labels})
        for rid, found in needed.items()
        if not found.admin_only
    }


def representative_labels(session: Session, groups: set[int]) -> dict[int, str]:
    """The approved ones of ``groups``, each with its representative as "Anna
    (Kiel)"."""
    if not groups:
        return {}
    return {
        gid: f"{representative} ({name})"
        for gid, name, representative in session.execute(
            select(Group.id, Group.name, User.name)
            .join(User, User.id == Group.representative_id)
            .where(Group.id.in_(groups), Group.approved_at.is_not(None))
        )
    }


def _said(words: str | None) -> str | None:
    return None if words is None else say(words)


def why_not_counted(
    row: Result,
    waiting: Sequence[str],
    deciders: Sequence[str] = (),
    orphans: Sequence[str] | None = None,
) -> str | None:
    """Why a result does not count for the world list, in words (``None``: it
    counts); ``waiting``: the players whose own confirmation it needs; ``deciders``:
    the representatives whose word it needs; ``orphans`` (not ``None``: only an
    administrator's word makes it count) the players nobody else speaks for."""
    if counted(row):
        return None
    if row.status == "withdrawn":
        return phrase("withdrawn")
    if row.status == "disputed":
        return phrase("disputed: it counts once the dispute is decided")
    if not row.rated:
        return row.unrated_words or phrase("not rated")
    if held(row):
        return phrase("held for an administrator: {reason}", reason=row.flag_words or "")
    if orphans and len(orphans) == 1:
        return phrase(
            "{name} belongs to no approved group and has no account, so it "
            "counts once an administrator confirms it",
            name=orphans[0],
        )
    if orphans:
        return phrase(
            "{names} belong to no approved group and have no account, so it "
            "counts once an administrator confirms it",
            names=", ".join(orphans),
        )
    if row.confirmed_by == PLAYERS:
        return phrase(
            "confirmed by its players' own accounts only: for the world list an approved "
            "group vouches for its members' results, or an administrator"
        )
    if orphans is None and deciders and waiting:
        return phrase(
            "it counts once {names} confirm it for their clubs' players and "
            "{waiting} their own lines, or once an administrator does",
            names=Phrase(" / ".join(deciders)),
            waiting=", ".join(waiting),
        )
    if orphans is None and waiting:
        return phrase(
            "waits for {names} to confirm (not members of the group that vouched)",
            names=", ".join(waiting),
        )
    if orphans is None and len(deciders) > 1:
        return phrase(
            "it counts once {names} confirm it, each for their club's players, "
            "or once an administrator does",
            names=Phrase(", ".join(deciders)),
        )
    if orphans is None and deciders:
        return phrase(
            "it counts once {names} or an administrator confirms it",
            names=Phrase(" / ".join(deciders)),
        )
    return phrase(
        "none of its players belongs to an approved group, so it counts "
        "once an administrator confirms it (or its players join a club that vouches "
        "for them)"
    )


def _json(
    row: Result,
    names: dict[int, str],
    accounts: dict[int, int | None],
    listed_in: str | None,
    published: set[str],
    needed: Needs,
    deciders: Sequence[str] = (),
    *,
    bot: bool = False,
) -> dict[str, Any]:
    # A bot account's result is left out of the list whatever vouched for it
    # (:func:`bot_seated`): the page says what the list does.
    counts = counted(row) and not bot
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
    waiting_names = [row.players[i].name for i in needed.seats]
    orphans = [row.players[i].name for i in needed.orphans] if needed.admin_only else None
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
        "event": row.event_id,
        "entered_by": names.get(row.entered_by) if row.entered_by else None,
        "entered_at": row.entered_at.isoformat(timespec="seconds"),
        "status": row.status,
        "confirmed_by": row.confirmed_by,
        "rated": row.rated,
        # The reasons in the asker's language (set for the request): they were kept as
        # phrases (issue 50), where only their English used to be.
        "unrated": _said(row.unrated_words),
        "held": _said(row.flag_words) if held(row) else None,
        "counts": counts,
        "why_not": _said(
            BOT_PLAYED
            if bot and counted(row)
            else why_not_counted(row, waiting_names, deciders, orphans)
        ),
        "can_confirm": list(deciders),
        "waiting_for": waiting_names,
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
