"""Entering results: a batch of checked games saved whole or not at all, and a finished
server game entered by itself.

Who may enter: an account that played in the game; for a group, a member who played
in it, or the representative of an approved group for any of the group's games (an
unapproved group's representative only games they played). What confirms a
result as it is entered, and what it then waits for: :mod:`pips.results.trust`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pips.core.names import name_key
from pips.core.phrase import Phrase, joined, phrase
from pips.results.authority import Action, EntryFacts, Refused, decide
from pips.results.common import (
    Conflict,
    Context,
    NotAllowed,
    ResultsError,
    group_named,
    log,
)
from pips.results.entry import Checked, check
from pips.results.entry_formats import entry_from_record
from pips.results.facts import actor_facts, said
from pips.results.fairplay import Fairplay
from pips.results.groups import member_ids
from pips.results.holds import Holds, causes
from pips.results.players import Players
from pips.results.register import visible_to
from pips.results.vouching import group_facts, settle
from pips.store.models import Group, Player, Result, ResultPlayer, User


@dataclass(frozen=True)
class Entered:
    """What a saved batch made: its results' ids and the names that became players."""

    ids: list[int]
    new_players: list[str]


class Entries:
    """Entering results."""

    def __init__(
        self, context: Context, players: Players, holds: Holds, fairplay: Fairplay
    ) -> None:
        self.context = context
        self.players = players
        self.holds = holds
        self.fairplay = fairplay

    def check(self, entry: Any) -> Checked:
        """``entry`` held to its game's rules as of today (:func:`check`): totals and
        places, or :class:`~pips.results.entry.EntryError`; nothing is read or saved."""
        return check(entry, self.context.today())

    def enter(
        self,
        actor: int,
        results: Sequence[Checked],
        *,
        source: str,
        group: str | None = None,
        new_players: Collection[str] = (),
        known_players: Mapping[str, int] | None = None,
        save: bool = True,
    ) -> Entered:
        """Save checked results, all or none (``save`` false: check who may enter them,
        duplicates and names, and save nothing). ``new_players``: names confirmed as
        new players though they may be known ones; ``known_players``: names given
        the known player meant (name to player id)."""
        if not results:
            raise ResultsError(phrase("no results to enter"))
        moment = self.context.clock()
        with self.context.db.session() as session, session.begin():
            user = session.get(User, actor)
            if user is None:
                raise NotAllowed(phrase("sign in with an account to enter results"))
            group_row = None if not group else group_named(session, group)
            member = group_row is not None and actor in member_ids(group_row)
            facts = actor_facts(session, actor)
            fingerprints = [r.fingerprint() for r in results]
            for number, result in enumerate(results, 1):
                played = user.name_key in {name_key(n) for n in result.entry.names}
                entry = EntryFacts(played, group_facts(group_row), member)
                refused = decide(facts, Action.ENTER, entry)
                if isinstance(refused, Refused):
                    where = f"{result.called(number)}: " if len(results) > 1 else ""
                    raise NotAllowed(phrase("{where}{why}", where=where, why=said(refused)))
            refuse_duplicates(session, results, fingerprints, actor)
            seating = self.players.seat_names(
                session,
                user,
                group_row,
                (n for r in results for n in r.entry.names),
                new_players,
                known=known_players,
                make=save,
            )
            if not save:
                session.rollback()
                return Entered([], seating.new)
            rows = [
                result_row(result, fp, seating.players, source, moment, actor, group_row)
                for result, fp in zip(results, fingerprints, strict=True)
            ]
            store_results(session, rows, self.holds)
            return Entered([row.id for row in rows], seating.new)

    def duplicates(self, results: Sequence[Checked], viewer: int | None = None) -> None:
        """Refuse (:class:`Conflict`) a batch with a game twice, or a game entered
        before, whatever the order of its seats: what entering would refuse, for the
        check that saves nothing (open to anyone: a result's number only to a
        ``viewer`` who may see it)."""
        with self.context.db.session() as session:
            refuse_duplicates(session, results, [r.fingerprint() for r in results], viewer)

    def add_server_game(
        self,
        session: Session,
        table_id: str,
        record: dict[str, Any],
        users: Sequence[int | None],
        casual: Phrase | None = None,
    ) -> Result | None:
        """Enter the result of a game finished at the server's tables, in the caller's
        transaction (the one that stores the game's end): confirmed by the server, which
        saw every move; rated unless ``casual`` says why not (a practice or private
        table) or :class:`~pips.results.fairplay.Fairplay` does. ``users`` are the
        seats' accounts. A result the entry rules cannot express (the draw game's
        match extension) is not entered: ``None``."""
        played = self.context.clock()
        try:
            entry = entry_from_record(record, played.date())
            checked = check(entry, played.date(), record.get("options"))
        except (KeyError, ValueError) as exc:
            log.warning("table %s: its result is not entered (%s)", table_id, exc)
            return None
        players: dict[str, Player] = {}
        for name, user_id in zip(checked.entry.names, users, strict=True):
            user = session.get(User, user_id) if user_id is not None else None
            if user is not None:
                players[name_key(name)] = self.players.own_player(session, user, None)
        row = result_row(
            checked, checked.fingerprint(table_id), players, "server", played, None, None
        )
        unrated = casual or self.fairplay.unrated_because(session, users)
        row.status, row.confirmed_by, row.table_id = "confirmed", "server", table_id
        row.rated, row.unrated = unrated is None, unrated
        session.add(row)
        session.flush()
        self.holds.recheck(session, causes([row]))
        return row


def store_results(session: Session, rows: Sequence[Result], holds: Holds) -> None:
    """Add new results in the caller's transaction: each confirmed by what vouches for
    it, and the anomaly holds of their players' days checked again. Two people entering
    the same game at once: :class:`Conflict`."""
    session.add_all(rows)
    try:
        session.flush()
    except IntegrityError:
        raise Conflict(phrase("already entered (at the same moment by someone else)")) from None
    for row in rows:
        settle(session, row)
    holds.recheck(session, causes(rows))


def refuse_duplicates(
    session: Session,
    results: Sequence[Checked],
    fingerprints: Sequence[str],
    viewer: int | None,
) -> None:
    """Refuse a batch with one game twice, or a game entered before (by fingerprint,
    whatever the order of its seats). The earlier result is named by its number only
    to a ``viewer`` (an account) who may see it: to anyone else the check says only
    that it was entered, not where to look (a private table's game, say)."""
    seen: dict[str, int] = {}
    for number, fingerprint in enumerate(fingerprints, 1):
        if fingerprint in seen:
            earlier = results[seen[fingerprint] - 1].called(seen[fingerprint])
            later = results[number - 1].called(number)
            raise Conflict(
                phrase("{earlier} and {later} are the same game", earlier=earlier, later=later)
            )
        seen[fingerprint] = number
    known = session.execute(
        select(Result.id, Result.fingerprint).where(Result.fingerprint.in_(fingerprints))
    ).all()
    if not known:
        return
    shown: set[int] = set()
    if viewer is not None:
        ids = [rid for rid, _ in known]
        shown = set(
            session.scalars(select(Result.id).where(Result.id.in_(ids), visible_to(viewer)))
        )
    said = sorted((seen[str(fp)], rid) for rid, fp in known)
    if len(results) == 1 and not shown:
        raise Conflict(phrase("already entered (whatever the order of its seats)"))
    where = joined(
        [
            (
                phrase("{game} is result {number}", game=results[n - 1].called(n), number=rid)
                if len(results) > 1
                else phrase("result {number}", number=rid)
            )
            if rid in shown
            else results[n - 1].called(n)
            for n, rid in said
        ]
    )
    raise Conflict(
        phrase("already entered (whatever the order of its seats): {where}", where=where)
    )


def result_row(
    result: Checked,
    fingerprint: str,
    players: dict[str, Player],
    source: str,
    moment: datetime,
    actor: int | None,
    group: Group | None,
) -> Result:
    """A checked result as a new row (provisional: :func:`settle` says what confirms
    it), its seats linked to their players."""
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
        set=entry.top,
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
